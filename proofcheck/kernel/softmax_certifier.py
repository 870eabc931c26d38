"""Certified softmax evaluation with rational boxes (SPEC §4 "Softmax", trusted).

Every token is enclosed in a box (one exact rational interval per coordinate)
that contains its true value for EVERY temperature ``0 < tau' <= tau``:

* FF, ``U`` of rank <= 1: the projection interval ``<w, box>`` is located among
  the kinks.  Inside one linear piece the layer is the exact affine map
  ``x -> (eta I + g w^T) x + h`` (the plateau of a hat is an exact shift, a snap's
  plateau maps the whole interval to its target exactly; outside the support the
  map is the identity).  A box straddling a kink is evaluated by sound interval
  arithmetic and reported.  Other FF layers: interval arithmetic, reported when a
  unit's interval contains 0 in its interior.
* SA (softmax): interval scores ``s_il``; the token's intended argmax ``c`` must
  beat every other score: ``gap_l = lo(s_ic) - hi(s_il) > 0`` (else INCONCLUSIVE).
  softmax-gap: the mass off ``c`` is ``<= eps = sum_l exp(-gap_l / tau)``, bounded
  above rigorously (:mod:`.expbounds`); the attended mean lies in
  ``[min(lo_c, (1-eps) lo_c + eps L), max(hi_c, (1-eps) hi_c + eps H)]`` per
  coordinate (L, H: extreme coordinates in the sequence).  Then ``rho x + V m``
  by exact interval matrix-vector products.
* Monotonicity: each ``exp(-gap/tau)`` increases with tau, and the enclosure uses
  only "off-argmax mass <= eps", which holds for every tau' <= tau; so a
  certificate at tau covers all of (0, tau].

The verdict is VERIFIED-CERTIFIED only if every final box is a single point and
the output sets equal the target sets exactly; any failed gap, non-degenerate
final box or exception is INCONCLUSIVE / ERROR, never a pass.  Imports nothing
from ``lemmas``.
"""
from __future__ import annotations

import time
from bisect import bisect_left
from dataclasses import dataclass, field
from fractions import Fraction

from flint import fmpq

from proofcheck.kernel.backends.flint import _rank_one, affine_pieces, f2q, q2f
from proofcheck.kernel.checker import interpolation_witness
from proofcheck.kernel.expbounds import FLOOR_BITS, LN2_UPPER, exp_neg_upper
from proofcheck.kernel.model import FF, SA, Transformer
from proofcheck.kernel.verdicts import Verdict, Witness


def _imul(a, b):
    """Product of two intervals (sign cases first, the general case last)."""
    a0, a1 = a
    b0, b1 = b
    if a0 >= 0:
        if b0 >= 0:
            return (a0 * b0, a1 * b1)
        if b1 <= 0:
            return (a1 * b0, a0 * b1)
    elif a1 <= 0:
        if b1 <= 0:
            return (a1 * b1, a0 * b0)
        if b0 >= 0:
            return (a0 * b1, a1 * b0)
    p = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
    return (min(p), max(p))


def _scale(c, iv):
    return (c * iv[0], c * iv[1]) if c >= 0 else (c * iv[1], c * iv[0])


def _dot(w, box):
    """Interval of ``<w, x>`` over the box (``w`` exact)."""
    lo = hi = fmpq(0)
    for c, (a, b) in zip(w, box):
        if c > 0:
            lo += c * a
            hi += c * b
        elif c < 0:
            lo += c * b
            hi += c * a
    return lo, hi


def _matvec(G, box):
    return [_dot(row, box) for row in G]


@dataclass
class LayerBound:
    """Per sub-layer record: block (1-based), 'FF'/'SA', min gap, max eps, max
    box width after the layer, kinks straddled."""

    block: int
    sublayer: str
    min_gap: Fraction | None = None
    max_eps: Fraction | None = None
    max_width: Fraction = Fraction(0)
    straddles: int = 0

    def to_json(self) -> dict:
        f = lambda v: None if v is None else str(v)  # noqa: E731
        return {"block": self.block, "sublayer": self.sublayer, "min_gap": f(self.min_gap),
                "max_eps": f(self.max_eps), "max_width": str(self.max_width),
                "straddles": self.straddles}


@dataclass
class Certificate:
    """Outcome of :func:`certify` at temperature ``tau``."""

    verdict: Verdict
    tau: Fraction
    witness: Witness | None = None
    bounds: list[LayerBound] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0


class _Fail(Exception):
    def __init__(self, verdict, witness):
        self.verdict, self.witness = verdict, witness


