"""Evidence behind every *valid variant* (``python -m mutation variants``).

A survivor whose reason says ``valid variant`` claims to be a well-formed,
correct, different network.  Both halves are checked mechanically, in a forked
child per mutant (as :mod:`mutation.run` judges mutants):

* **different**: the serialised output of at least one row of the fingerprint
  sweep (:func:`mutation.sweep.sweep`) differs from the unmutated one; the labels
  of the differing rows are recorded (an empty list would make it an equivalent,
  not a variant);
* **correct on a wider sweep**: every command of the module's checks
  (:data:`mutation.scope.CHECKS`) run on more instances than the kill commands
  use — the dataset-free ``lemma`` commands at seeds 0..3, and the dataset
  commands on :func:`wide_datasets` (every handed VERIFIED case, the edge
  datasets with one and with all targets, seeded datasets in d = 2..5 of every
  generator style with seeds the kill commands do not use) — must end VERIFIED
  (exit 0).  The first command that does not is recorded with its outcome.

A variant is *backed* when it differs on some sweep row and every wide command
is VERIFIED; only backed variants leave the "wrong" denominator
(:func:`mutation.results.score_wrong`).
"""
from __future__ import annotations

import hashlib
import json
import os
import resource
import time
from pathlib import Path

from mutation import scope

# the handed cases whose README verdict is VERIFIED
VERIFIED_CASES = ("overlap-2d.json", "nested-chain.json", "square-and-centre.json",
                  "singleton-and-full.json", "number-spellings.json", "shared-targets.json",
                  "big-rationals.json")
LEMMA_SEEDS = (0, 1, 2, 3)
# (seed, d, N, style): seeds the kill commands (40 + d) and the sweep (0..5) do not use
WIDE_SEEDED = [(s, d, n, st) for d in (2, 3, 4, 5)
               for s, n, st in ((100 + d, 5, ("mixed", "nested", "overlap", "union")[d - 2]),
                                (200 + d, 6, ("union", "overlap", "nested", "mixed")[d - 2]))]


def wide_datasets() -> list[Path]:
    """The handed VERIFIED cases found on this machine, then the edge datasets
    with all and with one target per pair, and the seeded datasets of
    :data:`WIDE_SEEDED` with all and with one target per pair, written once to
    ``mutants/datasets/wide/``."""
    from proofcheck.constructions.afz.edges import edge_datasets, held_leader_datasets, peel_spread, single_target
    from proofcheck.frontend.io.generate import random_dataset
    where = scope.cases_dir()
    out = [where / c for c in VERIFIED_CASES if (where / c).is_file()] if where else []
    seeded = [random_dataset(s, d=d, N=n, style=st) for s, d, n, st in WIDE_SEEDED]
    sets = edge_datasets() + seeded
    sets += [single_target(ds) for ds in sets] + held_leader_datasets() + [peel_spread()]
    return out + scope.write_datasets(sets, scope.ROOT / "mutants" / "datasets" / "wide")


_WIDE: dict[str, list[list[str]]] = {}


def wide_commands(module: str, passes=None) -> list[list[str]]:
    """The argument lists of the module's checks on the wider sweep: a
    dataset-free command at every seed of :data:`LEMMA_SEEDS`, a command with
    ``{case}``, ``{handed}`` or ``{kill}`` on every file of :func:`wide_datasets` (for
    ``{kill}`` only the files whose command ``passes``: the unmutated code VERIFIES it;
    decided once, before any mutant, and cached)."""
    if module in _WIDE:
        return _WIDE[module]
    files = [str(f) for f in wide_datasets()]
    out = []
    for argv in scope.CHECKS[module]:
        key = next((k for k in scope.KEYS if k in argv), None)
        if key is None:
            out += [list(argv) + ["--seed", str(s)] for s in LEMMA_SEEDS]
            continue
        exp = [[f if a == key else a for a in argv] for f in files]
        if key == "{kill}":
            if passes is None:
                raise RuntimeError("the wide kill datasets are decided by the unmutated code")
            exp = [a for a in exp if passes(a)]
        out += exp
    _WIDE[module] = out
    return out


