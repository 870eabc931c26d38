"""The hardmax trajectory of a softmax certificate on the fast route: the records
of :mod:`proofcheck.kernel.softmax`, with exactly the values the plain route
computes, from the flint backend's evaluation (:mod:`.flint`), whose shortcuts
they share.  Each shortcut and the lemma behind it:

* SA with rank-one ``A = a b^T``: ``s_il = <b, x_i> <a, x_l>``, so in a sequence whose
  tokens all have ``q_i = <b, x_i> > 0`` every token's argmax is the ``a``-maximal
  token and its margin is ``q_i (p_max - p_second)``: the sequence's smallest
  margin is ``q_min (p_max - p_second)``, from per-sequence extremes of the
  projections (pending tag offsets shift a sequence's projections by one number,
  which leaves ``p_max - p_second`` alone, kept per sequence until its rows change).
  The signs of ``q_min`` and the smallest margin over the sequences are found
  among candidates of a float64 pre-filter with a rigorous bound and decided
  exactly (:mod:`.selection`): O(sequences) float64 operations per layer, exact
  ones for the candidates and the sequences whose rows changed.  On equal margins
  and on ties the lowest sequence is named, whichever way each was decided, as on
  the plain route.  Other sequences and other ``A`` are scored exactly, as on the
  plain route
  (:func:`~proofcheck.kernel.softmax.sequence_stats`), but for ``A = lam I``,
  ``lam > 0``, whose tokens are scored exactly where a float64 Gram pass with a
  rigorous bound cannot exclude them (:func:`.selection.lam_identity_gaps`).
* ``S``, ``Xmax``, ``P``, ``Q`` are maxima over sequences of per-sequence extremes
  (base rows plus the sequence's offset): the same maxima as over every token; ``P``,
  ``Q`` and ``Xmax`` are taken exactly over the candidates of the same pre-filter.
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

import numpy as np
from flint import fmpq_mat

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.evaluate import bits, q
from proofcheck.kernel.fast import witness
from proofcheck.kernel.fast.flint import FlintBackend, _t_row
from proofcheck.kernel.fast.selection import (enclose, lam_identity_gaps, max_abs_columns,
                                              max_candidates, min_product_candidates)
from proofcheck.kernel.limits import charge, check_bits
from proofcheck.kernel.numbers import fmt_num
from proofcheck.kernel.softmax import (
    ZERO,
    DenseFF,
    Radii,
    SARecord,
    Trajectory,
    Undecided,
    rows,
    projections,
    sa_record,
    sequence_stats,
    straddle_radius,
    tie_witness,
    up64,
)


def box_piece(kinks, t, wr):
    """``(p, across)``: the piece ``p`` holding the box ``[t - wr, t + wr]`` of a rank-one
    FF's projection, or ``across`` when a kink lies strictly inside it."""
    p = bisect_right(kinks, t - wr)
    return p, bool(wr and p < len(kinks) and kinks[p] < t + wr)


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
    _wabs: object = None

    def G(self, s) -> list:
        """``FF(x) - eta x`` at ``<w, x> = s`` (continuous; 0 on an identity piece)."""
        m = self.maps[bisect_left(self.kinks, s)]
        return [ZERO] * len(self.w) if m is None else [g * s + h for g, h in zip(*m)]

    def absJ(self, p: int):
        """``|eta I + g w^T|`` on piece ``p`` as a ``(d, d)`` ``fmpq_mat`` (``None`` for an
        identity piece)."""
        if p not in self._absJ:
            m = self.maps[p]
            d = len(self.w)
            self._absJ[p] = None if m is None else fmpq_mat([
                [abs((self.eta if a == c else ZERO) + m[0][a] * self.w[c]) for c in range(d)]
                for a in range(d)])
        return self._absJ[p]

    def propagate(self, radii: Radii) -> None:
        d = len(self.w)
        if self._wabs is None:
            self._wabs = fmpq_mat(1, d, [abs(x) for x in self.w])
        wabs = self._wabs
        if self.D is not None and (wabs * fmpq_mat(d, 1, radii.top))[0, 0] > self.D[0]:
            raise Undecided(f"block {self.block} FF: a box may reach the layer's support "
                            f"({fmt_num(self.D[0])} away from the nearest token)",
                            (self.block, *(self.locate(self.D[1]) if self.D[1] is not None
                                           else (None, None))))
        kinks = self.kinks
        memo = {}  # (piece, id(radius)) -> new radius: tokens sharing a radius share it
        wrs = {}   # id(radius) -> (radius as a column, |w|.radius)
        for i, t in self.cands:
            r = radii.get(i)
            got = wrs.get(id(r))
            if got is None:
                col = fmpq_mat(d, 1, r)
                got = wrs[id(r)] = (col, (wabs * col)[0, 0])
            col, wr = got
            p, across = box_piece(kinks, t, wr)
            if across:  # across a kink: G's range
                self.straddles += 1
                radii.set(i, straddle_radius(self.eta, self.G, kinks, t, wr, r))
                continue
            witness.box_in_piece(kinks, p, t, wr, f"block {self.block} FF, row {i}")
            J = self.absJ(p)  # None: an identity piece, the box is kept as it is
            if J is not None:
                key = (p, id(r))
                new = memo.get(key)
                if new is None:
                    new = (J * col).entries()
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
        self._nmax1 = None

    def ranges(self, st) -> list:
        """``S``: per coordinate the largest range over the sequences."""
        if st.X is not self.X:
            self.X, self.cache, self.S, self.stale = st.X, {}, None, set()
        d, cache = st.d, self.cache
        todo = range(len(st.spans)) if self.S is None else self.stale
        full = self.S is None
        e = st.X.entries() if full else None  # one pass over every row: read them at once
        for j in todo:
            lo, hi = st.spans[j]
            cols = ([e[lo * d + c:hi * d:d] for c in range(d)] if e is not None and hi > lo else
                    zip(*[[st.X[i, c] for c in range(d)] for i in range(lo, hi)]))
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

    def nmax1(self, st) -> int:
        """The most competitors of a token: the longest sequence's length minus one."""
        if self._nmax1 is None:
            self._nmax1 = max((hi - lo - 1 for lo, hi in st.spans), default=0)
        return self._nmax1

    def touched(self, st, rows_, seq_of) -> None:
        if st.X is self.X and self.S is not None:
            self.stale.update(seq_of[i] for i in rows_ or ())


