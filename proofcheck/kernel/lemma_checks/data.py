"""The ONE reader of a lemma instance's ``data`` (SPEC §3): every number an exact
string or a JSON integer (one rule), through the one parser; floats, booleans,
null, wrong shapes and missing keys are ``BadInput`` with the JSON path.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import parse_exact


def number(v, path: str) -> Fraction:
    """One exact number (string or JSON integer)."""
    return parse_exact(v, path)


def vector(v, d: int, path: str) -> tuple:
    """A ``(d,)`` vector of exact numbers."""
    if not isinstance(v, list) or len(v) != d:
        got = f"{len(v)} entries" if isinstance(v, list) else type(v).__name__
        raise BadInput(f"expected a list of d = {d} numbers (the instance's dimension), "
                       f"got {got}", path)
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
        raise BadInput(f"the lemma's data lacks {key!r}", f"{path}.{key}")
    return data[key]