def row_digests() -> dict[str, str]:
    """sha256 of each row of the fingerprint sweep, by label (the rows
    :func:`mutation.apply.fingerprint` hashes together)."""
    from mutation.apply import _guard, serialise
    from mutation.sweep import sweep
    return {label: hashlib.sha256(serialise(_guard(fn, *args, **kw)).encode()).hexdigest()
            for label, fn, args, kw in sweep()}


def evidence(module: str, base: dict[str, str]) -> dict:
    """In a process running the mutant: the sweep rows that differ from ``base``
    and the outcome of :func:`wide_commands`."""
    from mutation.run import judge_output, run_command
    rows = row_digests()
    differ = sorted(k for k, v in rows.items() if base.get(k) != v)
    cmds = wide_commands(module)
    failed, verified = None, 0
    for argv in cmds:
        res = judge_output(*run_command(argv))
        if res is not None:
            failed = {"kind": res[0], "command": " ".join(Path(a).name if "/" in a else a
                                                         for a in argv),
                      "witness": res[1][:300]}
            break
        verified += 1
    return {"differs_on": differ[:5], "rows_differ": len(differ), "commands": len(cmds),
            "verified": verified, "failed": failed}


def backed(ev: dict | None) -> bool:
    """A valid-variant claim is backed: its network differs on some sweep row
    and every wide command was VERIFIED."""
    return bool(ev) and ev["rows_differ"] > 0 and ev["failed"] is None \
        and ev["verified"] == ev["commands"]


def _child(spec, module, base, out_file: Path, cpu: int, mem: int) -> None:
    from mutation.apply import apply
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    t0 = time.process_time()
    try:
        res = evidence(module, base) if apply(spec) else {"failed": {"kind": "not-applied"}}
    except BaseException as e:  # noqa: BLE001
        res = {"rows_differ": 0, "commands": 0, "verified": 0,
               "failed": {"kind": "crash", "witness": f"{type(e).__name__}: {e}"[:300]}}
    res["cpu"] = round(time.process_time() - t0, 1)
    out_file.write_text(json.dumps(res))


def run(db_path: Path, cpu: int = 600, mem: int = 4 << 30, progress=print,
        results: Path | None = None) -> dict:
    """Gather the evidence of every valid variant of the results file (their
    specs from the session ``db_path``), one child at a time; store it under
    ``variants`` in the results file (with the mutant's diff, so a later export
    keeps it only for the same mutant)."""
    from cosmic_ray.work_db import WorkDB, use_db

    from mutation import results as R
    from mutation.run import judge_output, run_command
    results = results or R.RESULTS
    data = json.loads(results.read_text())
    want = {i for i, r in data["mutants"].items()
            if r["kind"] == "survived" and R.is_valid(data["reasons"].get(i))}
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        specs = {R.mutant_id(it.mutations[0]): it.mutations[0] for it, _ in db.completed_work_items}
    base = row_digests()
    from mutation.run import passes
    for m in sorted({data["mutants"][i]["module"] for i in want}):
        for argv in wide_commands(m, passes):  # the unmutated code passes every wide command
            res = judge_output(*run_command(argv))
            if res is not None:
                raise SystemExit(f"unmutated code fails {' '.join(argv)}: {res}")
    out = {}
    tmp = db_path.parent / f"variants-{os.getpid()}.json"
    for n, i in enumerate(sorted(want), 1):
        if i not in specs:
            out[i] = {"rows_differ": 0, "commands": 0, "verified": 0,
                      "failed": {"kind": "missing", "witness": "mutant not in the session"}}
            continue
        pid = os.fork()
        if pid == 0:
            try:
                _child(specs[i], data["mutants"][i]["module"], base, tmp, cpu, mem)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        ev = json.loads(tmp.read_text()) if tmp.exists() else {
            "rows_differ": 0, "commands": 0, "verified": 0,
            "failed": {"kind": "timeout", "witness": f"child ended with status {status}"}}
        tmp.unlink(missing_ok=True)
        ev["diff"] = data["mutants"][i]["diff"]
        out[i] = ev
        progress(f"{n}/{len(want)} {'backed' if backed(ev) else 'NOT backed':10s} {i} "
                 f"({ev.get('verified')}/{ev.get('commands')} VERIFIED, "
                 f"{ev.get('rows_differ')} rows differ, {ev.get('cpu')} s)")
    data["variants"] = dict(sorted(out.items()))
    results.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return out
