"""Rigorous rational upper bounds of ``exp(-y)`` for rational ``y >= 0`` (SPEC §4, §6).

From python-flint ``arb`` (ball arithmetic): the upper endpoint of the ball of
``exp(-y)`` is an exact dyadic number >= the true value.  For ``y >= K ln 2`` the
bound ``2^-K`` is used instead (decided exactly with ``ln 2 < 6932/10000``), which
keeps denominators short.  ``mpmath.iv`` is never used (it can under-enclose).
The tests cross-check these bounds against :func:`taylor_upper`, a pure-rational
bound: ``e^y >= sum_{k<n} y^k/k!`` for ``y >= 0``, so ``e^-y <= 1 / that sum``.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb, fmpq

LN2_UPPER = Fraction(6932, 10000)
FLOOR_BITS = 256


def exp_neg_upper(y: Fraction, floor_bits: int = FLOOR_BITS) -> Fraction:
    """Rational ``U >= exp(-y)`` for rational ``y >= 0``.  Raises ``ValueError``
    if ``y < 0``."""
    y = Fraction(y)
    if y < 0:
        raise ValueError("exp_neg_upper needs y >= 0")
    if y >= floor_bits * LN2_UPPER:
        return Fraction(1, 2 ** floor_bits)
    ball = arb(fmpq(-y.numerator, y.denominator)).exp()
    man, exp = ball.upper().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


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
