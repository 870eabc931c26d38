"""Mutation score of the lemma constructions (issue "Check what is built", item 3;
docs/mutation.md).

    python scripts/mutation.py run         # mutmut over the construction functions
    python scripts/mutation.py verdicts    # how each mutant was killed (or not)

``run`` calls ``python -m mutmut run`` restricted to the construction functions in
:data:`FUNCTIONS` (the ``[tool.mutmut]`` table in pyproject.toml names the files
and the test command: tests/test_lemma_checks_ff.py, the lemma checks).
``verdicts`` replays every mutant in ``mutants/`` (one forked process per mutant,
timeout :data:`TIMEOUT` s), runs the lemma checks of :data:`CHECKS` on the
instances of tests/test_lemma_checks_ff.py until the first failure, then the
hypothesis guards, and classifies it:

* ``refuted``  — a check returned REFUTED with a witness (the target);
* ``rejects``  — the construction rejects an admissible instance with a clear
  ``ValueError`` naming what is wrong, or the hypothesis guards of
  tests/test_lemma_checks_ff.py fail (a violated hypothesis accepted or reported
  with another message);
* ``error``    — a crash or an ERROR verdict (counted separately, not as a kill
  by a verdict);
* ``timeout``  — ran longer than TIMEOUT (a loop that does not end);
* ``survived`` — every check VERIFIED: listed for docs/mutation.md with the reason
  it is equivalent.

To extend (e.g. with the SA lemmas): add the module's construction functions to
FUNCTIONS and the statements to CHECKS, the file to ``only_mutate`` and the test
file to ``pytest_add_cli_args_test_selection`` in pyproject.toml.
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
    "lemmas.afz.translation": ["translation_ff"],
    "lemmas.afz.hat": ["hat_ff", "plateau_ff", "separating_direction", "relocate"],
    "lemmas.afz.snap": ["snap_ff"],
    "lemmas.afz.scalars": ["scalar", "scalars", "require"],
}
# statements whose lemma checks replay the mutants of each module (the module's
# own statements first; a mutant is replayed until its first failure)
CHECKS = {
    "lemmas.afz.translation": ["3.1", "3.2", "3.2p", "3.3"],
    "lemmas.afz.hat": ["3.2", "3.2p", "3.1", "3.3"],
    "lemmas.afz.snap": ["3.3", "3.1", "3.2", "3.2p"],
    "lemmas.afz.scalars": ["3.1", "3.2", "3.2p", "3.3"],
}
TIMEOUT = 120

# runs inside mutants/: imports once, then forks one child per mutant (like mutmut)
_DRIVER = r"""
import json, os, signal, sys
sys.path.insert(0, "tests"); sys.path.insert(0, ".")
from mutmut.mutation.trampoline import set_mutant_under_test
import tests.test_lemma_checks_ff as T
from proofcheck.catalogue import find
from proofcheck.io.certificate_writer import lemma_certificate
from proofcheck.kernel.verdicts import combine
from proofcheck.kernel.verify import verify_certificate
checks_by_module, timeout, names = json.loads(sys.argv[1])

def replay(checks):
    out = []
    for sid in checks:
        for dname, seed in T.INSTANCES:
            T.hat._symbolic.cache_clear(); T.snap._symbolic.cache_clear()
            where = f"lemma {sid} on {dname or 'built-in'} seed {seed}"
            try:
                res = find(sid).runner()(T.dataset(dname), seed)
            except ValueError as e:  # the construction rejects its own input
                return [["rejects", where, f"ValueError: {e}"[:200]]]
            except Exception as e:
                return [["crash", where, f"{type(e).__name__}: {e}"[:200]]]
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
    try:
        T.test_constructions_reject_violated_hypotheses()
    except BaseException as e:
        out.append(["guard", "a violated hypothesis is accepted or misreported",
                    f"{type(e).__name__}: {e}"[:200]])
    return out

# warm the imports and sympy once (unmutated); the per-process proof caches are
# cleared before every statement in the children
for sid in ("3.1", "3.2", "3.2p", "3.3"):
    find(sid).runner()(None, 0)
for name in names:
    checks = checks_by_module[name.rsplit(".", 1)[0]]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        set_mutant_under_test(name)
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
    if found is None:
        return "timeout" if os.WIFSIGNALED(status) and os.WTERMSIG(status) == 14 else "error"
    kinds = {f[0] for f in found}
    if kinds & {"REFUTED", "kernel-REFUTED"}:
        return "refuted"
    if kinds & {"guard", "rejects"}:
        return "rejects"
    return "error" if found else "survived"


def verdicts(only: list[str] | None = None) -> int:
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
    out = ROOT / "mutants" / "verdicts.json"
    out.write_text(json.dumps(results, indent=1))
    print(dict(count), f"of {len(results)}; details in {out}")
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "verdicts"
    if cmd == "run":
        sys.exit(run())
    if cmd == "verdicts":
        sys.exit(verdicts(sys.argv[2:] or None))
    if cmd == "diff":
        for n in sys.argv[2:]:
            subprocess.call([sys.executable, "-m", "mutmut", "show", n], cwd=ROOT)
        sys.exit(0)
    raise SystemExit(__doc__)
