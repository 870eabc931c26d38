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

from bisect import bisect_left
from fractions import Fraction

from flint import fmpq, fmpq_mat

from ..model import FF, SA, Factored
from . import State, spans_of


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
            return state, []
        eta = q2f(ff.eta)
        W = [[q2f(x) for x in w] for w in ff.W]
        b = [q2f(x) for x in ff.b]
        r1 = _rank_one(ff.U)
        if r1 is None:  # rank 0 or >= 2: dense exact evaluation
            return self._ff_dense(ff, state), None
        w, cs = r1
        t = (state.X * _col(w)).entries()
        cs = [q2f(c) for c in cs]
        kinks = sorted({-bk / ck for bk, ck in zip(b, cs) if ck != 0})
        samples = ([kinks[0] - 1] + [(x + y) / 2 for x, y in zip(kinks, kinks[1:])]
                   + [kinks[-1] + 1]) if kinks else [fmpq(0)]
        maps = []  # per region: None (identity) or (g, h): x -> eta x + g t + h
        d = state.d
        for s in samples:
            act = [k for k in range(ff.width) if cs[k] * s + b[k] > 0]
            g = [sum((cs[k] * W[k][i] for k in act), fmpq(0)) for i in range(d)]
            h = [sum((b[k] * W[k][i] for k in act), fmpq(0)) for i in range(d)]
            ident = eta == 1 and all(x == 0 for x in g) and all(x == 0 for x in h)
            maps.append(None if ident else (g, h))
        if all(m is None for m in maps):
            return state, []
        X = fmpq_mat(state.X)
        touched = []
        for i, ti in enumerate(t):
            m = maps[bisect_left(kinks, ti)]
            if m is None:
                continue
            g, h = m
            for c in range(d):
                X[i, c] = eta * X[i, c] + g[c] * ti + h[c]
            touched.append(i)
        return State(X, state.spans, d), touched

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
    def sa(self, sa: SA, state: State, rule):
        if sa.is_identity:
            return state, []
        V = _BoundFactored(sa.V)
        rho = q2f(sa.rho)
        d = state.d
        X = state.X
        e = X.entries()
        rows = [e[i * d:(i + 1) * d] for i in range(state.n)]
        out = []
        fast = (getattr(rule, "name", "") == "hardmax" and sa.A.lam == 0
                and len(sa.A.left) == 1)
        if fast:
            p = (X * _col(sa.A.left[0])).entries()
            q = (X * _col(sa.A.right[0])).entries()
        else:
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
        return State(Xn, state.spans, d), None

    @staticmethod
    def _v_mean(V, wts, rows, lo, d):
        mean = [fmpq(0)] * d
        for l, w in wts:
            r = rows[lo + l]
            mean = [m + w * x for m, x in zip(mean, r)]
        return V.apply(mean)
