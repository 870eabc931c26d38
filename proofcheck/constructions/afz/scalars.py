"""Scalars of the FF constructions (3.1, 3.2, 3.2p, 3.3): exact rationals, or sympy
expressions when a routine is called with symbols (``lemma ID`` then proves the
conclusion on the returned symbolic entries, ``proofcheck.constructions.provers.symbolic``).

Rationals stay ``fractions.Fraction`` so the exact path is unchanged; anything with
``free_symbols`` (a sympy expression) is kept as it is.  No sympy import here.
"""
from __future__ import annotations

import numbers
from fractions import Fraction

from proofcheck.kernel.model import ParameterError


def scalar(x):
    """``Fraction(x)`` for rationals (ints, Fractions) and numeric strings; a sympy
    expression unchanged.  Raises :class:`ParameterError` (a ``ValueError``) for
    anything else (None, floats, booleans, containers, non-numeric strings): the
    constructions are exact."""
    if type(x) is Fraction:  # the common case, without the ABC checks below
        return x
    if hasattr(x, "free_symbols"):
        return x
    if isinstance(x, (numbers.Rational, str)) and not isinstance(x, bool):
        try:
            return Fraction(x)
        except ValueError:
            pass
    raise ParameterError(f"scalar: x must be a rational number or a sympy expression, got {x!r}")


def scalars(xs) -> tuple:
    """Tuple of :func:`scalar` values.  Raises :class:`ParameterError` (a
    ``ValueError``) unless ``xs`` is a list or tuple of scalars."""
    if not isinstance(xs, (list, tuple)):
        raise ParameterError(f"scalars: xs must be a vector (list or tuple of scalars), got {xs!r}")
    return tuple(scalar(x) for x in xs)


def require(cond, message: str) -> None:
    """Raise :class:`ParameterError` (a ``ValueError``) with ``message`` (which names
    the parameter and the hypothesis, e.g. ``"hat: delta must be positive"``) unless
    ``cond`` is decidably true (a sympy relation that the symbols' assumptions do
    not decide is rejected too)."""
    try:
        ok = bool(cond)
    except TypeError:
        raise ParameterError(message + " (not decided by the symbols' assumptions)") from None
    if not ok:
        raise ParameterError(message)
