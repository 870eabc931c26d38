"""Exact evaluation backends.

* :mod:`proofcheck.backends.reference` — pure ``fractions.Fraction``, dense, the
  definition read literally (small cases, cross-checks).
* :mod:`proofcheck.backends.flint` — python-flint ``fmpq_mat`` with exact
  structure-aware shortcuts (the default).

Both expose the same interface: ``load``, ``ff``, ``sa``, ``row``,
``to_fractions``, ``num``; ``ff``/``sa`` return ``(new_state, touched, before)``
where ``touched`` lists the rows that may have changed (``None``: all) and
``before`` maps each touched row to its old value when the backend updated the
state IN PLACE (the flint FF fast path), else ``None`` (the old state is intact).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class State:
    """Tokens of all sequences stacked in one ``(n_total, d)`` matrix ``X``;
    sequence ``j`` occupies rows ``spans[j][0] <= i < spans[j][1]``."""

    X: Any
    spans: list[tuple[int, int]]
    d: int
    index: Any = None  # backend-private cache (flint: sorted projections per direction)
    # flint: pending per-sequence offsets; token i of sequence j is ``X[i] + off[j]``
    # (``None``: no offsets, ``X`` holds the tokens).  ``meta`` is shared by every
    # state derived from one ``load`` (row -> sequence table, projection caches).
    off: Any = None
    meta: Any = None
    shift: Any = None  # flint: how the last SA computed this state (for claim checks)
    tag: Any = None    # flint: (attended row per sequence, lam) of an offset tag
    ff_after_tag: bool = False  # flint: an FF already ran on these offsets

    @property
    def n(self) -> int:
        return self.spans[-1][1] if self.spans else 0

    def locate(self, i: int) -> tuple[int, int]:
        """Global row -> (sequence, token) indices (binary search)."""
        lo, hi = 0, len(self.spans) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.spans[mid][0] <= i:
                lo = mid
            else:
                hi = mid - 1
        return lo, i - self.spans[lo][0]


def spans_of(lengths) -> list[tuple[int, int]]:
    spans, s = [], 0
    for n in lengths:
        spans.append((s, s + n))
        s += n
    return spans


def get_backend(name: str):
    if name in ("flint", "exact"):
        from proofcheck.kernel.fast.flint import FlintBackend
        return FlintBackend()
    if name in ("fraction", "reference"):
        from proofcheck.kernel.backends.reference import ReferenceBackend
        return ReferenceBackend()
    raise ValueError(f"unknown backend {name!r} (use 'flint' or 'fraction')")
