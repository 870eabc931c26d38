"""Symbolic (sympy) proofs for all parameter values.

``pl_certificate``: a sum of ReLUs of an affine function of t is continuous and
piecewise linear with kinks only where an argument vanishes, so it equals a
claimed piecewise-linear profile everywhere iff it agrees at every kink and has
the claimed slope left of the first and right of the last kink.  Both are
checked with sympy on symbolic parameters (assumptions such as ``delta > 0``
make each ``Max(0, .)`` at a kink decidable); an undecided simplification is a
failure, never a pass.
"""
from __future__ import annotations

import sympy as sp

from proofcheck.kernel.verdicts import CheckResult, Verdict


def relu(x):
    return sp.Max(0, x)


def is_zero(expr) -> bool:
    """True only if sympy proves ``expr == 0`` (after simplification)."""
    if isinstance(expr, sp.MatrixBase):
        return all(is_zero(x) for x in expr)
    e = sp.simplify(sp.expand(expr))
    return e == 0


def pl_certificate(name: str, f, t, kinks, values, slope_left, slope_right) -> CheckResult:
    """Prove ``f(t)`` (a sympy expression in ``t``) is the continuous PL function with
    the given values at the ``kinks`` (increasing, symbolic) and outer slopes.
    The kinks must contain every point where a ReLU argument of ``f`` vanishes
    (checked: each argument is linear in t and vanishes at one of them)."""
    details = []
    args = [a.args[1] if a.args[0] == 0 else a.args[0] for a in f.atoms(sp.Max)]
    for a in args:
        roots = sp.solve(sp.Eq(a, 0), t)
        if len(roots) != 1 or not any(is_zero(roots[0] - k) for k in kinks):
            return CheckResult(name, Verdict.REFUTED, [f"ReLU argument {a} vanishes off the kinks"])
    for k, v in zip(kinks, values):
        got = f.subs(t, k)
        if not is_zero(got - v):
            return CheckResult(name, Verdict.REFUTED, [f"f({k}) = {sp.simplify(got)}, claimed {v}"])
        details.append(f"f({k}) = {v}")
    s = sp.Symbol("s_far", positive=True)
    for side, base, claim in (("left", kinks[0] - s, slope_left), ("right", kinks[-1] + s, slope_right)):
        slope = sp.diff(f.subs(t, base), s) * (1 if side == "right" else -1)
        if not is_zero(slope - claim):
            return CheckResult(name, Verdict.REFUTED, [f"slope {side} = {sp.simplify(slope)}, claimed {claim}"])
        details.append(f"slope {side} of the kinks = {claim}")
    return CheckResult(name, Verdict.VERIFIED, details)


def prove_positive(name: str, expr, why: str = "") -> CheckResult:
    """VERIFIED iff sympy decides ``expr > 0`` from the symbols' assumptions."""
    e = sp.factor(sp.expand(expr))
    ok = e.is_positive
    v = Verdict.VERIFIED if ok is True else (Verdict.REFUTED if ok is False else Verdict.INCONCLUSIVE)
    return CheckResult(name, v, [f"{e} > 0" + (f"  ({why})" if why else "")])


def prove_identity(name: str, lhs, rhs) -> CheckResult:
    ok = is_zero(lhs - rhs)
    return CheckResult(name, Verdict.VERIFIED if ok else Verdict.REFUTED,
                       [f"{lhs} == {rhs}" if len(str(lhs)) < 120 else "identity holds"])


class ProofSteps:
    """A chain of sympy-proved steps: ``need(cond, text)`` records each step; the
    result is VERIFIED only if every step was proved (an unproved one, e.g. a
    simplification sympy could not finish, makes it INCONCLUSIVE, never a pass)."""

    def __init__(self):
        self.steps: list[str] = []
        self.ok = True

    def need(self, cond, text: str) -> None:
        self.ok = self.ok and bool(cond)
        self.steps.append(("proved: " if cond else "NOT proved: ") + text)

    def result(self, name: str, details: list[str]) -> CheckResult:
        return CheckResult(name, Verdict.VERIFIED if self.ok else Verdict.INCONCLUSIVE,
                           list(details) + self.steps)
