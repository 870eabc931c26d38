"""Scalars and sympy proof steps for the SA lemmas (4.1, 4.2, 4.3, the tag and
the collapse; docs/spec.md §1, §2).

The SA construction routines are generic in their scalars: :func:`scalar` keeps a
sympy expression as it is and turns anything else into a ``Fraction`` (the
rational path never imports sympy).  The proofs then evaluate the *returned*
layer with the same formulas as the reference backend
(``proofcheck.kernel.evaluate``): scores ``<A x_i, x_l>`` through
``Factored.apply`` and ``dot``, and the value map ``rho x_i + V mean``
(:func:`score`, :func:`value`).  No layer formula is typed a second time.

Every proof step is three-valued: sympy proves it (VERIFIED), disproves it
(REFUTED, with the offending expression), or cannot decide (INCONCLUSIVE, never a
pass).  sympy itself raising inside a step (say ``ValueError: The argument 'zoo' is
not comparable`` from ``simplify``) is the prover failing: INCONCLUSIVE with the
library's message (:class:`ProverFailure`), never a disproof.  Only the construction
routine, or the evaluation of what it returned, raising on a valid input refutes
(:func:`guarded`).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import ParameterError, dot
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict


def is_symbolic(x) -> bool:
    """True for a sympy object (duck-typed: sympy is not imported)."""
    return hasattr(x, "free_symbols")


def scalar(x):
    """``x`` as a ``Fraction`` (ints, strings, Fractions) or unchanged if it is a
    sympy expression.  Raises :class:`ParameterError` (a ``ValueError`` and a
    ``TypeError``) for anything ``Fraction`` refuses (None, containers, bad strings)."""
    if isinstance(x, Fraction):
        return x
    if is_symbolic(x):
        return x
    try:
        return Fraction(x)
    except (TypeError, ValueError):
        raise ParameterError(f"scalar: x must be a rational number or a sympy expression, "
                             f"got {x!r}"[:200], "scalar", "x") from None


def vector(xs) -> tuple:
    """Tuple of :func:`scalar` values.  Raises :class:`ParameterError` unless ``xs``
    is a list or tuple of scalars."""
    if not isinstance(xs, (list, tuple)):
        raise ParameterError(f"vector: xs must be a list or tuple of scalars, got {xs!r}"[:200],
                             "vector", "xs")
    return tuple(scalar(x) for x in xs)


def score(sa, x, y):
    """The attention score ``<A x, y>`` of layer ``sa`` (as the backends compute it)."""
    return dot(sa.A.apply(x), y)


def value(sa, x, mean):
    """The output ``rho x + V mean`` of layer ``sa`` for token ``x`` whose
    attention-weighted mean is ``mean`` (as the backends compute it)."""
    return [sa.rho * xi + vi for xi, vi in zip(x, sa.V.apply(mean), strict=True)]


class ProverFailure(Exception):
    """The prover (sympy) raised while deciding a step: INCONCLUSIVE, with the
    library's message, never REFUTED."""


