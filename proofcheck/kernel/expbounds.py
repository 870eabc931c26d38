"""Rigorous rational upper bounds of ``exp(-y)`` for rational ``y >= 0`` (SPEC §4, §6).

From python-flint ``arb`` (ball arithmetic): the upper endpoint of the ball of
``exp(-y)`` is an exact dyadic number >= the true value.  For ``y >= K ln 2`` the
floor ``2^-K`` is returned instead (decided exactly with ``ln 2 < 6932/10000``), so
the cost does not grow with ``y`` (``y = 10^18`` costs as little as ``y = 1``) and
denominators stay short.  The floor ``K`` is the caller's choice: the softmax
certifier picks it from the data (it grows it while a failure was due to the
floor), so no spread of the data is too large to certify.  ``mpmath.iv`` is never
used (it can under-enclose).  The tests cross-check these bounds against
:func:`taylor_upper`, a pure-rational bound: ``e^y >= sum_{k<n} y^k/k!`` for
``y >= 0``, so ``e^-y <= 1 / that sum``.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx, fmpq

LN2_UPPER = Fraction(6932, 10000)
_LN2_UPPER_Q = fmpq(6932, 10000)
FLOOR_BITS = 256


def _dyadic_q(a: arb) -> fmpq:
    man, exp = a.man_exp()
    man, exp = int(man), int(exp)
    return fmpq(man << exp) if exp >= 0 else fmpq(man, 1 << -exp)


def exp_neg_upper_q(y, floor_bits: int = FLOOR_BITS) -> tuple[fmpq, bool]:
    """``(U, floored)`` with ``U >= exp(-y)`` an exact dyadic ``fmpq`` for rational
    ``y >= 0`` (Fraction, int or fmpq); ``floored`` is True when ``U`` is the floor
    ``2^-floor_bits`` (``y >= floor_bits * ln 2``).  Raises ``ValueError`` if
    ``y < 0``.  Cost independent of the size of ``y``."""
    if not isinstance(y, fmpq):
        y = Fraction(y)
        y = fmpq(y.numerator, y.denominator)
    if y < 0:
        raise ValueError("exp_neg_upper needs y >= 0")
    if y >= floor_bits * _LN2_UPPER_Q:
        return fmpq(1, 1 << floor_bits), True
    with ctx.workprec(max(64, ctx.prec)):
        ball = arb(-y).exp()
    return _dyadic_q(ball.upper()), False


def exp_neg_upper(y: Fraction, floor_bits: int = FLOOR_BITS) -> Fraction:
    """Rational ``U >= exp(-y)`` for rational ``y >= 0`` (see :func:`exp_neg_upper_q`).
    Raises ``ValueError`` if ``y < 0``."""
    u, _ = exp_neg_upper_q(y, floor_bits)
    return Fraction(int(u.p), int(u.q))


def taylor_upper(y: Fraction, terms: int = 30) -> Fraction:
    """Pure-rational ``1 / sum_{k<terms} y^k / k!``, an upper bound of ``e^-y`` (y >= 0)."""
    y = Fraction(y)
    if y < 0:
        raise ValueError("taylor_upper needs y >= 0")
    s, term = Fraction(0), Fraction(1)
    for k in range(terms):
        s += term
        term = term * y / (k + 1)
    return 1 / s
