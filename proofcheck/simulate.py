"""High-precision softmax simulation with mpmath (SPEC §4) — a numerical
cross-check and search aid, NEVER a proof: no verdict is decided here.

Evaluates the network with softmax attention at temperature tau in mpmath at
``dps`` decimal digits (scores shifted by their maximum before exponentiating, so
nothing overflows) and reports the largest distance from an output token to its
target set and from a target to the outputs (the two halves of the Hausdorff
distance, in the max-norm).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from proofcheck.kernel.model import Transformer


@dataclass
class Simulation:
    tau: Fraction
    dps: int
    out_to_target: object  # mpf: max over outputs of distance to the target set
    target_to_out: object  # mpf: max over targets of distance to the outputs

    @property
    def error(self):
        return max(self.out_to_target, self.target_to_out)


def _mp(q):
    return mpmath.mpf(q.numerator) / q.denominator


def simulate(net: Transformer, inputs, targets, tau, dps: int = 60) -> Simulation:
    """Softmax forward pass at ``tau`` with ``dps`` digits; ``inputs[j]``: ``(n_j, d)``."""
    tau = Fraction(tau)
    with mpmath.workdps(dps):
        t = _mp(tau)
        seqs = [[[_mp(Fraction(v)) for v in x] for x in X] for X in inputs]
        for blk in net.blocks:
            ff = blk.ff
            if not ff.is_identity:
                U = [[_mp(v) for v in u] for u in ff.U]
                b = [_mp(v) for v in ff.b]
                W = [[_mp(v) for v in w] for w in ff.W]
                eta = _mp(ff.eta)
                for s in seqs:
                    for i, x in enumerate(s):
                        y = [eta * v for v in x]
                        for uk, bk, wk in zip(U, b, W):
                            z = mpmath.fsum(a * c for a, c in zip(uk, x)) + bk
                            if z > 0:
                                y = [yi + wi * z for yi, wi in zip(y, wk)]
                        s[i] = y
            sa = blk.sa
            if not sa.is_identity:
                d = net.d
                A = [[_mp(v) for v in row] for row in sa.A.dense(d)]
                V = [[_mp(v) for v in row] for row in sa.V.dense(d)]
                rho = _mp(sa.rho)
                for j, s in enumerate(seqs):
                    Ax = [[mpmath.fsum(a * c for a, c in zip(row, x)) for row in A] for x in s]
                    new = []
                    for i, x in enumerate(s):
                        sc = [mpmath.fsum(a * c for a, c in zip(Ax[i], xl)) for xl in s]
                        top = max(sc)
                        e = [mpmath.exp((v - top) / t) for v in sc]
                        z = mpmath.fsum(e)
                        m = [mpmath.fsum(e[l] * s[l][k] for l in range(len(s))) / z for k in range(d)]
                        vm = [mpmath.fsum(a * c for a, c in zip(row, m)) for row in V]
                        new.append([rho * a + c for a, c in zip(x, vm)])
                    seqs[j] = new
        o2t = t2o = mpmath.mpf(0)
        for s, ys in zip(seqs, targets):
            Y = [[_mp(Fraction(v)) for v in y] for y in ys]
            dist = lambda a, b: max(abs(p - q) for p, q in zip(a, b))  # noqa: E731
            o2t = max([o2t] + [min(dist(x, y) for y in Y) for x in s])
            t2o = max([t2o] + [min(dist(x, y) for x in s) for y in Y])
        return Simulation(tau, dps, o2t, t2o)