def decide(fn, *args):
    """``fn(*args)``, a sympy simplification or sign query of the prover; any exception
    it raises becomes :class:`ProverFailure` naming the library's message."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001  (the library failed, not the construction)
        raise ProverFailure(f"sympy raised {type(exc).__name__}: {exc}"[:300]) from exc


class Proof:
    """A chain of sympy-decided steps; ``result`` is the worst step's verdict.

    ``zero(expr, text)``: ``expr`` simplifies to 0; ``positive(expr, text)``: sympy
    decides ``expr > 0`` from the symbols' assumptions; ``negative`` likewise;
    ``fact(ok, text)``: a finite exact check (``ok`` a bool).
    ``second``: a second prover (``proofcheck.constructions.provers.smt.Z3Prover``) that decides every
    ``zero`` / ``positive`` / ``negative`` step too, on the same expression; a step is
    then proved only when both proved it, the provers disagreeing is ERROR, and a
    refutation carries the second prover's checked counterexample when it found one
    (``result`` names the provers in ``provers``)."""

    def __init__(self, second=None):
        self.steps: list[str] = []
        self.verdicts: list[Verdict] = []
        self.first_failure: str | None = None
        self.second = second
        self.said: dict = {"sympy": [], getattr(second, "name", "second"): []}
        self.witness = None
        self.model: dict | None = None

    def _record(self, v: Verdict, text: str, ask=None, step: str | None = None) -> bool:
        """Record one step sympy decided as ``v`` (``text``: sympy's line, ``step``:
        the step's name); ``ask(second)`` is the second prover's answer on the same
        step (``None``: a finite fact, no prover)."""
        if self.second is not None and ask is not None:
            out = ask(self.second)
            self.said["sympy"].append(v)
            self.said[self.second.name].append(out.verdict)
            v, line, w = self.second.merge(v, None, out, text, step)
            self.steps.append(line)
        else:
            tag = {Verdict.VERIFIED: "proved", Verdict.REFUTED: "DISPROVED"}.get(v, "NOT decided")
            line, w, out = f"{tag}: {text}", None, None
            self.steps.append(line)
        self.verdicts.append(v)
        if v != Verdict.VERIFIED and self.first_failure is None:
            self.first_failure, self.witness = line, w
            self.model = out.model if out is not None and v is Verdict.REFUTED else None
        return v == Verdict.VERIFIED

    def zero(self, expr, text: str) -> bool:
        import sympy as sp
        exprs = list(expr) if isinstance(expr, (list, tuple)) else [expr]
        if self.first_failure is not None:
            return self._skip(text)
        ask = lambda p: p.zero(exprs)  # noqa: E731
        try:
            for e in exprs:
                e = sp.sympify(e)
                # a cheap exact disproof first: an admissible rational point where e != 0
                pt = (decide(_witness_point, e, lambda val: val != 0, 4) if e.free_symbols
                      else None)
                if pt is not None:
                    return self._record(Verdict.REFUTED,
                                        f"{text}  [residual {_short(e)}{_at(pt)}]", ask, text)
                s = decide(lambda x: sp.simplify(sp.expand(x)), e)
                if decide(lambda x: x != 0, s):
                    pt = decide(_witness_point, s, lambda val: val != 0)
                    if pt is None and not s.free_symbols:
                        pt = {}
                    v = Verdict.REFUTED if pt is not None else Verdict.INCONCLUSIVE
                    return self._record(v, f"{text}  [residual {_short(s)}{_at(pt)}]", ask, text)
        except ProverFailure as exc:
            return self._record(Verdict.INCONCLUSIVE, f"{text}  [{exc}]", ask, text)
        return self._record(Verdict.VERIFIED, text, ask, text)

    def positive(self, expr, text: str) -> bool:
        return self._sign(expr, text, True)

    def negative(self, expr, text: str) -> bool:
        return self._sign(expr, text, False)

    def _sign(self, expr, text, want_positive):
        import sympy as sp
        if self.first_failure is not None:
            return self._skip(text)
        expr = sp.sympify(expr)
        ask = lambda p: p.sign(expr, want_positive)  # noqa: E731
        try:
            e = decide(lambda x: sp.factor(sp.expand(x)), expr)
            ok = decide(lambda x: x.is_positive if want_positive else x.is_negative, e)
            if ok is True:
                return self._record(Verdict.VERIFIED, f"{text}  [{_short(e)}]", ask, text)
            # disproved only by an admissible point where the sign fails
            pt = decide(_witness_point, e, (lambda val: val <= 0) if want_positive
                        else (lambda val: val >= 0))
        except ProverFailure as exc:
            return self._record(Verdict.INCONCLUSIVE, f"{text}  [{exc}]", ask, text)
        v = Verdict.REFUTED if pt is not None else Verdict.INCONCLUSIVE
        return self._record(v, f"{text}  [{_short(e)}{_at(pt)}]", ask, text)

    def _skip(self, text: str) -> bool:
        self.steps.append(f"skipped after the first failure: {text}")
        return False

    def fact(self, ok: bool, text: str) -> bool:
        if self.first_failure is not None:
            return self._skip(text)
        return self._record(Verdict.VERIFIED if ok else Verdict.REFUTED, text)

    def verdict(self) -> Verdict:
        order = [Verdict.ERROR, Verdict.REFUTED, Verdict.INCONCLUSIVE, Verdict.VERIFIED]
        return min(self.verdicts, key=order.index) if self.verdicts else Verdict.ERROR

    def result(self, name: str, details=()) -> CheckResult:
        from proofcheck.kernel.verdicts import Scope, Witness, combine
        v = self.verdict()
        w = None
        if v in (Verdict.REFUTED, Verdict.ERROR):
            w = self.witness or Witness(f"symbolic step failed on the returned layer: "
                                        f"{self.first_failure}", code="symbolic-step-fails")
        res = CheckResult(name, v, list(details) + self.steps, w, scope=Scope.ALL_PARAMETERS,
                          counterexample=self.model)
        if self.second is not None and self.said["sympy"]:
            res.provers = {k: combine(x).value for k, x in self.said.items()}
        return res


def _candidates(sym):
    """Exact trial values for one symbol that respect its sympy assumptions."""
    from fractions import Fraction as F
    if sym.is_positive:
        vals = [1, 2, F(1, 2), 3, F(1, 3), 5]
    elif sym.is_negative:
        vals = [-1, -2, F(-1, 2), -3]
    elif sym.is_nonnegative:
        vals = [0, 1, 2, F(1, 2)]
    elif sym.is_nonpositive:
        vals = [0, -1, -2]
    elif sym.is_nonzero:
        vals = [1, -1, 2, F(-1, 2), 3]
    else:
        vals = [0, 1, -1, 2, F(1, 2), -3]
    return vals


def _witness_point(expr, bad, tries: int = 40):
    """An exact assignment of the free symbols (respecting their assumptions)
    where ``bad(value)`` holds, or ``None``.  Deterministic."""
    import random

    import sympy as sp
    syms = sorted(expr.free_symbols, key=str)
    rng = random.Random(0)
    for k in range(tries):
        pt = {s: (_candidates(s)[0] if k == 0 else rng.choice(_candidates(s))) for s in syms}
        try:
            val = expr.subs({s: sp.Rational(str(v)) for s, v in pt.items()})
        except (ZeroDivisionError, TypeError, ValueError):
            continue
        if val.is_Rational and bad(val):
            return {str(s): v for s, v in pt.items()}
        if not syms:
            break
    return None


def _at(pt) -> str:
    if pt is None:
        return "; no counterexample found"
    if not pt:
        return "; constant"
    return "; e.g. at " + ", ".join(f"{k} = {v}" for k, v in pt.items())


def _short(e, limit: int = 160) -> str:
    s = str(e)
    return s if len(s) <= limit else s[:limit] + " ..."


def symbols(prefix: str, n: int, **assumptions) -> tuple:
    """``n`` sympy symbols ``prefix0 .. prefix{n-1}`` with the given assumptions."""
    import sympy as sp
    return tuple(sp.Symbol(f"{prefix}{i}", **assumptions) for i in range(n))


def data_json(v):
    """A lemma's data as a certificate carries it: rationals as exact strings."""
    from proofcheck.kernel.numbers import format_q
    if isinstance(v, dict):
        return {str(k): data_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [data_json(x) for x in v]
    if isinstance(v, Fraction):
        return format_q(v)
    return v


def kernel_recheck(statement: str, res: CheckResult) -> CheckResult:
    """Run the kernel's re-derivation (``proofcheck.kernel.lemma_checks``) on the
    data and layer of the instance result ``res`` exactly as a certificate would
    carry them (data as strings, hardmax).  Any exception is ERROR (fail closed)."""
    from proofcheck.kernel.lemma_checks import checker
    name = f"kernel re-derivation of {statement}: {res.name.split(':')[0]}"
    try:
        d = next(len(t) for s in res.instance[1] for t in s)
        v, lines, w = checker(statement)(statement, data_json(res.data), res.instance[0],
                                         {"attention": "hardmax"}, "$.instances[0]", d)
    except Exception as exc:  # fail closed
        return CheckResult(name, Verdict.ERROR, [f"{type(exc).__name__}: {exc}"])
    return CheckResult(name, v, lines, w)


def guarded(name: str, fn, *args) -> list:
    """``fn(*args)`` (a list of CheckResults, or one).  If the construction or the
    evaluation of what it returned raises on this valid instance, the result is
    REFUTED with the instance as witness: the routine does not build the lemma's
    layer there (reported apart from value/form refutations in the mutation
    report).  A :class:`ProverFailure` (sympy raising inside a proof step) is
    INCONCLUSIVE with the library's message: the prover failed, not the claim."""
    try:
        r = fn(*args)
    except ProverFailure as exc:
        return [CheckResult(name, Verdict.INCONCLUSIVE,
                            [f"the prover failed, nothing was decided: {exc}"])]
    except Exception as exc:  # noqa: BLE001  (any failure on a valid input refutes)
        from proofcheck.kernel.verdicts import Witness
        msg = f"{type(exc).__name__}: {exc}"[:200]
        return [CheckResult(name, Verdict.REFUTED, ["the routine raised on a valid input"],
                            Witness(f"construction raised on a valid input ({msg})",
                                    got=_short(repr(args), 120) if args else None))]
    return r if isinstance(r, list) else [r]
