"""The mutation session: generate the mutants (cosmic-ray work items), replay
each in a forked child with bounded CPU time and memory, classify it, and store
the outcome in the cosmic-ray session and in the results file.

Classification of one mutant (the first check of :data:`mutation.scope.CHECKS`
that refutes it decides; a mutant nothing refutes is then fingerprinted):

* ``refuted``: a command printed REFUTED with a witness about values, form, a
  proof or a stated conclusion;
* ``raised``: REFUTED because the construction raised on an admissible input
  (the witness names the input and the exception: the constructive claim fails
  there); counted as a kill;
* ``rejects``: the routine's own ``ParameterError`` naming the parameter;
* ``crash``: REFUTED because the construction raised a Python type-level exception
  (TypeError, AttributeError, NameError: the mutant is not a well-typed program);
  reported, not counted either way;
* ``exit-4``: no command refuted and one ended with exit 4 (internal error or
  resource limit) on the mutant's wrong network: a MISS — it counts in the
  denominators and not as a kill (a wrong network must end REFUTED);
* ``timeout``: the child exceeded its CPU or wall budget;
* ``equivalent``: every command passed and the fingerprint
  (:func:`mutation.apply.fingerprint`) equals the unmutated one: the built
  networks are unchanged on the sweep;
* ``survived``: every command passed and the built networks differ somewhere on
  the sweep (listed with a reason in the results file's ``reasons``);
* ``inconclusive``: no command refuted but one was INCONCLUSIVE (fail closed,
  not a kill).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import signal
import time
import uuid
from pathlib import Path

from mutation import scope

KILLS = ("refuted", "raised", "rejects")
#: outcomes that are misses of a wrong construction (counted, not killed)
MISSES = ("exit-4",)
WALL_FACTOR = 10  # wall seconds per CPU second of budget before a child is killed (shared CPUs)
# type-level exceptions: the mutant is not a well-typed program (an
# UnboundLocalError, a loop that never ran, is a value's consequence: raised)
PYTHON_CRASH = ("TypeError", "AttributeError", "NameError", "SyntaxError", "RecursionError")
RAISED = re.compile(r"construction raised on an? (?:admissible|valid) input \(?(\w+)")


# --------------------------------------------------------------------------- generation

def work_items(modules=None, operators=None):
    """cosmic-ray ``WorkItem``\\s of the value operators (``operators``: cosmic-ray
    operator names, default :data:`mutation.operators.VALUE_OPERATORS`) inside the
    construction functions of ``modules`` (default: all of
    :data:`mutation.scope.MODULES`)."""
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast_from_path
    from cosmic_ray.work_item import MutationSpec, WorkItem

    from mutation.operators import VALUE_OPERATORS, register
    register()
    for m in modules or scope.MODULES:
        path = scope.MODULES[m][0]
        spans = scope.functions(m)
        tree = get_ast_from_path(scope.ROOT / path)
        for name in operators or VALUE_OPERATORS:
            op = cosmic_ray.plugins.get_operator(name)()
            occ = 0
            for node in ast_nodes(tree):
                for start, end in op.mutation_positions(node):
                    fn = next((f for f, (a, b) in spans.items() if a <= start[0] <= b), None)
                    if fn is not None:
                        spec = MutationSpec(module_path=path, operator_name=name, operator_args={},
                                            occurrence=occ, start_pos=start, end_pos=end,
                                            definition_name=f"{m}:{fn}")
                        yield WorkItem.single(job_id=uuid.uuid4().hex, mutation=spec)
                    occ += 1


def init(db_path: Path, modules=None, operators: str = "value") -> int:
    """Create the session ``db_path`` (cosmic-ray's work database) with the mutants of
    the operator set ``operators`` (:func:`mutation.operators.operator_set`), recorded
    beside it (:func:`session_meta`)."""
    from cosmic_ray.work_db import WorkDB, use_db

    from mutation.operators import operator_set
    names = operator_set(operators)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    write_session_meta(db_path, {"operators": operators})
    with use_db(str(db_path), WorkDB.Mode.create) as db:
        db.clear()
        db.add_work_items(work_items(modules, names))
        return db.num_work_items


def _meta_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".meta.json")


def session_meta(db_path: Path) -> dict:
    """What the session was made with (operator set, sample seed), ``{}`` if unknown;
    an external operator set's module is imported (it may register its provider)."""
    f = _meta_path(db_path)
    meta = json.loads(f.read_text()) if f.exists() else {}
    if ":" in meta.get("operators", ""):
        from mutation.operators import operator_set
        operator_set(meta["operators"])
    return meta


def write_session_meta(db_path: Path, update: dict) -> None:
    f = _meta_path(db_path)
    meta = json.loads(f.read_text()) if f.exists() else {}
    f.write_text(json.dumps({**meta, **update}, indent=1, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- judging

def run_command(argv) -> tuple[int, str, str]:
    """``python -m proofcheck ARGV`` in this process: (exit code, stdout, stderr)."""
    from proofcheck.frontend.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def judge_output(code: int, out: str, err: str) -> tuple[str, str] | None:
    """``(kind, witness)`` of one command's outcome, or None when it passed."""
    if code == 0:
        return None
    if code == 1:
        lines = out.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("[REFUTED]"):
                wit = next((w.strip()[len("witness: "):] for w in lines[i + 1:i + 12]
                            if w.strip().startswith("witness: ")), None)
                if wit is None:
                    continue
                m = RAISED.search(wit)
                if m is None:
                    return "refuted", f"{line[10:]} | {wit}"
                exc = m.group(1)
                kind = ("rejects" if exc == "ParameterError" else
                        "crash" if exc in PYTHON_CRASH else "raised")
                return kind, f"{line[10:]} | {wit}"
        return "refuted-no-witness", out[-300:]
    if code == 3:
        return "inconclusive", out[-300:]
    lines = [x for x in err.strip().splitlines() if x.strip()]
    exc = [x for x in lines if re.match(r"^[\w.]*(Error|Exception|Exit)\b", x)]
    verdict = [x for x in out.splitlines() if x.startswith("VERDICT")]
    return f"exit-{code}", (exc or lines or verdict or [""])[-1][:300]


def judge(module: str) -> dict:
    """Run the module's commands until one refutes; a mutant no command refutes is an
    ``exit-4`` miss when some command ended with exit 4, else fingerprinted."""
    from mutation.apply import fingerprint
    seen = []
    for argv in scope.commands(module):
        res = judge_output(*run_command(argv))
        if res is None:
            continue
        kind, wit = res
        entry = {"kind": kind, "command": " ".join(_short(a) for a in argv), "witness": wit[:400]}
        if kind in KILLS or kind == "crash":
            return entry
        seen.append(entry)
    miss = next((e for e in seen if e["kind"] in MISSES), None)
    if miss is not None:
        return {**miss, "seen": seen}
    fp = fingerprint()
    base = os.environ.get("MUTATION_BASE_FINGERPRINT")
    kind = ("inconclusive" if any(e["kind"] == "inconclusive" for e in seen) else
            "equivalent" if fp == base else "survived")
    return {"kind": kind, "fingerprint": fp, "seen": seen}


def _short(a: str) -> str:
    return Path(a).name if "/" in a else a


# --------------------------------------------------------------------------- the pool

def _child(item, out_file: Path, cpu: int, mem: int) -> None:
    from mutation.apply import apply
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    spec = item.mutations[0]
    module = spec.definition_name.split(":")[0]
    t0 = time.process_time()
    try:
        changed = apply(spec)
        res = judge(module) if changed else {"kind": "not-applied"}
        res["changed"] = changed
    except MemoryError:
        res = {"kind": "timeout", "witness": "memory limit"}
    except BaseException as e:  # noqa: BLE001
        res = {"kind": "crash", "witness": f"driver: {type(e).__name__}: {e}"[:300]}
    res["cpu"] = round(time.process_time() - t0, 2)
    out_file.write_text(json.dumps(res))


def passes(argv) -> bool:
    """The command ends VERIFIED (exit 0) on the code as it is."""
    return judge_output(*run_command(argv)) is None


def warm_up(modules) -> str:
    """Import everything, decide every module's kill datasets and run every command
    once unmutated (each must pass); returns the unmutated fingerprint."""
    from mutation.apply import fingerprint
    decided = set()

    def kill_passes(argv) -> bool:
        if tuple(argv) not in decided:
            if not passes(argv):
                return False
            decided.add(tuple(argv))
        return True
    for m in modules:
        for argv in scope.commands(m, kill_passes):
            if tuple(argv) in decided:      # a kill dataset's run, or another module's
                continue
            res = judge_output(*run_command(argv))
            if res is not None:
                raise SystemExit(f"unmutated code fails {' '.join(argv)}: {res}")
            decided.add(tuple(argv))
        if not scope.commands(m):
            raise SystemExit(f"no kill dataset for {m}: the unmutated code VERIFIES none")
    return fingerprint()


def execute(db_path: Path, jobs: int = 1, cpu: int = 120, mem: int = 4 << 30,
            limit: int | None = None, progress=print) -> int:
    """Replay the session's pending mutants, ``jobs`` children at a time; each child
    gets ``cpu`` CPU seconds (SIGXCPU, a timeout) and ``mem`` bytes of address
    space; a child still running after WALL_FACTOR x ``cpu`` wall seconds is killed (timeout).
    Results go to the session as they come (a stopped run resumes)."""
    from cosmic_ray.work_db import WorkDB, use_db
    session_meta(db_path)          # an external operator set registers its provider
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        pending = list(db.pending_work_items)[:limit]
        modules = sorted({it.mutations[0].definition_name.split(":")[0] for it in pending})
        os.environ["MUTATION_BASE_FINGERPRINT"] = warm_up(modules)
        tmp = db_path.parent / f"results-{os.getpid()}"
        tmp.mkdir(exist_ok=True)
        running: dict[int, tuple] = {}
        queue = list(pending)
        done = 0
        while queue or running:
            while queue and len(running) < jobs:
                item = queue.pop(0)
                f = tmp / f"{item.job_id}.json"
                pid = os.fork()
                if pid == 0:
                    try:
                        _child(item, f, cpu, mem)
                    finally:
                        os._exit(0)
                running[pid] = (item, f, time.monotonic())
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if pid == 0:
                for p, (item, f, t0) in list(running.items()):
                    if time.monotonic() - t0 > WALL_FACTOR * cpu:
                        os.kill(p, signal.SIGKILL)
                time.sleep(0.05)
                continue
            item, f, _ = running.pop(pid)
            used = round(usage.ru_utime + usage.ru_stime, 1)
            res = json.loads(f.read_text()) if f.exists() else {
                "kind": "timeout" if os.WIFSIGNALED(status) else "crash",
                "witness": f"child ended with status {status} after {used} CPU seconds"}
            f.unlink(missing_ok=True)
            _store(db, item, res)
            done += 1
            progress(f"{done}/{len(pending)} {res['kind']:12s} {_label(item)}")
        tmp.rmdir()
    return done


def _label(item) -> str:
    s = item.mutations[0]
    return f"{s.definition_name} {s.operator_name} line {s.start_pos[0]}"


def _store(db, item, res) -> None:
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    from mutation.apply import mutated_source
    import difflib
    spec = item.mutations[0]
    src = (scope.ROOT / spec.module_path).read_text()
    mut = mutated_source(spec) or src
    diff = "".join(difflib.unified_diff(src.splitlines(True), mut.splitlines(True),
                                        str(spec.module_path), str(spec.module_path), n=0))
    outcome = (TestOutcome.KILLED if res["kind"] in KILLS else
               TestOutcome.INCOMPETENT if res["kind"] in ("crash", "timeout", "not-applied")
               else TestOutcome.SURVIVED)   # an exit-4 miss survives
    db.set_result(item.job_id, WorkResult(output=json.dumps(res), diff=diff,
                                          test_outcome=outcome,
                                          worker_outcome=WorkerOutcome.NORMAL))
