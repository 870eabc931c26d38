"""Exact backend on python-flint ``fmpq_mat`` (the default evaluator).

Same semantics as :mod:`.reference`, evaluated with exact shortcuts that change
no value:

* identity sub-layers are skipped (``eta = 1, W = 0`` / ``rho = 1, V = 0``);
* an FF layer whose ``U`` has rank <= 1 (``U = c w^T``) is affine on each interval
  of ``t = <w, x>`` between the kinks ``-b_k / c_k``; rows in an interval whose
  affine map is the identity are left untouched, the rest are evaluated exactly;
* hardmax attention with rank-one ``A = a b^T`` (``s_il = <b,x_i><a,x_l>``): token
  i attends to the ``a``-maximal tokens if ``<b,x_i> > 0``, the ``a``-minimal ones
  if ``< 0``, and to all if ``= 0`` (Lemma 4.1) — linear instead of quadratic;
* a *tag* (hardmax, ``A = a b^T``, ``V = lam I``, ``rho = 1``) in which every
  sequence j has a unique a-maximal token ``t_j`` and every ``<b, x_i> > 0`` adds
  the same vector ``lam x_{t_j}`` to every token of sequence j: it is kept as a
  per-sequence offset (token i of sequence j is ``X[i] + off[j]``).  Offsets do
  not change the order of projections inside a sequence, so the tops and the
  signs are decided exactly from per-sequence maxima / minima of the base
  projections plus the offset's projection.  A run of such tags is kept lazily
  (:class:`_Offsets`: the top token of a sequence only grows by ``1 + lam`` while
  its rows do not change), so a tag costs O(sequences whose rows changed) exact
  operations plus O(N) float64 pre-filtering.  The FF that follows evaluates
  ``base + offset`` on the rows its support may hold; before anything else the
  offsets are folded into ``X`` (``_materialize``).

Every shortcut's answer is checked through its witness before it is used
(:mod:`.witness`; the table of :mod:`proofcheck.kernel.fast`), and tests cross-check
every shortcut against the plain evaluator (:mod:`proofcheck.kernel.evaluate`), whose
interface this backend shares.  With a
``trace`` list, :meth:`FlintBackend.ff` also records what the softmax bounds of the
layer need (:mod:`.softmax`).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import fmpq, fmpq_mat

try:
    from sortedcontainers import SortedList
except ImportError:  # pragma: no cover - installed with hypothesis; plain lists then
    SortedList = None

from proofcheck.kernel.evaluate import State as PlainState
from proofcheck.kernel.evaluate import spans_of
from proofcheck.kernel.fast import witness
from proofcheck.kernel.fast.heads import sa_heads
from proofcheck.kernel.limits import charge
from proofcheck.kernel.model import FF, SA, Factored
from proofcheck.kernel.numbers import coprime_fraction


@dataclass
class State(PlainState):
    """The plain state plus this backend's caches: ``index`` (sorted projections
    per direction), ``off`` (pending per-sequence offsets: token i of sequence j is
    ``X[i] + off[j]``; ``None``: ``X`` holds the tokens), ``meta`` (shared by every
    state derived from one ``load``), ``shift``/``tag`` (how the last SA computed this
    state, for claim checks), ``ff_after_tag``."""

    index: Any = None
    off: Any = None
    meta: Any = None
    shift: Any = None
    tag: Any = None
    ff_after_tag: bool = False


def q2f(q: Fraction) -> fmpq:
    return fmpq(q.numerator, q.denominator)


def f2q(x: fmpq) -> Fraction:
    """Exact conversion (fmpq keeps p/q coprime with q > 0, so no gcd is needed)."""
    return coprime_fraction(int(x.p), int(x.q))


def _col(v) -> fmpq_mat:
    return fmpq_mat(len(v), 1, [q2f(x) for x in v])


class _BoundFactored:
    """A :class:`Factored` with constants converted to fmpq once."""

    def __init__(self, f: Factored):
        self.lam = q2f(f.lam)
        self.pairs = [([q2f(x) for x in a], [q2f(x) for x in b]) for a, b in zip(f.left, f.right)]

    def apply(self, x):
        out = [self.lam * xi for xi in x]
        for a, b in self.pairs:
            c = sum((bi * xi for bi, xi in zip(b, x)), fmpq(0))
            if c != 0:
                out = [o + ai * c for o, ai in zip(out, a)]
        return out


REL = 2.0 ** -40  # float64 pre-filter margin (conversion error is below 2^-50 relative)


def _floats(xs):
    """float64 copies of exact rationals for PRE-FILTERING only, or ``None`` when
    any value is outside [2^-900, 2^900] (then callers decide exactly).  Inside
    that range each copy is within 2^-50 relative of the exact value, so two values
    whose copies differ by more than REL (|a| + |b|) are ordered like the copies."""
    try:
        f = np.fromiter(map(float, xs), dtype=float, count=len(xs))
    except (OverflowError, ValueError):
        return None
    a = np.abs(f)
    if not np.isfinite(f).all() or (a > 2.0 ** 900).any() or ((a > 0) & (a < 2.0 ** -900)).any():
        return None
    if any(xs[i] != 0 for i in np.flatnonzero(f == 0).tolist()):
        return None  # a nonzero value below 2^-1075 rounded to 0
    return f


def gram_floats(e, n, d):
    """``(n, d)`` float64 copies of the row-major entries ``e`` of ``n`` rows when ``d <=
    64`` and every nonzero modulus is in ``[2^-400, 2^400]`` (no overflow or underflow
    in a product of two or a sum of 64 of them: the range of the Gram pre-filters),
    else ``None``."""
    if d > 64 or n == 0:
        return None
    F = _floats(e)
    if F is None:
        return None
    a = np.abs(F)
    if (a > 2.0 ** 400).any() or ((a > 0) & (a < 2.0 ** -400)).any():
        return None
    return F.reshape(n, d)


TINY = 2.0 ** -1000  # absolute pre-filter margin: covers underflow in _scaled
ZERO_E = -(1 << 40)  # exponent of 0 in _frexp (below every other, so a max ignores it)
STEP = 2.0 ** -52    # relative error added by one float64 rounding (with room)


def _frexp(xs):
    """``(m, e)``: float64 and int64 arrays with ``xs[i] = m[i] 2^e[i] (1 + delta)``,
    ``|delta| <= 2^-53``, ``|m[i]|`` in [1/2, 1) (``m = 0, e = ZERO_E`` for 0), for exact
    rationals of ANY size, for PRE-FILTERING only.  Values inside [2^-900, 2^900]
    are converted as floats (``float(fmpq)`` is correctly rounded); the others
    exactly scaled by ``2^-s`` first (``s`` from the bit lengths) and then rounded."""
    f = _floats(xs)
    if f is not None:
        m, e = np.frexp(f)
        e = e.astype(np.int64)
        e[m == 0] = ZERO_E
        return m, e
    m, e = np.zeros(len(xs)), np.full(len(xs), ZERO_E, np.int64)
    for i, x in enumerate(xs):
        x = fmpq(x)
        if x == 0:
            continue
        p, q = x.p, x.q
        s = p.bit_length() - q.bit_length()
        y = float(fmpq(p, q << s) if s >= 0 else fmpq(p << -s, q))  # |y| in (1/2, 2)
        mi, ei = np.frexp(y)
        m[i], e[i] = mi, ei + s
    return m, e


def _scaled(m, e, E):
    """``m 2^(e - E)`` (float64 arrays; ``E`` a scalar or an array): exact, except
    that an exponent far below the float64 range gives 0 or a subnormal (absolute
    error below ``2^-1074``, within :data:`TINY`) and one far above gives ``inf``
    (callers keep non-finite values as undecided)."""
    with np.errstate(over="ignore"):  # inf is a value here, not an error
        return np.ldexp(m, np.clip(e - E, -1100, 1100).astype(np.int32))


def _float_or_inf(x: fmpq) -> float:
    """Nearest float64 of ``x``, ``+-inf`` when it is beyond the float64 range."""
    try:
        return float(x)
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def _in_range(tt, lo, hi):
    """Rows i with ``lo <= tt[i] <= hi`` (exact; ``None`` = no bound on that side),
    candidates pre-filtered in float64."""
    if lo is None or hi is None:
        return [i for i, t in enumerate(tt) if (lo is None or lo <= t) and (hi is None or t <= hi)]
    f = _floats(tt)
    fl = _floats([lo, hi])
    if f is None or fl is None:
        return [i for i, t in enumerate(tt) if lo <= t <= hi]
    m = REL * (np.abs(f) + abs(fl[0]) + abs(fl[1]))
    cand = np.nonzero((f >= fl[0] - m) & (f <= fl[1] + m))[0].tolist()
    return [i for i in cand if lo <= tt[i] <= hi]


def _in_range_checked(tt, lo, hi):
    """:func:`_in_range`, each row's exact projection checked inside ``[lo, hi]``
    (witness ``window``; rows the float pre-filter leaves out are left out by its stated
    bound)."""
    rows = _in_range(tt, lo, hi)
    for i in rows:
        witness.inside(witness.WINDOW, i, tt[i], lo, hi)
    return rows


def _support(kinks, maps):
    """Closed intervals ``(lo, hi)`` of ``t`` (``None`` = unbounded) covering every
    non-identity piece: maximal runs of consecutive non-identity pieces (``maps``: a
    :class:`_Pieces`, asked only which pieces are the identity, or a list of maps)."""
    out, start = [], False
    for p in range(len(kinks) + 1):
        ident = maps.identity(p) if isinstance(maps, _Pieces) else maps[p] is None
        if not ident and start is False:
            start = kinks[p - 1] if p else None
        if ident and start is not False:
            out.append((start, kinks[p - 1]))
            start = False
    if start is not False:
        out.append((start, None))
    return out


def _apply(X, i, eta, m, ti, d):
    """Row ``i`` of ``X`` becomes ``eta x + g t + h`` (``m = (g, h)``, ``t = <w, x>``)."""
    g, h = m
    if eta == 1:
        for c in range(d):
            X[i, c] = X[i, c] + g[c] * ti + h[c]
        return
    for c in range(d):
        X[i, c] = eta * X[i, c] + g[c] * ti + h[c]


class _Index:
    """Projections ``t = <w, x_i>`` of all rows, kept sorted so an FF with bounded support
    finds its rows by bisection; updated row by row (a ``SortedList`` when sortedcontainers
    is installed, which keeps an update O(log T) for a million rows; else a plain list).
    The entries are ``(floor(t), t, row)``: ``floor`` is non-decreasing, so they sort as
    ``(t, row)`` do, and most comparisons are of integers (an fmpq comparison costs about
    twenty times more)."""

    def __init__(self, w, X, key=None):
        self.w, self.key = [q2f(x) for x in w], key
        t = self.t = (X * _col(w)).entries()
        self.n = len(t)
        pairs = sorted([(x.floor(), x, i) for i, x in enumerate(t)])
        self.pairs = SortedList(pairs) if SortedList is not None else pairs

    @staticmethod
    def _below(x, row):
        """The entry ``(floor(x), x, row)`` (a bound of a bisection)."""
        return (x.floor(), x, row)

    def _left(self, lo) -> int:
        """Position of the first entry with ``t >= lo``."""
        P, k = self.pairs, self._below(lo, -1)
        return P.bisect_left(k) if SortedList is not None else bisect_left(P, k)

    def _right(self, hi) -> int:
        """Position just past the last entry with ``t <= hi``."""
        P, k = self.pairs, self._below(hi, self.n)
        return P.bisect_right(k) if SortedList is not None else bisect_right(P, k)

    def between(self, lo, hi):
        """Rows with ``lo <= t <= hi`` (a snapshot list; ``None`` = unbounded)."""
        a = None if lo is None else self._below(lo, -1)
        b = None if hi is None else self._below(hi, self.n)
        if SortedList is not None:
            return [r for _, _, r in self.pairs.irange(a, b)]
        P = self.pairs
        return [r for _, _, r in P[0 if a is None else bisect_left(P, a):
                                   len(P) if b is None else bisect_right(P, b)]]

    def neighbours(self, lo, hi):
        """The rows just below ``lo`` and just above ``hi`` in the sorted order (``None``:
        none there): with the rows returned by :meth:`between`, the witness that no row
        in ``[lo, hi]`` was missed."""
        P, out = self.pairs, []
        if lo is not None:
            a = self._left(lo)
            out.append(P[a - 1][2] if a > 0 else None)
        if hi is not None:
            b = self._right(hi)
            out.append(P[b][2] if b < len(P) else None)
        return out

    def between_checked(self, X, lo, hi):
        """:meth:`between`, its witness checked exactly (``window``): each row's projection
        recomputed from ``X`` equals the index's and lies in ``[lo, hi]``; the sorted
        neighbours just outside lie outside."""
        rows = self.between(lo, hi)
        for i in rows:
            t = _t_row(X, self.w, i)
            witness.equal(witness.WINDOW, self.t[i], t, lambda: f"the sorted projection of row {i}")
            witness.inside(witness.WINDOW, i, t, lo, hi)
        for i in self.neighbours(lo, hi):
            if i is not None:
                witness.outside(witness.WINDOW, i, _t_row(X, self.w, i), lo, hi)
        return rows

    def nearest_outside(self, lo, hi):
        """``(distance, row)`` of the nearest projection outside ``[lo, hi]`` (``None``
        = unbounded), or ``None``."""
        P, near = self.pairs, []
        if lo is not None:
            a = self._left(lo)
            if a > 0:
                near.append((lo - P[a - 1][1], P[a - 1][2]))
        if hi is not None:
            b = self._right(hi)
            if b < len(P):
                near.append((P[b][1] - hi, P[b][2]))
        return min(near, default=None)

    def reread(self, X, rows):
        """The given rows were written in place: their projections read again from ``X``."""
        for i in rows:
            self.update(i, _t_row(X, self.w, i))

    def update(self, i, new_t):
        old, new = self._below(self.t[i], i), self._below(new_t, i)
        if SortedList is not None:
            self.pairs.remove(old)
            self.pairs.add(new)
        else:
            del self.pairs[bisect_left(self.pairs, old)]
            insort(self.pairs, new)
        self.t[i] = new_t


def _rank_one(U):
    """``(w, c)`` with ``U[k] = c[k] w`` if rank(U) == 1, else ``None``."""
    if U and all(u is U[0] or u == U[0] for u in U) and any(x != 0 for x in U[0]):
        return U[0], [Fraction(1)] * len(U)  # one row repeated (equal values: c = 1)
    w = next((u for u in U if any(x != 0 for x in u)), None)
    if w is None:
        return None
    j = next(i for i, x in enumerate(w) if x != 0)
    cs = []
    for u in U:
        a, b = u[j], w[j]
        # int / int is a float in Python: keep the ratio exact
        c = Fraction(a, b) if type(a) is int and type(b) is int else a / b
        if any(ui != c * wi for ui, wi in zip(u, w)):
            return None
        cs.append(c)
    return w, cs


def affine_pieces(ff: FF, r1):
    """Linear pieces of an FF layer whose ``U = c w^T`` (``r1 = (w, c)``): the sorted
    kinks ``-b_k / c_k`` of ``t = <w, x>`` and, per piece (before the first kink,
    between kinks, after the last), ``None`` when the layer is the identity there,
    else ``(g, h)`` with ``FF(x) = eta x + g t + h`` on that piece (fmpq lists).
    ``maps`` is a :class:`_Pieces`: each piece is computed when first read, so a
    layer whose support holds none of the rows costs its kinks and outer pieces.
    The kinks are computed and sorted as fmpq (comparisons in C)."""
    w, cs = r1
    uk = [None if not ck.numerator else fmpq(-bk.numerator, bk.denominator)
          if ck.numerator == ck.denominator else -q2f(bk) / q2f(ck)
          for bk, ck in zip(ff.b, cs)]  # each unit's kink (None: c_k = 0)
    ks = sorted([k for k in uk if k is not None])
    kinks = [k for i, k in enumerate(ks) if i == 0 or k != ks[i - 1]]  # distinct
    pos = [None if k is None else bisect_left(kinks, k) for k in uk]
    return w, kinks, _Pieces(ff, cs, kinks, len(w), w, pos)


def _identity_piece(ff: FF, cs, act, d) -> bool:
    """``eta = 1`` and ``sum_{k in act} c_k W_k = 0`` and ``sum_{k in act} b_k W_k = 0``
    for the Fractions of ``ff`` (``cs``: the ``c_k`` of ``U = c w^T``), decided
    exactly in Python integers: per coordinate, the numerator of each sum over the
    product of its denominators (no gcd, no fmpq conversion, which is slow for
    big numerators)."""
    if ff.eta != 1:
        return False
    b, W = ff.b, ff.W
    cols = [(cs[k].numerator, cs[k].denominator, b[k].numerator, b[k].denominator, W[k])
            for k in act]
    for i in range(d):
        P1, Q1, P2, Q2 = 0, 1, 0, 1
        for cn, cd, bn, bd, col in cols:
            v = col[i]
            vn = v.numerator
            if vn:
                vd = v.denominator
                q = cd * vd
                P1, Q1 = P1 * q + cn * vn * Q1, Q1 * q
                q = bd * vd
                P2, Q2 = P2 * q + bn * vn * Q2, Q2 * q
        if P1 or P2:
            return False
    return True


def piece_index(kinks, t) -> int:
    """The piece holding ``t`` (``bisect_left``: a kink belongs to the piece before it;
    the layer is continuous there)."""
    return bisect_left(kinks, t)


class _Pieces:
    """The maps of :func:`affine_pieces` (a read-only sequence, ``len = kinks + 1``).
    On each piece the set of active ReLUs ``c_k t + b_k > 0`` is constant (the
    kinks are the only places where one switches).  With ``pos`` (unit k's kink
    ``-b_k / c_k`` is ``kinks[pos[k]]``), on piece p (between ``kinks[p - 1]`` and
    ``kinks[p]``, unbounded at the ends) unit k is active iff ``c_k > 0`` and ``pos[k] < p``
    (``t`` is above its kink) or ``c_k < 0`` and ``pos[k] >= p`` (below it) or ``c_k = 0 <
    b_k``.  The
    piece is the identity iff ``eta = 1`` and ``sum_active c_k W_k = 0`` and
    ``sum_active b_k W_k = 0`` (:func:`_identity_piece`); otherwise ``(g, h)`` are
    those two sums as fmpq lists."""

    def __init__(self, ff: FF, cs, kinks, d, w, pos):
        self.ff, self.cs, self.kinks, self.d, self.w, self.pos = ff, cs, kinks, d, w, pos
        self.maps = [False] * (len(kinks) + 1)  # False: not computed yet
        self.acts = [None] * (len(kinks) + 1)   # the active units of a piece, once decided
        self.wq = None  # w as fmpq, once
        self.wmaps: dict = {}  # id(map) -> (eta + <w, g>, <w, h>) (:meth:`projected`)

    def at(self, t, row):
        """The map of the piece holding ``t`` (``None``: the identity); witness ``ff-piece``:
        ``t`` lies between the piece's kinks (on it the active units are those of its map)."""
        p = piece_index(self.kinks, t)
        witness.in_piece(self.kinks, p, t, row)
        return self[p]

    def projected(self, m, eta, t):
        """``<w, x'>`` for a row ``x`` with ``<w, x> = t`` moved by the piece map ``m = (g, h)``:
        ``x' = eta x + g t + h`` gives ``eta t + <w, g> t + <w, h>`` (``<w, g>``, ``<w, h>``
        computed once per map).  The sorted index keeps it; its window witness recomputes
        ``<w, x'>`` from the row."""
        got = self.wmaps.get(id(m))
        if got is None:
            g, h = m
            wq = self.wq = self.wq or [q2f(x) for x in self.w]
            got = self.wmaps[id(m)] = (eta + sum([a * x for a, x in zip(wq, g)], fmpq(0)),
                                       sum([a * x for a, x in zip(wq, h)], fmpq(0)))
        return got[0] * t + got[1]

    def __len__(self):
        return len(self.maps)

    def __iter__(self):
        return (self[p] for p in range(len(self.maps)))

    def _active(self, p):
        """The active units of piece ``p`` (class docstring), decided once."""
        act = self.acts[p]
        if act is not None:
            return act
        cs, b = self.cs, self.ff.b
        # signs from the lowest-terms numerators (denominators are positive)
        pos = self.pos
        act = [k for k, c in enumerate(cs)
               if (c.numerator > 0 and pos[k] < p) or (c.numerator < 0 and pos[k] >= p)
               or (c.numerator == 0 and b[k].numerator > 0)]
        self.acts[p] = act
        return act

    def identity(self, p) -> bool:
        """``self[p] is None`` (piece ``p`` is the identity), without building the map of a
        piece that is not: :func:`_support` asks this of every piece, the rows only of
        the pieces they fall in."""
        if p < 0:
            p += len(self.maps)
        m = self.maps[p]  # IndexError past the end, like a list
        if m is not False:
            return m is None
        if _identity_piece(self.ff, self.cs, self._active(p), self.d):
            self.maps[p] = None
            return True
        return False

    def __getitem__(self, p):
        if p < 0:
            p += len(self.maps)
        if self.identity(p):
            return None
        m = self.maps[p]
        if m is not False:
            return m
        ff, d, cs, act = self.ff, self.d, self.cs, self._active(p)
        b = ff.b
        W = {k: [q2f(x) for x in ff.W[k]] for k in act}
        cq = {k: q2f(cs[k]) for k in act}
        bq = {k: q2f(b[k]) for k in act}
        g = [sum((cq[k] * W[k][i] for k in act), fmpq(0)) for i in range(d)]
        h = [sum((bq[k] * W[k][i] for k in act), fmpq(0)) for i in range(d)]
        m = self.maps[p] = (g, h)
        return m


