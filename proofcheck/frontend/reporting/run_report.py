"""Theorem run reports: ``reports/theorem-<id>-<dataset>.md`` and ``.json``.

Written atomically (temporary file, then rename) after the verdict is known, so
an interrupted or rejected run leaves nothing half-written.
"""
from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

from proofcheck.frontend.io.files import atomic_write, slug
from proofcheck.frontend.io.provenance import provenance
from proofcheck.kernel.dataset import digest
from proofcheck.kernel.low_rank import rank_of
from proofcheck.kernel.model import Transformer
from proofcheck.kernel.numbers import format_q
from proofcheck.kernel.verdicts import fmt_num, fmt_value
from proofcheck.frontend.reporting.theta import theta_json, theta_markdown
from proofcheck.kernel.verdicts import plural


def _json_value(v) -> str:
    """A report value JSON has no type for: a Fraction as its exact ``p/q`` (any size,
    without CPython's 4300-digit limit), anything else as ``str``."""
    return format_q(v) if isinstance(v, Fraction) else str(v)


def dataset_max_bits(ds) -> int:
    """Largest bit size of any coordinate of ``ds`` (inputs and outputs); 0 if none."""
    return max((max(c.numerator.bit_length(), c.denominator.bit_length()) for p in ds.pairs
                for seq in (p.inputs, p.outputs) for tok in seq for c in tok), default=0)


def _witness_json(w) -> dict | None:
    """A witness's fields, ``expected``/``got`` as exact text (``head`` only when set)."""
    return None if w is None else {k: (fmt_value(v) if k in ("expected", "got") and v is not None
                                       else v) for k, v in w.__dict__.items()
                                   if k != "head" or v is not None}


def layer_table(net: Transformer) -> list[dict]:
    """Per block: phase, FF label/width/rank(U), SA label/rank(A)/rank(V)."""
    rows = []
    cache = {}
    for i, b in enumerate(net.blocks, start=1):
        key = (b.ff.label, b.ff.width, b.sa.label)
        if b.sa.is_identity and key in cache:
            ra, rv = cache[key]
        else:
            ra = max(rank_of(A.dense(net.d)) for A, _ in b.sa.heads)  # largest over heads
            rv = max(rank_of(V.dense(net.d)) for _, V in b.sa.heads)
            cache[key] = (ra, rv)
        ext = {**({"heads": b.sa.H} if b.sa.H > 1 else {}),
               **({"causal": True} if b.sa.causal else {})}  # docs/spec.md §1 "Extensions", when used
        rows.append({"block": i, "phase": b.phase, "ff": b.ff.label, "width": b.ff.width,
                     "rank_U": rank_of([list(u) for u in b.ff.U]) if b.ff.U else 0, "sa": b.sa.label, "rank_A": ra, "rank_V": rv,
                     "params": b.ff.n_params() + b.sa.n_params(), **ext})
    return rows


def _summary(layers: list[dict]) -> list[tuple]:
    groups = Counter((r["phase"], r["ff"], r["width"], r["rank_U"], r["sa"], r["rank_A"],
                      r["rank_V"]) for r in layers)
    first = {}
    for r in layers:
        k = (r["phase"], r["ff"], r["width"], r["rank_U"], r["sa"], r["rank_A"], r["rank_V"])
        first.setdefault(k, r["block"])
    return sorted(((first[k],) + k + (n,) for k, n in groups.items()))


