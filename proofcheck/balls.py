"""Three-valued comparisons of python-flint ``arb`` balls (SPEC §6).

An overlapping comparison is *undecided*: these helpers return ``None`` for it,
and callers map ``None`` to INCONCLUSIVE — never to a pass.
"""
from __future__ import annotations

from fractions import Fraction

from flint import arb, fmpq


def to_arb(x) -> arb:
    """``arb`` of an int, Fraction, fmpq or arb (exact for rationals)."""
    if isinstance(x, arb):
        return x
    if isinstance(x, Fraction):
        return arb(fmpq(x.numerator, x.denominator))
    return arb(x)


def le(a, b) -> bool | None:
    """``a <= b``: True / False when the balls decide it, ``None`` when they overlap."""
    a, b = to_arb(a), to_arb(b)
    if a <= b:
        return True
    if a > b:
        return False
    return None


def lt(a, b) -> bool | None:
    """``a < b`` three-valued."""
    a, b = to_arb(a), to_arb(b)
    if a < b:
        return True
    if a >= b:
        return False
    return None
