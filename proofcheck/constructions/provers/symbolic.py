"""Symbolic (sympy) proofs for all parameter values.

``prove_profile``: the FF routines of 3.1–3.3 are generic in their scalars; called
with sympy symbols (the lemma's hypotheses as the symbols' assumptions, e.g.
``delta > 0``) they return an FF with symbolic entries.  Its piecewise-linear
profile along the direction is computed from the returned ``U, b, W``
(``proofcheck.kernel.lemma_checks.profile``, the same algorithm the certificate
kernel runs on rationals) and each conclusion "FF(x) = x + L(<w,x>) on an interval"
is decided at the interval's ends, at every kink inside and by the tail slopes, with
sign decisions from the assumptions.  An undecided sign or simplification is
INCONCLUSIVE, never a pass; a difference that is not identically zero is REFUTED
with exact parameter values where it is non-zero.
"""
from __future__ import annotations

import sympy as sp

from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Scope, Verdict, Witness, combine


def relu(x):
    return sp.Max(0, x)


def is_zero(expr) -> bool:
    """True only if sympy proves ``expr == 0`` (after simplification)."""
    if isinstance(expr, sp.MatrixBase):
        return all(is_zero(x) for x in expr)
    e = sp.simplify(sp.expand(expr))
    return e == 0


def _sign(expr) -> int:
    """Sign of ``expr`` decided from the symbols' assumptions (raises Undecided, also
    when sympy itself raises: the prover failed, nothing is disproved)."""
    from proofcheck.kernel.lemma_checks.profile import Undecided
    try:
        e = sp.factor(sp.cancel(sp.together(sp.sympify(expr))))
        if e == 0:
            return 0
        pos, neg = e.is_positive, e.is_negative
    except Exception as exc:  # noqa: BLE001  (a library failure is no disproof)
        raise Undecided(f"sympy raised {type(exc).__name__}: {exc}"[:300]) from exc
    if pos:
        return 1
    if neg:
        return -1
    raise Undecided(f"sign of {e} is not decided by the assumptions")


def _rational_zero(expr) -> bool:
    """True iff the rational function ``expr`` is identically zero (raises Undecided
    when sympy raises)."""
    from proofcheck.kernel.lemma_checks.profile import Undecided
    try:
        return sp.cancel(sp.together(sp.sympify(expr))) == 0
    except Exception as exc:  # noqa: BLE001
        raise Undecided(f"sympy raised {type(exc).__name__}: {exc}"[:300]) from exc


def sympy_field():
    """The :class:`~proofcheck.kernel.lemma_checks.profile.Field` of sympy scalars."""
    from proofcheck.kernel.lemma_checks.profile import Field
    return Field(_sign, _rational_zero)


def _witness_values(exprs, tries: int = 60, seed: int = 0):
    """Exact values of the free symbols (respecting positive/real assumptions) at
    which some expression of ``exprs`` is non-zero, or ``None``."""
    import random
    syms = sorted(set().union(*(sp.sympify(e).free_symbols for e in exprs)), key=str)
    rng = random.Random(seed)
    for _ in range(tries):
        vals = {}
        for s in syms:
            v = sp.Rational(rng.randint(1, 9), rng.randint(1, 3))
            vals[s] = v if s.is_positive else v * rng.choice([1, -1])
        if any(sp.sympify(e).subs(vals) != 0 for e in exprs):
            return vals
    return None


