"""Attention rules (SPEC §1): how a row of scores becomes attention weights.

A rule maps one row of exact scores ``(n,)`` to a sparse list of
``(index, weight)`` pairs.  Hardmax is exact: the argmax set ``C`` gets weight
``1/|C|`` each (ties averaged uniformly — the tau -> 0 limit of softmax).
Softmax weights are irrational and live in the certified evaluator instead.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence


class Hardmax:
    """Exact hardmax: ``pi_il = 1/|C_i|`` on ``C_i = argmax_l s_il``."""

    name = "hardmax"

    def argmax_set(self, scores: Sequence) -> list[int]:
        best = max(scores)
        return [l for l, s in enumerate(scores) if s == best]

    def weights(self, scores: Sequence, num: Callable[[Fraction], object]) -> list[tuple[int, object]]:
        """Sparse weights for one score row; ``num`` converts Fractions to the
        backend's number type.  Raises ``ValueError`` on an empty row."""
        if not scores:
            raise ValueError("attention over an empty sequence")
        C = self.argmax_set(scores)
        w = num(Fraction(1, len(C)))
        return [(l, w) for l in C]


HARDMAX = Hardmax()
