"""The plain exact evaluator: SPEC §1's formulas read literally on python-flint ``fmpq_mat``, no
structural shortcut.  FF: ``eta x + W relu(U x + b)`` per token; SA: ``rho x_i + V sum_l pi_il
x_l``, one score row ``s_il = <A x_i, x_l>`` per token and ``pi`` from the attention rule over the
keys it may attend to (:func:`attend`; a causal mask is ``0..i``, another head one more ``V_h``
term).  Identity sub-layers return their input; every sub-layer charges its work (:mod:`.limits`).
:class:`PlainBackend` has the interface the fast tier shares (compared token by token)."""
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from fractions import Fraction

from flint import fmpq, fmpq_mat

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.limits import charge, check_bits
from proofcheck.kernel.model import FF, SA, Factored
from proofcheck.kernel.numbers import fmt_num
from proofcheck.kernel.verdicts import Witness


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
        j = bisect_right(self.spans, (i, float("inf"))) - 1
        return j, i - self.spans[j][0]


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
    return max(x.p.bit_length(), x.q.bit_length())


def apply_factored(F: Factored, X):
    """The rows ``x -> (lam I + sum_r a_r b_r^T) x`` of ``X`` (``(n, d)``)."""
    n, d = X.nrows(), X.ncols()
    out = X * q(F.lam)
    for a, b in zip(F.left, F.right):
        out += (X * fmpq_mat(d, 1, [q(x) for x in b])) * fmpq_mat(1, d, [q(x) for x in a])
    return out


def ff_rows(ff: FF, X):
    """``eta x + W relu(U x + b)`` for every row x of ``X`` (``(n, d)``)."""
    n, d, w = X.nrows(), X.ncols(), ff.width
    out = X * q(ff.eta)
    if w:
        Ut = fmpq_mat(d, w, [q(ff.U[k][c]) for c in range(d) for k in range(w)])
        z = (X * Ut).entries()
        b = [q(x) for x in ff.b]
        zero = fmpq(0)
        relu = [v if v > 0 else zero for v in (z[m] + b[m % w] for m in range(n * w))]
        out += fmpq_mat(n, w, relu) * fmpq_mat(w, d, [q(x) for col in ff.W for x in col])
    return out


def allowed(i: int, n: int, causal: bool = False) -> range:
    """The keys token ``i`` of an ``n``-token sequence attends over: all of them, or
    ``0..i`` under a causal mask."""
    return range(i + 1) if causal else range(n)


def attend(A: Factored, Xs, rule=HARDMAX, causal: bool = False):
    """Row i: ``sum_l pi_il x_l`` for one sequence ``Xs`` (``(n, d)``), ``pi_i`` the
    rule's weights on the score row ``s_il = <A x_i, x_l>`` over :func:`allowed`."""
    n = Xs.nrows()
    S = (apply_factored(A, Xs) * Xs.transpose()).entries()
    P = [fmpq(0)] * (n * n)
    for i in range(n):
        keys = allowed(i, n, causal)
        for l, w in rule.weights([S[i * n + l] for l in keys], q):
            P[i * n + keys[l]] = w
    return fmpq_mat(n, n, P) * Xs


def rows(X, lo: int, hi: int):
    """The rows ``lo <= i < hi`` of ``X`` as a matrix (one sequence)."""
    d = X.ncols()
    return fmpq_mat(hi - lo, d, [X[i, c] for i in range(lo, hi) for c in range(d)])


def sa_rows(sa: SA, X, spans, rule=HARDMAX):
    """``rho x_i + sum_h V_h sum_l pi^h_il x_l`` for every token (sequences as ``spans``)."""
    d = X.ncols()
    out = X * q(sa.rho)
    if not spans:
        return out
    b = max(map(bits, X.entries()), default=0)  # scores cost with the values' size
    for A, V in sa.heads:
        parts = []
        for lo, hi in spans:
            charge((hi - lo) ** 2 * (d + 8), "an SA layer (scores)", b)
            parts.append(attend(A, rows(X, lo, hi), rule, sa.causal))
        out += apply_factored(V, fmpq_mat(X.nrows(), d, [x for p in parts for x in p.entries()]))
    return out


class PlainBackend:
    """The plain evaluator behind the evaluation interface the fast tier shares:
    ``ff``/``sa`` return ``(new state, touched rows or None, None)``."""

    name = "plain"
    num = staticmethod(q)

    def load(self, sequences) -> State:
        """``sequences``: lists of ``d``-tuples of exact rationals."""
        d = next((len(t) for s in sequences for t in s), 0)
        X = fmpq_mat(sum(len(s) for s in sequences), d,
                     [q(x) for s in sequences for t in s for x in t])
        return State(X, spans_of(len(s) for s in sequences), d)

    def ff(self, ff: FF, state: State):
        if ff.is_identity:
            return state, [], None
        charge(state.n * state.d * (ff.width + 1), "an FF layer")
        return State(ff_rows(ff, state.X), state.spans, state.d), None, None

    def sa(self, sa: SA, state: State, rule=HARDMAX):
        if sa.is_identity:
            return state, [], None
        charge(state.n * state.d * sum(len(A.left) + len(V.left) + 1 for A, V in sa.heads),
               "an SA layer")
        return State(sa_rows(sa, state.X, state.spans, rule), state.spans, state.d), None, None

    def row(self, state: State, i: int) -> tuple:
        return tuple(state.X[i, c] for c in range(state.d))

    def max_bits(self, state: State, rows=None) -> int:
        X, d = state.X, state.d
        ents = X.entries() if rows is None else [X[i, c] for i in rows for c in range(d)]
        return max(map(bits, ents), default=0)

    def to_fractions(self, state: State) -> list[tuple[Fraction, ...]]:
        e, d = [f2q(x) for x in state.X.entries()], state.d
        return [tuple(e[i * d:(i + 1) * d]) for i in range(state.n)]


def run(net, inputs, backend=None, rule=HARDMAX, progress=None):
    """The exact outputs ``T(X_j)`` (tuples of Fractions) of ``net`` on ``inputs`` by
    ``backend`` (default :class:`PlainBackend`), every value below the bit bound."""
    be = backend or PlainBackend()
    state = be.load(inputs)
    for bi, blk in enumerate(net.blocks, start=1):
        for sub, step in (("FF", lambda s: be.ff(blk.ff, s)),
                          ("SA", lambda s: be.sa(blk.sa, s, rule))):
            new, touched, _ = step(state)
            if not (new is state and touched == []):
                check_bits(be.max_bits(new, touched), f"block {bi} {sub}")
            state = new
        if progress:
            progress(bi)
    rows = be.to_fractions(state)
    return [rows[lo:hi] for lo, hi in state.spans]


def _key(token) -> tuple:
    """``(p_0, q_0, p_1, ...)``: equal iff the tokens are (hashes faster than Fractions)."""
    return tuple([v for x in token for v in (x.numerator, x.denominator)])


def interpolation_witness(outputs, targets):
    """Exact set equality per pair, both inclusions (SPEC §1): ``(witness or None,
    multiplicities)``."""
    mults = []
    for j, (out, tgt) in enumerate(zip(outputs, targets, strict=True)):
        cnt = Counter(_key(x) for x in out)
        tset = [tuple(y) for y in tgt]
        tkeys = [_key(y) for y in tset]
        mults.append({y: cnt.get(k, 0) for y, k in zip(tset, tkeys)})
        tgt_set = set(tkeys)
        for i, x in enumerate(out):
            if _key(x) not in tgt_set:
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