def prove_profile(name: str, ff, w, claims, hypotheses: str, second=None) -> CheckResult:
    """Prove the conclusions ``claims`` of an FF lemma on the layer ``ff`` (symbolic
    entries) for all symbol values allowed by their assumptions.

    ``w``: the direction (``(d,)`` sympy scalars); every row of ``ff.U`` must be a
    multiple of it.  ``claims``: list of ``(lo, hi, L, text)``: for every token x with
    ``lo <= <w,x> <= hi`` (``None`` = unbounded), ``FF(x) = x + L(<w,x>)``; ``L``
    maps t to a ``(d,)`` list affine in t.  The prover applies only to a residual
    layer (``eta = 1``) whose rows of ``U`` lie along ``w``: a layer outside that is
    INCONCLUSIVE (not applicable, witness code ``eta-not-one`` / ``row-off-direction``),
    never REFUTED, since the claims may still hold.
    ``second``: a second prover (``proofcheck.constructions.provers.smt.Z3Prover``) that decides every
    claim too, from the same layer and claims; the result is then VERIFIED only when
    both proved every claim (``provers`` names them), ERROR when they disagree, and
    a refutation carries the second prover's checked counterexample when it found one.
    Returns VERIFIED, REFUTED (with the failing point and parameter values) or
    INCONCLUSIVE (not applicable, or an undecided sign)."""
    det = [f"hypotheses: {hypotheses}",
           "profile computed from the returned U, b, W: FF(x) = eta x + "
           "sum_k W_k relu(alpha_k <w,x> + b_k), U_k = alpha_k w"]
    prof, not_applicable = _profile_of(ff, w, det)
    verdict, witness, model, said = Verdict.VERIFIED, None, None, {"sympy": [], "z3": []}
    for lo, hi, target, text in claims:
        if prof is None:
            verdict, line, witness = Verdict.INCONCLUSIVE, f"not decided: {text}", not_applicable
        else:
            verdict, line, witness = _claim(prof, lo, hi, target, text)
        if second is not None:
            out = second.profile_claim(ff, w, lo, hi, target)
            said["sympy"].append(verdict)
            said["z3"].append(out.verdict)
            if verdict is not Verdict.VERIFIED:
                det.append(f"sympy: {line}")
            verdict, line, witness = second.merge(verdict, witness, out, text)
            model = out.model if verdict is Verdict.REFUTED else None
        det.append(line)
        if verdict is not Verdict.VERIFIED:
            break
    ok = verdict is Verdict.VERIFIED
    res = CheckResult(name, verdict, det, None if ok else witness,
                      scope=Scope.ALL_PARAMETERS if ok else None, counterexample=model)
    if second is not None:
        res.provers = {k: combine(v).value for k, v in said.items()}
    return res


def _profile_of(ff, w, det: list):
    """``(profile, None)``, or ``(None, witness or None)`` when sympy's method does not
    apply (eta != 1: code ``eta-not-one``; a row off the direction: ``row-off-direction``)
    or a sign is undecided; the reason is added to ``det``."""
    from proofcheck.kernel.lemma_checks.profile import NotAlong, Profile, Undecided
    try:
        prof = Profile.along(ff, w, sympy_field())
        if not _rational_zero(prof.eta - 1):
            det.append("not applicable: prove_profile needs a residual layer (eta = 1)")
            return None, Witness("the layer does not have eta = 1", expected=1, got=prof.eta,
                                 code="eta-not-one")
        det.append(f"eta = 1; alpha = {[sp.simplify(a) for a in prof.alphas]}; "
                   f"kinks at {[sp.simplify(k) for k in prof.kinks()]}")
    except NotAlong as e:
        det.append("not applicable: prove_profile needs every row of U along the direction")
        return None, Witness(str(e), code="row-off-direction")
    except Undecided as e:
        det.append(f"undecided: {e}")
        return None, None
    return prof, None


def _claim(prof, lo, hi, target, text: str):
    """sympy's ``(verdict, line, witness)`` on one claim of :func:`prove_profile`."""
    from proofcheck.kernel.lemma_checks.profile import Undecided
    try:
        bad = prof.first_difference(lo, hi, target)
    except Undecided as e:
        return Verdict.INCONCLUSIVE, f"undecided: {e}", None
    if bad is None:
        return Verdict.VERIFIED, f"proved: {text}", None
    where, got, exp = bad
    diffs = [sp.simplify(g - e) for g, e in zip(got, exp)]
    vals = _witness_values([x for x in diffs if x != 0])
    c = next(i for i, x in enumerate(diffs) if x != 0)
    at = where if isinstance(where, str) else f"<w,x> = {sp.simplify(where)}"
    ws = "" if not vals else "; non-zero at " + ", ".join(f"{k} = {v}" for k, v in vals.items())
    return Verdict.REFUTED, f"NOT proved: {text}", Witness(
        f"{text} fails at {at}{ws}", coordinate=c, expected=sp.simplify(exp[c]),
        got=sp.simplify(got[c]), code="piece-fails")


def prove_positive(name: str, expr, why: str = "") -> CheckResult:
    """VERIFIED iff sympy decides ``expr > 0`` from the symbols' assumptions."""
    e = sp.factor(sp.expand(expr))
    ok = e.is_positive
    v = Verdict.VERIFIED if ok is True else (Verdict.REFUTED if ok is False else Verdict.INCONCLUSIVE)
    return CheckResult(name, v, [f"{e} > 0" + (f"  ({why})" if why else "")])


