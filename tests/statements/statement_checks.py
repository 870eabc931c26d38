"""The four checks every ``tests/statements/test_<id>.py`` runs on its statement:

* :func:`check_case` — a case of the shared table (``statement_cases.CASES``) through
  the pipeline ``lemma ID`` runs (:func:`proofcheck.frontend.runs.lemma.run_lemma`):
  the construction on that dataset, with its mutation when it has one; the verdict,
  the structured fields of the first witness, the kernel's re-check;
* :func:`check_kernel` — the kernel's check of the statement: for a lemma with a
  re-derivation module, the committed certificate (``reports/certificates``) verifies
  and a forged layer (its W or V changed) is REFUTED by the module with its witness
  code; for a theorem, the committed theorem certificate verifies and one changed
  weight is REFUTED with its code; otherwise the statement claims no kernel form
  (``list --where`` prints ``-``, no certificate is written);
* :func:`check_cli` — the command line's verdict: ``lemma ID`` (``theorem ID`` on a
  handed case for a theorem) exits 0 with a VERIFIED line of the right scope.
"""
from __future__ import annotations

import copy
import dataclasses
import importlib
import json
from fractions import Fraction
from pathlib import Path

from conftest import CASES as HANDED
from conftest import NAMED

from proofcheck.frontend.cli import main
from proofcheck.frontend.io.certificate_writer import seal
from proofcheck.frontend.registry import find
from proofcheck.frontend.runs.lemma import certifiable, run_lemma
from proofcheck.kernel.lemma_checks import checker
from proofcheck.kernel.serialize import ff_from_json, sa_from_json
from proofcheck.kernel.verdicts import Scope, Verdict
from proofcheck.kernel.verify import verify_certificate

ROOT = Path(__file__).resolve().parents[2]
CERTIFICATES = ROOT / "reports" / "certificates"

#: the witness of the kernel's re-derivation on a forged layer: its code and the
#: location fields it sets (FF: every W entry doubled; SA: V's lambda 2 lambda + 1)
KERNEL_FORGERIES = {
    "3.1": ("conclusion", {"coordinate"}),
    "3.2": ("conclusion", {"token", "coordinate"}),
    "3.2p": ("conclusion", {"token", "coordinate"}),
    "3.3": ("conclusion", {"coordinate"}),
    "4.1": ("form", {"token", "coordinate"}),
    "4.2": ("form", {"token", "coordinate"}),
    "4.3": ("form", {"token", "coordinate"}),
}
#: theorem -> (committed certificate, the witness code of one changed weight)
THEOREM_CERTIFICATES = {
    "1.6": ("theorem-1.6-generated-7.json", "output-not-target"),
    "1.8": ("theorem-1.8-generated-7.json", "limit-output-not-target"),
}
LOCATIONS = ("block", "sublayer", "sequence", "token", "coordinate")


def _import_constructions() -> None:
    """Import every module of ``proofcheck.constructions`` once, before a mutation is
    installed: a module first imported while the mutation is in place would keep the
    mutated function under its own name (``from ... import hat_ff``) for later tests."""
    import pkgutil

    import proofcheck.constructions as pkg
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(info.name)


def _clear_proof_caches() -> None:
    """Forget the symbolic proofs the construction modules compute once per process
    (``functools.lru_cache``): a proof of a mutated layer must not outlive its test."""
    import sys
    for name, mod in list(sys.modules.items()):
        if name.startswith("proofcheck.constructions"):
            for obj in list(vars(mod).values()):
                if callable(getattr(obj, "cache_clear", None)):
                    obj.cache_clear()


def check_case(case, monkeypatch) -> None:
    """Run one table case; see the module docstring."""
    if case.mutation is None:
        _run_case(case)
        return
    _import_constructions()
    module, name, wrap = case.mutation
    mod = importlib.import_module(module)
    _clear_proof_caches()
    monkeypatch.setattr(mod, name, wrap(getattr(mod, name)))
    try:
        _run_case(case)
    finally:
        monkeypatch.undo()
        _clear_proof_caches()


def _run_case(case) -> None:
    st = find(case.statement)
    ds = None if case.dataset is None else NAMED[case.dataset]
    if ds is not None:
        st.check_admissible(ds)  # the case is one `lemma ID --dataset` accepts
    run = run_lemma(st, ds, 0)
    assert run.verdict == case.verdict
    witnesses = [r.witness for r in run.results if r.witness is not None]
    if case.verdict.passed:
        assert witnesses == []
        return
    assert witnesses, "a refuted case must name where it fails"
    got = {k: getattr(witnesses[0], k) for k in case.witness}
    assert got == case.witness
    if run.recheck is not None:
        assert run.recheck.verdict == case.verdict