class _Dir:
    """Exact projections ``pb[i] = <w, X[i]>`` of the BASE rows (offsets excluded),
    their float64 mantissas and exponents ``bm, be`` (:func:`_frexp`; pre-filter
    only) and, per sequence, the row of the unique maximal base projection
    (``None`` on a tie), the minimal base projection (``mn``; ``mnm, mne`` its
    mantissa and exponent), the maximal one (``mx``; ``mxm, mxe``), the margin
    ``dl = mx - second`` of a unique top (``None`` on a tie or with one row; ``dlm,
    dle``), and the base row of that top (``xt``, a ``(N, d)`` matrix).  A pending
    offset adds one number to every projection of a sequence, so ``dl`` is that of
    the tokens too.  Sequences whose rows changed are recomputed lazily."""

    def __init__(self, w, X, spans, d):
        self.w = [q2f(x) for x in w]
        self.pb = (X * _col(w)).entries()
        self.bm, self.be = _frexp(self.pb)
        n_seq = len(spans)
        self.top = [None] * n_seq
        self.mn = [None] * n_seq
        self.mnrow = [None] * n_seq   # a row of the minimum
        self.mx = [None] * n_seq
        self.second = [None] * n_seq  # (second largest value, its row); None: one row
        self.dl = [None] * n_seq
        self.mnm, self.mne = np.zeros(n_seq), np.zeros(n_seq, np.int64)
        self.mxm, self.mxe = np.zeros(n_seq), np.zeros(n_seq, np.int64)
        self.dlm, self.dle = np.zeros(n_seq), np.zeros(n_seq, np.int64)
        self.xt = fmpq_mat(n_seq, d)
        self.dirty = set(range(n_seq))

    def refresh(self, X, spans, d):
        pb = self.pb
        dirty = sorted(self.dirty)
        for s in dirty:
            lo, hi = spans[s]
            ps = pb[lo:hi]
            mx = max(ps)
            k = ps.index(mx)
            t = lo + k if ps.count(mx) == 1 else None
            self.top[s], self.mx[s] = t, mx
            if hi - lo > 1:  # the second largest value and its first row
                v2 = mx if t is None else max(ps[:k] + ps[k + 1:])
                self.second[s] = (v2, lo + (ps.index(v2, k + 1) if t is None else ps.index(v2)))
                self.dl[s] = None if t is None else mx - v2
            mn = self.mn[s] = min(ps)
            self.mnrow[s] = lo + ps.index(mn)
            if t is not None:
                for c in range(d):
                    self.xt[s, c] = X[t, c]
        if dirty:  # one conversion for the three lists
            zero, k = fmpq(0), len(dirty)
            m, e = _frexp([self.mn[s] for s in dirty] + [self.mx[s] for s in dirty]
                          + [zero if self.dl[s] is None else self.dl[s] for s in dirty])
            self.mnm[dirty], self.mne[dirty] = m[:k], e[:k]
            self.mxm[dirty], self.mxe[dirty] = m[k:2 * k], e[k:2 * k]
            self.dlm[dirty], self.dle[dirty] = m[2 * k:], e[2 * k:]
        self.dirty.clear()
        return dirty

    def update(self, i, s, X, d):
        v = self.pb[i] = sum((a * X[i, c] for c, a in enumerate(self.w)), fmpq(0))
        m, e = _frexp([v])
        self.bm[i], self.be[i] = m[0], e[0]
        self.dirty.add(s)


