"""The results file (``mutation/results.json``) and the README's score table,
rendered from it (as the bench tables are from bench/results.json).

The file holds one row per mutant (module, function, operator, line, diff,
outcome, the command and witness that decided it) and ``reasons``: for every
survivor, why it is left (filled in by hand, keyed by mutant id; a survivor
without a reason fails the tests).
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from mutation.run import KILLS, MISSES
from mutation.scope import GROUPS, MODULES, ROOT, functions

RESULTS = ROOT / "mutation" / "results.json"


def mutant_id(spec) -> str:
    """A stable id: module:function:operator:line:column:occurrence."""
    return (f"{spec.definition_name}:{spec.operator_name.split('/')[1]}:"
            f"{spec.start_pos[0]}:{spec.start_pos[1]}:{spec.occurrence}")


def export(db_path: Path, out: Path = RESULTS, meta: dict | None = None,
           merge: bool = False) -> dict:
    """Rows of every completed mutant of the session into ``out`` (``merge``: the
    file's rows of other modules kept, for a session of some modules only);
    ``reasons`` from the rules of :mod:`mutation.reasons`."""
    from cosmic_ray.work_db import WorkDB, use_db
    old = json.loads(out.read_text()) if out.exists() else {}  # its meta is kept
    rows, in_scope = {}, {}
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.output is None or not result.output.startswith("{"):
                continue
            spec = item.mutations[0]
            res = json.loads(result.output)
            module, fn = spec.definition_name.split(":")
            if fn not in in_scope.setdefault(module, set(functions(module))):
                continue  # check code since listed in mutation.scope (not measured)
            rows[mutant_id(spec)] = {
                "module": module, "function": fn, "operator": spec.operator_name,
                "line": spec.start_pos[0], "kind": res["kind"],
                "command": res.get("command"), "witness": res.get("witness"),
                "cpu": res.get("cpu"),
                "diff": "\n".join(x for x in (result.diff or "").splitlines()
                                  if x[:1] in "+-" and x[:3] not in ("+++", "---"))}
    from mutation.reasons import reason
    given = {}
    for i, r in rows.items():
        if r["kind"] in ("survived", "inconclusive", "timeout"):
            why = reason(r)
            if why:
                given[i] = why
    if merge:  # keep the rows of the modules this session did not measure
        mine = {r["module"] for r in rows.values()}
        rows = {**{i: r for i, r in old.get("mutants", {}).items() if r["module"] not in mine},
                **rows}
        for i, r in rows.items():
            if r["kind"] in ("survived", "inconclusive", "timeout") and i not in given \
                    and reason(r):
                given[i] = reason(r)
    # evidence of the valid variants (python -m mutation variants), kept for the
    # same mutant (same id and diff) while it is still a survivor
    kept = kept_variants(old.get("variants", {}), rows)
    data = {"meta": {**old.get("meta", {}), **(meta or {})}, "mutants": rows,
            "reasons": dict(sorted(given.items())), "variants": dict(sorted(kept.items()))}
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


def kept_variants(variants: dict, rows: dict) -> dict:
    """The stored evidence (``variants``) of the mutants that are still
    survivors in ``rows`` with the same diff (evidence about another mutant,
    or about one since killed, is dropped)."""
    return {i: ev for i, ev in variants.items()
            if i in rows and rows[i]["kind"] == "survived" and ev.get("diff") == rows[i]["diff"]}


def is_valid(why: str | None) -> bool:
    """The reason claims a valid variant (a correct, different network)."""
    return (why or "").startswith("valid variant")


def _kind(data: dict, i: str, r: dict) -> str:
    """The row's kind; a survivor is split by its reason and evidence:
    ``survived-valid`` (a valid variant backed by :mod:`mutation.variants`),
    ``survived-unbacked`` (claimed valid, evidence missing or failed),
    ``survived-not`` (not caught)."""
    if r["kind"] != "survived":
        return r["kind"]
    why = data.get("reasons", {}).get(i)
    if is_valid(why):
        from mutation.variants import backed
        ev = data.get("variants", {}).get(i)
        return "survived-valid" if backed(ev) and ev.get("diff") == r["diff"] \
            else "survived-unbacked"
    return "survived-not" if (why or "").startswith("not caught") else "survived"


def table(data: dict) -> list[tuple[str, Counter]]:
    """Per module (then ``all``), the count of each kind."""
    per = {m: Counter() for m in MODULES}
    for i, r in data["mutants"].items():
        per.setdefault(r["module"], Counter())[_kind(data, i, r)] += 1
    tot = Counter()
    for c in per.values():
        tot.update(c)
    return [(m, c) for m, c in per.items() if c] + [("all", tot)]


def group_table(data: dict) -> list[tuple[str, Counter]]:
    """Per construction group of :data:`mutation.scope.GROUPS` (then ``all``), the
    count of each kind over its modules."""
    per = dict(table(data))
    out = []
    for g, mods in GROUPS.items():
        c = Counter()
        for m in mods:
            c.update(per.get(m, Counter()))
        if c:
            out.append((g, c))
    return out + [("all", per["all"])]


def verified_wrong(c: Counter) -> int:
    """Wrong mutants every command passed (VERIFIED): survivors that are not backed
    valid variants."""
    return c["survived-not"] + c["survived"] + c["survived-unbacked"]


def render_groups(data: dict) -> str:
    """The per-group table: REFUTED / wrong, the misses by kind, and wrong networks
    VERIFIED by every command."""
    out = ["| group | mutants | equivalent | wrong | REFUTED (kills) | **REFUTED / wrong** "
           "| exit 4 (miss) | INCONCLUSIVE (miss) | VERIFIED wrong (survived) | crash (not "
           "counted) | timeout |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for g, c in group_table(data):
        k, w = score_wrong(c)
        name = f"**{g}**" if g == "all" else g
        out.append(f"| {name} | {sum(c.values())} | {c['equivalent']} | {w} | {k} | "
                   f"{_pct(k, w)} | {sum(c[m] for m in MISSES)} | {c['inconclusive']} | "
                   f"{verified_wrong(c)} | {c['crash']} | {c['timeout']} |")
    return "\n".join(out)


def score(c: Counter) -> tuple[int, int]:
    """(killed, non-equivalent value mutants): crashes, which are not value
    mutants of a well-typed program, and mutants outside any function
    (``not-applied``) are left out of both; every survivor, valid variant or
    not, counts against the score (equivalence is shown only by the fingerprint)."""
    killed = sum(c[k] for k in KILLS)
    return killed, sum(c.values()) - c["equivalent"] - c["crash"] - c["not-applied"]


def score_wrong(c: Counter) -> tuple[int, int]:
    """(killed, wrong mutants): the non-equivalent ones less the valid variants
    whose claim is backed (different on the sweep, VERIFIED on the wide sweep:
    :func:`mutation.variants.backed`); an unbacked claim stays wrong."""
    killed, n = score(c)
    return killed, n - c["survived-valid"]


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} = {100 * k / n:.1f} %" if n else "-"


def render_readme(data: dict) -> str:
    """The README block between ``<!-- mutation:begin -->`` and ``<!-- mutation:end -->``."""
    meta = data.get("meta", {})
    harness2 = meta.get("harness", 1) >= 2   # exit 4 a miss, every construction, groups
    out = ["<!-- mutation:begin -->",
           "<!-- generated by `python -m mutation readme` from mutation/results.json; do not edit by hand -->",
           "",
           f"Value mutants of the construction modules ({meta.get('date', '?')}, "
           f"{meta.get('sample', 'every mutant')}; "
           + (f"operator set {meta.get('operators', 'value')}, sample seed "
              f"{meta.get('sample_seed', '-')}; " if harness2 else "")
           + f"cosmic-ray {meta.get('cosmic_ray', '?')}; "
           "mutants = equivalent + non-equivalent + crash + not applied, the last changing no "
           "function's code; wrong = non-equivalent - backed valid variants):",
           "",
           "| module | mutants | equivalent | non-equivalent | REFUTED (value witness) | REFUTED "
           "(raised on an admissible input) | ParameterError | killed / non-equivalent "
           "| valid variant (backed) | wrong | **killed / wrong** | crash (not counted) "
           "| timeout | valid claim not backed | survived: not caught |"
           + (" exit 4 (miss) |" if harness2 else ""),
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
           + ("---|" if harness2 else "")]
    for m, c in table(data):
        k, n = score(c)
        _, w = score_wrong(c)
        name = f"**{m}**" if m == "all" else m
        out.append(f"| {name} | {sum(c.values())} | {c['equivalent']} | {n} | {c['refuted']} | "
                   f"{c['raised']} | {c['rejects']} | {_pct(k, n)} | {c['survived-valid']} | "
                   f"{w} | {_pct(k, w)} | {c['crash']} | {c['timeout']} | "
                   f"{c['survived-unbacked']} | "
                   f"{c['survived-not'] + c['survived'] + c['inconclusive']} |"
                   + (f" {sum(c[x] for x in MISSES)} |" if harness2 else ""))
    if harness2:
        out += ["", "Per construction group (REFUTED / wrong; an exit 4 or INCONCLUSIVE after a "
                "wrong network is a miss):", "", render_groups(data)]
    out += ["", *_variants_lines(data), "", "<!-- mutation:end -->"]
    return "\n".join(out)


def _variants_lines(data: dict) -> list[str]:
    """The evidence behind the valid variants (python -m mutation variants)."""
    from mutation.variants import backed
    claimed = [i for i, r in data["mutants"].items()
               if r["kind"] == "survived" and is_valid(data.get("reasons", {}).get(i))]
    ev = data.get("variants", {})
    ok = [i for i in claimed if _kind(data, i, data["mutants"][i]) == "survived-valid"]
    runs = sum(ev[i]["verified"] for i in ok)
    rows = sorted(ev[i]["rows_differ"] for i in ok)
    out = [f"Valid variants: {len(ok)} of {len(claimed)} claimed are backed (`python -m "
           "mutation variants`): each builds a network different from the unmutated one on "
           f"at least one sweep row ({rows[0] if rows else 0} to {rows[-1] if rows else 0} "
           "rows differ) and is VERIFIED by every command of its module on the wide sweep "
           "(dataset-free lemmas at seeds 0..3; every handed VERIFIED case, the edge and "
           "wider seeded datasets in d = 2..5, each also with one target per pair): "
           f"{runs} VERIFIED runs in all."]
    for i in sorted(set(claimed) - set(ok)):
        f = (ev.get(i) or {}).get("failed") or {}
        out.append(f"Not backed: `{i}`: " + (
            "no evidence" if i not in ev else
            "same network on every sweep row" if not ev[i]["rows_differ"] else
            f"{f.get('kind')} by `{f.get('command')}`"))
    return out


def survivors(data: dict) -> dict:
    """Survivors and inconclusive mutants with their reason (None when missing)."""
    return {i: data["reasons"].get(i) for i, r in data["mutants"].items()
            if r["kind"] in ("survived", "inconclusive", "timeout")}
