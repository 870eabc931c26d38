"""The plain exact evaluator: docs/spec.md §1's formulas on python-flint ``fmpq_mat``, every token of a
layer at once.  FF: ``eta x + W relu(U x + b)``; SA: ``rho x_i + sum_h V_h sum_l pi^h_il x_l``,
``pi^h_i`` the attention rule's weights on the score row ``s_il = <A_h x_i, x_l>`` over the keys
token i may see (:func:`allowed`: all of them, or ``0..i`` under a causal mask).  It uses these
lemmas, one line each, each applied in a few lines (exact throughout: no float, no search over
sorted values, no deferred update):

* identity: an FF with ``eta = 1, W = 0`` or an SA with ``rho = 1`` and every ``V_h = 0`` maps
  every token to itself, so it is skipped (:meth:`PlainBackend.ff`, :meth:`PlainBackend.sa`);
* FF over all tokens: the ReLU arguments of all tokens are one product ``Z = X U^T + b`` and a
  token whose arguments are all ``<= 0`` maps to ``eta x``; for ``U = c w^T`` the product is one
  column ``t = X w``, ``FF(x) = eta x + G(t)`` with ``G(t) = sum_k W_k relu(c_k t + b_k)`` affine
  beyond its outermost kinks ``-b_k / c_k``, so a token beyond one where ``G`` vanishes maps to
  ``eta x`` (:func:`changed_rows`; the other tokens are evaluated by the formula, :func:`ff_rows`);
* rank-one scores: ``A = lam I + sum_r a_r b_r^T`` has ``s_il = lam <x_i, x_l> + sum_r <b_r, x_i>
  <a_r, x_l>``, outer products of projections taken once over all tokens; for ``A = a b^T`` the
  maximisers of row i are the keys of largest ``<a, x_l>`` if ``<b, x_i> > 0``, of least if
  ``< 0``, all keys if ``= 0`` (:func:`head_means`);
* FF runs: an FF acts token by token and changes only the tokens above, so over a run of FF
  layers (identity SA layers between them) equal tokens stay equal (the run is evaluated once
  per distinct token, :meth:`PlainBackend.distinct`) and a token keeps its projection ``<w, x>``
  until a layer changes it (kept per direction, with each chunk of 16 rows' least and largest:
  a chunk beyond a vanishing outermost kink holds no changed token, :class:`Projections`).

Every step charges its work to the budget before it runs (:mod:`.limits`: one unit per exact value
handled in Python, 8 multiply-adds of a flint product to a unit, more for values of more than 1024
bits).  :class:`PlainBackend` has the interface the fast tier shares (compared token by token)."""
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from fractions import Fraction

from flint import fmpq, fmpq_mat, fmpz

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.dataset import token_key
from proofcheck.kernel.limits import charge, check_bits
from proofcheck.kernel.model import FF, SA, Factored
from proofcheck.kernel.numbers import fmt_num
from proofcheck.kernel.verdicts import Witness

ZERO, ONE, Z0 = fmpq(0), fmpq(1), fmpz(0)


@dataclass
class State:
    """All sequences stacked in one ``(n, d)`` matrix ``X``; sequence ``j`` is the rows
    ``spans[j][0] <= i < spans[j][1]``."""

    X: object
    spans: list
    d: int

    @property
    def n(self) -> int:
        return self.spans[-1][1] if self.spans else 0

    def locate(self, i: int) -> tuple[int, int]:
        """Global row -> ``(sequence, token)``."""
        return locate(self.spans, i)


@dataclass
class Distinct(State):
    """A state inside a run of FF layers: ``X`` holds the distinct tokens, token ``i`` is row
    ``where[i]`` of ``X``; ``kept``: :class:`Projections` by direction."""

    where: list = None
    kept: dict = None