class _Projections:
    """Per sequence the smallest and largest projection ``lo_j, hi_j`` of its tokens on
    ``v`` (base extremes of :class:`~.flint._Dir` plus the sequence's pending offset
    ``<v, off_j> = A_j - B_j``): exact for one sequence at a time (:meth:`lo`,
    :meth:`hi`) and as enclosures for all of them (:func:`.selection.enclose`)."""

    def __init__(self, be, st, v):
        self.dv = dv = be._dir(st, v)
        dv.refresh(st.X, st.spans, st.d)
        off, extra = st.off, []
        self.o = (lambda j: ZERO) if off is None else off.projector(v)
        if off is not None:
            am, ae, bm, bE = off.proj_frexp(v)
            extra = [(1, am, ae), (-1, bm, bE)]
        self.lo_b = enclose([(1, dv.mnm, dv.mne)] + extra)
        self.hi_b = enclose([(1, dv.mxm, dv.mxe)] + extra)

    def lo(self, j):
        return self.dv.mn[j] + self.o(j)

    def hi(self, j):
        return self.dv.mx[j] + self.o(j)

    def abs_max(self):
        """``max_j max(hi_j, -lo_j)``, the largest modulus of a projection (exact); witness
        ``max-modulus``: every sequence left out has both upper ends at most that value."""
        (v, err, E), neg = self.hi_b, self.lo_b
        js = max_candidates([(v, err, E), (-neg[0], neg[1], neg[2])])
        m = max(max(self.hi(j), -self.lo(j)) for j in js)
        out = np.ones(len(v), dtype=bool)
        out[js] = False
        for up, e in ((v + err, E), (-neg[0] + neg[1], neg[2])):  # upper ends: mantissa, exponent
            witness.all_true(witness.MAX_MODULUS, witness.exceeds(-up[out], e[out], -m, False),
                             "a sequence left out whose stated upper end is above the maximum")
        return m


def _multi(st) -> np.ndarray:
    """Mask of the sequences with two tokens or more (cached with the state's spans)."""
    meta = FlintBackend._meta(st)
    if "multi" not in meta:
        meta["multi"] = np.array([hi - lo > 1 for lo, hi in st.spans], dtype=bool)
    return meta["multi"]


def _signs(pb, many):
    """``(pos, rest)``: the sequences of ``many`` whose smallest ``q = <b, x>`` is
    positive, and the others (ascending), exact (enclosures decide the sure ones)."""
    v, err, _ = pb.lo_b
    sure, neg = many & (v - err > 0), many & (v + err <= 0)
    unsure = np.flatnonzero(many & ~sure & ~neg).tolist()
    pos = sure.copy()
    for j in unsure:
        pos[j] = pb.lo(j) > 0
    return pos, np.flatnonzero(many & ~pos).tolist()


