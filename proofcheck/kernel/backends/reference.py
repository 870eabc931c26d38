"""Reference backend: the SPEC §1 formulas read literally, on ``Fraction`` lists.

Dense and quadratic per sequence; used to cross-check the flint backend.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.backends import State, spans_of
from proofcheck.kernel.limits import charge
from proofcheck.kernel.model import FF, SA, dot


class ReferenceBackend:
    name = "fraction"

    def num(self, q: Fraction) -> Fraction:
        return Fraction(q)

    def load(self, sequences) -> State:
        """``sequences``: list of sequences of ``d``-tuples of Fractions."""
        rows = [[Fraction(x) for x in t] for s in sequences for t in s]
        d = len(rows[0]) if rows else 0
        return State(rows, spans_of(len(s) for s in sequences), d)

    def max_bits(self, state: State, rows=None) -> int:
        rs = state.X if rows is None else [state.X[i] for i in rows]
        return max((max(x.numerator.bit_length(), x.denominator.bit_length())
                    for r in rs for x in r), default=0)

    def row(self, state: State, i: int) -> tuple:
        return tuple(state.X[i])

    def to_fractions(self, state: State) -> list[tuple[Fraction, ...]]:
        return [tuple(r) for r in state.X]

    def ff(self, ff: FF, state: State):
        out = []
        for x in state.X:
            y = [ff.eta * xi for xi in x]
            for u, bk, w in zip(ff.U, ff.b, ff.W):
                z = dot(u, x) + bk
                if z > 0:
                    for i in range(len(y)):
                        y[i] += w[i] * z
            out.append(y)
        return State(out, state.spans, state.d), None, None

    def sa(self, sa: SA, state: State, rule):
        out = []
        for lo, hi in state.spans:
            charge((hi - lo) ** 2 * (state.d + 8), "an SA layer (scores)")
            Xs = state.X[lo:hi]
            AX = [sa.A.apply(x) for x in Xs]
            for i, x in enumerate(Xs):
                scores = [dot(AX[i], xl) for xl in Xs]
                mean = [Fraction(0)] * state.d
                for l, w in rule.weights(scores, self.num):
                    for c in range(state.d):
                        mean[c] += w * Xs[l][c]
                v = sa.V.apply(mean)
                out.append([sa.rho * xi + vi for xi, vi in zip(x, v)])
        return State(out, state.spans, state.d), None, None
