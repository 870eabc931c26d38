"""The rounding certificate of ``audit --float-safe DTYPE``: a sufficient condition,
decided in exact integer arithmetic, for the float network to compute in DTYPE
exactly the values of the exact network — in any summation order, with or without
FMA — on the dataset's exact trajectory.

**Lemma (exact floating-point sums).**  Let F be a binary floating-point format with
``p`` significand bits (hidden bit included) and normal exponents ``emin .. emax``
(float32: p = 24, emin = -126, emax = 127).  Let ``e`` be an integer with
``emin <= e <= emax - p`` and ``t_1, ..., t_k`` real numbers, each an integer multiple
of ``2^e``, with ``sum_j |t_j| <= 2^(p+e)``.  Then every sum of a subset of the
``t_j`` (each ``t_j`` included) is a finite F value and, when not 0, a normal one.
Hence every floating-point evaluation of ``t_1 + ... + t_k`` whose operations are
additions of values already computed, products ``a*b`` whose exact value is one of
the ``t_j``, or fused multiply-adds ``a*b + c`` of the two — in any order and
association, in any IEEE 754 rounding mode, in F or in any wider binary format —
computes every intermediate value and the result exactly.

*Proof.*  A subset sum ``s`` is an integer multiple of ``2^e`` with ``|s| <=
2^(p+e)``: ``s = m 2^e`` with ``|m| <= 2^p``.  If ``|m| < 2^p``, ``m`` has at most p
bits and ``s`` is 0 or ``2^emin <= 2^e <= |s| < 2^(p+e) <= 2^emax``: an F value, normal.
If ``|m| = 2^p``, ``s = +-2^(p+e)``, a power of two with ``p + e <= emax``.  By
induction on the operations every operand is exact, so every exact result is a subset
sum (a product: one ``t_j``; an FMA: ``t_j`` plus a subset sum without it), an F value,
which every rounding returns unchanged.  QED.

**How it is applied** (:func:`certify`).  The export's graph — the numpy evaluator
(:mod:`proofcheck.frontend.export.numpy_eval`), the ONNX graph and the PyTorch module compute
the same nodes — is, per block:

* FF: ``Z = X U^T + b`` (one sum per token and unit: terms ``U_kc x_c`` and ``b_k``),
  ``relu`` (exact), ``Y = eta X + relu(Z) W^T`` (per token and coordinate: terms
  ``eta x_c`` and ``W_ck relu(Z_k)``);
* SA, per head with V != 0: ``P = X A_right^T`` (terms ``right_rc x_c``), ``AX = A_lam
  X + P A_left`` (terms ``lam x_c``, ``P_r left_rc``), scores ``s_il = sum_c AX_ic
  x_lc``; hardmax: the max and ``==`` of exact scores (exact), ``pi = C / |C|`` where
  ``|C|`` is an integer ``<= n <= 2^p`` (exact) and ``1/|C|`` is exact iff ``|C|`` is a
  power of two; ``m_i = sum_l pi_il x_l`` (terms ``x_lc / |C|``); ``V m`` like ``A X``;
  ``Y = rho X + sum_h V_h m_h``.

Every stored weight and every input coordinate must be an F value (nearest rounding
leaves it unchanged, zero or normal).  For each sum the certificate takes ``e`` =
the least 2-adic valuation its terms can have (per token: the weight matrix's row or
column valuation plus the token's row valuation — a lower bound, so the check is
conservative), caps it at ``emax - p``, and decides ``sum |terms| <= 2^(p+e)`` and
``e >= emin`` exactly, in integers scaled by a power of two.  By the lemma and
induction over the nodes, the float network then computes every value of the exact
trajectory exactly; its outputs are the exact network's (which the run compares
exactly with the kernel's outputs).

Scope: this dataset, each sequence's real tokens (in a batch padded to a common
length the padded rows are outside the check: they meet the real ones only through
a zero attention weight, so they must stay finite); summation in any order or
blocking, with or without FMA, not algorithms that form other intermediate values
(Strassen-type products); hardmax only (softmax's ``exp`` is exact in no format: the
condition fails).  Source: issue 29, item 5; docs/spec.md §1 semantics, docs/howto/export-and-audit.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

#: the valuation of 0: no constraint (larger than any exponent that occurs)
BIG = 1 << 40
_I64_SAFE = 1 << 62

CONDITION = ("every weight and input an exact {dtype} value; every sum of the export's graph "
             "(FF pre-activations and outputs, SA factors, scores, attended means, outputs) on "
             "this dataset's exact trajectory has sum |terms| <= 2^(p + e), p = {p}, its terms "
             "integer multiples of 2^e, emin = {emin} <= e (capped at emax - p = {ecap}); every "
             "hardmax tie set averaged by a head with V != 0 of power-of-two size; hardmax "
             "attention (lemma: proofcheck.frontend.export.float_certificate)")


@dataclass
class RoundingCertificate:
    """The outcome of :func:`certify`.

    ``verdict``: ``HOLDS`` (the sufficient condition holds: the float network computes
    the exact trajectory exactly), ``FAILS`` (it does not hold at ``failure``; nothing
    is said about the float run then) or ``ERROR`` (the certificate's own exact
    trajectory differs from the kernel's outputs).  ``largest_sum``: the largest
    ``sum |terms|`` of any sum (exact), with ``largest_sum_at``; ``largest_ratio``: the
    largest ``sum |terms| / 2^e`` (exact; the condition is ``<= 2^p``); ``grid_exponent``:
    the least ``e`` of any sum with a nonzero term; ``tie_sizes``: hardmax tie-set size ->
    number of (token, head) pairs averaged with it; ``sums``: the number of sums decided;
    ``failure``: the first place the condition fails (block, sub-layer, node, sequence,
    token, coordinate, the exact values and a reason ``code``)."""

    dtype: str
    precision: int
    emin: int
    emax: int
    verdict: str = "HOLDS"
    largest_sum: Fraction = Fraction(0)
    largest_sum_at: dict | None = None
    largest_ratio: Fraction = Fraction(0)
    grid_exponent: int | None = None
    tie_sizes: dict = field(default_factory=dict)
    sums: int = 0
    failure: dict | None = None
    network: str = ""
    cpu_seconds: float = 0.0

    @property
    def condition(self) -> str:
        return CONDITION.format(dtype=self.dtype, p=self.precision, emin=self.emin,
                                ecap=self.emax - self.precision)

    def to_json(self) -> dict:
        return {"dtype": self.dtype, "precision_bits": self.precision,
                "condition": self.condition, "verdict": self.verdict,
                "largest_sum_abs_terms": str(self.largest_sum),
                "largest_sum_abs_terms_bits": _bits(self.largest_sum),
                "largest_sum_at": self.largest_sum_at,
                "largest_sum_over_grid": str(self.largest_ratio),
                "largest_sum_over_grid_bits": _bits(self.largest_ratio),
                "grid_exponent": self.grid_exponent,
                "tie_set_sizes": {str(k): v for k, v in sorted(self.tie_sizes.items())},
                "sums_decided": self.sums, "first_failure": self.failure,
                "network": self.network, "cpu_seconds": round(self.cpu_seconds, 1),
                "scope": "this dataset's exact trajectory, the real tokens of each sequence; "
                         "any summation order, with or without FMA"}

    def lines(self) -> list[str]:
        """The printed form (``audit`` prints it after the float runs)."""
        out = [f"condition: {self.condition}"]
        if self.largest_sum:
            out += [f"largest sum |terms|: {_show(self.largest_sum)} = "
                    f"2^{_bits(self.largest_sum)} ({_where(self.largest_sum_at)})",
                    f"largest sum |terms| / 2^e: 2^{_bits(self.largest_ratio)} (must be <= "
                    f"2^{self.precision}); grid exponent e >= {self.grid_exponent}"]
        else:
            out.append("largest sum |terms|: none decided (no nonzero sum before the end or "
                       "the first failure)")
        out += [
            "hardmax tie-set sizes (size: tokens x heads): "
            + (", ".join(f"{k}: {v}" for k, v in sorted(self.tie_sizes.items())) or "none"),
            f"{self.sums} sums decided exactly ({self.cpu_seconds:.1f} CPU s)"]
        if self.network:
            out.append(f"network: {self.network}")
        if self.failure:
            out.append(f"first failure: {_where(self.failure)}: {self.failure['why']}")
        return out


def _bits(x: Fraction) -> str | None:
    """log2 of a positive exact value, two decimals (display only); None for 0."""
    if x <= 0:
        return None
    return f"{math.log2(x.numerator) - math.log2(x.denominator):.2f}"


def _show(x: Fraction) -> str:
    return str(x) if len(str(x)) <= 24 else f"{float(x):.6g}"


def _where(p: dict) -> str:
    keys = ("block", "sublayer", "node", "head", "sequence", "token", "coordinate", "unit",
            "factor", "key", "parameter")
    return ", ".join(f"{k} {p[k]}" for k in keys if p.get(k) is not None)


class _Fail(Exception):
    """The condition fails at ``place`` (a dict with ``code`` and ``why``)."""

    def __init__(self, place: dict):
        super().__init__(place["why"])
        self.place = place


# ----------------------------------------------------------------- exact integer helpers

def valuation(q) -> int | None:
    """The 2-adic valuation of the rational ``q`` (``BIG`` for 0), or None when ``q``
    is not dyadic (its denominator is not a power of two)."""
    q = Fraction(q)
    if q == 0:
        return BIG
    n, d = abs(q.numerator), q.denominator
    if d & (d - 1):
        return None
    return ((n & -n).bit_length() - 1) - (d.bit_length() - 1)


def _scaled(values, s: int) -> int:
    """``value * 2^-s`` for a dyadic ``value`` of valuation ``>= s`` (an integer)."""
    v = Fraction(values) * (Fraction(2) ** -s)
    assert v.denominator == 1, (values, s)
    return v.numerator


def _matrix(rows):
    """``(ints, s, row valuations, column valuations)`` of an exact dyadic matrix
    (list of rows): ``value = ints * 2^s`` with ``s`` the least valuation (0 when all
    entries are 0)."""
    memo: dict = {}

    def val(x):
        hit = memo.get(x)
        if hit is None:
            hit = memo[x] = valuation(x)
        return hit
    vals = [[val(x) for x in r] for r in rows]
    m = min((v for r in vals for v in r), default=BIG)
    s = 0 if m >= BIG else m
    scaled: dict = {}

    def sc(x):
        hit = scaled.get(x)
        if hit is None:
            hit = scaled[x] = _scaled(x, s)
        return hit
    ints = [[sc(x) for x in r] for r in rows]
    nr = len(rows)
    nc = len(rows[0]) if rows else 0
    rowv = [min(r, default=BIG) for r in vals]
    colv = [min((vals[i][j] for i in range(nr)), default=BIG) for j in range(nc)]
    return _arr(ints, (nr, nc)), s, np.array(rowv, dtype=np.int64), np.array(colv, dtype=np.int64)


def _arr(ints, shape):
    big = max((abs(x) for r in ints for x in r), default=0)
    dt = np.int64 if big < _I64_SAFE else object
    return np.array(ints, dtype=dt).reshape(shape)


_M1, _M2, _M4, _H01 = (np.uint64(0x5555555555555555), np.uint64(0x3333333333333333),
                       np.uint64(0x0F0F0F0F0F0F0F0F), np.uint64(0x0101010101010101))


def _popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each int64 (as its 64-bit pattern), exact integer SWAR."""
    x = x.astype(np.uint64)
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return ((x * _H01) >> np.uint64(56)).astype(np.int64)


def _tz(x: np.ndarray) -> np.ndarray:
    """Trailing zeros of each non-negative integer (``BIG`` for 0)."""
    if x.dtype == object:
        return np.array([BIG if v == 0 else (int(v) & -int(v)).bit_length() - 1
                         for v in x.ravel()], dtype=np.int64).reshape(x.shape)
    low = x & -x
    return np.where(x == 0, BIG, _popcount(low - 1))


def _bitlen(x: np.ndarray) -> np.ndarray:
    """Bit length of each non-negative integer."""
    if x.dtype == object:
        return np.array([int(v).bit_length() for v in x.ravel()], dtype=np.int64).reshape(x.shape)
    y = x.copy()
    for k in (1, 2, 4, 8, 16, 32):
        y |= y >> k
    return _popcount(y)


def _abs(a):
    return np.abs(a) if a.dtype != object else np.array([abs(v) for v in a.ravel()],
                                                         dtype=object).reshape(a.shape)


def _row_val(a: np.ndarray, s: int) -> np.ndarray:
    """Per row of ``a * 2^s``: the least valuation of its entries (``BIG``: zero row)."""
    if a.size == 0:
        return np.full(a.shape[0], BIG, dtype=np.int64)
    orr = np.bitwise_or.reduce(_abs(a), axis=1) if a.dtype != object else np.array(
        [_or(r) for r in _abs(a)], dtype=object)
    t = _tz(orr)
    return np.where(t >= BIG, BIG, t + s)


def _or(row):
    out = 0
    for v in row:
        out |= int(v)
    return out


def _shift(a: np.ndarray, k: int):
    """``a * 2^k`` for ``k >= 0``, exact."""
    if k == 0:
        return a
    if a.dtype == object:
        return a * (1 << k)
    return a << k


def _maxabs(a) -> int:
    return int(_abs(a).max()) if a.size else 0


def _as_object(a):
    return a if a.dtype == object else a.astype(object)


# ----------------------------------------------------------------- one sum node

class _Rows:
    """An integer matrix ``a * 2^s`` (rows = tokens) with its 2-adic valuations,
    computed when needed: ``least`` (over all entries) and :meth:`rows` (per row);
    ``BIG`` for zeros."""

    def __init__(self, a, s: int):
        self.a, self.s = a, s
        self._least = self._rows = None

    @property
    def least(self) -> int:
        if self._least is None:
            orr = _or_all(self.a)
            self._least = BIG if orr == 0 else self.s + (orr & -orr).bit_length() - 1
        return self._least

    def rows(self) -> np.ndarray:
        if self._rows is None:
            self._rows = _row_val(self.a, self.s)
        return self._rows


def _or_all(a) -> int:
    if a.size == 0:
        return 0
    return _or(_abs(a).ravel()) if a.dtype == object else int(
        np.bitwise_or.reduce(_abs(a).ravel()))


@dataclass
class _Group:
    """Terms ``A[i, k] * B[k, o]`` of one node: ``A`` the token rows, ``B = Bint * 2^sB``
    with column valuations ``vB``."""

    A: _Rows
    B: object
    sB: int
    vB: object


class _Certifier:
    """The exact integer trajectory of the float graph, node by node (see the module
    docstring), with the statistics of the certificate."""

    def __init__(self, fmt, cert: RoundingCertificate, spans):
        self.fmt, self.cert, self.spans = fmt, cert, spans
        self.p, self.emin, self.ecap = fmt.precision, fmt.emin, fmt.emax - fmt.precision
        T = spans[-1][1] if spans else 0
        self.seq_of = np.empty(T, dtype=np.int64)
        self.tok_of = np.empty(T, dtype=np.int64)
        for j, (lo, hi) in enumerate(spans):
            self.seq_of[lo:hi] = j
            self.tok_of[lo:hi] = np.arange(hi - lo)
        self.place = {}

    def token(self, r: int) -> dict:
        return {"sequence": int(self.seq_of[r]), "token": int(self.tok_of[r])}

    # -------------------------------------------------------------- the general node
    def node(self, name: str, groups: list[_Group], n_out: int,
             coord: str = "coordinate") -> _Rows:
        """The sum node ``name`` over ``groups`` for every token (rows) and output
        ``o``; raises :class:`_Fail` at the first sum that breaks the condition."""
        live = [g for g in groups if g.B.size and np.any(g.B != 0) and g.A.a.size]
        T = len(self.seq_of)
        if not live:
            return _Rows(np.zeros((T, n_out), dtype=np.int64), 0)
        units = [g.A.s + g.sB for g in live]
        u = min(units)
        absB = [_abs(g.B) for g in live]
        bound = sum(_maxabs(g.A.a) * max((int(x) for x in b.sum(axis=0)), default=0)
                    * (1 << (uu - u)) for g, b, uu in zip(live, absB, units))
        obj = bound >= _I64_SAFE
        val = sab = None
        for g, b, uu in zip(live, absB, units):
            A, B, b = ((_as_object(g.A.a), _as_object(g.B), _as_object(b)) if obj
                       else (g.A.a, g.B, b))
            v = _shift(A @ B, uu - u)
            a = _shift(_abs(A) @ b, uu - u)
            val = v if val is None else val + v
            sab = a if sab is None else sab + a
        grid = np.min([g.A.least + g.vB for g in live], axis=0)[None, :]

        def refine():
            return np.min([g.A.rows()[:, None] + g.vB[None, :] for g in live], axis=0)
        self.decide(name, sab, u, grid, coord, self.token, refine)
        return _Rows(val, u)

    def ok(self, sab, u: int, grid):
        """Elementwise: ``sab * 2^u <= 2^(p + min(grid, emax - p))`` and ``grid >= emin``,
        or ``sab == 0`` (exact integers)."""
        grid = np.broadcast_to(np.asarray(grid, dtype=np.int64), sab.shape)
        k = self.p + np.minimum(grid, self.ecap) - u
        if sab.dtype == object:
            return np.array([s == 0 or (g >= self.emin and kk >= 0 and int(s) <= (1 << int(kk)))
                             for s, g, kk in zip(sab.ravel(), grid.ravel(), k.ravel())],
                            dtype=bool).reshape(sab.shape)
        lim = np.left_shift(np.int64(1), np.clip(k, 0, 62))
        return (sab == 0) | ((grid >= self.emin) & (k >= 0) & ((k >= 63) | (sab <= lim)))

    def decide(self, name: str, sab, u: int, grid, coord: str, where, refine=None,
               extra=None):
        """The exact decision for every sum of a node: ``sab`` ``(rows, outputs)`` (``sum
        |terms|`` in units of ``2^u``), ``grid`` the terms' least valuation, one per output
        (``(1, outputs)``); where that fails, ``refine()`` gives it per row (the token's own
        valuation: a larger grid, a weaker bound).  ``where(row)``: the row's place."""
        ok = self.ok(sab, u, grid)
        if not ok.all() and refine is not None:
            grid = refine()
            ok = self.ok(sab, u, grid)
        grid = np.broadcast_to(np.asarray(grid, dtype=np.int64), sab.shape)
        self.stats(name, sab, u, grid, coord, where)
        if not ok.all():
            r, o = (int(x) for x in np.argwhere(~ok)[0])
            s_abs = Fraction(int(sab[r, o])) * Fraction(2) ** u
            e = int(grid[r, o])
            why = ("the terms' grid 2^%d is below the smallest normal 2^%d" % (e, self.emin)
                   if e < self.emin else
                   f"sum |terms| = {_show(s_abs)} > 2^(p + e) = 2^{self.p + min(e, self.ecap)} "
                   f"(e = {e}{', capped at emax - p' if e > self.ecap else ''})")
            raise _Fail({**self.place, "node": name, **where(r), coord: o, **(extra or {}),
                         "sum_abs_terms": str(s_abs), "grid_exponent": e,
                         "code": "grid-below-normal" if e < self.emin else "partial-sum-bound",
                         "why": why})

    def stats(self, name, sab, u, grid, coord, where) -> None:
        """Largest ``sum |terms|`` (and where), largest ``sum |terms| / 2^e``, least ``e``
        and the number of sums: exact, from the column maxima."""
        if sab.size == 0:
            return
        c = self.cert
        c.sums += sab.size
        colmax = sab.max(axis=0)
        nzc = [o for o in range(sab.shape[1]) if colmax[o] != 0]
        if not nzc:
            return
        uniform = bool((grid == grid[:1]).all())
        for o in nzc:
            col = grid[:, o][sab[:, o] != 0]
            g = int(col.min())
            c.grid_exponent = g if c.grid_exponent is None else min(c.grid_exponent, g)
            top = Fraction(int(colmax[o])) * Fraction(2) ** u
            if top > c.largest_sum:
                r = int(np.argmax(sab[:, o])) if sab.dtype != object else max(
                    range(sab.shape[0]), key=lambda t: sab[t, o])
                c.largest_sum = top
                c.largest_sum_at = {**self.place, "node": name, **where(r), coord: o}
            if uniform:
                q = Fraction(int(colmax[o])) / Fraction(2) ** (min(g, self.ecap) - u)
                c.largest_ratio = max(c.largest_ratio, q)
            else:
                sh = np.minimum(grid[:, o], self.ecap) - u
                for r in range(sab.shape[0]):
                    if sab[r, o]:
                        q = Fraction(int(sab[r, o])) / Fraction(2) ** int(sh[r])
                        c.largest_ratio = max(c.largest_ratio, q)


# ----------------------------------------------------------------- the network

def _representable(fmt):
    """``ok(v)``: ``v`` is 0 or a normal ``fmt`` value (memoised: values repeat)."""
    from proofcheck.constructions.floats import is_representable
    tiny = Fraction(2) ** fmt.emin
    memo: dict = {}

    def ok(v) -> bool:
        hit = memo.get(v)
        if hit is None:
            hit = memo[v] = v == 0 or (is_representable(v, fmt) and abs(Fraction(v)) >= tiny)
        return hit
    return ok


def _unrepresentable_weights(net, fmt) -> dict:
    """``(block, sublayer) -> the first failure`` for every sub-layer with a stored
    scalar that is not an exact ``fmt`` value (zero or normal)."""
    ok = _representable(fmt)
    out = {}
    for bi, sub, name, v in net.parameters():
        if (bi, sub) not in out and not ok(v):
            out[(bi, sub)] = {"block": bi, "sublayer": sub, "parameter": name,
                              "value": str(Fraction(v)), "code": "weight-not-representable",
                              "why": f"{name} = {_show(Fraction(v))} is not a normal "
                                     f"{fmt.name} value (or 0)"}
    return out


def _inputs_representable(inputs, fmt) -> None:
    ok = _representable(fmt)
    for j, X in enumerate(inputs):
        for t, x in enumerate(X):
            for c, v in enumerate(x):
                if not ok(v):
                    raise _Fail({"block": 0, "sublayer": "input", "sequence": j, "token": t,
                                 "coordinate": c, "value": str(Fraction(v)),
                                 "code": "input-not-representable",
                                 "why": f"input coordinate {_show(Fraction(v))} is not a normal "
                                        f"{fmt.name} value (or 0)"})


def _scalar_group(X: _Rows, x) -> _Group:
    """The terms ``x * X`` (a scalar times every coordinate) as a group."""
    d = X.a.shape[1]
    ints, s, _, _ = _matrix([[x]])
    B = np.zeros((d, d), dtype=ints.dtype)
    for c in range(d):
        B[c, c] = ints[0, 0]
    return _Group(X, B, s, np.full(d, valuation(x), dtype=np.int64))


def _weights(rows):
    """``(ints, s, column valuations)`` of a small exact weight matrix."""
    ints, s, _, colv = _matrix(rows)
    return ints, s, colv


def _renorm(X: _Rows) -> _Rows:
    """The same values with the least exponent (small integers, not all even)."""
    a = X.a
    orr = _or_all(a)
    if orr == 0:
        return _Rows(a, 0)
    t = (orr & -orr).bit_length() - 1
    if t:
        a = a >> t if a.dtype != object else np.array([int(v) >> t for v in a.ravel()],
                                                      dtype=object).reshape(a.shape)
    if a.dtype == object and _maxabs(a) < _I64_SAFE:
        a = a.astype(np.int64)
    return _Rows(a, X.s + t)


def _relu(Z: _Rows) -> _Rows:
    a = Z.a
    r = np.where(a > 0, a, 0) if a.dtype != object else np.array(
        [v if v > 0 else 0 for v in a.ravel()], dtype=object).reshape(a.shape)
    return _Rows(r, Z.s)


def _ff(cz: _Certifier, ff, X: _Rows) -> _Rows:
    """One FF layer on the integer state: ``eta X + relu(X U^T + b) W^T``."""
    d = X.a.shape[1]
    groups = [_scalar_group(X, ff.eta)] if ff.eta != 0 else []
    if ff.width:
        U, sU, vU, _ = _matrix([list(u) for u in ff.U])   # vU: per unit, U's row valuations
        b, sb, vb = _weights([list(ff.b)])
        ones = _Rows(np.ones((X.a.shape[0], 1), dtype=np.int64), 0)
        Z = cz.node("pre-activation", [_Group(X, U.T, sU, vU), _Group(ones, b, sb, vb)],
                    ff.width, "unit")
        Wm, sW, vW = _weights([list(w) for w in ff.W])    # (width, d): row k = column W[k]
        groups.append(_Group(_relu(Z), Wm, sW, vW))
    return _renorm(cz.node("output", groups, d))


def _factored(cz: _Certifier, f, X: _Rows, name: str) -> _Rows:
    """``lam X + (X right^T) left`` of a :class:`~proofcheck.kernel.model.Factored`
    matrix, as the graph computes it."""
    d = X.a.shape[1]
    groups = [_scalar_group(X, f.lam)] if f.lam != 0 else []
    if f.left:
        R, sR, vR, _ = _matrix([list(r) for r in f.right])
        P = cz.node(f"{name}: X right^T", [_Group(X, R.T, sR, vR)], len(f.left), "factor")
        Lm, sL, vL = _weights([list(a) for a in f.left])
        groups.append(_Group(P, Lm, sL, vL))
    return cz.node(f"{name}: lam x + P left", groups, d)


def _padded(a, spans, n):
    B = len(spans)
    out = np.zeros((B, n) + a.shape[1:], dtype=a.dtype)
    for j, (lo, hi) in enumerate(spans):
        out[j, :hi - lo] = a[lo:hi]
    return out


def _sa(cz: _Certifier, sa, X: _Rows) -> _Rows:
    """One hardmax SA layer on the integer state: ``rho X + sum_h V_h m_h``."""
    spans = cz.spans
    d = X.a.shape[1]
    n = max(hi - lo for lo, hi in spans)
    if n > (1 << cz.p):
        raise _Fail({**cz.place, "code": "sequence-too-long",
                     "why": f"a sequence of {n} tokens: the tie count is not exact"})
    real = np.zeros((len(spans), n), dtype=bool)
    for j, (lo, hi) in enumerate(spans):
        real[j, :hi - lo] = True
    eye = np.eye(d, dtype=np.int64)
    groups = [_scalar_group(X, sa.rho)] if sa.rho != 0 else []
    for h, (A, V) in enumerate(sa.heads, start=1):
        if V.is_zero:
            continue
        cz.place["head"] = h if sa.H > 1 else None
        AX = _factored(cz, A, X, "A")
        M = _attend(cz, sa, AX, X, real, n)
        VM = _factored(cz, V, M, "V")
        groups.append(_Group(VM, eye, 0, np.zeros(d, dtype=np.int64)))
    cz.place["head"] = None
    return _renorm(cz.node("output", groups, d))


def _attend(cz, sa, AX: _Rows, X: _Rows, real, n) -> _Rows:
    """Scores, exact argmax sets, tie sizes and the attended means ``m_i``."""
    spans = cz.spans
    d = X.a.shape[1]
    obj = _maxabs(AX.a) * _maxabs(X.a) * d >= _I64_SAFE
    AXp = _padded(_as_object(AX.a) if obj else AX.a, spans, n)
    Xp = _padded(_as_object(X.a) if obj else X.a, spans, n)
    keys = real[:, None, :] & real[:, :, None]
    if sa.causal:
        keys &= np.tril(np.ones((n, n), dtype=bool))
    S = AXp @ np.swapaxes(Xp, -1, -2)
    Sab = np.where(keys, _abs(AXp) @ np.swapaxes(_abs(Xp), -1, -2), 0)

    def pos(r):
        return {"sequence": r // n, "token": r % n}

    def refine_scores():
        va = np.where(real, _padded(AX.rows(), spans, n), BIG)
        vx = np.where(real, _padded(X.rows(), spans, n), BIG)
        return (va[:, :, None] + vx[:, None, :]).reshape(-1, n)
    cz.decide("scores", Sab.reshape(-1, n), AX.s + X.s, np.array([[AX.least + X.least]]),
              "key", pos, refine_scores)
    low = (S[keys].min() - 1) if keys.any() else 0
    Sm = np.where(keys, S, low)
    C = (Sm == Sm.max(axis=-1, keepdims=True)) & keys
    k = C.sum(axis=-1)
    for size, cnt in zip(*np.unique(k[real], return_counts=True)):
        cz.cert.tie_sizes[int(size)] = cz.cert.tie_sizes.get(int(size), 0) + int(cnt)
    bad = real & ((k & (k - 1)) != 0)
    if bad.any():
        j, t = (int(x) for x in np.argwhere(bad)[0])
        raise _Fail({**cz.place, "node": "hardmax weights 1/|C|", "sequence": j, "token": t,
                     "tie_set": [int(x) for x in np.nonzero(C[j, t])[0]],
                     "code": "tie-not-power-of-two",
                     "why": f"a tie set of {int(k[j, t])} tokens: 1/{int(k[j, t])} is not exact"})
    lg = np.where(real, _bitlen(np.maximum(k, 1)) - 1, 0)
    K = int(lg.max()) if lg.size else 0
    if not obj and _maxabs(X.a) * n * (1 << K) >= _I64_SAFE:
        obj, Xp = True, _as_object(Xp)
    Cn = C.astype(object if obj else np.int64)
    sh = (K - lg)[..., None]
    scale = (np.int64(1) << sh) if not obj else np.vectorize(lambda s: 1 << int(s),
                                                             otypes=[object])(sh)
    Mp = (Cn @ Xp) * scale
    Mab = (Cn @ _abs(Xp)) * scale

    def refine_mean():
        vx = np.where(real, _padded(X.rows(), spans, n), BIG)
        vmin = np.where(C, vx[:, None, :], BIG).min(axis=-1) - lg
        return np.repeat(vmin.reshape(-1, 1), d, axis=1)
    cz.decide("attended mean", Mab.reshape(-1, d), X.s - K, np.array([[X.least - K]]),
              "coordinate", pos, refine_mean)
    return _Rows(Mp[real], X.s - K)


def certify(net, inputs, dtype: str = "float32", attention: str = "hardmax",
            exact_final=None) -> RoundingCertificate:
    """The rounding certificate of ``net`` (exact
    :class:`~proofcheck.kernel.model.Transformer`) on ``inputs`` (``inputs[j]``
    ``(n_j, d)`` exact rationals) for the float format ``dtype`` (``float64``,
    ``float32``, ``bfloat16``, ``float16``): the condition of the module docstring,
    decided exactly, sub-layer by sub-layer on the exact trajectory; the first failing
    place is reported.  ``exact_final``: the kernel's exact outputs, all tokens in
    order (tuples of Fractions), to compare the certificate's own exact trajectory
    with (default: computed by the kernel's flint backend); a difference is ERROR.

    Raises ``KeyError`` for an unknown ``dtype``.  Source: issue 29 item 5."""
    from proofcheck.constructions.floats import get_format
    from proofcheck.kernel.evaluate import spans_of
    import time
    fmt = get_format(dtype)
    cert = RoundingCertificate(dtype, fmt.precision, fmt.emin, fmt.emax)
    t0 = time.process_time()
    spans = spans_of(len(X) for X in inputs)
    cz = _Certifier(fmt, cert, spans)
    try:
        if attention != "hardmax":
            raise _Fail({"block": 1, "sublayer": "SA", "code": "softmax",
                         "why": "softmax attention: exp is exact in no float format"})
        bad = _unrepresentable_weights(net, fmt)
        _inputs_representable(inputs, fmt)
        a, s, _, _ = _matrix([list(x) for seq in inputs for x in seq])
        X = _renorm(_Rows(a, s))
        for bi, blk in enumerate(net.blocks, start=1):   # in trajectory order
            for sub, layer, step in (("FF", blk.ff, _ff), ("SA", blk.sa, _sa)):
                cz.place = {"block": bi, "sublayer": sub}
                if (bi, sub) in bad:
                    raise _Fail(bad[(bi, sub)])
                if not (layer.is_identity if sub == "SA" else
                        (layer.width == 0 and layer.eta == 1)):
                    X = step(cz, layer, X)
    except _Fail as f:
        cert.verdict, cert.failure = "FAILS", f.place
        cert.cpu_seconds = time.process_time() - t0
        return cert
    _cross_check(cert, net, inputs, X.a, X.s, exact_final)
    cert.cpu_seconds = time.process_time() - t0
    return cert


def _cross_check(cert, net, inputs, X, s, exact_final) -> None:
    """ERROR unless the certificate's exact trajectory ends where the kernel's does."""
    if exact_final is None:
        from proofcheck.kernel.evaluate import run
        from proofcheck.kernel.fast import get_backend
        exact_final = [x for seq in run(net, inputs, backend=get_backend("flint")) for x in seq]
    scale = Fraction(2) ** s
    for t, (row, want) in enumerate(zip(X.tolist(), exact_final)):
        got = tuple(Fraction(int(v)) * scale for v in row)
        if got != tuple(Fraction(w) for w in want):
            cert.verdict = "ERROR"
            cert.failure = {"block": net.L, "sublayer": "SA", "token_index": t,
                            "code": "cross-check",
                            "why": "the certificate's exact trajectory differs from the "
                                   "kernel's outputs (internal error)"}
            return
