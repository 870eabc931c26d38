"""Mutation score of the lemma constructions (issue "Check what is built", item 3;
docs/mutation.md).

    python scripts/mutation.py generate    # write mutants/ only (mutmut's generator, no test runs)
    python scripts/mutation.py run         # or: mutmut run over the construction functions
    python scripts/mutation.py verdicts [NAME ...]  # how each mutant was killed (or not)
    python scripts/mutation.py diff NAME   # the diff of one mutant

``run`` calls ``python -m mutmut run`` restricted to the construction functions in
:data:`FUNCTIONS` (the ``[tool.mutmut]`` table in pyproject.toml names the files
and the test command: tests/test_lemma_checks_ff.py and tests/test_sa_lemma_checks.py,
the lemma checks).  ``generate`` only writes the mutants (``verdicts`` does not need
mutmut's own test runs).  ``verdicts`` replays every mutant in ``mutants/`` (one
forked process per mutant, timeout :data:`TIMEOUT` s), runs the lemma checks of
:data:`CHECKS` (FF statements on the instances of tests/test_lemma_checks_ff.py with
the kernel re-check of each certificate; SA statements by their own check at seed
0) until the first failure, then the FF hypothesis guards, and classifies it:

* ``refuted``  — a check returned REFUTED with a witness about the layer's values,
  form or proof (the target);
* ``rejects``  — a routine rejected its own input with a clear error: a
  :class:`proofcheck.kernel.model.ParameterError`, raised only by input validation
  (FF/SA/Factored/Block at entry, ``dot``, ``vec``, the lemma scalars helpers,
  ``require``), whose message names the routine and the parameter and what was
  expected (e.g. ``FF: W must be 3 vectors (as many as U has rows), got None``);
* ``guard``    — the checks pass but the hypothesis guards of
  tests/test_lemma_checks_ff.py fail (a violated hypothesis accepted, or rejected
  with another message);
* ``error``    — any other exception (``TypeError`` from Python or a library,
  ``UnboundLocalError``, an SA check's "construction raised on a valid input"
  with such an exception, a kernel crash): a crash, not counted as a kill;
* ``timeout``  — ran longer than TIMEOUT (a loop that does not end);
* ``survived`` — every check VERIFIED: listed for docs/mutation.md with the reason
  it is equivalent.

``verdicts --out FILE NAME...`` replays a subset into FILE (subsets can run in
parallel); ``merge FILE...`` joins them into mutants/verdicts.json; ``summary``
prints the per-function table and the crashes by exception.

To extend: add the module's construction functions to FUNCTIONS and the
statements to CHECKS, the file to ``only_mutate`` and the test file to
``pytest_add_cli_args_test_selection`` in pyproject.toml.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# module -> construction functions mutated (the checks' subject)
FUNCTIONS = {
    "lemmas.afz.layers.translation": ["translation_ff"],
    "lemmas.afz.layers.hat": ["hat_ff", "plateau_ff", "separating_direction", "relocate"],
    "lemmas.afz.layers.snap": ["snap_ff"],
    "lemmas.afz.scalars": ["scalar", "scalars", "require"],
    "lemmas.afz.layers.clustering": ["cluster_sa", "tag_sa"],
    "lemmas.afz.layers.corner": ["corner_sa"],
    "lemmas.afz.layers.sphere": ["sphere_point", "negative_orthant_points", "sphere_sa"],
    "lemmas.afz.phases.collapse": ["choose_k", "collapse_sa", "collapse_claim"],
}
# statements whose lemma checks replay the mutants of each module (the module's
# own statements first; a mutant is replayed until its first failure).  FF
# statements run on every instance of tests/test_lemma_checks_ff.py and are
# re-checked by the kernel from their certificate; SA statements run their own
# check at seed 0 (tests/test_sa_lemma_checks.py; it includes the kernel re-check).
_FF = ["3.1", "3.2", "3.2p", "3.3"]
_SA = ["4.1", "4.2", "4.3", "collapse"]
CHECKS = {
    "lemmas.afz.layers.translation": ["3.1", "3.2", "3.2p", "3.3"],
    "lemmas.afz.layers.hat": ["3.2", "3.2p", "3.1", "3.3"],
    "lemmas.afz.layers.snap": ["3.3", "3.1", "3.2", "3.2p"],
    "lemmas.afz.scalars": ["3.1", "3.2", "3.2p", "3.3"],
    "lemmas.afz.layers.clustering": ["4.1", "collapse", "4.2", "4.3"],
    "lemmas.afz.layers.corner": ["4.2", "collapse", "4.1", "4.3"],
    "lemmas.afz.layers.sphere": ["4.3", "collapse", "4.1", "4.2"],
    "lemmas.afz.phases.collapse": ["collapse", "4.1", "4.2", "4.3"],
}
TIMEOUT = 120

# runs inside mutants/: imports once, then forks one child per mutant (like mutmut)
_DRIVER = r"""
import json, os, signal, sys
sys.path.insert(0, "tests"); sys.path.insert(0, ".")
from mutmut.mutation.trampoline import set_mutant_under_test
import tests.test_lemma_checks_ff as T
from lemmas.afz.layers import clustering, corner, sphere
from lemmas.afz.phases import collapse
from proofcheck.registry import find
from proofcheck.runs.lemma import run_checks
from proofcheck.io.certificate_writer import lemma_certificate
from proofcheck.kernel.model import ParameterError
from proofcheck.kernel.verdicts import combine
from proofcheck.kernel.verify import verify_certificate
checks_by_module, timeout, names = json.loads(sys.argv[1])
SA_RUN = {"4.1": clustering.run, "4.2": corner.run, "4.3": sphere.run, "collapse": collapse.run}
RAISED = "construction raised on a valid input ("

