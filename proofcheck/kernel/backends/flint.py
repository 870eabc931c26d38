"""Exact backend on python-flint ``fmpq_mat`` (the default evaluator).

Same semantics as :mod:`.reference`, evaluated with exact shortcuts that change
no value:

* identity sub-layers are skipped (``eta = 1, W = 0`` / ``rho = 1, V = 0``);
* an FF layer whose ``U`` has rank <= 1 (``U = c w^T``) is affine on each interval
  of ``t = <w, x>`` between the kinks ``-b_k / c_k``; rows in an interval whose
  affine map is the identity are left untouched, the rest are evaluated exactly;
* hardmax attention with rank-one ``A = a b^T`` (``s_il = <b,x_i><a,x_l>``): token
  i attends to the ``a``-maximal tokens if ``<b,x_i> > 0``, the ``a``-minimal ones
  if ``< 0``, and to all if ``= 0`` (Lemma 4.1) — linear instead of quadratic.

Tests cross-check every shortcut against the reference backend.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from fractions import Fraction

import numpy as np
from flint import fmpq, fmpq_mat

from proofcheck.kernel.backends import State, spans_of
from proofcheck.kernel.model import FF, SA, Factored


def q2f(q: Fraction) -> fmpq:
    return fmpq(q.numerator, q.denominator)


def f2q(x: fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


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
    return f


def _in_range(tt, lo, hi):
    """Rows i with ``lo <= tt[i] <= hi`` (exact), candidates pre-filtered in float64."""
    f = _floats(tt)
    fl = _floats([lo, hi])
    if f is None or fl is None:
        return [i for i, t in enumerate(tt) if lo <= t <= hi]
    m = REL * (np.abs(f) + abs(fl[0]) + abs(fl[1]))
    cand = np.nonzero((f >= fl[0] - m) & (f <= fl[1] + m))[0].tolist()
    return [i for i in cand if lo <= tt[i] <= hi]


def _apply(X, i, eta, m, ti, d):
    g, h = m
    for c in range(d):
        X[i, c] = eta * X[i, c] + g[c] * ti + h[c]


class _Index:
    """Projections ``t = <w, x_i>`` of all rows, kept sorted (with row ids) so an FF
    with bounded support finds its rows by bisection; updated row by row."""

    def __init__(self, w, X):
        self.w = [q2f(x) for x in w]
        self.t = (X * _col(w)).entries()
        order = sorted(range(len(self.t)), key=self.t.__getitem__)
        self.keys = [self.t[i] for i in order]
        self.rows = order

    def between(self, lo, hi):
        """Rows with ``lo <= t <= hi`` (a snapshot list)."""
        return self.rows[bisect_left(self.keys, lo):bisect_right(self.keys, hi)]

    def update(self, i, new_t):
        k = bisect_left(self.keys, self.t[i])
        while self.rows[k] != i:
            k += 1
        del self.keys[k], self.rows[k]
        k = bisect_left(self.keys, new_t)
        self.keys.insert(k, new_t)
        self.rows.insert(k, i)
        self.t[i] = new_t


def _rank_one(U):
    """``(w, c)`` with ``U[k] = c[k] w`` if rank(U) == 1, else ``None``."""
    w = next((u for u in U if any(x != 0 for x in u)), None)
    if w is None:
        return None
    j = next(i for i, x in enumerate(w) if x != 0)
    cs = []
    for u in U:
        c = u[j] / w[j]
        if any(ui != c * wi for ui, wi in zip(u, w)):
            return None
        cs.append(c)
    return w, cs


def affine_pieces(ff: FF, r1):
    """Linear pieces of an FF layer whose ``U = c w^T`` (``r1 = (w, c)``): the sorted
    kinks ``-b_k / c_k`` of ``t = <w, x>`` and, per piece (before the first kink,
    between kinks, after the last), ``None`` when the layer is the identity there,
    else ``(g, h)`` with ``FF(x) = eta x + g t + h`` on that piece (fmpq lists)."""
    w, cs = r1
    eta = q2f(ff.eta)
    W = [[q2f(x) for x in col] for col in ff.W]
    b = [q2f(x) for x in ff.b]
    cs = [q2f(c) for c in cs]
    d = len(w)
    kinks = sorted({-bk / ck for bk, ck in zip(b, cs) if ck != 0})
    samples = ([kinks[0] - 1] + [(x + y) / 2 for x, y in zip(kinks, kinks[1:])]
               + [kinks[-1] + 1]) if kinks else [fmpq(0)]
    maps = []
    for smp in samples:
        act = [k for k in range(ff.width) if cs[k] * smp + b[k] > 0]
        g = [sum((cs[k] * W[k][i] for k in act), fmpq(0)) for i in range(d)]
        h = [sum((b[k] * W[k][i] for k in act), fmpq(0)) for i in range(d)]
        ident = eta == 1 and all(x == 0 for x in g) and all(x == 0 for x in h)
        maps.append(None if ident else (g, h))
    return w, kinks, maps


class FlintBackend:
    name = "flint"

    def num(self, q: Fraction) -> fmpq:
        return q2f(Fraction(q))

    def load(self, sequences) -> State:
        rows = [[q2f(Fraction(x)) for x in t] for s in sequences for t in s]
        d = len(rows[0]) if rows else 0
        X = fmpq_mat(len(rows), d, [x for r in rows for x in r])
        return State(X, spans_of(len(s) for s in sequences), d)

    def row(self, state: State, i: int) -> tuple:
        X = state.X
        return tuple(X[i, c] for c in range(state.d))

    def to_fractions(self, state: State) -> list[tuple[Fraction, ...]]:
        e, d = state.X.entries(), state.d
        return [tuple(f2q(x) for x in e[i * d:(i + 1) * d]) for i in range(state.n)]

    # ------------------------------------------------------------------ FF
    def ff(self, ff: FF, state: State):
        if ff.is_identity:
            return state, [], None
        eta = q2f(ff.eta)
        r1 = _rank_one(ff.U)
        if r1 is None:  # rank 0 or >= 2: dense exact evaluation
            return self._ff_dense(ff, state), None, None
        w, kinks, maps = affine_pieces(ff, r1)
        d = state.d
        if all(m is None for m in maps):
            return state, [], None
        if maps[0] is not None or maps[-1] is not None:  # unbounded support: every row
            X = fmpq_mat(state.X)
            t = (X * _col(w)).entries()
            touched = []
            for i, ti in enumerate(t):
                m = maps[bisect_left(kinks, ti)]
                if m is not None:
                    _apply(X, i, eta, m, ti, d)
                    touched.append(i)
            return State(X, state.spans, d), touched, None
        # bounded support: rows with t in [first kink, last kink].  The state is
        # updated IN PLACE (old rows returned in ``before``).  The first FF in a
        # direction since the last dense change scans all projections; the second
        # builds a sorted index, kept up to date, so later ones bisect.
        X = state.X
        if state.index is None:
            state.index = {}
        key = tuple(w)
        ix = state.index.get(key)
        if ix == "seen":
            ix = state.index[key] = _Index(w, X)
        if isinstance(ix, _Index):
            cand, tt = ix.between(kinks[0], kinks[-1]), ix.t
        else:
            tt = (X * _col(w)).entries()
            cand = _in_range(tt, kinks[0], kinks[-1])
            state.index[key] = "seen"
        touched, before = [], {}
        for i in cand:
            ti = tt[i]
            m = maps[bisect_left(kinks, ti)]
            if m is None:
                continue
            before[i] = tuple(X[i, c] for c in range(d))
            _apply(X, i, eta, m, ti, d)
            touched.append(i)
        for i in touched:
            row = [X[i, c] for c in range(d)]
            for other in state.index.values():
                if isinstance(other, _Index):
                    other.update(i, sum((a * x for a, x in zip(other.w, row)), fmpq(0)))
        return state, touched, before

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
        return State(out, state.spans, d)

    # ------------------------------------------------------------------ SA
    def gather_axpy(self, state: State, src_rows, rho, lam):
        """``rho X + lam G`` with ``G[i] = X[src_rows[i]]`` (exact, matrix ops in C)."""
        d = state.d
        e = state.X.entries()
        G = fmpq_mat(state.n, d, [x for r in src_rows for x in e[r * d:(r + 1) * d]])
        X = state.X if rho == 1 else state.X * q2f(Fraction(rho))
        return X + (G if lam == 1 else G * q2f(Fraction(lam)))

    def sa(self, sa: SA, state: State, rule):
        if sa.is_identity:
            return state, [], None
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
                    new = State(self.gather_axpy(state, src, sa.rho, sa.V.lam), state.spans, d)
                    new.shift = (src, sa.rho, sa.V.lam)  # X_new = rho X + lam X[src], for claims
                    return new, None, None
        e = X.entries()
        rows = [e[i * d:(i + 1) * d] for i in range(state.n)]
        out = []
        if not fast:
            A = fmpq_mat([[q2f(x) for x in r] for r in sa.A.dense(d)])
        for lo, hi in state.spans:
            cache = {}
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
                else:
                    wts = rule.weights(S[(i - lo) * m:(i - lo + 1) * m], self.num)
                    v = self._v_mean(V, wts, rows, lo, d)
                out.append([rho * xi + vi for xi, vi in zip(rows[i], v)])
        Xn = fmpq_mat(state.n, d, [x for r in out for x in r])
        return State(Xn, state.spans, d), None, None

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
            n = lengths.pop()
            P = pf.reshape(-1, n)
            order = np.argsort(P, axis=1)
            r = np.arange(P.shape[0])
            t1, t2 = P[r, order[:, -1]], P[r, order[:, -2]]
            sure = (t1 - t2) > REL * (np.abs(t1) + np.abs(t2))
            tops = [lo + int(order[k, -1]) if sure[k] else None for k, (lo, _) in enumerate(spans)]
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