def theorem_report(statement: str, dataset, tc, verdict, extra: dict | None = None) -> dict:
    """The JSON form of a theorem run (``tc``: ``TheoremCheck``)."""
    nc = tc.network_check
    layers = layer_table(tc.construction.net)
    mult = [list(m.values()) for m in nc.multiplicities]
    info = tc.construction.info
    return {
        "format": "proofcheck-report/1",
        "statement": statement,
        "verdict": verdict.value,
        "provenance": provenance(),
        "dataset": {"name": dataset.name, "sha256": digest(dataset), "N": dataset.N,
                    "M": dataset.M, "d": dataset.d, "tokens": dataset.n_tokens,
                    "max_bits": dataset_max_bits(dataset), "notes": list(dataset.notes), **(extra or {})},
        "checks": [{"name": r.name, "verdict": r.verdict.value, "details": r.details,
                    "witness": _witness_json(r.witness)} for r in tc.results],
        "constants": tc.constants,
        **({"attention": {"mask": info["attention"], "reading": info["reading"]}}
           if "attention" in info else {}),
        "theta_sq_norm": theta_json(tc.construction.net),
        "construction": {"name": tc.constants.get("construction", "default"),
                         **({"u": [fmt_value(x) for x in info["u"]],
                             "tag_lambdas": [fmt_value(x) for x in info["lambdas"]],
                             "classes_after_first_tag": info["classes_after_first_tag"],
                             **{key: fmt_value(info[key]) for key in ("r", "beta", "mu")
                                if key in info},
                             "k": [fmt_value(x) for x in info["k"]]}
                            if "lambdas" in info else {}),
                         "choices": dict(info.get("report", {})),
                         "phases": tc.construction.phases},
        "layers": layers,
        "multiplicities": {"min": min((min(m) for m in mult), default=0),
                           "max": max((max(m) for m in mult), default=0),
                           "per_pair": mult},
        "seconds": {k: round(v, 4) for k, v in tc.seconds.items()},
    }


def markdown(rep: dict) -> str:
    ds, c, p = rep["dataset"], rep["constants"], rep["provenance"]
    att = rep.get("attention", {})
    mask = f" under a causal mask (reading {att['reading']})" if att.get("mask") == "causal" else ""
    lines = [f"# Theorem {rep['statement']}{mask} on `{ds['name']}` — {rep['verdict']}", "",
             f"proofcheck {p['version']} (commit {p['commit'] or 'n/a'}), Python {p['python']}, "
             + ", ".join(f"{k} {v}" for k, v in p["libraries"].items()) + f"; {p['time']}", "",
             "## Dataset", "",
             f"- name `{ds['name']}`, SHA-256 `{ds['sha256']}`",
             f"- N = {plural(ds['N'], 'pair')}, M = {plural(ds['M'], 'target token')}, "
             f"d = {ds['d']}, {plural(ds['tokens'], 'input token')}, largest rational {ds['max_bits']} bits"]
    for k in ("images_total", "duplicates_dropped", "task"):
        if k in ds:
            lines.append(f"- {k.replace('_', ' ')}: {ds[k]}")
    lines += [f"- note: {n}" for n in ds["notes"]]
    lines += ["", "## Checks", ""]
    for r in rep["checks"]:
        lines.append(f"- **{r['verdict']}** {r['name']}")
        lines += [f"  - {d}" for d in r["details"]]
        if r["witness"]:
            w = r["witness"]
            lines.append("  - witness: " + ", ".join(f"{k} = {v}" for k, v in w.items() if v is not None))
    r_claim = c.get("R_claim", f"<= N - 1 = {c['N'] - 1}")
    lines += ["", "## Constants (claimed vs measured)", "",
              "| quantity | measured | claimed |", "|---|---|---|",
              f"| blocks L | {c['L']} | {c.get('block_formula', '2M + R + 1')} = "
              f"{c['L_construction']} (construction {c.get('construction', 'default')}); "
              f"2M + 2N + 1 = {c['L_paper_hardmax']} (Theorem 1.6) |",
              f"| separation rounds R | {c['R']} | {r_claim} |",
              f"| max width | {c['max_width']} | <= 4 |",
              f"| parameters P | {c['P']} | "
              + c.get("P_claim", f"{c.get('param_formula_text', '(16d+16)M + (10d+8)R + 6d + 5')}"
                      f" = {c['P_formula']}; <= {c.get('param_constant')} d M = {c.get('P_bound')}")
              + " |",
              f"| squared parameter norm ‖θ\\*‖² | ≈ {rep['theta_sq_norm']['approx']} (exact in the JSON) | "
              "J(θ\\*) = 0, so min J + ε‖θ‖² ≤ ε‖θ\\*‖² (tikhonov) |",
              f"| largest rational in the network | {c['max_bits']} bits | |",
              f"| output multiplicity per target | {rep['multiplicities']['min']}..{rep['multiplicities']['max']} | >= 1 |",
              "", "## Layers (grouped)", "",
              "| first block | phase | FF | width | rank U | SA | rank A | rank V | blocks |",
              "|---|---|---|---|---|---|---|---|---|"]
    for row in _summary(rep["layers"]):
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
    lines += ["", "## Construction", ""]
    con = rep["construction"]
    if "u" in con:
        lines += [f"- u = ({', '.join(con['u'])}); "
                  f"{con['classes_after_first_tag']} classes after the first tag",
                  f"- tag factors lambda: {', '.join(con['tag_lambdas'])}",
                  "- " + "".join(f"{key} = {con[key]}, " for key in ("r", "mu") if key in con)
                  + f"k = ({', '.join(con['k'])})"]
    lines += [f"- {key}: {val}" for key, val in con.get("choices", {}).items()]
    lines += recheck_markdown(rep)
    lines += ["", "## Time (seconds)", ""]
    lines += [f"- {k}: {v}" for k, v in rep["seconds"].items()]
    return "\n".join(lines) + "\n"