def _forged_layer(layer):
    if hasattr(layer, "eta"):
        return dataclasses.replace(layer, W=tuple(tuple(2 * x for x in w) for w in layer.W))
    return dataclasses.replace(layer, V=dataclasses.replace(layer.V, lam=2 * layer.V.lam + 1))


def _lemma_kernel(sid: str) -> None:
    cert = json.loads((CERTIFICATES / f"lemma-{sid}.json").read_text())
    assert verify_certificate(cert).verdict == Verdict.VERIFIED
    inst = cert["instances"][0]
    d = len(inst["inputs"][0][0])
    read = ff_from_json if inst["kind"] == "FF" else sa_from_json
    layer = read(inst["layer"], d, "$.instances[0].layer")
    check = checker(sid)
    v, _, w = check(sid, inst["data"], layer, cert["semantics"], "$.instances[0]", d)
    assert (v, w) == (Verdict.VERIFIED, None)
    v, _, w = check(sid, inst["data"], _forged_layer(layer), cert["semantics"],
                    "$.instances[0]", d)
    code, located = KERNEL_FORGERIES[sid]
    assert v == Verdict.REFUTED and w.code == code
    assert {k for k in LOCATIONS if getattr(w, k) is not None} == located
    assert w.expected != w.got
    # the same layer in the certificate, resealed: the kernel refutes the certificate
    forged = copy.deepcopy(cert)
    stated = forged["instances"][0]["layer"]
    key = "W" if inst["kind"] == "FF" else "V"
    if key == "W":
        stated["W"] = [[str(2 * Fraction(x)) for x in row] for row in stated["W"]]
    else:
        stated["V"]["lam"] = str(2 * Fraction(stated["V"]["lam"]) + 1)
    assert verify_certificate(seal(forged)).verdict == Verdict.REFUTED


def _theorem_kernel(sid: str) -> None:
    name, code = THEOREM_CERTIFICATES[sid]
    cert = json.loads((CERTIFICATES / name).read_text())
    assert verify_certificate(cert).verdict.passed
    forged = copy.deepcopy(cert)
    w = forged["network"]["blocks"][-1]["ff"]["W"]
    w[0][0] = str(Fraction(w[0][0]) + 1)
    out = verify_certificate(seal(forged))
    assert out.verdict == Verdict.REFUTED and out.scope == Scope.DATASET
    assert (out.failure.code, out.failure.sequence, out.failure.token) == (code, 0, 0)


def check_kernel(sid: str) -> None:
    """The kernel's check of ``sid``; see the module docstring."""
    st = find(sid)
    kernel = st.where()["kernel check"]
    if st.kernel_check is not None:
        assert kernel == f"proofcheck/kernel/lemma_checks/{st.kernel_check}.py"
        assert certifiable(st)
        _lemma_kernel(sid)
    elif st.kind == "theorem":
        assert kernel == "proofcheck/kernel/theorem.py"
        _theorem_kernel(sid)
    else:  # no kernel form: nothing is certified, and `lemma` says so
        assert kernel is None and not certifiable(st)
        assert sid not in KERNEL_FORGERIES and sid not in THEOREM_CERTIFICATES


def check_cli(sid: str, capsys) -> None:
    """The command line's verdict on ``sid``; see the module docstring."""
    st = find(sid)
    if st.kind == "theorem":
        args = ["theorem", sid, "--dataset", str(HANDED / "square-and-centre.json"),
                "--no-report"] + (["--no-simulation"] if sid == "1.8" else [])
    else:
        args = ["lemma", sid]
    assert main(args) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    verdict = "VERIFIED-CERTIFIED" if sid == "1.8" else "VERIFIED"
    assert last.startswith(f"VERDICT: {verdict} (")
    if st.kind == "theorem":
        assert last.startswith(f"VERDICT: {verdict} ({Scope.DATASET.value}: ")
    elif certifiable(st):
        assert last.startswith(f"VERDICT: {verdict} ({Scope.EVERY_TOKEN.value}: ")
    else:
        assert last.endswith("; no certificate)")
