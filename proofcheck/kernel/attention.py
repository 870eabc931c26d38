"""Attention rules (docs/spec.md §1): a row of exact scores -> sparse ``(index, weight)``
pairs.  Hardmax is exact: the argmax set ``C`` gets ``1/|C|`` each (ties averaged
uniformly, the tau -> 0 limit of softmax); softmax weights are irrational and are
bounded by the certified check (:mod:`proofcheck.kernel.softmax`) instead."""
from fractions import Fraction


class Hardmax:
    name = "hardmax"

    @staticmethod
    def weights(scores, num) -> list[tuple[int, object]]:
        """Weights for one score row (``num`` converts Fractions to the evaluator's
        numbers); ``ValueError`` on an empty row."""
        if not scores:
            raise ValueError("attention over an empty sequence")
        best = max(scores)
        C = [l for l, s in enumerate(scores) if s == best]
        return [(l, num(Fraction(1, len(C)))) for l in C]


HARDMAX = Hardmax()