class _Frame:
    """Float64 pre-filter of one direction ``w`` for a run of offset tags
    (:class:`_Offsets`) that stays sharp at any magnitude: it works on differences of
    nearby values instead of the values.

    Row i of sequence j has ``t_i = <w, x_i> = Y_j - D_i`` with ``Y_j = <w, y_j>``
    (its top token) and the depth ``D_i = <w, xb_j> - <w, X[i]>``: a tag adds
    ``lam y_j`` to every token and multiplies ``y_j`` by ``1 + lam``, so ``D_i`` does
    not change, and ``Y_j = C[n] kap_j`` with ``kap_j = <w, yb_j> / C[k_j]`` fixed
    until the sequence is rebased.  Kept: exact ``kap_j``, an exact reference
    ``ref >= max_j kap_j``, ``rho_j = kap_j - ref <= 0`` as mantissa / exponent (exact
    when last rebased, then ``steps_j`` float64 subtractions of the increases of
    ``ref``, each adding magnitudes of one sign: relative error below
    ``(steps_j + 1) STEP``), every ``D_i`` and per sequence its least and largest
    (one rounding each).  For an FF support ``[lo, hi]``:
    ``t_i - lo = Z + C[n] rho_j - D_i`` with ``Z = C[n] ref - lo`` exact, each
    combination scaled by its own largest exponent (no overflow; underflow below
    :data:`TINY`), so only rows close to ``[lo, hi]`` relative to these differences
    are left for the exact test."""

    def __init__(self, kap, ref, rho, steps, dep, dmin, dmax):
        self.kap, self.ref, self.rho, self.steps = kap, ref, rho, steps
        self.dep, self.dmin, self.dmax = dep, dmin, dmax  # (mantissas, exponents) pairs

    @classmethod
    def build(cls, off, wy, wx, pb, spans):
        """The frame of ``off`` (an :class:`_Offsets`) for a direction with
        ``wy, wx`` (its ``_dir``) and base projections ``pb``."""
        kap = [y / off.C[k] for y, k in zip(wy, off.k)]
        ref = max(kap)
        dep, dmin, dmax = [None] * len(pb), [], []
        for j, (a, b) in enumerate(spans):
            x = wx[j]
            ds = dep[a:b] = [x - pb[i] for i in range(a, b)]
            dmin.append(min(ds))
            dmax.append(max(ds))
        return cls(kap, ref, _frexp([x - ref for x in kap]), np.zeros(len(kap), np.int64),
                   _frexp(dep), _frexp(dmin), _frexp(dmax))

    def tagged(self, rebase, Cn, fw, wy, wx, X, spans, d):
        """The frame after a tag that rebased the sequences ``rebase`` (``wy, wx``
        already updated, ``Cn = C[k_j]`` of the rebased ones): their ``kap``,
        ``rho`` and depths exactly, ``ref`` raised to the new maximum (the other
        ``rho`` by one float64 subtraction each)."""
        if not rebase:
            return self
        js = sorted(rebase)
        kap = list(self.kap)
        for j in js:
            kap[j] = wy[j] / Cn
        ref, (rm, re), steps = self.ref, self.rho, self.steps + 0
        top = max(kap[j] for j in js)
        if top > ref:
            (dm,), (de,) = _frexp([top - ref])
            E = np.maximum(re, de)
            rm, re = np.frexp(_scaled(rm, re, E) - _scaled(np.float64(dm), de, E))
            re = np.where(rm == 0, ZERO_E, re.astype(np.int64) + E)
            steps += 1
            ref = top
        else:
            rm, re = rm.copy(), re.copy()
        rm[js], re[js] = _frexp([kap[j] - ref for j in js])
        steps[js] = 0
        (pm, pe), (lm, le), (hm, he) = ((a.copy(), b.copy()) for a, b in
                                        (self.dep, self.dmin, self.dmax))
        for j in js:
            a, b = spans[j]
            x = wx[j]
            ds = [x - sum((c * X[i, k] for k, c in enumerate(fw)), fmpq(0)) for i in range(a, b)]
            pm[a:b], pe[a:b] = _frexp(ds)
            (lm[j],), (le[j],) = _frexp([min(ds)])
            (hm[j],), (he[j],) = _frexp([max(ds)])
        return _Frame(kap, ref, (rm, re), steps, (pm, pe), (lm, le), (hm, he))

    def candidates(self, Cn, lo, hi, starts, lens):
        """Rows that may have ``lo <= t_i <= hi`` (a superset; ``starts, lens``:
        the spans as int64 arrays)."""
        (zm,), (ze,) = _frexp([Cn * self.ref - lo])
        (wm,), (we,) = _frexp([hi - lo])
        (cm,), (ce,) = _frexp([Cn])
        rm, re = self.rho
        am, ae = cm * rm, re + ce  # C[n] rho_j: steps_j + 3 roundings
        err = REL + (self.steps + 8) * STEP

        def terms(E, *pairs):
            return [_scaled(m, e, E) for m, e in pairs]
        (lm, le), (hm, he) = self.dmin, self.dmax
        E = np.maximum.reduce([np.full(len(am), ze), ae, le, he])
        z, a, dl, dh, w = terms(E, (zm, ze), (am, ae), (lm, le), (hm, he), (wm, we))
        s = z + a  # Z + C[n] rho_j = Y_j - lo
        m = err * (np.abs(z) + np.abs(a) + np.maximum(np.abs(dl), np.abs(dh)) + np.abs(w)) + TINY
        seqs = np.flatnonzero(~((dl - s > m) | (s - w - dh > m)))
        if not len(seqs):
            return []
        ln = lens[seqs]
        first = np.repeat(np.cumsum(ln) - ln, ln)
        rows = np.repeat(starts[seqs], ln) + np.arange(int(ln.sum())) - first
        js = np.repeat(seqs, ln)
        pm, pe = self.dep
        E = np.maximum.reduce([np.full(len(rows), ze), ae[js], pe[rows]])
        z, a, dd, w = terms(E, (zm, ze), (am[js], ae[js]), (pm[rows], pe[rows]), (wm, we))
        t = (z + a) - dd  # t_i - lo
        m = err[js] * (np.abs(z) + np.abs(a) + np.abs(dd) + np.abs(w)) + TINY
        return rows[~((t < -m) | (t > w + m))].tolist()