def locate(spans, i: int) -> tuple[int, int]:
    """Global row ``i`` -> ``(sequence, token)`` of the sequences ``spans``."""
    j = bisect_right(spans, (i, float("inf"))) - 1
    return j, i - spans[j][0]


def spans_of(lengths) -> list[tuple[int, int]]:
    lengths = list(lengths)
    return [(e - n, e) for n, e in zip(lengths, accumulate(lengths))]


def q(x) -> fmpq:
    """``fmpq`` of an exact rational (Fraction, int, fmpq)."""
    return x if isinstance(x, fmpq) else fmpq(x.numerator, x.denominator)


def f2q(x: fmpq) -> Fraction:
    """The exact Fraction of an fmpq (lowest terms already)."""
    return Fraction(int(x.p), int(x.q))


def bits(x: fmpq) -> int:
    """The larger bit size of the numerator and the denominator of ``x``."""
    return x.height_bits()


def mat_units(rows: int, inner: int, cols: int) -> int:
    """Work units of an ``(rows, inner) x (inner, cols)`` fmpq_mat product: ``rows cols inner``
    multiply-adds in flint's C loop, 8 to a unit (:mod:`.limits`)."""
    return -(-rows * cols * max(inner, 1) // 8)


def col(v) -> fmpq_mat:
    """The column ``(len(v), 1)`` of exact rationals ``v``."""
    return fmpq_mat(len(v), 1, [q(x) for x in v])


def apply_factored(F: Factored, X):
    """The rows ``x -> (lam I + sum_r a_r b_r^T) x`` of ``X`` (``(n, d)``)."""
    d = X.ncols()
    out = X * q(F.lam)
    for a, b in zip(F.left, F.right):
        out += (X * col(b)) * fmpq_mat(1, d, [q(x) for x in a])
    return out


def factored_units(F: Factored, n: int, d: int) -> int:
    """Work units of :func:`apply_factored` on ``n`` rows (``2 + 3 r`` C operations an entry)."""
    return mat_units(n, 2 + 3 * len(F.left), d)


def rank_one(ff: FF):
    """``(w, c)`` with ``U = c w^T`` (``w`` the first non-zero row of ``U``, ``U = 0``: ``w = 0``)
    or ``None`` when ``U`` has rank >= 2 (exact)."""
    U = [[q(x) for x in u] for u in ff.U]
    w = next((u for u in U if any(u)), None)
    if w is None:
        return [ZERO] * len(ff.U[0]), [ZERO] * len(U)
    j = next(c for c, x in enumerate(w) if x != 0)
    c = [u[j] / w[j] for u in U]
    if all(x == ck * y for u, ck in zip(U, c) for x, y in zip(u, w)):
        return w, c
    return None


_ONES: dict = {}


def ones(n: int):
    """The ``(n, 1)`` column of ones (kept for the last few ``n``)."""
    if n not in _ONES:
        if len(_ONES) > 4:
            _ONES.clear()
        _ONES[n] = fmpq_mat(n, 1, [1] * n)
    return _ONES[n]


def _outer_zero(ff: FF, c: list, side: int) -> bool:
    """Whether ``G(t) = sum_k W_k relu(c_k t + b_k)`` is 0 on the outer piece left (``side =
    -1``) or right (``+1``) of every kink: there the units with ``side c_k > 0`` (or ``c_k = 0 <
    b_k``) are the active ones and ``G`` is affine."""
    on = [k for k, (ck, bk) in enumerate(zip(c, ff.b)) if side * ck > 0 or (ck == 0 and bk > 0)]
    return all(sum((q(ff.W[k][e]) * c[k] for k in on), ZERO) == 0
               and sum((q(ff.W[k][e]) * q(ff.b[k]) for k in on), ZERO) == 0
               for e in range(len(ff.W[0])))


def _positive_rows(M, every: bool) -> list[int]:
    """The rows of ``M`` with every (``every``) or some entry ``> 0``: one read of the entries,
    the sign of each numerator."""
    E, k = M.entries(), M.ncols()
    if k == 1:
        return [i for i, x in enumerate(E) if x.p > Z0]
    test = all if every else any
    return [i for i in range(M.nrows()) if test(x.p > Z0 for x in E[i * k:(i + 1) * k])]


CHUNK = 16  # rows per chunk, chunks per group, of kept projections


def _extremes(values, size: int) -> tuple[list, list]:
    """The least and largest of each ``size`` consecutive ``values``."""
    parts = [values[k:k + size] for k in range(0, len(values), size)]
    return [min(v) for v in parts], [max(v) for v in parts]


class Projections:
    """Inside a run of FF layers (lemma "FF runs"): ``t[i] = <w, x_i>`` for every row of ``X``,
    kept exact as the FF layers change rows; the least and largest ``t`` of each chunk of
    :data:`CHUNK` rows (``lo``, ``hi``) and of each group of :data:`CHUNK` chunks (``glo``,
    ``ghi``)."""

    def __init__(self, X, w, b: int):
        n, d = X.nrows(), X.ncols()
        charge(mat_units(n, d, 1) + 3 * n, "a run of FF layers (projections)", b)
        self.w = w
        self.t = (X * col(w)).entries()
        self.lo, self.hi = _extremes(self.t, CHUNK)
        self.glo, self.ghi = _extremes(self.lo, CHUNK)[0], _extremes(self.hi, CHUNK)[1]

    def inside(self, first, last, b: int) -> list[int]:
        """The rows with ``first < t < last`` (``None``: no bound on that side), group by group
        and chunk by chunk: rows whose ``t`` all lie on or beyond a bound hold none."""
        def meets(lo, hi):
            return (first is None or hi > first) and (last is None or lo < last)
        charge(2 * len(self.glo), "an FF layer (groups of projections)", b)
        groups = [g for g, e in enumerate(zip(self.glo, self.ghi)) if meets(*e)]
        charge(2 * CHUNK * len(groups), "an FF layer (chunks of projections)", b)
        chunks = [k for g in groups for k in range(g * CHUNK, min((g + 1) * CHUNK, len(self.lo)))
                  if meets(self.lo[k], self.hi[k])]
        charge(2 * CHUNK * len(chunks), "an FF layer (projections)", b)
        t = self.t
        return [i for k in chunks for i in range(k * CHUNK, min((k + 1) * CHUNK, len(t)))
                if meets(t[i], t[i])]

    def update(self, X, rows) -> None:
        """The projections of the changed ``rows`` again (and their chunks' and groups')."""
        t = self.t
        for i in rows:
            t[i] = sum((X[i, c] * w for c, w in enumerate(self.w) if w != 0), ZERO)
        for k in {i // CHUNK for i in rows}:
            chunk = t[k * CHUNK:(k + 1) * CHUNK]
            self.lo[k], self.hi[k] = min(chunk), max(chunk)
        for g in {i // CHUNK ** 2 for i in rows}:
            self.glo[g] = min(self.lo[g * CHUNK:(g + 1) * CHUNK])
            self.ghi[g] = max(self.hi[g * CHUNK:(g + 1) * CHUNK])


def changed_rows(ff: FF, X, b: int, kept: dict | None = None) -> list[int]:
    """The rows of ``X`` the ReLU term of ``ff`` may change (lemma "FF over all tokens"): for
    ``U = c w^T``, those with ``t = <w, x>`` strictly inside the outermost kinks on each side
    where ``G`` vanishes; else those with some ReLU argument ``> 0``.  ``kept``: the
    :class:`Projections` of a run of FF layers by direction (lemma "FF runs")."""
    n, d, w = X.nrows(), X.ncols(), ff.width
    bq = [q(x) for x in ff.b]
    form = rank_one(ff)
    if form is None:
        charge(mat_units(n, d, w) + 2 * n * w, "an FF layer (ReLU arguments)", b)
        Z = X * fmpq_mat(d, w, [q(ff.U[k][c]) for c in range(d) for k in range(w)])
        return _positive_rows(Z + ones(n) * fmpq_mat(1, w, bq), every=False)
    v, c = form
    kinks = sorted(-bk / ck for ck, bk in zip(c, bq) if ck != 0)
    left, right = _outer_zero(ff, c, -1), _outer_zero(ff, c, 1)
    if not kinks or not (left or right):
        return [] if kinks == [] and left else list(range(n))
    if kept is not None:
        P = kept.get(tuple(v)) or kept.setdefault(tuple(v), Projections(X, v, b))
        return P.inside(kinks[0] if left else None, kinks[-1] if right else None, b)
    charge(mat_units(n, d, 1) + 3 * n * (left + right), "an FF layer (projections)", b)
    t = X * col(v)
    cand = range(n)
    if left:  # t > first kink
        cand = _positive_rows(t - ones(n) * kinks[0], True)
    if right:  # t < last kink
        far = (ones(n) * kinks[-1] - t).entries()
        cand = [i for i in cand if far[i].p > Z0]
    return list(cand)


def ff_rows(ff: FF, X, b: int = 0, kept: dict | None = None):
    """``(Y, rows, before)``: ``Y`` holds ``eta x + W relu(U x + b)`` for every row x of ``X``
    (``(n, d)``), ``rows`` those the ReLU term changed.  With ``eta = 1``, ``Y`` is ``X`` with
    those rows changed in place, ``before`` their old values by row (else ``None``).  ``b``: an
    upper bound of the values' bit sizes (for the charge); ``kept``: projections kept over a run
    of FF layers (:func:`changed_rows`), brought up to date."""
    n, d, w = X.nrows(), X.ncols(), ff.width
    eta = q(ff.eta)
    act = changed_rows(ff, X, b, kept) if w else []
    if eta != 1:
        charge(mat_units(n, 1, d), "an FF layer (eta x)", b)
        if kept:
            kept.clear()
    out = X if eta == 1 else X * eta
    charge(len(act) * d * (2 * w + 1), "an FF layer (active tokens)", b)
    U = [[q(x) for x in u] for u in ff.U]
    bq = [q(x) for x in ff.b]
    Wc = [[q(x) for x in wc] for wc in ff.W]
    before = {} if eta == 1 else None
    for i in act:
        x = [X[i, c] for c in range(d)]
        if before is not None:
            before[i] = tuple(x)
        z = [sum((u * xc for u, xc in zip(Uk, x)), bk) for Uk, bk in zip(U, bq)]
        y = [eta * xc for xc in x]
        for zk, Wk in zip(z, Wc):
            if zk > 0:
                y = [yc + zk * wc for yc, wc in zip(y, Wk)]
        for c in range(d):
            out[i, c] = y[c]
    if kept and act:
        charge(len(act) * (d + 2 * CHUNK) * len(kept), "a run of FF layers (projections)", b)
        for P in kept.values():
            P.update(out, act)
    return out, act, before


def allowed(i: int, n: int, causal: bool = False) -> range:
    """The keys token ``i`` of an ``n``-token sequence attends over: all of them, or
    ``0..i`` under a causal mask."""
    return range(i + 1) if causal else range(n)


def rows(X, lo: int, hi: int):
    """The rows ``lo <= i < hi`` of ``X`` as a matrix (one sequence)."""
    d = X.ncols()
    return fmpq_mat(hi - lo, d, [X[i, c] for i in range(lo, hi) for c in range(d)])


def factor_projections(A: Factored, X):
    """``(P, Q)``: ``(n, R)`` matrices of ``<a_r, x_i>`` and ``<b_r, x_i>`` (lemma "rank-one
    scores"), or ``(None, None)`` for ``A = lam I``."""
    if not A.left:
        return None, None
    d, R = X.ncols(), len(A.left)
    P = X * fmpq_mat(d, R, [q(a[c]) for c in range(d) for a in A.left])
    Q = P if A.left == A.right else X * fmpq_mat(d, R, [q(b[c]) for c in range(d) for b in A.right])
    return P, Q


def sequence_scores(A: Factored, Xs, Ps, Qs):
    """The ``(m, m)`` score matrix of one sequence: ``lam Xs Xs^T + Qs Ps^T``."""
    S = (Xs * Xs.transpose()) * q(A.lam) if A.lam != 0 else None
    if Ps is not None:
        S = Qs * Ps.transpose() if S is None else S + Qs * Ps.transpose()
    return S if S is not None else fmpq_mat(Xs.nrows(), Xs.nrows())


def score_units(A: Factored, m: int, d: int) -> int:
    """Work units of one ``m``-token sequence's scores and attention rule."""
    return m * m * (4 + len(A.left) + (d if A.lam != 0 else 0))


def _mean(E, d: int, keys) -> list:
    """The mean of the rows ``keys`` of the flat row-major entries ``E``."""
    if len(keys) == 1:
        lo = keys[0] * d
        return E[lo:lo + d]
    w = fmpq(1, len(keys))
    return [sum((E[l * d + c] for l in keys), ZERO) * w for c in range(d)]


def _row(X, i: int) -> list:
    return [X[i, c] for c in range(X.ncols())]


def _rank_one_rows(p, qv, X, lo, hi, b: int = 0) -> list:
    """The attended rows of one sequence ``lo..hi`` under hardmax with ``s_il = q_i p_l``."""
    ps, means, out = p[lo:hi], {}, []
    for qi in qv[lo:hi]:
        k = 1 if qi.p > Z0 else -1 if qi.p < Z0 else 0
        m = means.get(k)
        if m is None:
            best = max(ps) if k > 0 else min(ps) if k < 0 else None
            keys = (range(hi - lo) if k == 0 else [ps.index(best)] if ps.count(best) == 1
                    else [l for l, x in enumerate(ps) if x == best])
            charge(len(keys) * X.ncols(), "an SA layer (attended means)", b)
            rows_ = [_row(X, lo + l) for l in keys]
            w = fmpq(1, len(rows_))
            m = means[k] = rows_[0] if len(rows_) == 1 else [sum(c, ZERO) * w for c in zip(*rows_)]
        out += m
    return out


def head_means(A: Factored, X, spans, rule=HARDMAX, causal: bool = False, b: int = 0):
    """The ``(n, d)`` matrix of ``sum_l pi_il x_l`` of one head over every sequence."""
    n, d, R = X.nrows(), X.ncols(), len(A.left) * (1 + (A.left != A.right))
    charge(mat_units(n, d, R) + mat_units(n, 1, d), "an SA layer (projections, means)", b)
    P, Q = factor_projections(A, X)
    flat = []
    if (A.lam == 0 and len(A.left) == 1 and not causal and rule is HARDMAX):
        charge(4 * n, "an SA layer (rank-one scores)", 2 * b)
        p, qv = P.entries(), Q.entries()
        for lo, hi in spans:
            flat += _rank_one_rows(p, qv, X, lo, hi, b) if hi > lo else []
        return fmpq_mat(n, d, flat)
    charge(n * d, "an SA layer (rows)", b)
    E = X.entries()
    for lo, hi in spans:
        m = hi - lo
        charge(score_units(A, m, d), "an SA layer (scores)", 2 * b)
        Xs = fmpq_mat(m, d, E[lo * d:hi * d])
        sub = (None, None) if P is None else (rows(P, lo, hi), rows(Q, lo, hi))
        S = sequence_scores(A, Xs, *sub).entries()
        for i in range(m):
            keys = allowed(i, m, causal)
            ws = rule.weights(S[i * m:i * m + len(keys)], q)
            if len(ws) == 1 or all(wt == ws[0][1] for _, wt in ws):  # one key, or ties averaged
                flat += _mean(E, d, [lo + l for l, _ in ws])
            else:
                flat += [sum((wt * E[(lo + l) * d + c] for l, wt in ws), ZERO) for c in range(d)]
    return fmpq_mat(n, d, flat)


def sa_rows(sa: SA, X, spans, rule=HARDMAX, b: int = 0):
    """``rho x_i + sum_h V_h sum_l pi^h_il x_l`` for every token (sequences as ``spans``)."""
    n, d = X.nrows(), X.ncols()
    charge(mat_units(n, 1, d), "an SA layer", b)
    out = X if sa.rho == 1 else X * q(sa.rho)
    for A, V in sa.heads if spans else ():
        M = head_means(A, X, spans, rule, sa.causal, b)
        charge(factored_units(V, n, d), "an SA layer (V)", b)
        out = out + apply_factored(V, M)
    return out


def _height(values) -> int:
    return max(map(fmpq.height_bits, values), default=0)


class PlainBackend:
    """The plain evaluator behind the evaluation interface the fast tier shares:
    ``ff``/``sa`` return ``(new state, rows changed or None for all, old values of the rows
    changed in place or None)``; ``bits`` is an upper bound of the bit size of every value of
    the last state (for the charges).  Inside a run of FF layers (:meth:`distinct`) rows are
    those of the distinct tokens."""

    name = "plain"
    num = staticmethod(q)

    def __init__(self):
        self.bits = 0
        self._last = None  # (state, rows, their largest bit size)

    def load(self, sequences) -> State:
        """``sequences``: lists of ``d``-tuples of exact rationals."""
        d = next((len(t) for s in sequences for t in s), 0)
        X = fmpq_mat(sum(len(s) for s in sequences), d,
                     [q(x) for s in sequences for t in s for x in t])
        self.bits = _height(X.entries())
        return State(X, spans_of(len(s) for s in sequences), d)

    def _grown(self, new: State, rows_) -> None:
        X, d = new.X, new.d
        got = _height(X.entries() if rows_ is None else (X[i, c] for i in rows_ for c in range(d)))
        self.bits = got if rows_ is None else max(self.bits, got)
        self._last = (new, rows_, got)

    def _bits_of(self, ff: FF) -> int:
        return max(self.bits, _height(q(x) for u in ff.U + ff.W for x in u),
                   _height(q(x) for x in ff.b), q(ff.eta).height_bits())

    def ff(self, ff: FF, state: State):
        if ff.is_identity:
            return state, [], None
        run_ = isinstance(state, Distinct)
        X, act, before = ff_rows(ff, state.X, self._bits_of(ff), state.kept if run_ else None)
        touched = act if ff.eta == 1 else None
        new = (Distinct(X, state.spans, state.d, state.where, state.kept) if run_
               else State(X, state.spans, state.d))
        self._grown(new, touched)
        return new, touched, before

    def sa(self, sa: SA, state: State, rule=HARDMAX):
        if sa.is_identity:
            return state, [], None
        state = self.expand(state)
        X = sa_rows(sa, state.X, state.spans, rule, self.bits)
        new = State(X, state.spans, state.d)
        charge(state.n * state.d, "an SA layer (bit sizes)", self.bits)
        self._grown(new, None)
        return new, None, None

    def distinct(self, state: State) -> State:
        """The state with its distinct tokens only (lemma "FF runs")."""
        if isinstance(state, Distinct):
            return state
        E, d = state.X.entries(), state.d
        charge(state.n * d, "a run of FF layers (distinct tokens)", self.bits)
        first, where, keep = {}, [], []
        for i in range(state.n):
            key = tuple(E[i * d:(i + 1) * d])
            k = first.setdefault(key, len(first))
            if k == len(keep):
                keep.append(i)
            where.append(k)
        X = fmpq_mat(len(keep), d, [E[i * d + c] for i in keep for c in range(d)])
        return Distinct(X, state.spans, d, where, {})

    def expand(self, state: State) -> State:
        """Every token's row again (the end of a run of FF layers)."""
        if not isinstance(state, Distinct):
            return state
        E, d = state.X.entries(), state.d
        charge(state.n * d, "a run of FF layers (every token)", self.bits)
        X = fmpq_mat(state.n, d, [x for k in state.where for x in E[k * d:(k + 1) * d]])
        return State(X, state.spans, d)

    def row(self, state: State, i: int) -> tuple:
        k = state.where[i] if isinstance(state, Distinct) else i
        return tuple(state.X[k, c] for c in range(state.d))

    def max_bits(self, state: State, rows=None) -> int:
        last = self._last
        if last is not None and last[0] is state and last[1] is rows:
            return last[2]
        X, d = state.X, state.d
        return _height(X.entries() if rows is None else (X[i, c] for i in rows for c in range(d)))

    def to_fractions(self, state: State) -> list[tuple[Fraction, ...]]:
        state = self.expand(state)
        e, d = [f2q(x) for x in state.X.entries()], state.d
        return [tuple(e[i * d:(i + 1) * d]) for i in range(state.n)]


def _ff_run_ahead(blocks, k: int) -> bool:
    """Whether blocks ``k`` and ``k + 1`` are FF layers with identity SA layers between them
    (a run of FF layers starts at block ``k``)."""
    return (k + 1 < len(blocks) and blocks[k].sa.is_identity and not blocks[k].ff.is_identity
            and not blocks[k + 1].ff.is_identity)


def run(net, inputs, backend=None, rule=HARDMAX, progress=None):
    """The exact outputs ``T(X_j)`` (tuples of Fractions) of ``net`` on ``inputs`` by
    ``backend`` (default :class:`PlainBackend`), every value below the bit bound."""
    be = backend or PlainBackend()
    state = be.load(inputs)
    for bi, blk in enumerate(net.blocks, start=1):
        if isinstance(be, PlainBackend) and _ff_run_ahead(net.blocks, bi - 1):
            state = be.distinct(state)
        for sub, step in (("FF", lambda s: be.ff(blk.ff, s)),
                          ("SA", lambda s: be.sa(blk.sa, s, rule))):
            new, touched, _ = step(state)
            if not (new is state and touched == []):
                check_bits(be.max_bits(new, touched), f"block {bi} {sub}")
            state = new
        if progress:
            progress(bi)
    rows_ = be.to_fractions(state)
    return [rows_[lo:hi] for lo, hi in state.spans]




def interpolation_witness(outputs, targets):
    """Exact set equality per pair, both inclusions (docs/spec.md §1): ``(witness or None,
    multiplicities)``."""
    mults = []
    for j, (out, tgt) in enumerate(zip(outputs, targets, strict=True)):
        cnt = Counter(token_key(x) for x in out)
        tset = [tuple(y) for y in tgt]
        tkeys = [token_key(y) for y in tset]
        mults.append({y: cnt.get(k, 0) for y, k in zip(tset, tkeys)})
        tgt_set = set(tkeys)
        for i, x in enumerate(out):
            if token_key(x) not in tgt_set:
                shown = (", ".join(fmt_num(y) for y in tset[:8])
                         + (", ..." if len(tset) > 8 else ""))
                return Witness(f"output token is not a target (one of {{{shown}}}; inclusion "
                               "outputs ⊆ targets fails)",
                               sequence=j, token=i, got=tuple(out[i]),
                               code="output-not-target"), mults
        for k, (y, ky) in enumerate(zip(tset, tkeys)):
            if cnt.get(ky, 0) == 0:
                return Witness(f"target {k} is not hit (inclusion targets ⊆ outputs fails)",
                               sequence=j, expected=y, code="target-not-hit"), mults
    return None, mults
