"""The hardmax trajectory of a softmax certificate on the fast route: the records
of :mod:`proofcheck.kernel.softmax`, with exactly the values the plain route
computes, from the flint backend's evaluation (:mod:`.flint`), whose shortcuts
they share.  Each shortcut and the lemma behind it:

* SA with rank-one ``A = a b^T``: ``s_il = <b, x_i> <a, x_l>``, so in a sequence whose
  tokens all have ``q_i = <b, x_i> > 0`` every token's argmax is the ``a``-maximal
  token and its margin is ``q_i (p_max - p_second)``: the sequence's smallest
  margin is ``min_i q_i (p_max - p_second)``, from per-sequence extremes of the
  projections (pending tag offsets shift a sequence's projections by one number,
  which leaves these differences alone): O(sequences) exact operations per layer.
  Other sequences and other ``A`` are
  scored exactly, as on the plain route (:func:`~proofcheck.kernel.softmax.sequence_stats`).
* ``S``, ``Xmax``, ``P``, ``Q`` are maxima over sequences of per-sequence extremes
  (base rows plus the sequence's offset): the same maxima as over every token.
* FF with ``U = c w^T`` (:class:`RankOneFF`): every ReLU argument is
  ``c_k <w, x> + b_k``, so a box straddles a kink of the layer iff its projection
  interval ``[t - |w|.r, t + |w|.r]`` contains a kink ``-b_k / c_k`` in its
  interior, and on a box inside one piece ``J = eta I + g w^T`` (the piece's ``g``).
  Tokens whose projection lies outside ``[first kink, last kink]`` sit in the
  outer identity pieces: their radius is unchanged as long as ``|w|.r`` stays below
  their distance to the support, checked with the largest radius against the
  nearest such projection ``D``; when that check fails the record is
  :class:`~proofcheck.kernel.softmax.Undecided` and the caller takes the plain route.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.evaluate import bits, q
from proofcheck.kernel.fast.flint import FlintBackend
from proofcheck.kernel.limits import charge, check_bits
from proofcheck.kernel.numbers import fmt_num
from proofcheck.kernel.softmax import (
    ZERO,
    DenseFF,
    Radii,
    SARecord,
    Trajectory,
    Undecided,
    absdot,
    rows,
    projections,
    sa_record,
    sequence_stats,
    straddle_radius,
    tie_witness,
    up64,
)


@dataclass
class RankOneFF:
    """An FF layer with ``U = c w^T``: its kinks, the rows ``cands = [(row, t)]``
    whose projection lies in ``[first kink, last kink]``, the nearest other
    projection ``D = (distance, row)`` and the pieces' maps ``(g, h)`` (``None``:
    the identity)."""

    block: int
    eta: object
    w: list
    kinks: list
    maps: object
    cands: list
    D: tuple | None
    locate: object
    _absJ: dict = field(default_factory=dict)
    straddles: int = 0

    def G(self, s) -> list:
        """``FF(x) - eta x`` at ``<w, x> = s`` (continuous; 0 on an identity piece)."""
        m = self.maps[bisect_left(self.kinks, s)]
        return [ZERO] * len(self.w) if m is None else [g * s + h for g, h in zip(*m)]

    def absJ(self, p: int):
        """``|eta I + g w^T|`` on piece ``p`` (``None`` for an identity piece)."""
        if p not in self._absJ:
            m = self.maps[p]
            d = len(self.w)
            self._absJ[p] = None if m is None else [
                [abs((self.eta if a == c else ZERO) + m[0][a] * self.w[c]) for c in range(d)]
                for a in range(d)]
        return self._absJ[p]

    def propagate(self, radii: Radii) -> None:
        wabs = [abs(x) for x in self.w]
        if self.D is not None and absdot(wabs, radii.top) > self.D[0]:
            raise Undecided(f"block {self.block} FF: a box may reach the layer's support "
                            f"({fmt_num(self.D[0])} away from the nearest token)",
                            (self.block, *(self.locate(self.D[1]) if self.D[1] is not None
                                           else (None, None))))
        kinks = self.kinks
        memo = {}  # (piece, id(radius)) -> new radius: tokens sharing a radius share it
        wrs = {}   # id(radius) -> |w|.radius
        for i, t in self.cands:
            r = radii.get(i)
            wr = wrs.get(id(r))
            if wr is None:
                wr = wrs[id(r)] = absdot(wabs, r)
            p = bisect_right(kinks, t - wr)
            if wr and p < len(kinks) and kinks[p] < t + wr:  # across a kink: G's range
                self.straddles += 1
                radii.set(i, straddle_radius(self.eta, self.G, kinks, t, wr, r))
                continue
            J = self.absJ(p)
            if J is not None:
                key = (p, id(r))
                new = memo.get(key)
                if new is None:
                    new = [absdot(row, r) for row in J]
                    new = memo[key] = r if new == r else [up64(x) for x in new]
                if new is not r:
                    radii.set(i, new)


class _Extremes:
    """Per sequence, the coordinatewise ranges ``max - min`` of its tokens (a pending
    offset moves a whole sequence, so ranges are those of the base rows ``X``; cached
    until ``X`` is replaced or the sequence's rows change), and their maximum ``S``,
    recomputed over every sequence only when a range that attained it shrinks."""

    def __init__(self):
        self.X, self.cache, self.S, self.stale = None, {}, None, set()

    def ranges(self, st) -> list:
        """``S``: per coordinate the largest range over the sequences."""
        if st.X is not self.X:
            self.X, self.cache, self.S, self.stale = st.X, {}, None, set()
        d, cache = st.d, self.cache
        todo = range(len(st.spans)) if self.S is None else self.stale
        full = self.S is None
        for j in todo:
            lo, hi = st.spans[j]
            cols = zip(*[[st.X[i, c] for c in range(d)] for i in range(lo, hi)])
            new = [max(c) - min(c) for c in cols]
            old = cache.get(j)
            if old is not None and any(o == m and n < o for o, n, m in zip(old, new, self.S)):
                full = True
            cache[j] = new
            if not full:
                self.S = [a if a >= b else b for a, b in zip(self.S, new)]
        if full:
            self.S = [max(col) for col in zip(*cache.values())] if cache else [ZERO] * d
        self.stale = set()
        return list(self.S)

    def touched(self, st, rows_, seq_of) -> None:
        if st.X is self.X and self.S is not None:
            self.stale.update(seq_of[i] for i in rows_ or ())


def _extremes(be, st, v):
    """``(dir, lo, hi)``: per sequence the smallest and largest projection ``<v, x>``
    of its tokens (base extremes plus the sequence's offset), exact."""
    dv = be._dir(st, v)
    dv.refresh(st.X, st.spans, st.d)
    if st.off is None:
        return dv, dv.mn, dv.mx
    ops = st.off.projections(v)
    return dv, [m + o for m, o in zip(dv.mn, ops)], [m + o for m, o in zip(dv.mx, ops)]


def _rank_one_gap(st, da, db, qlo, block):
    """``(gap, at, rest, tie)`` over the sequences whose ``q_i`` are all positive
    (``qlo``: their smallest ``q``; ``rest``: the other sequences with two tokens or
    more), from per-sequence extremes: O(sequences) exact operations."""
    spans, top, mx, second = st.spans, da.top, da.mx, da.second
    many = [j for j, (lo, hi) in enumerate(spans) if hi - lo > 1]
    rest = [j for j in many if qlo[j] <= 0]
    pos = [j for j in many if qlo[j] > 0] if rest else many
    tied = next((j for j in pos if top[j] is None), None)
    if tied is not None:
        lo, hi = spans[tied]
        c1 = next(i for i in range(lo, hi) if da.pb[i] == mx[tied])
        c2 = next(i for i in range(c1 + 1, hi) if da.pb[i] == mx[tied])
        # every token of the sequence has q > 0, so token 0 ties too (as the plain tier names it)
        return None, None, None, tie_witness(block, tied, 0, c1 - lo, c2 - lo)
    if not pos:
        return None, None, rest, None
    gs = [qlo[j] * (mx[j] - second[j][0]) for j in pos]
    gap = min(gs)
    j = pos[gs.index(gap)]
    lo = spans[j][0]
    return gap, (j, db.mnrow[j] - lo, second[j][1] - lo), rest, None


def _sa_record(be, st, sa, block, ext):
    """``(SARecord, None)`` or ``(None, tie witness)`` for ``sa`` on the state ``st``
    (a multi-head or masked layer: the plain route's records)."""
    if sa.H > 1 or sa.causal:
        return sa_record(sa, be._materialize(st).X, st.spans, block)
    A = sa.A
    rest = [j for j, (lo, hi) in enumerate(st.spans) if hi - lo > 1]
    gap = at = None
    rank_one = A.lam == 0 and len(A.left) == 1
    if rank_one:
        a, b = A.left[0], A.right[0]
        da, alo, ahi = _extremes(be, st, a)
        db, blo, bhi = (da, alo, ahi) if tuple(a) == tuple(b) else _extremes(be, st, b)
        gap, at, rest, tie = _rank_one_gap(st, da, db, blo, block)
        if tie is not None:
            return None, tie
        P, Q = [max(max(ahi), -min(alo))], [max(max(bhi), -min(blo))]
    mat = be._materialize(st) if rest or (A.left and not rank_one) else None
    for j in rest:  # scored exactly, as on the plain route
        lo, hi = st.spans[j]
        g, i, c = sequence_stats(A, rows(mat.X, lo, hi))
        if g is None:
            return None, tie_witness(block, j, i, *c)
        if gap is None or g < gap:
            gap, at = g, (j, i, c)
    d = st.d
    Xm = [ZERO] * d
    if A.lam != 0:  # the only term that needs the largest moduli
        mat = mat or be._materialize(st)
        e = mat.X.entries()
        Xm = [max(map(abs, e[c::d]), default=ZERO) for c in range(d)]
    if not rank_one:
        P = [max(map(abs, projections(mat.X, v)), default=ZERO) for v in A.left]
        Q = [max(map(abs, projections(mat.X, v)), default=ZERO) for v in A.right]
    nmax1 = max((hi - lo - 1 for lo, hi in st.spans), default=0)
    return SARecord(block, sa, gap, at, nmax1, ext.ranges(st), Xm, P, Q), None


def _ff_record(trace, ff, block, locate):
    if trace[0] == "dense":
        return DenseFF(block, q(ff.eta), [[q(x) for x in u] for u in ff.U],
                       [[q(x) for x in col] for col in ff.W], trace[1], locate)
    _, w, kinks, maps, cands, D = trace
    return RankOneFF(block, q(ff.eta), [q(x) for x in w], kinks, maps, cands, D, locate)


def _guard(be, old, new, touched, where) -> None:
    if new is old and touched == []:
        return
    rows_ = [] if getattr(new, "tag", None) is not None else touched
    b = be.max_bits(new, rows_)
    check_bits(b, where)
    charge((new.n if rows_ is None else len(rows_) + len(new.spans)) * new.d, where, b)


def fast_trajectory(net, inputs, progress=None) -> Trajectory:
    """The records of ``net`` on ``inputs`` (see the module docstring);
    ``progress(block, L)`` after each block."""
    be = FlintBackend()
    st = be.load(inputs)
    tr = Trajectory(st.n, st.d, st.spans)
    ext = _Extremes()
    seq_of = [j for j, (lo, hi) in enumerate(st.spans) for _ in range(lo, hi)]
    for bi, blk in enumerate(net.blocks, start=1):
        if not blk.ff.is_identity:
            trace = []
            locate = st.locate
            new, touched, _ = be.ff(blk.ff, st, trace)
            tr.records.append(_ff_record(trace[0], blk.ff, bi, locate))
            _guard(be, st, new, touched, f"block {bi} FF")
            ext.touched(new, touched, seq_of)
            st = new
        if not blk.sa.is_identity:
            rec, tie = _sa_record(be, st, blk.sa, bi, ext)
            if tie is not None:
                tr.stop = (len(tr.records), tie)
                return tr
            tr.records.append(rec)
            new, touched, _ = be.sa(blk.sa, st, HARDMAX)
            _guard(be, st, new, touched, f"block {bi} SA")
            ext.touched(new, touched, seq_of)  # rows changed in place: their ranges are stale
            st = new
        if progress:
            progress(bi, net.L)
    out = be.to_fractions(st)
    tr.outputs = [out[lo:hi] for lo, hi in st.spans]
    return tr


__all__ = ["fast_trajectory", "RankOneFF", "bits"]
