"""Three-valued comparisons of python-flint ``arb`` balls (docs/spec.md §5, §6).

A ball is turned into its exact rational enclosure ``[mid - rad, mid + rad]``
(midpoint and radius of an ``arb`` are dyadic numbers, read exactly through
``man_exp``).  A comparison returns

* ``True``  — it holds for every point of both enclosures,
* ``False`` — it fails for every point of both enclosures,
* ``None``  — the enclosures overlap: undecided.  ``None`` is never a pass.

``decide`` re-evaluates a comparison at increasing working precision until it is
decided (or the precision ladder is exhausted, then ``None``).  Exact rationals
(``Fraction``, ``int``, ``fmpq``) are accepted wherever a ball is.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

from flint import arb, ctx, fmpq

from proofcheck.kernel.numbers import approx
from proofcheck.kernel.verdicts import Verdict

PRECISIONS = (64, 256, 1024, 4096)


def q(x) -> fmpq:
    """``fmpq`` of an exact rational (Fraction, int, fmpq)."""
    if isinstance(x, fmpq):
        return x
    x = Fraction(x)
    return fmpq(x.numerator, x.denominator)


def ball(x) -> arb:
    """An ``arb`` enclosing the exact rational ``x`` (at the current precision)."""
    if isinstance(x, arb):
        return x
    return arb(q(x))


def exp_q(x) -> arb:
    """Enclosure of ``exp(x)`` for an exact rational ``x`` (python-flint ``arb.exp``)."""
    return ball(x).exp()


MAX_EXP_BITS = 1 << 24  # dyadics with larger exponents are not turned into Fractions


def _dyadic(a: arb) -> Fraction | None:
    m, e = a.man_exp()
    m, e = int(m), int(e)
    if abs(e) > MAX_EXP_BITS:
        return None
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** (-e))


def interval(x) -> tuple[Fraction, Fraction] | None:
    """Exact rational enclosure ``(lo, hi)`` of a ball, or ``None`` if it is not
    finite or its exponent exceeds ``2^24`` bits (``exp(-10^12)`` is a fine ball
    but not a Fraction anyone can afford; compare such balls with :func:`le` /
    :func:`lt`, which work on the balls natively)."""
    if isinstance(x, arb):
        if not x.is_finite():
            return None
        m, r = _dyadic(x.mid()), _dyadic(x.rad())
        if m is None or r is None:
            return None
        return m - r, m + r
    v = Fraction(int(x.p), int(x.q)) if isinstance(x, fmpq) else Fraction(x)
    return v, v


def _native(a, b):
    """Both as arb balls when either is a ball (arb's own comparisons are rigorous:
    True only when certain)."""
    return ball(a), ball(b)


def le(a, b) -> bool | None:
    """Three-valued ``a <= b`` (exact when both are rationals; arb-native otherwise,
    so balls with astronomically large exponents compare in microseconds)."""
    if not isinstance(a, arb) and not isinstance(b, arb):
        return interval(a)[0] <= interval(b)[0]
    A, B = _native(a, b)
    if not (A.is_finite() and B.is_finite()):
        return None
    if A <= B:
        return True
    if A > B:
        return False
    return None


def lt(a, b) -> bool | None:
    """Three-valued ``a < b`` (see :func:`le`)."""
    if not isinstance(a, arb) and not isinstance(b, arb):
        return interval(a)[0] < interval(b)[0]
    A, B = _native(a, b)
    if not (A.is_finite() and B.is_finite()):
        return None
    if A < B:
        return True
    if A >= B:
        return False
    return None


def decide(fn: Callable[[], bool | None], precisions=PRECISIONS) -> tuple[bool | None, int]:
    """Evaluate ``fn()`` (which builds its balls inside) at increasing working
    precision until it returns ``True`` or ``False``.  Returns ``(result, bits)``;
    ``(None, last_bits)`` if no precision of the ladder decides."""
    res = None
    for p in precisions:
        with ctx.workprec(p):
            res = fn()
        if res is not None:
            return res, p
    return None, precisions[-1]


def verdict(t: bool | None) -> Verdict:
    """``True`` → VERIFIED, ``False`` → REFUTED, ``None`` → INCONCLUSIVE."""
    return Verdict.VERIFIED if t is True else (Verdict.REFUTED if t is False else Verdict.INCONCLUSIVE)


def _round_down(x: Fraction, den: int) -> Fraction:
    return Fraction((x.numerator * den) // x.denominator, den)


def _round_up(x: Fraction, den: int) -> Fraction:
    return -_round_down(-x, den)


def outward(x, digits: int = 6) -> tuple[Fraction, Fraction]:
    """A short rational enclosure ``(lo, hi)`` of ``x`` (decimals with ``digits``
    digits, rounded outward) — for printing; it still contains ``x``."""
    iv = interval(x)
    if iv is None:
        raise ValueError("ball is not finite")
    den = 10 ** digits
    return _round_down(iv[0], den), _round_up(iv[1], den)


def separated(lo_ball, hi_ball, max_digits: int = 40) -> tuple[tuple[Fraction, Fraction],
                                                               tuple[Fraction, Fraction]] | None:
    """Short decimal enclosures ``(A, B)`` of two balls with ``A.hi < B.lo`` (so
    ``lo_ball < hi_ball`` is readable from the printed numbers), using the fewest
    digits that keep them apart; ``None`` if the balls are not separated."""
    if lt(lo_ball, hi_ball) is not True:
        return None
    for d in range(1, max_digits + 1):
        A, B = outward(lo_ball, d), outward(hi_ball, d)
        if A[1] < B[0]:
            return A, B
    A, B = interval(lo_ball), interval(hi_ball)
    return A, B


def value_interval(exponent, digits: int = 9) -> tuple[Fraction, Fraction]:
    """Outward-rounded decimal enclosure of ``[10^e_lo, 10^e_hi]`` (python-flint arb)."""
    with ctx.workprec(128):
        lo = arb(10) ** arb(q(exponent[0]))
        hi = arb(10) ** arb(q(exponent[1]))
        places = max(digits - 1 - math.floor(exponent[0]), 0)
        return outward(lo, places)[0], outward(hi, places)[1]


def fmt_interval(iv: tuple[Fraction, Fraction]) -> str:
    """``[lo, hi]`` with up to 40 significant digits (exact for the short decimals
    of :func:`outward`), by the one formatter."""
    return f"[{approx(iv[0], 40)}, {approx(iv[1], 40)}]"
