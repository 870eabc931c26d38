"""The prover failing is INCONCLUSIVE (with the library's message); only the
construction routine failing on a valid input is REFUTED (with the input as witness).
Both are shown with the same injected sympy exception, the known
``ValueError: The argument 'zoo' is not comparable`` of ``simplify``."""
from __future__ import annotations

import pytest
import sympy

from proofcheck.constructions.afz.layers import clustering, hat
from proofcheck.kernel.verdicts import Verdict
from proofcheck.constructions.provers.sa_proofs import guarded

ZOO = "The argument 'zoo' is not comparable"


def _raise(*args, **kwargs):
    raise ValueError(ZOO)


def test_sympy_failing_in_a_proof_step_is_inconclusive(monkeypatch):
    monkeypatch.setattr(sympy, "simplify", _raise)
    [r] = guarded("4.1 symbolic (d = 2)", clustering.symbolic, 2)
    assert r.verdict is Verdict.INCONCLUSIVE and r.witness is None
    assert any(ZOO in line and "sympy raised ValueError" in line for line in r.details)


def test_sympy_failing_inside_the_construction_refutes(monkeypatch):
    monkeypatch.setattr(sympy, "simplify", _raise)
    real = clustering.cluster_sa

    def construction(u):  # a construction routine that itself calls simplify
        sympy.simplify(sympy.Max(u[0], 0))
        return real(u)
    monkeypatch.setattr(clustering, "cluster_sa", construction)
    [r] = guarded("4.1 symbolic (d = 2)", clustering.symbolic, 2)
    assert r.verdict is Verdict.REFUTED and r.witness is not None
    assert "construction raised on a valid input" in r.witness.describe()
    assert ZOO in r.witness.describe() and r.witness.got == "(2,)"


def test_the_same_proof_without_the_injection_is_verified():
    [r] = guarded("4.1 symbolic (d = 2)", clustering.symbolic, 2)
    assert r.verdict is Verdict.VERIFIED


def test_ff_profile_proof_with_a_failing_sign_query_is_inconclusive(monkeypatch):
    monkeypatch.setattr(sympy, "factor", _raise)
    r1, r2 = hat._symbolic.__wrapped__(2)
    assert r1.verdict is Verdict.INCONCLUSIVE and r2.verdict is Verdict.INCONCLUSIVE
    assert any(ZOO in line for line in r1.details)


@pytest.mark.parametrize("method", ["positive", "negative"])
def test_sign_steps_catch_the_library(monkeypatch, method):
    from proofcheck.constructions.provers.sa_proofs import Proof
    x = sympy.Symbol("x", positive=True)
    monkeypatch.setattr(sympy, "factor", _raise)
    P = Proof()
    assert getattr(P, method)(x + 1, "x + 1 has a sign") is False
    assert P.verdict() is Verdict.INCONCLUSIVE and ZOO in P.steps[0]
