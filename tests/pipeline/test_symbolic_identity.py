"""prove_identity and softmax-gap's symbolic check: a simplification that does not reach 0
is a prover failure (INCONCLUSIVE), never REFUTED; REFUTED needs exact values satisfying
the symbols' assumptions where the two sides differ (the witness)."""
from __future__ import annotations

import sympy as sp

import proofcheck.constructions.provers.symbolic as S
from proofcheck.constructions.afz.layers import softmax_gap
from proofcheck.kernel.verdicts import Scope, Verdict


def test_true_identity_is_verified_for_all_parameters():
    x, y = sp.symbols("x y", real=True)
    r = S.prove_identity("square", (x + y) ** 2, x ** 2 + 2 * x * y + y ** 2)
    assert r.verdict == Verdict.VERIFIED and r.scope == Scope.ALL_PARAMETERS


def test_false_identity_is_refuted_at_admissible_exact_values():
    x = sp.Symbol("x", positive=True)
    r = S.prove_identity("wrong", x * (x + 1), x ** 2)
    assert r.verdict == Verdict.REFUTED and r.witness.code == "identity-fails"
    (v,) = S.nonzero_point(x * (x + 1) - x ** 2).values()
    assert v > 0  # the point satisfies the symbol's assumption


def test_prover_failure_on_a_true_identity_is_inconclusive(monkeypatch):
    """sympy 'fails' (is_zero patched to False) on a true identity: no point where the sides
    differ exists, so the verdict is INCONCLUSIVE, not REFUTED."""
    monkeypatch.setattr(S, "is_zero", lambda e: False)
    x = sp.Symbol("x", real=True)
    r = S.prove_identity("square", (x + 1) ** 2, x ** 2 + 2 * x + 1)
    assert r.verdict == Verdict.INCONCLUSIVE and r.witness is None


def test_assumptions_restrict_the_witness():
    """|x| - x is 0 for every x >= 0: no admissible point refutes it; for a real x a
    negative value does."""
    assert S.nonzero_point(sp.Abs(sp.Symbol("x", nonnegative=True)) - sp.Symbol("x", nonnegative=True)) is None
    xr = sp.Symbol("x", real=True)
    (v,) = S.nonzero_point(sp.Abs(xr) - xr).values()
    assert v < 0


def test_softmax_gap_symbolic_prover_failure_is_inconclusive(monkeypatch):
    assert softmax_gap.symbolic().verdict == Verdict.VERIFIED
    monkeypatch.setattr(S, "is_zero", lambda e: False)
    assert softmax_gap.symbolic().verdict == Verdict.INCONCLUSIVE
