"""Readings of "T(X_j) = Y_j" under a causal mask (docs/spec.md §1 "Extensions") and the
prefix obstructions they meet.

With a mask, a sequence is an ordered tuple and the output of position i depends on
the prefix ``(x_1, ..., x_i)`` only (statement ``causal-first-token``).  Two readings:

* ``all-outputs`` (the specification's default for unmasked networks): the set of all n_j
  outputs equals Y_j;
* ``last-outputs``: the set of the last m_j outputs (positions n_j - m_j + 1 .. n_j,
  the *read positions*) equals Y_j; the other outputs are not read.

The outputs at the read positions are a function of their prefixes, so a causal
transformer interpolates in a reading only if a *prefix map* exists: a choice of a
target g(P) for every read prefix P with ``g(P) ∈ Y_j`` for every sequence j reading P,
hitting every target of every Y_j — the token-wise interpolation problem of
``resnet`` (b) with the read prefixes as tokens (:func:`prefix_map` decides it exactly,
by :func:`proofcheck.constructions.resnet.tokenwise.solve`).  The constructions ``causal-last`` and
``causal-all`` (:mod:`proofcheck.constructions.causal.prefix_construction`) realise any prefix map.

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


def prefix_dataset(inputs, targets, reading: str, name: str = "read prefixes"):
    """The token-wise problem on read prefixes: pair j's "tokens" are the prefixes
    ``tuple(X_j[:i + 1])`` of its read positions i (in order), its targets Y_j."""
    from proofcheck.kernel.dataset import Dataset, Pair
    pairs = tuple(Pair(tuple(tuple(X[:i + 1]) for i in read_positions(len(X), len(Y), reading)),
                       tuple(tuple(y) for y in Y)) for X, Y in zip(inputs, targets))
    d = len(pairs[0].outputs[0]) if pairs and pairs[0].outputs else 0
    return Dataset(name, d, pairs)


def prefix_map(inputs, targets, reading: str, max_nodes: int = 100_000):
    """Exact decision of the prefix map (module text): a
    :class:`proofcheck.constructions.resnet.tokenwise.Solution` whose ``f`` maps each read prefix (a
    tuple of tokens) to its target when ``status == "possible"``."""
    from proofcheck.constructions.resnet.tokenwise import solve
    return solve(prefix_dataset(inputs, targets, reading), max_nodes)


def impossibility(sol) -> str:
    """Why no prefix map exists, from a ``Solution`` with status ``impossible``."""
    from proofcheck.kernel.verdicts import fmt_value
    if sol.where and len(sol.where) == 1:
        P = sol.where[0]
        return (f"the prefix ({', '.join(fmt_value(x) for x in P)}) of length {len(P)} is read "
                "in sequences whose target sets have no common element")
    if sol.where and len(sol.where) == 2:
        j, y = sol.where
        return (f"target {fmt_value(y)} of sequence {j} cannot be hit: every read prefix of "
                "X_" + str(j) + " is also read in a sequence without that target")
    return "exhaustive search: no choice of targets for the read prefixes hits every target"