class _Offsets:
    """Per-sequence offsets of a run of offset tags, kept lazily (one object per
    state; a tag returns a new one and leaves this one valid).

    Tag m (factor ``f_m = 1 + lam_m``) adds ``lam_m y_j`` to every token of sequence
    j, where ``y_j = X[t_j] + off_j`` is its unique top token: while the top row
    ``t_j`` and its base row ``X[t_j]`` stay the same, ``y_j`` only grows by the
    factor ``f_m``.  Stored per sequence: ``k[j]`` (the number of tags when it was
    last rebased), ``t[j]`` (its top row then), ``yb[j]`` (its top token then) and
    ``xb[j]`` (that token's base row then), so that
    ``off_j = yb[j] * C[n] / C[k[j]] - xb[j]`` with ``C[m] = f_1 ... f_m`` and ``n``
    the tags so far.  Before a tag, a sequence is rebased when its rows changed
    (the FF on base + offset, the only in-place writer while offsets are pending,
    records those sequences in ``changed``) or, for a tag in another direction
    than ``a`` (the previous tag's), when its top row differs from ``t[j]`` (in
    the same direction unchanged rows keep their top).
    Exact fmpq throughout; ``proj_frexp`` gives float64 mantissas and exponents
    for PRE-FILTERING (any magnitude) with the error a rigorous margin needs.
    ``Cf``: the lists of mantissas and exponents of the ``C[m]`` (:func:`_frexp`),
    shared and extended like ``C``."""

    def __init__(self, a, C, n, k, t, yb, xb, karr, Cf):
        self.a, self.C, self.n = a, C, n  # C: shared, append-only; this view uses C[:n + 1]
        self.Cf = Cf
        self.k, self.t, self.yb, self.xb, self.karr = k, t, yb, xb, karr
        self.changed = set()
        self._F, self._off, self._proj, self._frames, self._projs = {}, {}, {}, {}, {}

    @classmethod
    def first(cls, a, f, tops, X, d):
        """Offsets after one tag (direction key ``a``, factor ``f``) on offset-free
        rows with tops ``tops``."""
        xb = [tuple(X[t, c] for c in range(d)) for t in tops]
        fm, fe = _frexp([f])
        new = cls(a, [fmpq(1), f], 1, [0] * len(tops), list(tops), xb, list(xb),
                  np.zeros(len(tops), np.int64), ([0.5, float(fm[0])], [1, int(fe[0])]))
        new.row_bits = max((_bits(x) for r in xb for x in r), default=0)
        return new

    def F(self, k):
        """``C[n] / C[k]`` (exact)."""
        v = self._F.get(k)
        if v is None:
            v = self._F[k] = self.C[self.n] / self.C[k]
        return v

    def off(self, j):
        """Exact offset of sequence j (a d-tuple of fmpq)."""
        o = self._off.get(j)
        if o is None:
            F = self.F(self.k[j])
            o = self._off[j] = tuple(y * F - x for y, x in zip(self.yb[j], self.xb[j]))
        return o

    def _dir(self, w):
        """``(<w, yb_j>, <w, xb_j>)`` per sequence, exact and as :func:`_frexp` pairs."""
        key = tuple(w)
        P = self._proj.get(key)
        if P is None:
            fw = [q2f(x) for x in w]
            wy = [sum((a * b for a, b in zip(fw, y)), fmpq(0)) for y in self.yb]
            wx = [sum((a * b for a, b in zip(fw, x)), fmpq(0)) for x in self.xb]
            P = self._proj[key] = (fw, wy, wx, _frexp(wy), _frexp(wx))
        return P

    def frame(self, w, pb, spans):
        """The :class:`_Frame` of direction ``w`` (``pb``: the base projections)."""
        key = tuple(w)
        fr = self._frames.get(key)
        if fr is None:
            _, wy, wx, _, _ = self._dir(w)
            fr = self._frames[key] = _Frame.build(self, wy, wx, pb, spans)
        return fr

    def proj(self, w, j):
        """Exact ``<w, off_j>``."""
        return self.projector(w)(j)

    def projections(self, w) -> list:
        """``[<w, off_j>]`` over the sequences (exact, cached per direction)."""
        key = tuple(w)
        out = self._projs.get(key)
        if out is None:
            _, wy, wx, _, _ = self._dir(w)
            F = self.F
            out = self._projs[key] = [F(k) * y - x for k, y, x in zip(self.k, wy, wx)]
        return out

    def projector(self, w):
        """``j -> <w, off_j>`` (exact; one cache look-up for many sequences)."""
        _, wy, wx, _, _ = self._dir(w)
        k, F = self.k, self.F
        return lambda j: F(k[j]) * wy[j] - wx[j]

    def proj_frexp(self, w):
        """``(am, ae, bm, be)``: per sequence, float64 mantissas and int64 exponents
        with ``<w, off_j> = A_j - B_j``, ``A_j = F(k_j) <w, yb_j> = am_j 2^ae_j (1 +
        delta)`` and ``B_j = <w, xb_j> = bm_j 2^be_j (1 + delta')``, ``|delta|,
        |delta'| <= 2^-50`` (``am_j`` is the product and quotient of three correctly
        rounded mantissas: five roundings of at most 2^-53; no overflow or
        underflow, the exponents are kept apart), for values of any size."""
        _, _, _, (ym, ye), (xm, xe) = self._dir(w)
        n, kk = self.n, self.karr
        Cm, Ce = np.asarray(self.Cf[0][:n + 1]), np.asarray(self.Cf[1][:n + 1], np.int64)
        return Cm[n] / Cm[kk] * ym, Ce[n] - Ce[kk] + ye, xm, xe

    def rebase_set(self, a, tops) -> set:
        """The sequences to rebase before a tag in direction ``a`` with tops ``tops``:
        those whose rows changed and, for a tag in another direction than the previous
        one, those whose top row moved (in the same direction an unchanged sequence keeps
        its top: a tag shifts all its projections by one number)."""
        rebase = set(self.changed)
        if a != self.a and tops != self.t:
            rebase.update(j for j, (x, y) in enumerate(zip(tops, self.t)) if x != y)
        return rebase

    def tagged(self, a, f, tops, X, d, spans):
        """The offsets after one more tag with factor ``f`` (tops ``tops``): the
        sequences whose top row is not ``t[j]`` or whose rows changed are rebased
        first, every other entry is shared."""
        n = self.n
        C, (Cm, Ce) = self.C, self.Cf
        if len(C) != n + 1:  # another state already extended C: branch off a copy
            C, Cm, Ce = C[:n + 1], Cm[:n + 1], Ce[:n + 1]
        C.append(C[n] * f)
        m, e = _frexp([C[n + 1]])
        Cm.append(float(m[0]))
        Ce.append(int(e[0]))
        rebase = self.rebase_set(a, tops)
        # witness of the growth lemma's premise: every sequence kept lazily has its top row
        # unchanged (its base row is unchanged: the rows FF layers wrote are in ``changed``)
        kept = [j for j, (t0, t1) in enumerate(zip(self.t, tops)) if t0 != t1 and j not in rebase]
        if kept:
            witness.fail(witness.TAG_OFFSETS, f"sequence {kept[0]} keeps its offset lazily but its "
                         f"top row changed from {self.t[kept[0]]} to {tops[kept[0]]}")
        k, yb, xb, karr = list(self.k), list(self.yb), list(self.xb), self.karr.copy()
        rb = self.row_bits
        for j in rebase:
            o = self.off(j)
            x = tuple(X[tops[j], c] for c in range(d))
            k[j], xb[j], yb[j], karr[j] = n, x, tuple(a + b for a, b in zip(x, o)), n
            rb = max(rb, max(_bits(v) for v in x + yb[j]))
        new = _Offsets(a, C, n + 1, k, list(tops), yb, xb, karr, (Cm, Ce))
        new.row_bits = rb
        for key, (fw, wy, wx, (ym, ye), (xm, xe)) in self._proj.items():  # carry them
            wy, wx = list(wy), list(wx)
            for j in rebase:
                wy[j] = sum((a * b for a, b in zip(fw, yb[j])), fmpq(0))
                wx[j] = sum((a * b for a, b in zip(fw, xb[j])), fmpq(0))
            if rebase:
                js = sorted(rebase)
                ym, ye, xm, xe = ym.copy(), ye.copy(), xm.copy(), xe.copy()
                ym[js], ye[js] = _frexp([wy[j] for j in js])
                xm[js], xe[js] = _frexp([wx[j] for j in js])
            new._proj[key] = (fw, wy, wx, (ym, ye), (xm, xe))
            if key in self._frames:
                new._frames[key] = self._frames[key].tagged(rebase, C[n], fw, wy, wx, X,
                                                            spans, d)
        return new


