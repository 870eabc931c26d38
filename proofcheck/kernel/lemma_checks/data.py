"""Strict readers for a lemma instance's ``data`` (SPEC §3): every number is an exact
rational string or a JSON integer read by the one number parser
(``proofcheck.kernel.numbers``, with its size and exponent guards); JSON floats,
booleans, null, wrong shapes and missing keys raise ``BadInput`` with the JSON path.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import parse_number


def number(v, path: str) -> Fraction:
    """One exact number (string or JSON integer; floats and booleans rejected)."""
    if isinstance(v, float):
        raise BadInput("expected an exact rational string, got a JSON float", path)
    q, _ = parse_number(v, path)
    return q


def vector(v, d: int, path: str) -> tuple:
    """A ``(d,)`` vector of exact numbers."""
    if not isinstance(v, list) or len(v) != d:
        raise BadInput(f"expected a list of {d} numbers", path)
    return tuple(number(x, f"{path}[{i}]") for i, x in enumerate(v))


def points(v, d: int, path: str) -> list:
    """A non-empty list of ``(d,)`` vectors."""
    if not isinstance(v, list) or not v:
        raise BadInput("expected a non-empty list of points", path)
    return [vector(x, d, f"{path}[{i}]") for i, x in enumerate(v)]


def get(data, key: str, path: str):
    """``data[key]``, or ``BadInput`` naming the missing key."""
    if not isinstance(data, dict):
        raise BadInput("the lemma's data must be an object", path)
    if key not in data:
        raise BadInput(f"the lemma's data lacks {key!r}", path)
    return data[key]