def _round_out(box, bits):
    """Widen a non-degenerate interval outward to the grid 2^-bits (keeps sizes bounded)."""
    out = []
    s = 2 ** bits
    for a, b in box:
        if a != b:
            a = fmpq((a * s).floor(), s)
            b = fmpq((b * s).ceil(), s)
        out.append((a, b))
    return out


def _ff(ff: FF, boxes, rec: LayerBound, block, cache=None):
    if ff.is_identity:
        return boxes
    d = len(boxes[0])
    eta = q2f(ff.eta)
    W = [[q2f(x) for x in w] for w in ff.W]
    b = [q2f(x) for x in ff.b]
    r1 = _rank_one(ff.U)
    Uq = [[q2f(x) for x in u] for u in ff.U]
    if r1 is not None:
        w, kinks, pieces = affine_pieces(ff, r1)
        w = [q2f(x) for x in w]
        maps = [None if m is None else
                ([[(eta if i == j else fmpq(0)) + m[0][i] * w[j] for j in range(d)]
                  for i in range(d)], m[1]) for m in pieces]
    out = []
    wkey = None
    if r1 is not None and cache is not None:
        wkey = cache.setdefault(("w",) + tuple(str(x) for x in w), len(cache))
    for i, box in enumerate(boxes):
        if r1 is not None:
            hit = cache.get((i, wkey)) if cache is not None else None
            if hit is not None and hit[0] is box:
                tlo, thi = hit[1]
            else:
                tlo, thi = _dot(w, box)
                if cache is not None:
                    cache[(i, wkey)] = (box, (tlo, thi))
            # closed pieces [k_(p-1), k_p]; p = number of kinks strictly below thi
            piece = bisect_left(kinks, thi)
            if piece == 0 or tlo >= kinks[piece - 1]:
                m = maps[piece]
                if m is None:
                    out.append(box)
                else:
                    G, h = m
                    out.append([(lo + hk, hi + hk) for (lo, hi), hk in zip(_matvec(G, box), h)])
                continue
            rec.straddles += 1
        out.append(_ff_interval(Uq, eta, W, b, box, rec, r1 is None))
    return out


def _ff_interval(Uq, eta, W, b, box, rec, count_straddles):
    """Sound interval evaluation of ``eta x + W relu(U x + b)`` (``Uq``: fmpq rows)."""
    res = [_scale(eta, iv) for iv in box]
    zero = fmpq(0)
    for k, u in enumerate(Uq):
        lo, hi = _dot(u, box)
        lo, hi = lo + b[k], hi + b[k]
        if count_straddles and lo < 0 < hi:
            rec.straddles += 1
        rl = (lo if lo > 0 else zero, hi if hi > 0 else zero)
        for i in range(len(res)):
            a, c = _scale(W[k][i], rl)
            res[i] = (res[i][0] + a, res[i][1] + c)
    return res


def _sa(sa: SA, boxes, spans, tau, rec: LayerBound, block, exp_cache):
    if sa.is_identity:
        return boxes
    d = len(boxes[0])
    rho = q2f(sa.rho)
    Vd = [[q2f(x) for x in row] for row in sa.V.dense(d)]
    lamA = q2f(sa.A.lam)
    fac = [([q2f(x) for x in a], [q2f(x) for x in bb]) for a, bb in zip(sa.A.left, sa.A.right)]
    out = [None] * len(boxes)
    zero = fmpq(0)
    far_gap = q2f(FLOOR_BITS * LN2_UPPER * tau)
    layer_gap = layer_eps = None
    floor_val = fmpq(1, 2 ** FLOOR_BITS)
    for j, (lo_, hi_) in enumerate(spans):
        seq = boxes[lo_:hi_]
        n = len(seq)
        pa = [[_dot(a, x) for x in seq] for a, _ in fac]   # <a_r, x_l>
        pb = [[_dot(bb, x) for x in seq] for _, bb in fac]  # <b_r, x_i>
        Lk = [min(x[k][0] for x in seq) for k in range(d)]
        Hk = [max(x[k][1] for x in seq) for k in range(d)]
        for i in range(n):
            scores = []
            for l in range(n):
                s = (zero, zero)
                if lamA != 0:
                    dotv = (zero, zero)
                    for k in range(d):
                        p = _imul(seq[i][k], seq[l][k]) if l != i else _isq(seq[i][k])
                        dotv = (dotv[0] + p[0], dotv[1] + p[1])
                    s = _scale(lamA, dotv)
                for r in range(len(fac)):
                    p = _imul(pb[r][i], pa[r][l])
                    s = (s[0] + p[0], s[1] + p[1])
                scores.append(s)
            c = max(range(n), key=lambda l: scores[l][0])
            eps = fmpq(0)
            gmin = None
            far = 0
            for l in range(n):
                if l == c:
                    continue
                gap = scores[c][0] - scores[l][1]
                if gap <= 0:
                    raise _Fail(Verdict.INCONCLUSIVE, Witness(
                        f"softmax gap not certified: the score of token {c} (the intended "
                        f"argmax) is only known to be >= {float(f2q(scores[c][0])):.6g}, token "
                        f"{l}'s may reach {float(f2q(scores[l][1])):.6g}", block=block,
                        sublayer="SA", sequence=j, token=i))
                if gmin is None or gap < gmin:
                    gmin = gap
                if gap >= far_gap:  # exp(-gap/tau) <= 2^-FLOOR_BITS, decided exactly
                    far += 1
                    continue
                key = f2q(gap) / tau
                e = exp_cache.get(key)
                if e is None:
                    e = exp_cache[key] = q2f(exp_neg_upper(key))
                eps += e
            eps += far * floor_val
            if eps > 1:
                eps = fmpq(1)
            if gmin is not None and (layer_gap is None or gmin < layer_gap):
                layer_gap = gmin
            if layer_eps is None or eps > layer_eps:
                layer_eps = eps
            e = eps
            one = fmpq(1)
            m = []
            for k in range(d):
                a, bnd = seq[c][k]
                m.append((min(a, (one - e) * a + e * Lk[k]), max(bnd, (one - e) * bnd + e * Hk[k])))
            vm = _matvec(Vd, m)
            xi = [_scale(rho, iv) for iv in seq[i]]
            out[lo_ + i] = [(p[0] + q[0], p[1] + q[1]) for p, q in zip(xi, vm)]
    rec.min_gap = None if layer_gap is None else f2q(layer_gap)
    rec.max_eps = None if layer_eps is None else f2q(layer_eps)
    return out