_bits = fmpq.height_bits  # max(numerator, denominator) bit length, in C


def _nearest(cand_t, inside: set, lo, hi, width):
    """``(distance, row)`` of the nearest row outside ``[lo, hi]`` among the rows
    ``cand_t = [(row, exact t)]`` of a query over ``[lo - width, hi + width]``; when
    none is there, ``(width, None)``: every other row is at least that far.  A float
    pre-filter returns a superset of the window's rows, so a candidate beyond the
    window may be named only as far as the window reaches: rows closer than it may
    lie outside the candidates (witness ``nearest-outside``)."""
    best = None
    for i, t in cand_t:
        if i not in inside:
            dist = lo - t if t < lo else t - hi
            if dist <= width and (best is None or dist < best[0]):
                best = (dist, i)
    return best if best is not None else (width, None)


def _t_row(X, fw, i, shift=None):
    """Exact ``<w, x_i>`` recomputed from the row ``X[i]`` (``fw``: fmpq coordinates of
    ``w``) plus ``shift`` (the sequence's pending offset projection), for witnesses."""
    t = sum((a * X[i, c] for c, a in enumerate(fw) if a), fmpq(0))
    return t if shift is None else t + shift


def _gram_select(G, E):
    """``(cand, best)`` for blocks of float64 Gram rows ``G`` with error bounds ``E``
    (``(k, m, m)``): the keys that may attain a row's maximum (``G + E`` at least the
    largest ``G - E``) and the float argmax."""
    return (G + E) >= (G - E).max(axis=2, keepdims=True), G.argmax(axis=2)


def _check_gram(e, d, rows, G, E, best, one) -> None:
    """Witness ``gram-argmax`` of the rows ``one`` that attend to a single key: every other
    key is excluded by the stated bound (``G + E`` below the key's ``G - E``) and the key
    beats the float runner-up exactly."""
    if not len(one[0]) or G.shape[2] == 1:  # nothing to check, or a key's only key
        return
    k, i = one
    b = best[k, i]
    lower = G[k, i, b] - E[k, i, b]
    other = (G + E)[k, i]
    other[np.arange(len(b)), b] = -np.inf
    witness.all_true(witness.GRAM, other.max(axis=1) < lower,
                     "a single attended key whose float bound does not exclude the others")
    G2 = G[k, i].copy()
    G2[np.arange(len(b)), b] = -np.inf
    runner = G2.argmax(axis=1)
    witness.dot_margins(witness.GRAM, e, d, zip(rows[k, i].tolist(), rows[k, b].tolist(),
                                                rows[k, runner].tolist()))


def _float_tops(pf, spans, n):
    """Per sequence of ``n >= 2`` rows, ``(tops, runners)``: the row of the largest float64
    projection ``pf`` when it beats the second by more than the conversion error (``REL``
    of both: then no other row can be the exact maximum), else ``None``, and the row of the
    second largest (the witness ``unique-top``)."""
    P = pf.reshape(-1, n)
    order = np.argsort(P, axis=1)
    r = np.arange(P.shape[0])
    t1, t2 = P[r, order[:, -1]], P[r, order[:, -2]]
    sure = (t1 - t2) > REL * (np.abs(t1) + np.abs(t2))
    return ([lo + int(order[k, -1]) if sure[k] else None for k, (lo, _) in enumerate(spans)],
            [lo + int(order[k, -2]) for k, (lo, _) in enumerate(spans)])


def _positive_bound(db, frexps):
    """Per sequence a float64 number whose positivity proves ``mn_j + A_j - B_j > 0`` (the
    smallest ``<b, token>`` of sequence j; ``frexps``: the offsets' ``proj_frexp``): each
    sequence scaled by its own largest exponent, the value minus its error bound (mantissas
    within 2^-50, two roundings, underflow below TINY: far below REL)."""
    am, ae, bm, be = frexps
    E = np.maximum(np.maximum(db.mne, ae), be)
    x, y, z = _scaled(db.mnm, db.mne, E), _scaled(am, ae, E), _scaled(bm, be, E)
    return ((x + y) - z) - (REL * (np.abs(x) + np.abs(y) + np.abs(z)) + TINY)


def _sure_positive(db, frexps):
    """The sequences whose smallest ``<b, token>`` the float64 pre-filter shows positive
    (the others are decided exactly); witness ``q-sign``: :func:`_positive_bound`."""
    return _positive_bound(db, frexps) > 0


