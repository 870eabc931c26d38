"""Exact probe instances generated from an FF layer itself (issue "Check what is
built", item 2): a token at every kink of the layer's profile and of the
statement's profile, one inside every linear piece between them, and two on each
tail beyond the support, each also shifted orthogonally to the direction when
d >= 2 (so tokens off the line are probed too).

The expected output of each probe comes from the STATEMENT's profile, given as a
table of ``(t, value)`` at its kinks (continuous, piecewise linear, 0 outside the
table's range); the layer only decides where to probe.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.lemma_checks.profile import Profile
from proofcheck.kernel.model import dot


def interpolate(table, t):
    """Value at ``t`` of the continuous piecewise-linear map with the given values
    at the table's points (sorted), 0 outside ``[table[0][0], table[-1][0]]``.
    ``table``: list of ``(t_i, (d,) vector)``; the first and last values must be 0."""
    d = len(table[0][1])
    if t <= table[0][0] or t >= table[-1][0]:
        return (Fraction(0),) * d
    for (t0, v0), (t1, v1) in zip(table, table[1:]):
        if t0 <= t <= t1:
            lam = (t - t0) / (t1 - t0)
            return tuple(a + lam * (b - a) for a, b in zip(v0, v1))
    raise ValueError("interpolate: table not sorted")


def probe_points(ff, w, table):
    """Projections t to probe: kinks of the layer along ``w`` and of the table,
    midpoints between consecutive ones, and two points on each tail."""
    ks = sorted(set(Profile.along(ff, w).kinks()) | {t for t, _ in table})
    span = (ks[-1] - ks[0]) or Fraction(1)
    mids = [(a + b) / 2 for a, b in zip(ks, ks[1:])]
    tails = [ks[0] - span / 3, ks[0] - 2 * span - 1, ks[-1] + span / 3, ks[-1] + 2 * span + 1]
    return sorted(set(ks) | set(mids) | set(tails))


def probes(ff, w, anchor, table):
    """``(tokens, expected)``: probe tokens ``anchor + (t - <w,anchor>) w / |w|^2``
    (and the same plus an offset orthogonal to ``w`` when d >= 2) with expected
    outputs ``x + interpolate(table, <w,x>)``."""
    ww = dot(w, w)
    t0 = dot(w, anchor)
    d = len(w)
    j = next((i for i, x in enumerate(w) if x != 0), 0)
    k = (j + 1) % d
    # v orthogonal to w: e_k - (w_k / |w|^2) w
    v = tuple(Fraction(int(i == k)) - w[k] * w[i] / ww for i in range(d))
    tokens, expected = [], []
    for t in probe_points(ff, w, table):
        base = tuple(a + (t - t0) * wi / ww for a, wi in zip(anchor, w))
        for x in ([base, tuple(a + b for a, b in zip(base, v))] if d >= 2 and any(v) else [base]):
            tokens.append(x)
            expected.append(tuple(a + b for a, b in zip(x, interpolate(table, t))))
    return tokens, expected
