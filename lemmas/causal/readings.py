"""Readings of "T(X_j) = Y_j" under a causal mask (SPEC §1 "Extensions") and the
prefix obstructions they meet.

With a mask, a sequence is an ordered tuple and the output of position i depends on
the prefix ``(x_1, ..., x_i)`` only (statement ``causal-first-token``).  Two readings:

* ``all-outputs`` (the SPEC's default for unmasked networks): the set of all n_j
  outputs equals Y_j;
* ``last-outputs``: the set of the last m_j outputs (positions n_j - m_j + 1 .. n_j,
  the *read positions*) equals Y_j; the other outputs are not read.

A *prefix conflict* is two read positions, of sequences j != k, with equal prefixes
and ``Y_j ∩ Y_k = ∅``: the two outputs are equal (the prefix property), so one of
them is not a target of its sequence, and no causal transformer interpolates in that
reading.  In the all-outputs reading every position is read, so two sequences
sharing their FIRST token with disjoint targets are a conflict (prefixes of length 1).
"""
from __future__ import annotations

from dataclasses import dataclass

ALL = "all-outputs"
LAST = "last-outputs"
READINGS = (ALL, LAST)


def read_positions(n: int, m: int, reading: str) -> range:
    """The 0-based positions whose outputs are compared with Y_j (``n`` inputs, ``m``
    targets).  ``ValueError`` for an unknown reading."""
    if reading == ALL:
        return range(n)
    if reading == LAST:
        return range(n - m, n)
    raise ValueError(f"unknown reading {reading!r} (readings: {', '.join(READINGS)})")


def read_outputs(outputs, targets, reading: str):
    """``(outputs restricted to the read positions, first read position)`` per
    sequence; ``outputs[j]``: n_j tokens, ``targets[j]``: m_j tokens."""
    out, first = [], []
    for o, y in zip(outputs, targets, strict=True):
        r = read_positions(len(o), len(y), reading)
        out.append(list(o[r.start:r.stop]))
        first.append(r.start)
    return out, first


@dataclass(frozen=True)
class PrefixConflict:
    """Read position ``i`` (0-based) of sequences ``j < k`` with the same prefix
    ``X_j[0..i] = X_k[0..i]`` and ``Y_j ∩ Y_k = ∅``."""

    j: int
    k: int
    i: int


def shared_read_prefixes(ds, reading: str) -> list[tuple[int, int, int]]:
    """Every ``(j, k, i)``, ``j < k``, such that position i is read in both sequences
    and their prefixes of length i + 1 are equal (exact comparison of tokens), in
    the order (i, j, k).  Grouped by hashing the prefix tuples, so the cost is the
    total length of the read prefixes' keys."""
    seen: dict[tuple, list[int]] = {}
    out = []
    for j, p in enumerate(ds.pairs):
        for i in read_positions(len(p.inputs), len(p.outputs), reading):
            key = tuple(p.inputs[:i + 1])
            for k in seen.get(key, ()):
                out.append((k, j, i))
            seen.setdefault(key, []).append(j)
    return sorted(out, key=lambda t: (t[2], t[0], t[1]))


def prefix_conflicts(ds, reading: str) -> list[PrefixConflict]:
    """The shared read prefixes whose sequences have disjoint target sets."""
    targets = [frozenset(p.outputs) for p in ds.pairs]
    return [PrefixConflict(j, k, i) for j, k, i in shared_read_prefixes(ds, reading)
            if not targets[j] & targets[k]]