def recheck_markdown(rep: dict) -> list[str]:
    """The "Kernel re-check" section: the verdict of the trusted kernel on the run's
    certificate (the report's verdict) and the run's own verdict beside it."""
    k = rep.get("kernel_recheck")
    if not k:
        return []
    return (["", "## Kernel re-check", "",
             f"`verify_certificate` on the run's certificate: **{k['verdict']}** (the run's "
             f"own checks: {k['run_verdict']})", "", "```"] + k["lines"] + ["```"])


def report_base(out_dir, statement: str, dataset_name: str, *, causal: bool = False,
                construction: str = "default") -> Path:
    """The path of a theorem run's report files without the suffix (``.md``, ``.json``;
    1.8 also ``.png``): ``theorem-<id>-<dataset>`` for the default construction,
    ``theorem-<id>-<dataset>-<construction>`` for another (``theorem-1.6-digits-peel``),
    so that runs of different constructions on one dataset keep their own reports; 1.6
    under a causal mask: ``theorem-1.6-causal-<dataset>[-<construction>]``."""
    masked = "causal-" if causal and statement != "1.8" else ""
    named = "" if construction == "default" else f"-{slug(construction)}"
    return Path(out_dir) / f"theorem-{statement}-{masked}{slug(dataset_name)}{named}"


def report_paths(out_dir, statement: str, dataset_name: str, **kw) -> list[Path]:
    """Every file a theorem run's report writes (:func:`report_base`)."""
    base = report_base(out_dir, statement, dataset_name, **kw)
    return [Path(f"{base}{ext}") for ext in (".md", ".json") + ((".png",) if statement == "1.8"
                                                                  else ())]


def write_theorem_report(out_dir, rep: dict) -> tuple[Path, Path]:
    """Write ``theorem-<id>-<dataset>.md`` and ``.json`` under ``out_dir``
    (:func:`report_base`: the construction's name after the dataset's when it is not
    the default; a run under a causal mask: ``theorem-<id>-causal-<dataset>``)."""
    base = report_base(out_dir, rep["statement"], rep["dataset"]["name"],
                       causal=rep.get("attention", {}).get("mask") == "causal",
                       construction=rep["constants"].get("construction", "default"))
    md, js = Path(f"{base}.md"), Path(f"{base}.json")
    atomic_write(js, json.dumps(rep, indent=1, default=_json_value) + "\n")
    atomic_write(md, markdown(rep))
    return md, js


