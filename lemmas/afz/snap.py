"""Lemma 3.3 (interval-to-point snap).

For tokens on the line ``{t e_a}`` (``e_a`` a coordinate axis), a width-4 FF with
``eta = 1`` maps every ``t e_a`` with ``|t - kappa| <= delta`` exactly to ``y`` and
fixes every point whose ``a``-th coordinate lies outside
``(kappa - 2 delta, kappa + 2 delta)``.  It adds ``G(x_a)``, the continuous
piecewise-linear function with kinks ``kappa -/+ 2delta, kappa -/+ delta`` that is
``y - t e_a`` on the plateau and 0 outside; its four slope changes are the columns
of ``W``.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import FF, vec

ID = "3.3"


def snap_ff(axis: int, d: int, kappa, delta, y, label="snap (3.3)") -> FF:
    """Width-4 FF snapping ``[kappa - delta, kappa + delta] e_axis`` onto ``y``
    (``(d,)``).  Raises ``ValueError`` if ``delta <= 0`` or ``axis`` is out of range."""
    kappa, delta, y = Fraction(kappa), Fraction(delta), vec(y)
    if delta <= 0 or not 0 <= axis < d or len(y) != d:
        raise ValueError("snap: need delta > 0, 0 <= axis < d and y of length d")
    e = tuple(Fraction(int(i == axis)) for i in range(d))
    k1, k2, k3, k4 = kappa - 2 * delta, kappa - delta, kappa + delta, kappa + 2 * delta
    G2 = tuple(yi - k2 * ei for yi, ei in zip(y, e))  # value at k2
    G3 = tuple(yi - k3 * ei for yi, ei in zip(y, e))  # value at k3
    s1 = tuple(g / delta for g in G2)                 # slope on (k1, k2)
    s2 = tuple(-ei for ei in e)                       # slope on the plateau
    s3 = tuple(-g / delta for g in G3)                # slope on (k3, k4)
    zero = (Fraction(0),) * d
    slopes = (zero, s1, s2, s3, zero)
    W = tuple(tuple(b - a for a, b in zip(slopes[m], slopes[m + 1])) for m in range(4))
    return FF(Fraction(1), U=(e,) * 4, b=(-k1, -k2, -k3, -k4), W=W, label=label)


def symbolic():
    """sympy proof, for all kappa, y and delta > 0, that the added function is
    ``y - t e_a`` at both plateau ends (hence on the plateau: it is linear there),
    vanishes at the outer kinks, and is flat outside (d = 2, axis 0)."""
    import sympy as sp

    from proofcheck.kernel.verdicts import CheckResult, combine
    from proofcheck.symbolic import pl_certificate, relu
    t, kap, y0, y1 = sp.symbols("t kappa y0 y1", real=True)
    dl = sp.Symbol("delta", positive=True)
    k = [kap - 2 * dl, kap - dl, kap + dl, kap + 2 * dl]
    G2 = [y0 - k[1], y1]
    G3 = [y0 - k[2], y1]
    s1 = [g / dl for g in G2]
    s2 = [-1, 0]
    s3 = [-g / dl for g in G3]
    slopes = [[0, 0], s1, s2, s3, [0, 0]]
    res = []
    for c in range(2):
        W = [slopes[m + 1][c] - slopes[m][c] for m in range(4)]
        f = sum(Wm * relu(t - km) for Wm, km in zip(W, k))
        res.append(pl_certificate(f"coordinate {c}", f, t, k,
                                  [0, G2[c], G3[c], 0], 0, 0))
    v = combine(r.verdict for r in res)
    return CheckResult("3.3 symbolic: snap adds y - t e_1 on [kappa-delta, kappa+delta], 0 outside "
                       "(kappa-2delta, kappa+2delta)", v, [ln for r in res for ln in r.lines()])


def run(dataset=None, seed: int = 0):
    """Lemma 3.3 on the line ``Q e_1``: tokens ``t e_1`` for the dataset's first
    coordinates; the interval around a seeded kappa snaps to a target y; tokens
    (on and off the line) whose first coordinate is outside the support are fixed."""
    import random

    from lemmas.afz.instances import distinct_points, input_sequences, targets
    from proofcheck.kernel.layercheck import check_layer
    from proofcheck.kernel.verdicts import fmt_value
    seqs, d = input_sequences(dataset)
    pts = distinct_points(seqs)
    ts = sorted({x[0] for x in pts})
    rng = random.Random(seed)
    kappa = ts[rng.randrange(len(ts))]
    others = [abs(t - kappa) for t in ts if t != kappa]
    delta = (min(others) if others else Fraction(1)) / 4
    y = targets(dataset)[rng.randrange(len(targets(dataset)))]
    ff = snap_ff(0, d, kappa, delta, y)
    z = (Fraction(0),) * (d - 1)
    line = [(t,) + z for t in ts] + [(kappa + th * delta,) + z for th in (-1, Fraction(-1, 3), 1)]
    off_line = [x for x in pts if abs(x[0] - kappa) >= 2 * delta]
    tokens = line + off_line
    exp = [tuple(y) if (x[1:] == z and abs(x[0] - kappa) <= delta) else x for x in tokens]
    return [check_layer(f"3.3 exact: |t - {fmt_value(kappa)}| <= {fmt_value(delta)} snaps to "
                        f"{fmt_value(y)}, outside +-2delta fixed", ff, [tokens], [exp],
                        details=[f"{len(line)} tokens on the line, {len(off_line)} off it, width {ff.width}"]),
            symbolic()]