def exc_entry(where, e):
    # a ParameterError is a routine rejecting its own input (message names the parameter)
    kind = "rejects" if isinstance(e, ParameterError) else "crash"
    return [kind, where, f"{type(e).__name__}: {e}"[:200]]

def sa_entry(where, r):
    wit = r.witness.describe() if r.witness else ""
    if RAISED in wit:  # proofcheck.symbolic_sa.guarded: the routine raised on a valid instance
        exc = wit.split(RAISED, 1)[1]
        kind = "rejects" if exc.startswith("ParameterError") else "crash"
        return [kind, where + ": " + r.name[:70], exc[:300]]
    return [r.verdict.value + ("" if r.witness else "-no-witness"), where + ": " + r.name[:70], wit[:300]]

def replay(checks):
    out = []
    for sid in checks:
        if sid in SA_RUN:
            where = f"{sid} check, seed 0"
            try:
                res = SA_RUN[sid](None, 0)
            except Exception as e:
                return [exc_entry(where, e)]
            out += [sa_entry(where, r) for r in res if r.verdict.value != "VERIFIED"]
            if out:
                return out
            continue
        for dname, seed in T.INSTANCES:
            where = f"lemma {sid} on {dname or 'built-in'} seed {seed}"
            try:
                res = run_checks(find(sid), T.dataset(dname), seed)
            except Exception as e:
                return [exc_entry(where, e)]
            for r in res:
                if r.verdict.value != "VERIFIED":
                    wit = r.witness.describe() if r.witness else ""
                    out.append([r.verdict.value + ("" if r.witness else "-no-witness"),
                                where + ": " + r.name[:70], wit[:300]])
            try:
                v, lines = verify_certificate(lemma_certificate(sid, res, combine(r.verdict for r in res)))
                if v.value != "VERIFIED":
                    out.append(["kernel-" + v.value, where,
                                " | ".join(l.strip() for l in lines if "witness" in l)[:300]])
            except Exception as e:
                out.append(["kernel-crash", where, f"{type(e).__name__}: {e}"[:200]])
            if out:
                return out
    if any(sid in ("3.1", "3.2", "3.2p", "3.3") for sid in checks):
        try:
            T.test_constructions_reject_violated_hypotheses()
        except BaseException as e:
            out.append(["guard", "a violated hypothesis is accepted or misreported",
                        f"{type(e).__name__}: {e}"[:200]])
    return out

# warm the imports and sympy once (unmutated); the proof caches are cleared once
# in every child
for sid in ("3.1", "3.2", "3.2p", "3.3"):
    run_checks(find(sid), None, 0)
for name in names:
    checks = checks_by_module[name.rsplit(".", 1)[0]]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        set_mutant_under_test(name)
        # the proofs cached by the warm-up are of the unmutated routines: drop them
        # once (the mutant is fixed for this child, so its own proofs may be cached)
        T.hat._symbolic.cache_clear(); T.snap._symbolic.cache_clear()
        signal.alarm(timeout)
        try:
            res = replay(checks)
        except BaseException as e:
            res = [["crash", "driver", f"{type(e).__name__}: {e}"[:200]]]
        os.write(w, json.dumps(res).encode()); os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    found = json.loads(data) if data else None
    print("@@" + json.dumps([name, found, status]), flush=True)