def softmax_report(dataset, sc, verdict, extra: dict | None = None, tau_given=None) -> dict:
    """The JSON form of a Theorem 1.8 run (``sc``: ``SoftmaxCheck``)."""
    f = lambda v: None if v is None else fmt_value(v)  # noqa: E731
    cert = sc.certificate
    return {
        "format": "proofcheck-report/1",
        "statement": "1.8",
        "verdict": verdict.value,
        "provenance": provenance(),
        "dataset": {"name": dataset.name, "sha256": digest(dataset), "N": dataset.N,
                    "M": dataset.M, "d": dataset.d, "tokens": dataset.n_tokens,
                    "max_bits": dataset_max_bits(dataset), "notes": list(dataset.notes), **(extra or {})},
        "tau_given": f(tau_given),
        "tau_cert": f(sc.tau_cert), "tau_free": sc.tau_free, "search_note": sc.search_note,
        "floor_note": sc.floor_note,
        "tau_closed": f(sc.tau_closed),
        "tau_closed_certified": sc.tau_closed_certified.value if sc.tau_closed_certified else None,
        "tau_num": f(sc.tau_num), "tau_num_note": sc.tau_num_note,
        "simulation_audit": sc.simulation.lines(sc.tau_cert) if sc.simulation else [],
        "construction": sc.results[0].details[0] if sc.results else None,
        "construction_name": getattr(sc, "construction_name", "default"),
        "construction_notes": sc.results[0].details[1:] if sc.results else [],
        "comparison": [{k: (fmt_value(v) if isinstance(v, Fraction) else v) for k, v in r.items()}
                       for r in getattr(sc, "comparison", [])],
        "trials": [[fmt_value(t), v.value] for t, v in sc.trials],
        "simulation": [[fmt_value(t), str(e)] for t, e in sc.sim_curve],
        "checks": [{"name": r.name, "verdict": r.verdict.value, "details": r.details,
                    "witness": _witness_json(r.witness)} for r in sc.results],
        "constants": sc.constants,
        "theta_sq_norm": theta_json(sc.construction.net),
        "bounds": [b.to_json() for b in cert.bounds if b.sublayer == "SA" and b.max_eps is not None],
        "straddles": sum(b.straddles for b in cert.bounds),
        "seconds": {k: round(v, 4) for k, v in sc.seconds.items()},
    }