def _rank_one_gap(st, pa, pb, block):
    """``(gap, at, rest, tie)`` for ``A = a b^T`` over the sequences whose ``q_i`` are
    all positive (``rest``: the other sequences with two tokens or more; with a
    ``tie``, the first such sequence's, only those before it), from per-sequence
    extremes: the exact margins of the candidates of
    :func:`.selection.min_product_candidates` only."""
    spans, da, db = st.spans, pa.dv, pb.dv
    many = _multi(st)
    posm, rest = _signs(pb, many)
    pos = np.flatnonzero(posm if rest else many)
    if None in da.top:
        tied = next((j for j in pos.tolist() if da.top[j] is None), None)
        if tied is not None:
            lo, hi = spans[tied]
            mx = da.mx[tied]
            c1 = next(i for i in range(lo, hi) if da.pb[i] == mx)
            c2 = next(i for i in range(c1 + 1, hi) if da.pb[i] == mx)
            # every token of the sequence has q > 0, so token 0 ties too (as the plain tier
            # names it); a tie in an earlier sequence of ``rest`` comes first
            return None, None, [j for j in rest if j < tied], \
                tie_witness(block, tied, 0, c1 - lo, c2 - lo)
    if not len(pos):
        return None, None, rest, None
    v, err, E = pb.lo_b
    sure = v[pos] - err[pos] > 0
    picked = min_product_candidates(pos[sure], v, err, E, da.dlm, da.dle)
    js = sorted(picked + pos[~sure].tolist())
    gs = [pb.lo(j) * da.dl[j] for j in js]
    gap = min(gs)
    j = js[gs.index(gap)]
    _check_rank_one_gap(st, pa, pb, j, gap, np.setdiff1d(pos[sure], picked))
    lo = spans[j][0]
    return gap, (j, db.mnrow[j] - lo, da.second[j][1] - lo), rest, None


def _check_rank_one_gap(st, pa, pb, j, gap, left_out) -> None:
    """Witness ``rank-one-argmax``: the smallest margin ``gap`` recomputed from the tokens
    of sequence ``j`` (its smallest ``<b, x>`` times its top's lead in ``<a, x>`` over the
    runner-up, both positive), and every sequence ``left_out`` has a stated lower bound of
    its margin above it."""
    da, db, X = pa.dv, pb.dv, st.X
    top, second = da.top[j], da.second[j][1]
    q = _t_row(X, db.w, db.mnrow[j], pb.o(j))
    lead = _t_row(X, da.w, top) - _t_row(X, da.w, second)
    where = f"sequence {j} (top row {top}, runner-up row {second}, row {db.mnrow[j]})"
    witness.margin(witness.RANK_ONE_ARGMAX, lead, ZERO, where)
    witness.margin(witness.RANK_ONE_ARGMAX, q, ZERO, where)
    witness.equal(witness.RANK_ONE_ARGMAX, gap, q * lead, where)
    if len(left_out):
        v, err, E = pb.lo_b
        low = (v[left_out] - err[left_out]) * da.dlm[left_out] * (1 - 2.0 ** -50)
        witness.all_true(witness.RANK_ONE_ARGMAX,
                         witness.exceeds(low, E[left_out] + da.dle[left_out], gap),
                         "a sequence left out whose stated lower bound is not above the gap")


def _sa_record(be, st, sa, block, ext):
    """``(SARecord, None)`` or ``(None, tie witness)`` for ``sa`` on the state ``st``
    (a multi-head or masked layer: the plain route's records)."""
    if sa.H > 1 or sa.causal:
        return sa_record(sa, be._materialize(st).X, st.spans, block)
    A = sa.A
    rest = [j for j, (lo, hi) in enumerate(st.spans) if hi - lo > 1]
    gap = at = tie = None
    rank_one = A.lam == 0 and len(A.left) == 1
    if rank_one:
        a, b = A.left[0], A.right[0]
        pa = _Projections(be, st, a)
        pb = pa if tuple(a) == tuple(b) else _Projections(be, st, b)
        gap, at, rest, tie = _rank_one_gap(st, pa, pb, block)
        if tie is None:
            P = [pa.abs_max()]
            Q = P if pb is pa else [pb.abs_max()]
    mat = be._materialize(st) if rest or (A.left and not rank_one) else None
    if not rank_one and not A.left and A.lam > 0 and rest:
        got = lam_identity_gaps(A.lam, mat.X, st.spans)
        if got is not None:
            rest = []
            gap, at = got
            if gap is None and at is not None:
                return None, tie_witness(block, at[0], at[1], *at[2])
    for j in rest:  # scored exactly, as on the plain route (the first sequence on a tie)
        lo, hi = st.spans[j]
        g, i, c = sequence_stats(A, rows(mat.X, lo, hi))
        if g is None:
            return None, tie_witness(block, j, i, *c)
        if gap is None or g < gap or (g == gap and j < at[0]):
            gap, at = g, (j, i, c)
    if tie is not None:
        return None, tie
    d = st.d
    Xm = [ZERO] * d
    if A.lam != 0:  # the only term that needs the largest moduli
        mat = mat or be._materialize(st)
        Xm = max_abs_columns(mat.X.entries(), st.n, d)
    if not rank_one:
        P = [max(map(abs, projections(mat.X, v)), default=ZERO) for v in A.left]
        Q = [max(map(abs, projections(mat.X, v)), default=ZERO) for v in A.right]
    return SARecord(block, sa, gap, at, ext.nmax1(st), ext.ranges(st), Xm, P, Q), None


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