"""


def patterns() -> list[str]:
    return [f"{m}.x_{f}__mutmut_*" for m, fs in FUNCTIONS.items() for f in fs]


def generate() -> int:
    """Only write mutants/ (mutmut's mutant generation, no test runs): enough for
    ``verdicts``, which replays every mutant itself."""
    os.chdir(ROOT)
    from mutmut.__main__ import (copy_also_copy_files, copy_src_dir, create_mutants,
                                 set_mutant_under_test, setup_source_paths)
    set_mutant_under_test("mutant_generation")
    os.makedirs("mutants", exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    setup_source_paths()
    print(create_mutants(2))
    return 0


def run() -> int:
    return subprocess.call([sys.executable, "-m", "mutmut", "run", *patterns()], cwd=ROOT)


def mutant_names() -> list[str]:
    """Names of the mutants of FUNCTIONS generated in mutants/ (from mutmut's meta files)."""
    names = []
    for m, fs in FUNCTIONS.items():
        meta = ROOT / "mutants" / (m.replace(".", "/") + ".py.meta")
        if not meta.exists():
            raise SystemExit(f"{meta} missing: run `python scripts/mutation.py run` first")
        data = json.loads(meta.read_text())
        for name in data.get("exit_code_by_key", {}):
            if any(name.startswith(f"{m}.x_{f}__mutmut_") for f in fs):
                names.append(name)
    return sorted(names, key=lambda n: (n.rsplit("_", 1)[0], int(n.rsplit("_", 1)[1])))


def _kind(found, status) -> str:
    """refuted > rejects > guard > error; ``survived`` when nothing failed."""
    if found is None:
        return "timeout" if os.WIFSIGNALED(status) and os.WTERMSIG(status) == 14 else "error"
    kinds = {f[0] for f in found}
    if kinds & {"REFUTED", "kernel-REFUTED"}:
        return "refuted"
    if "rejects" in kinds:
        return "rejects"
    if "guard" in kinds:
        return "guard"
    return "error" if found else "survived"


def verdicts(only: list[str] | None = None, out: Path | None = None) -> int:
    """Replay ``only`` (default: every mutant of FUNCTIONS); results go to ``out``
    (default mutants/verdicts.json; several partial files can be run in parallel
    and joined with ``merge``)."""
    names = only or mutant_names()
    results = {}
    p = subprocess.Popen([sys.executable, "-c", _DRIVER, json.dumps([CHECKS, TIMEOUT, names])],
                         cwd=ROOT / "mutants", stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        if not line.startswith("@@"):
            continue
        n, found, status = json.loads(line[2:])
        kind = _kind(found, status)
        results[n] = {"kind": kind, "first": (found or [])[:2]}
        print(f"{kind:9s} {n}", flush=True)
    p.wait()
    count = Counter(r["kind"] for r in results.values())
    out = out or ROOT / "mutants" / "verdicts.json"
    out.write_text(json.dumps(results, indent=1))
    print(dict(count), f"of {len(results)}; details in {out}")
    return 0


def summary() -> int:
    """Per-function counts and the crashes by exception type, from mutants/verdicts.json."""
    results = json.loads((ROOT / "mutants" / "verdicts.json").read_text())
    kinds = ["refuted", "rejects", "guard", "error", "timeout", "survived"]
    per = {}
    for n, r in results.items():
        f = n.rsplit("__mutmut_", 1)[0].rsplit(".x_", 1)[1]
        per.setdefault(f, Counter())[r["kind"]] += 1
    print("function".ljust(26) + " ".join(k[:8].rjust(8) for k in kinds))
    for f, c in per.items():
        print(f.ljust(26) + " ".join(str(c[k]).rjust(8) for k in kinds))
    tot = Counter(r["kind"] for r in results.values())
    print("total".ljust(26) + " ".join(str(tot[k]).rjust(8) for k in kinds), f"of {len(results)}")
    crash = Counter(r["first"][0][2].split(":")[0] for r in results.values()
                    if r["kind"] == "error" and r["first"])
    print("crashes by exception:", dict(crash.most_common()))
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "verdicts"
    if cmd == "summary":
        sys.exit(summary())
    if cmd == "generate":
        sys.exit(generate())
    if cmd == "run":
        sys.exit(run())
    if cmd == "verdicts":
        args = sys.argv[2:]
        dest = None
        if args[:1] == ["--out"]:
            dest, args = Path(args[1]), args[2:]
        if args[:1] == ["--from"]:  # every mutant from this name on, in mutant_names() order
            all_names = mutant_names()
            args = all_names[all_names.index(args[1]):]
        sys.exit(verdicts(args or None, dest))
    if cmd == "merge":  # join partial verdict files into mutants/verdicts.json
        merged = {}
        for f in sys.argv[2:]:
            merged.update(json.loads(Path(f).read_text()))
        (ROOT / "mutants" / "verdicts.json").write_text(json.dumps(merged, indent=1))
        print(dict(Counter(r["kind"] for r in merged.values())), f"of {len(merged)}")
        sys.exit(0)
    if cmd == "diff":
        for n in sys.argv[2:]:
            subprocess.call([sys.executable, "-m", "mutmut", "show", n], cwd=ROOT)
        sys.exit(0)
    raise SystemExit(__doc__)