class FlintBackend:
    name = "flint"

    def max_bits(self, state: State, rows=None) -> int:
        """Largest numerator / denominator bit size of the given rows (``None``: all
        rows) — for pending offsets, an upper bound from the offsets' factors.  Every
        row's largest size is kept per base matrix (:meth:`_row_bits`), so that the
        value over all rows is one ``max`` of ``n`` integers, not a scan of ``n d``
        values: the same number."""
        X, d, off = state.X, state.d, state.off
        if rows is None:
            b = max(self._row_bits(X), default=0)
        elif (hb := self._kept_bits(X)) is not None:  # the rows' sizes, kept exact in place
            b = max((hb[i] for i in rows), default=0)
        else:
            b = max(map(_bits, (X[i, c] for i in rows for c in range(d))), default=0)
        return b if off is None else max(b, off.row_bits + _bits(off.C[off.n]) + 1)

    def _kept_bits(self, X):
        """The per-row sizes kept for ``X`` (:meth:`_row_bits`), or ``None`` when the cache
        holds another matrix."""
        cache = getattr(self, "_heights", None)
        return cache[1] if cache is not None and cache[0] is X else None

    def _row_bits(self, X) -> list:
        """Per row of ``X``, its largest numerator / denominator bit size: computed once
        per matrix and kept exact through every write in place (:meth:`_rewritten`).  The
        cache holds ``X`` itself, so its identity cannot be reused by another matrix."""
        hb = self._kept_bits(X)
        if hb is not None:
            return hb
        d = X.ncols()
        h = list(map(_bits, X.entries()))
        hb = [max(h[i * d:(i + 1) * d], default=0) for i in range(X.nrows())] if d else \
            [0] * X.nrows()
        self._heights = (X, hb)
        return hb

    def _rewritten(self, X, rows) -> None:
        """Rows of ``X`` were written in place: their entries in the cache of
        :meth:`_row_bits` are recomputed (nothing when ``X`` is not the cached matrix)."""
        hb, d = self._kept_bits(X), X.ncols()
        if hb is None:
            return
        for i in rows:
            hb[i] = max((_bits(X[i, c]) for c in range(d)), default=0)

    # ------------------------------------------------------------ offsets
    @staticmethod
    def _meta(state: State) -> dict:
        if state.meta is None:
            seq = [j for j, (lo, hi) in enumerate(state.spans) for _ in range(lo, hi)]
            state.meta = {"seq": seq, "seqa": np.asarray(seq, dtype=np.int64),
                          "X": None, "dirs": {}, "seq_ok": []}
        return state.meta

    def _dir(self, state: State, w) -> _Dir:
        meta = self._meta(state)
        if meta["X"] is not state.X:  # the base rows were replaced: drop the caches
            meta["X"], meta["dirs"] = state.X, {}
        key = tuple(w)
        dr = meta["dirs"].get(key)
        if dr is None:
            dr = meta["dirs"][key] = _Dir(w, state.X, state.spans, state.d)
        return dr

    def _materialize(self, state: State) -> State:
        """The same tokens with the offsets folded into ``X`` (a new state)."""
        if state.off is None:
            return state
        d = state.d
        ent = []
        for j, (lo, hi) in enumerate(state.spans):
            ent.extend(state.off.off(j) * (hi - lo))
        G = fmpq_mat(state.n, d, ent)
        return State(state.X + G, state.spans, d, meta=state.meta)

    def _tag(self, sa: SA, state: State):
        """Offset tag, or ``None`` when its conditions do not hold (see module doc)."""
        meta = self._meta(state)
        if "nonempty" not in meta:
            meta["nonempty"] = bool(state.spans) and all(hi > lo for lo, hi in state.spans)
        if not meta["nonempty"]:
            return None
        f = q2f(1 + sa.V.lam)
        if f == 0:  # the top token would vanish: no lazy growth
            return None
        a, b = sa.A.left[0], sa.A.right[0]
        da = self._dir(state, a)
        db = da if tuple(b) == tuple(a) else self._dir(state, b)
        X, spans, d = state.X, state.spans, state.d
        fresh = da.refresh(X, spans, d)
        if db is not da:
            db.refresh(X, spans, d)
        if None in da.top:
            return None
        for j in fresh:  # witness of each recomputed top: its margin over the runner-up
            if da.second[j] is not None:
                r2 = da.second[j][1]
                witness.margin(witness.TAG_TOP, _t_row(X, da.w, da.top[j]), _t_row(X, da.w, r2),
                               f"the top row {da.top[j]} of sequence {j} against row {r2}")
        V = state.off
        if V is None:
            if not all(m > 0 for m in db.mn):
                return None
            off = _Offsets.first(tuple(a), f, da.top, X, d)
        else:
            frexps = V.proj_frexp(b)
            sure = _sure_positive(db, frexps)
            witness.all_true(witness.Q_SIGN, _positive_bound(db, frexps)[sure] > 0,
                             "the stated lower bound of a sequence's smallest <b, x> named positive")
            unsure = np.nonzero(~sure)[0].tolist()
            proj = V.projector(b)
            if not all(db.mn[j] + proj(j) > 0 for j in unsure):
                return None
            off = V.tagged(tuple(a), f, da.top, X, d, spans)
        new = State(X, spans, d, index={}, off=off, meta=state.meta)
        new.tag = (list(da.top), sa.V.lam)
        return new

    def _offset_query(self, state: State, dw, w, lo, hi, width):
        """``(inside, near, pj)``: the rows ``(row, t)`` with ``lo <= t <= hi`` and the
        candidates ``near`` of the window ``[lo - width, hi + width]`` (a superset: the
        float64 frame of ``w`` over the pending offsets), ``pj`` the offsets' projections
        of their sequences (exact)."""
        meta, V = self._meta(state), state.off
        if "starts" not in meta:
            meta["starts"] = np.array([a for a, _ in state.spans], dtype=np.int64)
            meta["lens"] = np.array([b - a for a, b in state.spans], dtype=np.int64)
        frame = V.frame(w, dw.pb, state.spans)
        cand = frame.candidates(V.C[V.n], lo - width, hi + width, meta["starts"], meta["lens"])
        proj, seq, pj, near = V.projector(w), meta["seq"], {}, []
        for i in cand:
            j = seq[i]
            p = pj.get(j)
            if p is None:
                p = pj[j] = proj(j)
            near.append((i, dw.pb[i] + p))
        return [(i, t) for i, t in near if lo <= t <= hi], near, pj

    def _ff_offset(self, state: State, w, kinks, maps, eta, trace=None):
        """Bounded-support rank-one FF on ``X[i] + off[j]``, updating ``X`` in place."""
        meta = self._meta(state)
        dw = self._dir(state, w)
        V = state.off
        proj = V.projector(w)
        seq = meta["seq"]
        lo, hi = kinks[0], kinks[-1]
        width = hi - lo if trace is not None else 0
        inside, near, pj = self._offset_query(state, dw, w, lo, hi, width)
        X, d = state.X, state.d
        touched, before = [], {}
        for i, t in inside:  # witness: the projection recomputed from the row and offset
            t_row = _t_row(X, dw.w, i, pj[seq[i]])
            witness.equal(witness.WINDOW, t, t_row, f"the projection of row {i}")
            witness.inside(witness.WINDOW, i, t_row, lo, hi)
        if trace is not None:
            D = _nearest(near, {i for i, _ in inside}, lo, hi, width)
            t_near = None if D[1] is None else _t_row(X, dw.w, D[1], proj(seq[D[1]]))
            witness.nearest(D, t_near, lo, hi, width)
            trace.append(("rank1", w, kinks, maps, inside, D))
        for i, ti in inside:
            j = seq[i]
            mp = maps.at(ti, i)
            if mp is None:
                continue
            g, h = mp
            off = V.off(j)
            old = tuple(X[i, c] + off[c] for c in range(d))
            for c in range(d):
                X[i, c] = eta * old[c] + g[c] * ti + h[c] - off[c]
            before[i] = old
            touched.append(i)
            V.changed.add(j)
        self._rewritten(X, touched)
        for i in touched:
            for dr in meta["dirs"].values():
                dr.update(i, seq[i], X, d)
        return state, touched, before

    def num(self, q: Fraction) -> fmpq:
        return fmpq(q.numerator, q.denominator)  # Fraction or int

    def load(self, sequences) -> State:
        d = next((len(t) for s in sequences for t in s), 0)
        ent = [x.numerator if x.denominator == 1 else fmpq(x.numerator, x.denominator)
               for s in sequences for t in s for x in t]  # fmpq_mat takes ints as they are
        X = fmpq_mat(sum(len(s) for s in sequences), d, ent)
        return State(X, spans_of(len(s) for s in sequences), d)

    def row(self, state: State, i: int) -> tuple:
        X = state.X
        if state.off is None:
            return tuple(X[i, c] for c in range(state.d))
        off = state.off.off(self._meta(state)["seq"][i])
        return tuple(X[i, c] + off[c] for c in range(state.d))

    def to_float64(self, state: State) -> np.ndarray:
        """``(n, d)`` float64 array: every token coordinate rounded to the NEAREST
        float64 (python-flint's ``float(fmpq)`` is CPython's correctly rounded
        ``int / int``), ``+-inf`` beyond the float64 range.  For audits and
        pre-filters only: no verdict may rest on these copies."""
        state = self._materialize(state)
        e = state.X.entries()
        try:
            f = np.fromiter(map(float, e), dtype=np.float64, count=len(e))
        except OverflowError:
            f = np.array([_float_or_inf(x) for x in e], dtype=np.float64)
        return f.reshape(state.n, state.d)

    def to_fractions(self, state: State) -> list[tuple[Fraction, ...]]:
        """Every row as a tuple of Fractions, ``(n, d)``.  Equal values (most outputs
        repeat a target) share one Fraction, looked up by the exact key
        ``(numerator, denominator)`` of the fmpq (lowest terms, q > 0)."""
        state = self._materialize(state)
        memo: dict = {}
        e = []
        for x in state.X.entries():
            k = (int(x.p), int(x.q))
            v = memo.get(k)
            if v is None:
                v = memo[k] = coprime_fraction(*k)
            e.append(v)
        d = state.d
        return [tuple(e[i * d:(i + 1) * d]) for i in range(state.n)]

    # ------------------------------------------------------------------ FF
    def ff(self, ff: FF, state: State, trace: list | None = None):
        """One FF layer (the shortcuts of the module docstring).  With ``trace`` (a
        list), also appends what the layer's softmax bounds need, on the tokens before
        the layer: ``("rank1", w, kinks, maps, [(row, t)], D)`` — the rows whose
        projection ``t = <w, x>`` lies between the outermost kinks (every row when an
        outer piece is not the identity) and ``D = (distance, row)``, a lower bound of
        the distance of every other row (``None``: there is none) — or
        ``("dense", z)``, the ReLU arguments ``z[row]`` of every row."""
        if ff.is_identity:
            return state, [], None
        eta = q2f(ff.eta)
        r1 = _rank_one(ff.U)
        if r1 is None:  # rank 0 or >= 2: dense exact evaluation
            state = self._materialize(state)
            if trace is not None:
                trace.append(("dense", self.relu_args(ff, state)))
            return self._ff_dense(ff, state), None, None
        w, kinks, maps = affine_pieces(ff, r1)
        d = state.d
        bounded = maps.identity(0) and maps.identity(-1)
        if bounded and not kinks:  # a single piece, the identity
            if trace is not None:
                trace.append(("rank1", w, kinks, maps, [], None))
            return state, [], None
        # a bounded layer without offsets reads only the pieces its rows fall in
        # (none when its support holds no row: then it touches nothing)
        if (not bounded or state.off is not None) and all(maps.identity(p) for p in range(len(maps))):
            if trace is not None:  # the identity map, but boxes may still straddle kinks:
                # every row with its projection (the plain route's profile of the layer)
                t_all = (self._materialize(state).X * _col(w)).entries()
                trace.append(("rank1", w, kinks, maps, list(enumerate(t_all)), None))
            return state, [], None
        if state.off is not None:
            # the first bounded FF after a tag works on base + offset; a second one
            # in a row folds the offsets in and uses the sorted index below
            if bounded and not state.ff_after_tag:
                state.ff_after_tag = True
                return self._ff_offset(state, w, kinks, maps, eta, trace)
            state = self._materialize(state)
        support = _support(kinks, maps)
        if trace is not None and not bounded:  # an outer piece moves rows: every row
            t_all = (state.X * _col(w)).entries()
            trace.append(("rank1", w, kinks, maps, list(enumerate(t_all)), None))
        if support == [(None, None)]:  # no identity piece: every row
            X = fmpq_mat(state.X)
            t = (X * _col(w)).entries()
            touched = []
            for i, ti in enumerate(t):
                m = maps.at(ti, i)
                if m is not None:
                    _apply(X, i, eta, m, ti, d)
                    touched.append(i)
            return State(X, state.spans, d, meta=state.meta), touched, None
        # rows with t in the support (the runs of non-identity pieces).  The state is
        # updated IN PLACE (old rows returned in ``before``).  The first FF in a
        # direction since the last dense change scans all projections; the second
        # builds a sorted index, kept up to date, so later ones bisect.
        X = state.X
        if state.index is None:
            state.index = {}
        # exact key of the direction: (numerator, denominator) per coordinate (a
        # tuple of Fractions would be hashed coordinate by coordinate, per layer)
        key = tuple([v for x in w for v in (x.numerator, x.denominator)])
        ix = state.index.get(key)
        if ix == "seen":
            ix = state.index[key] = _Index(w, X, key)
        one = trace is not None and support == [(kinks[0], kinks[-1])]  # [first, last kink]
        if isinstance(ix, _Index):
            cand, tt = [i for lo, hi in support for i in ix.between_checked(X, lo, hi)], ix.t
            if trace is not None and bounded:
                lo, hi = kinks[0], kinks[-1]
                inside = cand if one else ix.between_checked(X, lo, hi)
                D = ix.nearest_outside(lo, hi)
                if D is not None:
                    witness.nearest(D, _t_row(X, ix.w, D[1]), lo, hi, None)
                trace.append(("rank1", w, kinks, maps, [(i, tt[i]) for i in inside], D))
        else:
            tt = (X * _col(w)).entries()
            cand = [i for lo, hi in support for i in _in_range_checked(tt, lo, hi)]
            state.index[key] = "seen"
            if trace is not None and bounded:
                lo, hi = kinks[0], kinks[-1]
                inside = cand if one else _in_range_checked(tt, lo, hi)
                ins = set(inside)
                D = min(((lo - t if t < lo else t - hi, i) for i, t in enumerate(tt)
                         if i not in ins), default=None)
                if D is not None:
                    witness.nearest(D, tt[D[1]], lo, hi, None)
                trace.append(("rank1", w, kinks, maps, [(i, tt[i]) for i in inside], D))
        touched, before, moved = [], {}, []
        for i in cand:
            ti = tt[i]
            m = maps.at(ti, i)
            if m is None:
                continue
            before[i] = tuple(X[i, c] for c in range(d))
            _apply(X, i, eta, m, ti, d)
            touched.append(i)
            moved.append((i, m, ti))
        self._rewritten(X, touched)
        if touched and state.meta is not None and state.meta.get("X") is X:
            state.meta["X"] = None  # X changed in place: offset caches are stale
        for other in state.index.values():
            if not isinstance(other, _Index):
                continue
            if other.key == key:  # this layer's direction: the projections it moved to
                for i, m, ti in moved:
                    other.update(i, maps.projected(m, eta, ti))
                continue
            other.reread(X, touched)
        return state, touched, before

    @staticmethod
    def relu_args(ff: FF, state: State) -> list:
        """``U x + b`` of every row of an offset-free ``state`` (per row, per unit)."""
        n, w, d = state.n, ff.width, state.d
        if not w:
            return [[] for _ in range(n)]
        Ut = fmpq_mat(d, w, [q2f(ff.U[k][i]) for i in range(d) for k in range(w)])
        z = (state.X * Ut).entries()
        b = [q2f(x) for x in ff.b]
        return [[z[i * w + k] + b[k] for k in range(w)] for i in range(n)]

    def _ff_dense(self, ff: FF, state: State) -> State:
        n, d = state.n, state.d
        X = state.X
        out = X * q2f(ff.eta)
        if ff.width:
            Ut = fmpq_mat(d, ff.width, [q2f(ff.U[k][i]) for i in range(d) for k in range(ff.width)])
            Z = X * Ut
            z = Z.entries()
            bb = [q2f(x) for x in ff.b]
            zero = fmpq(0)
            r = [v if v > 0 else zero for v in
                 (z[j] + bb[j % ff.width] for j in range(len(z)))]
            Wt = fmpq_mat(ff.width, d, [q2f(ff.W[k][i]) for k in range(ff.width) for i in range(d)])
            out = out + fmpq_mat(n, ff.width, r) * Wt
        return State(out, state.spans, d, meta=state.meta)

    # ------------------------------------------------------------------ SA
    def gather_axpy(self, state: State, src_rows, rho, lam):
        """``rho X + lam G`` with ``G[i] = X[src_rows[i]]`` (exact, matrix ops in C)."""
        d = state.d
        e = state.X.entries()
        G = fmpq_mat(state.n, d, [x for r in src_rows for x in e[r * d:(r + 1) * d]])
        X = state.X if rho == 1 else state.X * q2f(Fraction(rho))
        return X + (G if lam == 1 else G * q2f(Fraction(lam)))

    def translated(self, state: State, c):
        """``X + 1 c^T`` (exact) for a state without offsets: the claim of a
        translation, compared with the evaluated rows as one matrix."""
        row = [q2f(x) for x in c]
        return state.X + fmpq_mat(state.n, state.d, row * state.n)

    def sa(self, sa: SA, state: State, rule):
        if sa.is_identity:
            return state, [], None
        if sa.H > 1 or sa.causal:  # docs/spec.md §1 "Extensions": per head, over the allowed keys
            state = self._materialize(state)
            charge(state.n * state.d * sa.H, "an SA layer")
            return State(sa_heads(sa, state.X, state.spans, rule), state.spans, state.d,
                         meta=state.meta), None, None
        if (getattr(rule, "name", "") == "hardmax" and sa.A.lam == 0 and len(sa.A.left) == 1
                and not sa.V.left and sa.rho == 1):
            new = self._tag(sa, state)
            if new is not None:
                return new, None, None
        state = self._materialize(state)
        if (getattr(rule, "name", "") == "hardmax" and not sa.A.left and sa.A.lam > 0):
            new = self._sa_gram(sa, state)
            if new is not None:
                return new, None, None
        V = _BoundFactored(sa.V)
        rho = q2f(sa.rho)
        d = state.d
        X = state.X
        fast = (getattr(rule, "name", "") == "hardmax" and sa.A.lam == 0
                and len(sa.A.left) == 1)
        if fast:
            p = (X * _col(sa.A.left[0])).entries()
            q = p if sa.A.left[0] == sa.A.right[0] else (X * _col(sa.A.right[0])).entries()
            if not sa.V.left:  # V = lam I: gather the attended rows when all are unique
                src = self._unique_attended(p, q, state.spans)
                if src is not None:
                    new = State(self.gather_axpy(state, src, sa.rho, sa.V.lam), state.spans, d,
                                meta=state.meta)
                    new.shift = (src, sa.rho, sa.V.lam)  # X_new = rho X + lam X[src], for claims
                    return new, None, None
            elif sa.rho == 1:  # x_i + V mean(C_i): only rows whose V mean is nonzero change
                return self._sa_add_inplace(state, p, q, V)
        e = X.entries()
        rows = [e[i * d:(i + 1) * d] for i in range(state.n)]
        out = []
        hard = getattr(rule, "name", "") == "hardmax"
        if not fast:
            A = fmpq_mat([[q2f(x) for x in r] for r in sa.A.dense(d)])
            b = self.max_bits(state)  # scores cost with the values' size (as on the plain route)
        for lo, hi in state.spans:
            cache = {}
            if not fast:
                charge((hi - lo) ** 2 * (d + 8), "an SA layer (scores)", b)
            if fast:
                ps = p[lo:hi]
                top, bot = max(ps), min(ps)
                sets = {1: [l for l in range(hi - lo) if ps[l] == top],
                        -1: [l for l in range(hi - lo) if ps[l] == bot],
                        0: list(range(hi - lo))}
            else:
                Xs = fmpq_mat([rows[i] for i in range(lo, hi)])
                S = (Xs * A.transpose() * Xs.transpose()).entries()
                m = hi - lo
            for i in range(lo, hi):
                if fast:
                    key = 0 if q[i] == 0 else (1 if q[i] > 0 else -1)
                    if key not in cache:
                        C = sets[key]
                        cache[key] = self._v_mean(V, [(l, fmpq(1, len(C))) for l in C], rows, lo, d)
                    v = cache[key]
                elif hard:  # the argmax set decides the output: V(mean) once per set
                    sc = S[(i - lo) * m:(i - lo + 1) * m]
                    mx = max(sc)
                    C = tuple(l for l, x in enumerate(sc) if x == mx)
                    v = cache.get(C)
                    if v is None:
                        v = cache[C] = self._v_mean(V, [(l, fmpq(1, len(C))) for l in C],
                                                    rows, lo, d)
                else:
                    wts = rule.weights(S[(i - lo) * m:(i - lo + 1) * m], self.num)
                    v = self._v_mean(V, wts, rows, lo, d)
                out.append(v if rho == 0 else [rho * xi + vi for xi, vi in zip(rows[i], v)])
        Xn = fmpq_mat(state.n, d, [x for r in out for x in r])
        return State(Xn, state.spans, d, meta=state.meta), None, None

    # ------------------------------------------------- hardmax, A = lam I
    GRAM_FLOATS = 1 << 21  # float64 Gram entries per block (16 MB per array)

    def _gram_attended(self, state: State):
        """Per row i the rows l of its sequence maximising ``<x_i, x_l>`` (the hardmax
        argmax set when ``A = lam I``, ``lam > 0``), or ``None`` when the float64
        pre-filter does not apply (then the caller evaluates densely).

        Filter: with every nonzero ``|x|`` in ``[2^-400, 2^400]`` (no overflow or
        underflow in a product) and ``d <= 64``, the float64 Gram entry ``G_il``
        differs from the exact ``<x_i, x_l>`` by at most ``(d + 3) 2^-53 B_il`` with
        ``B_il = sum_c |x_ic| |x_lc|`` (conversion, products, any summation order),
        which is below ``E_il = 2^-40 B_il`` with room for the rounding of the
        comparisons themselves.  Row l can be the maximum only if
        ``G_il + E_il >= max_l' (G_il' - E_il')``; a row with one such candidate
        attends to it, the others are decided by exact dot products over their
        candidates (charged ``(d + 8) (b // 1024)`` each for a sequence of bit size
        ``b``: the plain route's factor for large values).  Sequences are processed in
        blocks of at most ``GRAM_FLOATS`` Gram entries; a sequence longer than its
        square root turns the filter off."""
        n, d = state.n, state.d
        e = state.X.entries()
        F = gram_floats(e, n, d)
        if F is None:
            return None
        A = np.abs(F)
        by_len: dict = {}
        for lo, hi in state.spans:
            by_len.setdefault(hi - lo, []).append(lo)
        att = [None] * n
        if max(by_len) ** 2 > self.GRAM_FLOATS:  # a very long sequence: dense path
            return None
        for m, los in by_len.items():
            los = np.asarray(los, dtype=np.int64)
            chunk = max(1, self.GRAM_FLOATS // (m * m))
            for c0 in range(0, len(los), chunk):
                rows = los[c0:c0 + chunk, None] + np.arange(m)[None, :]  # (k, m)
                Fg, Ag = F[rows], A[rows]                                          # (k, m, d)
                G = np.einsum("kic,klc->kil", Fg, Fg)
                E = np.einsum("kic,klc->kil", Ag, Ag) * 2.0 ** -40
                cand, best = _gram_select(G, E)
                ncand = cand.sum(axis=2)
                one = np.nonzero(ncand == 1)
                _check_gram(e, d, rows, G, E, best, one)
                for r, l in zip(rows[one].tolist(), rows[one[0], best[one]].tolist()):
                    att[r] = [l]
                size = {}  # bit size per sequence: large values' exact work is charged
                for k, i in zip(*np.nonzero(ncand != 1)):
                    r = int(rows[k, i])
                    ls = [int(rows[k, l]) for l in np.nonzero(cand[k, i])[0]]
                    if k not in size:
                        lo = int(rows[k, 0])
                        size[k] = max(map(_bits, e[lo * d:(lo + m) * d]))
                    charge(len(ls) * (d + 8) * (size[k] // 1024), "an SA layer (scores)")
                    xi = e[r * d:(r + 1) * d]
                    sc = [sum((x * y for x, y in zip(xi, e[l * d:(l + 1) * d])), fmpq(0))
                          for l in ls]
                    top = max(sc)
                    att[r] = [l for l, v in zip(ls, sc) if v == top]
        return att

    def _sa_gram(self, sa: SA, state: State):
        """Hardmax SA with ``A = lam I`` (``lam > 0``, so the argmax sets are those
        of ``<x_i, x_l>``): ``rho x_i + V mean(x_C_i)``, with V applied once per
        distinct attended row (exact ``fmpq_mat`` products); ``None`` when the
        filter of :meth:`_gram_attended` does not apply."""
        att = self._gram_attended(state)
        if att is None:
            return None
        d, e = state.d, state.X.entries()
        Vt = fmpq_mat([[q2f(x) for x in r] for r in sa.V.dense(d)]).transpose()
        single = sorted({c[0] for c in att if len(c) == 1})
        where = {r: k for k, r in enumerate(single)}
        VY = (fmpq_mat(len(single), d, [x for r in single for x in e[r * d:(r + 1) * d]])
              * Vt).entries() if single else []
        V = _BoundFactored(sa.V)
        g = []
        for C in att:
            if len(C) == 1:
                k = where[C[0]]
                g += VY[k * d:(k + 1) * d]
            else:
                w = fmpq(1, len(C))
                mean = [sum((e[l * d + c] for l in C), fmpq(0)) * w for c in range(d)]
                g += V.apply(mean)
        out = fmpq_mat(state.n, d, g)
        if sa.rho != 0:
            out = out + state.X * q2f(sa.rho)
        return State(out, state.spans, d, meta=state.meta)

    def _sa_add_inplace(self, state: State, p, q, V):
        """Hardmax, rank-one ``A`` (``s_il = q_i p_l``), ``rho = 1``: row i becomes
        ``x_i + V mean(C_i)`` with ``C_i`` the p-maximal / p-minimal / all rows of its
        sequence by the sign of ``q_i`` (Lemma 4.1, as in the dense loop of :meth:`sa`).
        Every ``V mean`` of a sequence is computed from its rows before any row
        changes; rows whose ``V mean`` is 0 are left as they are; the others are
        updated IN PLACE (old values in ``before``), like the bounded FF path."""
        X, d = state.X, state.d
        e = X.entries()
        zero = fmpq(0)
        # V = lam I + sum_r a_r b_r^T: V mean(C) = lam mean(C) + sum_r a_r mean_C(<b_r, x>)
        bx = [(X * fmpq_mat(d, 1, b)).entries() for _, b in V.pairs] if V.lam == 0 else None
        touched, before = [], {}
        allpos = min(q, default=zero) > 0  # every row attends to its p-maximal rows
        ones = [1] * state.n if allpos else None
        for lo, hi in state.spans:
            ps = p[lo:hi]
            top, bot = max(ps), min(ps)
            keys = ones[lo:hi] if allpos else \
                [0 if q[i] == 0 else (1 if q[i] > 0 else -1) for i in range(lo, hi)]
            add = {}
            for key in set(keys):
                C = ([l for l in range(hi - lo) if ps[l] == top] if key == 1 else
                     [l for l in range(hi - lo) if ps[l] == bot] if key == -1 else
                     list(range(hi - lo)))
                if bx is None:
                    rows = [e[(lo + l) * d:(lo + l + 1) * d] for l in C]
                    add[key] = self._v_mean(V, [(k, fmpq(1, len(C))) for k in range(len(C))],
                                            rows, 0, d)
                    continue
                cs = [sum((col[lo + l] for l in C), zero) / len(C) for col in bx]
                add[key] = None if all(c == zero for c in cs) else \
                    [sum((a[k] * c for (a, _), c in zip(V.pairs, cs)), zero) for k in range(d)]
            for i, key in zip(range(lo, hi), keys):
                v = add[key]
                if v is None or all(x == zero for x in v):
                    continue
                before[i] = tuple(e[i * d:(i + 1) * d])
                for c in range(d):
                    X[i, c] = e[i * d + c] + v[c]
                touched.append(i)
        self._rewritten(X, touched)
        if touched and state.meta is not None and state.meta.get("X") is X:
            state.meta["X"] = None  # X changed in place: offset caches are stale
        for other in (state.index or {}).values():
            if isinstance(other, _Index):
                other.reread(X, touched)
        return state, touched, before

    @staticmethod
    def _unique_attended(p, q, spans):
        """Row attended by each row under rank-one hardmax (s_il = q_i p_l), or None
        if some row attends to several (a tie, or q_i = 0).  Signs and the top of
        each sequence are pre-filtered in float64; every undecided case is decided
        exactly."""
        pf = _floats(p)
        qf = pf if q is p else _floats(q)
        allpos = bool((qf > 0).all()) if qf is not None else min(q) > 0
        lengths = {hi - lo for lo, hi in spans}
        tops = None
        if allpos and pf is not None and len(lengths) == 1 and min(lengths) >= 2:
            tops, runners = _float_tops(pf, spans, lengths.pop())
            for t, r2 in zip(tops, runners):  # witness: the margin over the float runner-up
                if t is not None:
                    witness.margin(witness.UNIQUE_TOP, p[t], p[r2], f"the top row {t} against row {r2}")
        src = []
        for k, (lo, hi) in enumerate(spans):
            t = tops[k] if tops is not None else None
            if t is None:
                ps = p[lo:hi]
                top = max(ps)
                if ps.count(top) != 1:
                    return None
                t = lo + ps.index(top)
            if allpos:
                src += [t] * (hi - lo)
                continue
            ps = p[lo:hi]
            bot = min(ps)
            b = lo + ps.index(bot) if ps.count(bot) == 1 else None
            for i in range(lo, hi):
                if q[i] > 0:
                    src.append(t)
                elif q[i] < 0 and b is not None:
                    src.append(b)
                else:
                    return None
        return src

    @staticmethod
    def _v_mean(V, wts, rows, lo, d):
        mean = [fmpq(0)] * d
        for l, w in wts:
            r = rows[lo + l]
            mean = [m + w * x for m, x in zip(mean, r)]
        return V.apply(mean)
