"""``python -m mutation``: the value-mutation measurement of the construction
modules (docs/measurements/mutation.md).

    python -m mutation init [MODULE ...] [--operators value|value-b|pkg.mod:NAME]
    python -m mutation exec [-j 1] [--cpu 120] [--sample K --seed S]
    python -m mutation export [--merge]         # session -> mutation/results.json
    python -m mutation readme                   # the README table from the results file
    python -m mutation groups                   # REFUTED / wrong per construction group
    python -m mutation summary                  # per-module counts, survivors, crashes
    python -m mutation show ID                  # one mutant's diff and outcome
    python -m mutation reset KIND ...           # judge the mutants of these outcomes again
    python -m mutation variants [--cpu 600]     # evidence behind every valid variant

``--session FILE`` and ``--results FILE`` keep a measurement apart from the committed
one (mutants/session.sqlite, mutation/results.json): a re-measurement with another
operator set and seed writes its own files.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import date
from pathlib import Path

from mutation.scope import ROOT

SESSION = ROOT / "mutants" / "session.sqlite"


def _sample(db_path: Path, k: int, seed: int) -> int:
    """Keep ``k`` pending mutants per module (seeded), mark the others skipped."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        by = {}
        for it in db.pending_work_items:
            by.setdefault(it.mutations[0].definition_name.split(":")[0], []).append(it)
        rng = random.Random(seed)
        for items in by.values():
            items.sort(key=lambda it: (it.mutations[0].start_pos, it.mutations[0].operator_name))
            keep = {id(x) for x in rng.sample(items, min(k, len(items)))}
            for it in items:
                if id(it) not in keep:
                    db.set_result(it.job_id, WorkResult(output="not sampled",
                                                        worker_outcome=WorkerOutcome.SKIPPED))
        return sum(min(k, len(v)) for v in by.values())


def _reset(db_path: Path, kinds) -> int:
    """Drop the stored outcome of every mutant whose kind is in ``kinds`` (they are
    pending again: after a check was strengthened, only they need judging anew)."""
    from cosmic_ray.work_db import WorkDB, WorkResultStorage, use_db
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        ids = [it.job_id for it, res in db.completed_work_items
               if (res.output or "").startswith("{") and json.loads(res.output)["kind"] in kinds]
        with db._session_maker.begin() as session:
            session.query(WorkResultStorage).filter(WorkResultStorage.job_id.in_(ids)).delete()
    return len(ids)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m mutation", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cmd", choices=["init", "exec", "export", "readme", "groups", "summary",
                                     "show", "reset", "variants"])
    p.add_argument("args", nargs="*")
    p.add_argument("--session", type=Path, default=SESSION)
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--cpu", type=int, default=120, help="CPU seconds per mutant")
    p.add_argument("--sample", type=int, help="exec: at most K mutants per module")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--limit", type=int)
    p.add_argument("--merge", action="store_true",
                   help="export: keep the results file's rows of modules not in this session")
    p.add_argument("--operators", default="value",
                   help="init: the operator set (value, value-b, or package.module:NAME, a "
                   "list of cosmic-ray operator names)")
    p.add_argument("--results", type=Path, default=None,
                   help="the results file (default mutation/results.json)")
    a = p.parse_args(argv)
    sys.setrecursionlimit(10000)
    if a.cmd == "init":
        from mutation.run import init
        print(f"{init(a.session, a.args or None, a.operators)} mutants in {a.session}")
        return 0
    if a.cmd == "exec":
        from mutation.run import execute, write_session_meta
        if a.sample:
            print(f"sample: {_sample(a.session, a.sample, a.seed)} mutants")
            write_session_meta(a.session, {"sample": a.sample, "seed": a.seed})
        execute(a.session, jobs=a.jobs, cpu=a.cpu, limit=a.limit)
        return 0
    if a.cmd == "variants":
        from mutation.variants import run
        run(a.session, cpu=max(a.cpu, 600), results=a.results)
        return 0
    if a.cmd == "reset":
        print(f"{_reset(a.session, set(a.args))} mutants pending again")
        return 0
    from mutation import results as R
    results = a.results or R.RESULTS
    if a.cmd == "export":
        import cosmic_ray

        from mutation.run import session_meta
        sm = session_meta(a.session)
        meta = {"date": date.today().isoformat(), "harness": 2,
                "cosmic_ray": getattr(cosmic_ray, "__version__", "8.7.0"),
                "operators": sm.get("operators", "value")}
        if "seed" in sm:
            meta["sample_seed"] = sm["seed"]
        if a.args:
            meta["sample"] = " ".join(a.args)
        d = R.export(a.session, out=results, meta=meta, merge=a.merge)
        print(f"{len(d['mutants'])} mutants in {results}")
        return 0
    data = json.loads(results.read_text())
    if a.cmd == "readme":
        print(R.render_readme(data))
    elif a.cmd == "groups":
        if data.get("meta", {}).get("harness", 1) < 2:
            print("(a results file of the first harness: an exit 4 was counted as a crash, and "
                  "the seed 1.8 and causal constructions were not measured)")
        print(R.render_groups(data))
    elif a.cmd == "summary":
        for m, c in R.table(data):
            k, n = R.score(c)
            w = R.score_wrong(c)[1]
            print(f"{m:18s} {k:4d}/{n:<4d} wrong {k:4d}/{w:<4d} {dict(c)}")
        for i, why in R.survivors(data).items():
            r = data["mutants"][i]
            ev = data.get("variants", {}).get(i)
            print(f"{R._kind(data, i, r):17s} {i}\n    {r['diff']}\n    reason: {why}"
                  + (f"\n    evidence: {ev['rows_differ']} sweep rows differ, "
                     f"{ev['verified']}/{ev['commands']} wide commands VERIFIED, "
                     f"failed: {ev['failed']}" if ev else ""))
        for i, r in data["mutants"].items():
            if r["kind"] == "crash":
                print(f"crash {i}: {r['witness']}")
    elif a.cmd == "show":
        for i in a.args:
            print(json.dumps(data["mutants"][i], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
