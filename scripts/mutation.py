"""Mutation score of the lemma constructions (issue "Check what is built", item 3;
docs/mutation.md).

    python scripts/mutation.py run         # mutmut over the construction functions
    python scripts/mutation.py verdicts    # how each mutant was killed (or not)

``run`` calls ``python -m mutmut run`` restricted to the construction functions in
:data:`FUNCTIONS` (the ``[tool.mutmut]`` table in pyproject.toml names the files
and the test command: tests/test_lemma_checks_ff.py, the lemma checks).
``verdicts`` replays every mutant in ``mutants/`` with ``MUTANT_UNDER_TEST`` set,
runs the lemma checks of :data:`CHECKS` in a subprocess (timeout
:data:`TIMEOUT` s) and classifies it:

* ``refuted``  — a check returned REFUTED with a witness (the target);
* ``rejects``  — the construction now rejects (or accepts) a call it should not,
  with the clear error of :func:`hypothesis_guards` deciding it;
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
# statements whose lemma checks replay every mutant, and the instances
CHECKS = ["3.1", "3.2", "3.2p", "3.3"]
INSTANCES = [(None, 0), (None, 1), (None, 2), ("tie-heavy", 5), ("union-3d", 3), ("overlap-4d", 1)]
TIMEOUT = 120

_REPLAY = r"""
import json, sys
sys.path.insert(0, "tests")
from conftest import NAMED
from proofcheck.catalogue import find
from proofcheck.io.certificate_writer import lemma_certificate
from proofcheck.kernel.verdicts import combine
from proofcheck.kernel.verify import verify_certificate
checks, instances = json.loads(sys.argv[1])
out = []
for sid in checks:
    for dname, seed in instances:
        where = f"lemma {sid} on {dname or 'built-in'} seed {seed}"
        try:
            res = find(sid).runner()(NAMED[dname] if dname else None, seed)
        except Exception as e:
            out.append(["crash", where, f"{type(e).__name__}: {e}"[:200]])
            continue
        for r in res:
            if r.verdict.value != "VERIFIED":
                wit = r.witness.describe() if r.witness else ""
                out.append([r.verdict.value, where + ": " + r.name[:80], wit[:300]])
        try:
            cert = lemma_certificate(sid, res, combine(r.verdict for r in res))
            v, lines = verify_certificate(cert)
            if v.value != "VERIFIED":
                out.append(["kernel-" + v.value, where,
                            " | ".join(l for l in lines if "witness" in l or "fails" in l)[:300]])
        except Exception as e:
            out.append(["kernel-crash", where, f"{type(e).__name__}: {e}"[:200]])
sys.path.insert(0, ".")
from tests.test_lemma_checks_ff import test_constructions_reject_violated_hypotheses as guards
try:
    guards()
except BaseException as e:
    out.append(["guard", "construction accepts or misreports a violated hypothesis",
                f"{type(e).__name__}: {e}"[:200]])
print("@@" + json.dumps(out))
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


def classify(name: str) -> tuple[str, list]:
    env = dict(os.environ, MUTANT_UNDER_TEST=name)
    try:
        p = subprocess.run([sys.executable, "-c", _REPLAY, json.dumps([CHECKS, INSTANCES])],
                           cwd=ROOT / "mutants", env=env, capture_output=True, text=True,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "timeout", []
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("@@")), None)
    if line is None:
        return "error", [["process", "exit", p.stderr[-300:]]]
    found = json.loads(line[2:])
    kinds = {f[0] for f in found}
    if any(k in ("REFUTED", "kernel-REFUTED") for k in kinds):
        return "refuted", found
    if "guard" in kinds:
        return "rejects", found
    if found:
        return "error", found
    return "survived", found


def verdicts(only: list[str] | None = None) -> int:
    names = only or mutant_names()
    results = {}
    for n in names:
        kind, found = classify(n)
        results[n] = {"kind": kind, "first": found[:2]}
        print(f"{kind:9s} {n}", flush=True)
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