def _isq(iv):
    a, b = iv
    if a >= 0:
        return (a * a, b * b)
    if b <= 0:
        return (b * b, a * a)
    return (fmpq(0), max(a * a, b * b))


def certify(net: Transformer, inputs, targets, tau, round_bits: int | None = None,
            progress=None) -> Certificate:
    """Certify exact interpolation of ``net`` under softmax for every temperature
    in ``(0, tau]``.  ``inputs[j]``: ``(n_j, d)``, ``targets[j]``: ``(m_j, d)``."""
    t0 = time.perf_counter()
    tau = Fraction(tau)
    cert = Certificate(Verdict.ERROR, tau)
    try:
        if tau <= 0:
            raise ValueError("tau must be positive")
        boxes, spans, s = [], [], 0
        for X in inputs:
            spans.append((s, s + len(X)))
            s += len(X)
            boxes += [[(q2f(Fraction(v)), q2f(Fraction(v))) for v in x] for x in X]
        if round_bits is None:
            round_bits = 2 * net.max_bits() + 64
        cache, pcache = {}, {}
        for bi, blk in enumerate(net.blocks, start=1):
            rf = LayerBound(bi, "FF")
            boxes = _ff(blk.ff, boxes, rf, bi, pcache)
            rs = LayerBound(bi, "SA")
            boxes = _sa(blk.sa, boxes, spans, tau, rs, bi, cache)
            if not blk.sa.is_identity:
                boxes = [_round_out(b, round_bits) for b in boxes]
            if not (blk.ff.is_identity and blk.sa.is_identity) or not cert.bounds:
                width = f2q(max((hi - lo for b in boxes for lo, hi in b), default=fmpq(0)))
            rf.max_width = rs.max_width = width
            cert.bounds += [rf, rs]
            if progress:
                progress(bi)
        outs = []
        for j, (a, b) in enumerate(spans):
            seq = []
            for i in range(a, b):
                box = boxes[i]
                for k, (lo, hi) in enumerate(box):
                    if lo != hi:
                        raise _Fail(Verdict.INCONCLUSIVE, Witness(
                            "final box is not a single point (exactness not certified)",
                            sequence=j, token=i - a, coordinate=k, expected=f2q(lo), got=f2q(hi)))
                seq.append(tuple(f2q(lo) for lo, _ in box))
            outs.append(seq)
        w, _ = interpolation_witness(outs, [[tuple(Fraction(v) for v in y) for y in ys] for ys in targets])
        if w is not None:
            raise _Fail(Verdict.REFUTED, w)
        cert.verdict = Verdict.VERIFIED_CERTIFIED
    except _Fail as f:
        cert.verdict, cert.witness = f.verdict, f.witness
    except Exception as exc:  # fail closed
        cert.verdict, cert.reason = Verdict.ERROR, f"{type(exc).__name__}: {exc}"
    cert.seconds = time.perf_counter() - t0
    return cert