#: values tried for a symbol when looking for a point where an identity fails
_TRIALS = (2, 3, sp.Rational(1, 2), 5, 7, sp.Rational(3, 2))


def _admissible(sym, v) -> bool:
    """``v`` satisfies the sign and integrality assumptions of ``sym``."""
    a = sym.assumptions0
    return not ((a.get("positive") and v <= 0) or (a.get("negative") and v >= 0)
                or (a.get("nonnegative") and v < 0) or (a.get("nonpositive") and v > 0)
                or (a.get("zero") is False and v == 0) or (a.get("integer") and not v.is_integer))


def nonzero_point(expr) -> dict | None:
    """Exact values of the free symbols of ``expr``, each satisfying its assumptions, at
    which sympy decides ``expr != 0`` (``None``: none found among a few trials)."""
    expr = sp.sympify(expr)
    syms, n = sorted(expr.free_symbols, key=str), len(_TRIALS)
    for k in range(n):
        vals = {}
        for i, s in enumerate(syms):
            order = _TRIALS[(k + i) % n:] + _TRIALS[:(k + i) % n]
            signs = (1, -1) if (k + i) % 2 == 0 else (-1, 1)  # both signs across the trials
            v = next((c for t in order for c in (signs[0] * t, signs[1] * t)
                      if _admissible(s, sp.sympify(c))), None)
            if v is None:
                return None
            vals[s] = v
        try:
            if sp.simplify(expr.subs(vals)).is_zero is False:
                return vals
        except Exception:  # noqa: BLE001  (a library failure disproves nothing)
            return None
    return None


def prove_identity(name: str, lhs, rhs) -> CheckResult:
    """VERIFIED iff sympy proves ``lhs == rhs`` for all values of the symbols (scope: for
    all parameters); REFUTED only with exact values satisfying the symbols' assumptions
    at which the difference is decided non-zero (the witness); otherwise INCONCLUSIVE:
    simplification not reaching 0 is a prover failure, never a disproof."""
    text = f"{lhs} == {rhs}" if len(str(lhs)) < 120 else "the identity"
    try:
        if is_zero(lhs - rhs):
            return CheckResult(name, Verdict.VERIFIED, [text], scope=Scope.ALL_PARAMETERS)
        at = nonzero_point(lhs - rhs)
    except Exception as exc:  # noqa: BLE001
        return CheckResult(name, Verdict.INCONCLUSIVE, [text, f"undecided: sympy raised "
                                                        f"{type(exc).__name__}"])
    if at is not None:
        vals = ", ".join(f"{s} = {v}" for s, v in at.items())
        return CheckResult(name, Verdict.REFUTED, [text, f"fails at {vals}"], Witness(
            f"the two sides differ at {vals}", expected=str(sp.simplify(sp.sympify(rhs).subs(at))),
            got=str(sp.simplify(sp.sympify(lhs).subs(at))), code="identity-fails"))
    return CheckResult(name, Verdict.INCONCLUSIVE, [text, "undecided: sympy did not reduce the "
                                                    "difference to 0 and no failing point was "
                                                    "found (a prover failure, not a disproof)"])


class ProofSteps:
    """A chain of sympy-proved steps: ``need(cond, text)`` records each step; the
    result is VERIFIED only if every step was proved (an unproved one, e.g. a
    simplification sympy could not finish, makes it INCONCLUSIVE, never a pass)."""

    def __init__(self):
        self.steps: list[str] = []
        self.ok = True
        self.assumed: list[str] = []

    def need(self, cond, text: str, assumed: str | None = None) -> None:
        """Record one step; ``assumed`` names an inequality the step substitutes into
        (only the algebra of the substitution is proved, the inequality is assumed)."""
        self.ok = self.ok and bool(cond)
        if assumed is not None and assumed not in self.assumed:
            self.assumed.append(assumed)
        what = "proved" if assumed is None else f"substituted into {assumed} (assumed, not proved)"
        self.steps.append((f"{what}: " if cond else f"NOT {what}: ") + text)

    def result(self, name: str, details: list[str]) -> CheckResult:
        return CheckResult(name, Verdict.VERIFIED if self.ok else Verdict.INCONCLUSIVE,
                           list(details) + self.steps, scope=Scope.ALL_PARAMETERS,
                           assumes=tuple(self.assumed))
