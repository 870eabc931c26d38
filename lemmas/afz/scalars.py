"""Scalars of the FF constructions (3.1, 3.2, 3.2p, 3.3): exact rationals, or sympy
expressions when a routine is called with symbols (``lemma ID`` then proves the
conclusion on the returned symbolic entries, ``proofcheck.symbolic``).

Rationals stay ``fractions.Fraction`` so the exact path is unchanged; anything with
``free_symbols`` (a sympy expression) is kept as it is.  No sympy import here.
"""
from __future__ import annotations

from fractions import Fraction


def scalar(x):
    """``Fraction(x)`` for ints, strings and Fractions; a sympy expression unchanged."""
    if hasattr(x, "free_symbols"):
        return x
    return Fraction(x)


def scalars(xs) -> tuple:
    """Tuple of :func:`scalar` values."""
    return tuple(scalar(x) for x in xs)


def require(cond, message: str) -> None:
    """Raise ``ValueError(message)`` unless ``cond`` is decidably true (a sympy
    relation that the symbols' assumptions do not decide is rejected too)."""
    try:
        ok = bool(cond)
    except TypeError:
        raise ValueError(message + " (not decided by the symbols' assumptions)") from None
    if not ok:
        raise ValueError(message)