def softmax_markdown(rep: dict, png_name: str | None) -> str:
    ds, c, p = rep["dataset"], rep["constants"], rep["provenance"]
    fl = lambda v: "n/a" if v is None else fmt_num(Fraction(v))  # noqa: E731
    tau_line = ("every tau > 0 (no token has an attention competitor)" if rep.get("tau_free")
                else f"{fl(rep['tau_cert'])} — certified: covers every tau in (0, tau_cert]")
    lines = [f"# Theorem 1.8 on `{ds['name']}` — {rep['verdict']}", "",
             f"proofcheck {p['version']} (commit {p['commit'] or 'n/a'}), Python {p['python']}, "
             + ", ".join(f"{k} {v}" for k, v in p["libraries"].items()) + f"; {p['time']}", "",
             f"Softmax attention at temperature tau on the network of construction "
             f"`{rep.get('construction_name', 'default')}` (not Theorem 1.6's network; see the "
             "construction lines). A certificate at "
             "tau encloses every token in a box around its exact hardmax value, valid for every "
             "tau' in (0, tau] (all bounds grow with tau); it passes only if every final box is a "
             "single point equal to a target.", "",
             f"- {rep.get('construction') or ''}",
             *[f"  - {n}" for n in rep.get("construction_notes", [])],
             f"- dataset `{ds['name']}` (SHA-256 `{ds['sha256']}`): N = {ds['N']}, M = {ds['M']}, "
             f"d = {ds['d']}, {ds['tokens']} tokens",
             f"- **tau_cert** = {tau_line}"]
    if rep.get("search_note"):
        lines.append(f"  - search: {rep['search_note']}")
    if rep.get("floor_note"):
        lines.append(f"  - {rep['floor_note']}")
    lines += [f"- tau_closed = {fl(rep['tau_closed'])} (closed-form estimate from the minimum "
              f"gap; its certificate: {rep['tau_closed_certified']})",
              f"- tau_num = {fl(rep['tau_num'])} (mpmath simulation: an audit, not a proof; it "
              "never changes the verdict)"]
    lines += [f"  - {line}" for line in rep.get("simulation_audit", [])]
    lines += [f"- L = {c['L']} blocks (construction {c.get('construction', 'default')}: "
              f"{c.get('block_formula', '2M + R + 1')}; the seed's count "
              f"2M + 3N = {c['L_paper_softmax']}), width {c['max_width']}, P = {c['P']} "
              "parameters", f"- {theta_markdown(rep['theta_sq_norm'])}", ""]
    if rep.get("comparison"):
        lines += ["Side by side on this dataset (first row: this run; the others: tau_cert "
                  "searched, no simulation):", "",
                  "| construction | verdict | L | P | ‖θ\\*‖² | minus the first row's | tau_cert | "
                  "seconds |", "|---|---|---|---|---|---|---|---|"]
        lines += [f"| {r['construction']} | {r['verdict']} | {r['L']} | {r['P']} | "
                  f"{fl(r['theta_sq_norm'])} | {fl(r['theta_sq_diff'])} | {fl(r['tau_cert'])} | "
                  f"{r['seconds']:.2f} |" for r in rep["comparison"]] + [""]
    if png_name:
        lines += [f"![certified range of tau and simulated error]({png_name})", ""]
    lines += ["## Checks", ""]
    for r in rep["checks"]:
        lines.append(f"- **{r['verdict']}** {r['name']}")
        lines += [f"  - {d}" for d in r["details"]]
        if r["witness"]:
            lines.append("  - witness: " + ", ".join(
                f"{k} = {fmt_num(Fraction(v)) if k in ('expected', 'got') and _is_q(v) else v}"
                for k, v in r["witness"].items() if v is not None))
    lines += ["", "## Softmax layers at the certified tau", "",
              "| block | min certified gap | off-argmax mass bound eps | max box width after |",
              "|---|---|---|---|"]
    for b in rep["bounds"][:200]:
        lines.append(f"| {b['block']} | {fl(b['min_gap'])} | {fl(b['max_eps'])} | "
                     f"{fl(b['max_width'])} |")
    if len(rep["bounds"]) > 200:
        lines.append(f"| ... | {len(rep['bounds']) - 200} more layers in the JSON | | |")
    lines += ["", f"Boxes straddling an FF kink: {rep['straddles']}.", "",
              "## Search", "", "| tau | certificate |", "|---|---|"]
    lines += [f"| {fl(t)} | {v} |" for t, v in rep["trials"]]
    lines += recheck_markdown(rep)
    lines += ["", "## Time (seconds)", ""] + [f"- {k}: {v}" for k, v in rep["seconds"].items()]
    return "\n".join(lines) + "\n"


def _is_q(v) -> bool:
    try:
        Fraction(v)
        return True
    except (TypeError, ValueError, ZeroDivisionError):
        return False


def write_softmax_report(out_dir, rep: dict, sc) -> tuple[Path, Path, Path | None]:
    from proofcheck.frontend.reporting.plots import softmax_error_plot
    base = report_base(out_dir, "1.8", rep["dataset"]["name"],
                       construction=rep.get("construction_name", "default"))
    png = Path(f"{base}.png")
    softmax_error_plot(png, sc.sim_curve, sc.trials, sc.tau_cert, sc.tau_num,  # atomic
                       f"Theorem 1.8 on {rep['dataset']['name']}", tau_free=sc.tau_free,
                       simulation=sc.simulation)
    md, js = Path(f"{base}.md"), Path(f"{base}.json")
    atomic_write(js, json.dumps(rep, indent=1, default=_json_value) + "\n")
    atomic_write(md, softmax_markdown(rep, png.name))
    return md, js, png
