"""Float audit of the constructed network (issue 13, deliverable 2).

The network's weights are rounded to the working format (nearest, exactly:
:mod:`proofcheck.frontend.export.rounding`), the dataset's input tokens too, and the
network is evaluated in that precision — numpy for float64/float32, PyTorch
(the exported standalone module's layers) for bfloat16.  Alongside, the trusted
exact backend evaluates the EXACT network (hardmax; for Theorem 1.8 the τ → 0
limit, the same network) and after every sub-layer the audit records

* the largest deviation ``max |float - exact|`` over all tokens and coordinates
  (the exact value is rounded to float64 for the subtraction, so for a float64
  audit the figure carries an extra error of at most half an ulp of the exact
  value), and where it occurs;
* region exits: for an FF layer, a token and hidden unit whose float
  pre-activation ``U x + b`` has a different ReLU state (active iff > 0) than
  the exact one — the hat / plateau / snap then no longer applies the affine
  piece the proof uses; for an SA layer, a token whose float argmax set (equal
  computed scores) differs from the exact argmax set.  The exact sides are
  decided exactly: a float64 filter with a conservative error bound settles
  clear cases, every undecided one is computed with Fractions;
* at the end, whether the float outputs EQUAL the targets (the targets rounded
  to the format, compared bit for bit, as sets per pair) or ROUND TO them (every
  output within half the smallest distance between distinct targets of its
  pair, in the max norm, of a target, and every target so reached).

An audit never changes a verdict: the exact checker decides Theorem 1.6; the
audit says what floating point does to the verified network.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

DTYPES = ("float64", "float32", "bfloat16")
#: what a float audit is: a run, never a verdict (the rounding certificate decides)
RUN_LABEL = ("one evaluation in {dtype} in the evaluator's own summation order (numpy; "
             "PyTorch for bfloat16): a run, not a verdict")
UNIT = {"float64": 2.0 ** -53}


@dataclass
class LayerRow:
    block: int
    sublayer: str
    label: str
    max_dev: float
    where: tuple | None          # (sequence, token, coordinate) of max_dev
    max_abs: float               # largest |exact coordinate| after the sub-layer
    exits: int = 0               # region exits in this sub-layer
    nonfinite: int = 0           # float coordinates that are inf/NaN

    def to_json(self):
        return {"block": self.block, "sublayer": self.sublayer, "label": self.label,
                "max_dev": _j(self.max_dev), "where": self.where, "max_abs": _j(self.max_abs),
                "region_exits": self.exits, "nonfinite": self.nonfinite}


def _j(x):
    return x if np.isfinite(x) else str(x)


@dataclass
class AuditResult:
    dtype: str
    attention: str
    tau: object
    layers: list = field(default_factory=list)
    first_exit: dict | None = None
    exits_total: int = 0
    final: dict = field(default_factory=dict)
    inputs_rounded: int = 0
    weights_rounded: int = 0
    weights_total: int = 0
    weights_overflow: int = 0
    checked_until: dict | None = None   # region checks stopped after this sub-layer
    seconds: dict = field(default_factory=dict)
    # the exact outputs, every token in order (the reference trajectory's end; not in JSON)
    exact_final: list | None = field(default=None, repr=False)

    @property
    def max_dev(self) -> float:
        return max((r.max_dev for r in self.layers), default=0.0)

    def per_block(self):
        """``[(block, max deviation after the block's SA)]``."""
        return [(r.block, r.max_dev) for r in self.layers if r.sublayer == "SA"]

    def to_json(self):
        return {"kind": "run", "what": RUN_LABEL.format(dtype=self.dtype),
                "dtype": self.dtype, "attention": self.attention,
                "tau": None if self.tau is None else str(self.tau),
                "max_dev": _j(self.max_dev), "first_region_exit": self.first_exit,
                "region_checks_stopped_after": self.checked_until,
                "region_exits": self.exits_total, "final": self.final,
                "inputs_rounded": self.inputs_rounded, "weights_rounded": self.weights_rounded,
                "weights_total": self.weights_total, "weights_overflow": self.weights_overflow,
                "layers": [r.to_json() for r in self.layers], "seconds": self.seconds}


def _torch_adapter(tensors, desc):
    """The bfloat16 evaluator (PyTorch: the ``torch`` extra)."""
    from proofcheck.frontend.export.torch_eval import TorchAdapter
    return TorchAdapter(tensors, desc)


class _NumpyAdapter:
    def __init__(self, tensors, desc, dtype):
        from proofcheck.frontend.export.numpy_eval import NumpyNet
        self.net = NumpyNet(tensors, desc, dtype)
        self.dtype = dtype

    def prepare(self, X, mask):
        return X.astype(self.dtype), mask

    def ff(self, i, X):
        return self.net.ff(i, X)

    def sa(self, i, X, mask):
        return self.net.sa(i, X, mask)

    @staticmethod
    def np64(x):
        return None if x is None else (x if x.dtype == bool else x.astype(np.float64))

    def close(self):
        pass


def _dense(f, d):
    return [[float(x) for x in row] for row in f.dense(d)]


def audit(net, inputs, targets, dtype: str = "float64", attention: str = "hardmax", tau=None,
          progress=None) -> AuditResult:
    """Evaluate ``net`` (exact :class:`~proofcheck.kernel.model.Transformer`) in
    ``dtype`` and compare it sub-layer by sub-layer with the exact hardmax
    trajectory: :func:`audit_many` for one dtype."""
    return audit_many(net, inputs, targets, [dtype], attention, tau, progress)[0]


class _ExactRows:
    """``rows[i]``: token ``i`` of an exact backend state as a tuple of Fractions
    (computed on demand: the audit needs exact rows only where the float filter
    cannot decide)."""

    def __init__(self, be, state):
        from proofcheck.kernel.fast.flint import f2q
        self.be, self.state, self.f2q = be, state, f2q

    def __getitem__(self, i):
        return tuple(self.f2q(v) for v in self.be.row(self.state, int(i)))


class _Side:
    """One working precision: its evaluator, float state and result."""

    def __init__(self, dtype, net, attention, tau, inputs, mask, shape):
        from proofcheck.frontend.export.arch import describe, require_one_unmasked_head, rounded_arrays
        from proofcheck.frontend.export.rounding import FormatOverflow, get_format, round_q
        self.fmt = get_format(dtype)
        self.res = AuditResult(dtype, attention, tau)
        tensors, stats = rounded_arrays(net, dtype)
        self.res.weights_rounded, self.res.weights_total = stats["changed"], stats["total"]
        self.res.weights_overflow = stats["overflow"]
        desc = describe(net, attention, tau)
        if dtype == "bfloat16":
            require_one_unmasked_head(desc, "the bfloat16 audit (the PyTorch module)")
        self.ev = _torch_adapter(tensors, desc) if dtype == "bfloat16" else \
            _NumpyAdapter(tensors, desc, np.float64 if dtype == "float64" else np.float32)
        Xf = np.zeros(shape, dtype=np.float64)
        for j, X in enumerate(inputs):
            for t, x in enumerate(X):
                for c, v in enumerate(x):
                    try:
                        r = round_q(v, self.fmt)
                        Xf[j, t, c] = float(r)
                    except FormatOverflow:
                        r = None
                        Xf[j, t, c] = np.inf if v > 0 else -np.inf
                    if r != v:
                        self.res.inputs_rounded += 1
        self.xf, self.mk = self.ev.prepare(Xf, mask)
        self.F = self.ev.np64(self.xf)[mask]
        self.checking = True         # region checks run until the first exit
        self.t_float = self.t_check = 0.0


def audit_many(net, inputs, targets, dtypes=("float64",), attention: str = "hardmax", tau=None,
               progress=None) -> list[AuditResult]:
    """Audit ``net`` in every dtype of ``dtypes`` against ONE exact trajectory.

    ``net``: exact :class:`~proofcheck.kernel.model.Transformer`; ``inputs[j]``
    ``(n_j, d)``, ``targets[j]`` ``(m_j, d)`` Fractions; ``attention`` hardmax or
    softmax (then ``tau`` > 0: the float network uses softmax at τ, the exact
    reference stays hardmax).  Returns one :class:`AuditResult` per dtype.

    The exact trajectory comes from the trusted flint backend, sub-layer by
    sub-layer, in its compact form: an FF names the rows it changed (only those
    are converted to float64), a tag names the attended top of every sequence
    and keeps per-sequence offsets, a rank-one gather names the attended row of
    every token; only those layers convert all tokens (``to_float64``,
    correctly rounded).  Region checks are vectorised float64 filters with a
    conservative error bound, exact (Fractions) for every undecided case, and
    use the backend's exact argmax where it has one.  Once a precision's float
    trajectory has left a region (first exit found), its region checks stop
    (``exits`` counts the exits of the layers checked; ``checked_until`` says
    where checking stopped); deviations are recorded for every sub-layer.

    Raises ``ValueError`` for an unknown dtype; ``ImportError`` when bfloat16 is
    asked without torch.  Source: issue 13; docs/spec.md §1 semantics."""
    for dtype in dtypes:
        if dtype not in DTYPES:
            raise ValueError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    t_start = time.perf_counter()
    run = _Audit(net, inputs, dtypes, attention, tau)
    try:
        for bi, blk in enumerate(net.blocks, start=1):
            for sub, layer in (("FF", blk.ff), ("SA", blk.sa)):
                if layer.is_identity and (sub == "SA" or layer.width == 0):
                    run.identity(bi, sub, layer)
                else:
                    run.step(bi, sub, layer)
            if progress:
                progress(bi, net.L)
    finally:
        for s in run.sides:
            s.ev.close()
    exact_final = run.be.to_fractions(run.state)
    for s in run.sides:
        s.res.exact_final = exact_final
        s.res.final = _final(s.F, targets, run.spans, s.fmt)
        s.res.seconds = {"float": s.t_float, "exact (shared)": run.t_exact,
                         "region checks": s.t_check, "total (shared)": time.perf_counter() - t_start}
    return [s.res for s in run.sides]


class _Audit:
    """The shared exact trajectory (flint backend, float64 copy ``E``) and one
    :class:`_Side` per precision, advanced one sub-layer at a time."""

    EPS = 2.0 ** -50             # float64 filter: generous relative error allowance

    def __init__(self, net, inputs, dtypes, attention, tau):
        from proofcheck.kernel.evaluate import spans_of
        from proofcheck.kernel.fast import get_backend
        self.d = net.d
        self.spans = spans_of(len(X) for X in inputs)
        T = self.spans[-1][1]
        self.seq_of = np.empty(T, dtype=np.int64)
        self.tok_of = np.empty(T, dtype=np.int64)
        for j, (lo, hi) in enumerate(self.spans):
            self.seq_of[lo:hi] = j
            self.tok_of[lo:hi] = np.arange(hi - lo)
        self.B, self.n = len(inputs), max(len(X) for X in inputs)
        self.mask = np.zeros((self.B, self.n), dtype=bool)
        for j, X in enumerate(inputs):
            self.mask[j, :len(X)] = True
        self.lo_of = np.array([lo for lo, _ in self.spans], dtype=np.int64)
        self.sides = []
        for dt in dtypes:
            self.sides.append(_Side(dt, net, attention, tau, inputs, self.mask,
                                    (self.B, self.n, self.d)))
        self.be = get_backend("flint")
        self.state = self.be.load(inputs)
        self.E = self.be.to_float64(self.state)     # nearest float64 of the exact layer input
        self.t_exact = 0.0
        self.max_abs = float(np.max(np.abs(self.E))) if self.E.size else 0.0

    def loc(self, where):
        return None if where is None else (int(self.seq_of[where[0]]),
                                           int(self.tok_of[where[0]]), int(where[1]))

    def recorder(self, side, bi, sub):
        def rec(row, what, exact_val, float_val):
            side.pending.append((row, {"block": bi, "sublayer": sub,
                                       "sequence": int(self.seq_of[row]),
                                       "token": int(self.tok_of[row]), **what,
                                       "exact": exact_val, "float": float_val}))
        return rec

    def identity(self, bi, sub, layer) -> None:
        """An identity sub-layer is exactly the identity in every precision too (the
        float evaluators skip a width-0 FF with eta = 1 and an SA with rho = 1, V = 0):
        neither F nor E changes."""
        for s in self.sides:
            p = s.res.layers[-1] if s.res.layers else None
            if p is None:
                md, where, nonfin = _dev(s.F, self.E)
                p = LayerRow(0, "", "", md, self.loc(where), self.max_abs, 0, nonfin)
            s.res.layers.append(LayerRow(bi, sub, layer.label, p.max_dev, p.where,
                                         self.max_abs, 0, p.nonfinite))

    def step(self, bi, sub, layer) -> None:
        """The float sub-layer in every precision, then the exact one with the region
        checks (an FF's before the flint FF updates rows in place), then the rows."""
        outs = [self.float_layer(s, bi, sub) for s in self.sides]
        t0 = time.perf_counter()
        new_state, touched = (self.exact_ff(bi, layer, outs) if sub == "FF"
                              else self.exact_sa(bi, layer, outs))
        if touched is None:
            self.E = self.be.to_float64(new_state)
        elif touched:
            idx = np.asarray(touched, dtype=np.int64)
            self.E[idx] = [[_float(v) for v in self.be.row(new_state, int(i))] for i in idx]
        self.state = new_state
        self.max_abs = float(np.max(np.abs(self.E))) if self.E.size else 0.0
        self.t_exact += time.perf_counter() - t0
        for s, (new, _, _) in zip(self.sides, outs):
            self.record(s, bi, sub, layer, new)

    def float_layer(self, s, bi, sub):
        t0 = time.perf_counter()
        if sub == "FF":
            new, Z = s.ev.ff(bi - 1, s.xf)
            out = (new, Z, None)
        else:
            new, C, _ = s.ev.sa(bi - 1, s.xf, s.mk)
            out = (new, None, C)
        s.t_float += time.perf_counter() - t0
        return out

    def exact_ff(self, bi, layer, outs):
        exrows = _ExactRows(self.be, self.state)
        for s, (_, Z, _) in zip(self.sides, outs):
            s.pending, s.exits = [], 0
            if Z is not None and s.checking:
                tc = time.perf_counter()
                rec = self.recorder(s, bi, "FF")
                s.exits = _ff_exits(layer, s.ev.np64(Z)[self.mask], self.E, exrows, self.EPS,
                                    lambda row, k, z, zh, rec=rec: rec(
                                        row, {"unit": int(k), "coordinate": None},
                                        str(z), float(zh)))
                s.t_check += time.perf_counter() - tc
        new_state, touched, _ = self.be.ff(layer, self.state)
        return new_state, touched

    def exact_sa(self, bi, layer, outs):
        from proofcheck.kernel.attention import HARDMAX
        new_state, touched, _ = self.be.sa(layer, self.state, HARDMAX)
        best = self.attended(new_state)
        exrows = _ExactRows(self.be, self.state)
        for s, (_, _, C) in zip(self.sides, outs):
            s.pending, s.exits = [], 0
            for h, (hl, Ch) in enumerate(zip(head_layers(layer), C if isinstance(C, list)
                                             else [C])):
                if Ch is None or not s.checking:
                    continue
                tc = time.perf_counter()
                rec = self.recorder(s, bi, "SA")
                head = {"head": h + 1} if layer.H > 1 else {}  # docs/spec.md §1 "Extensions"
                s.exits += _sa_exits(hl, s.ev.np64(Ch), self.E, exrows, self.mask, self.spans,
                                     self.d, self.EPS,
                                     lambda row, key, ex_set, fl_set, rec=rec, head=head: rec(
                                         row, {"key": key, "coordinate": None, **head}, ex_set,
                                         fl_set), best=best)
                s.t_check += time.perf_counter() - tc
        return new_state, touched

    def attended(self, new_state):
        """The exact unique attended token of every token, when the backend knows it
        (a tag's tops, a rank-one gather's sources), else None."""
        if new_state is self.state:
            return None
        if new_state.tag is not None:
            tops = np.asarray(new_state.tag[0], dtype=np.int64)
            return (tops - self.lo_of)[:, None] * np.ones((1, self.n), dtype=np.int64)
        if new_state.shift is not None:
            src = np.asarray(new_state.shift[0], dtype=np.int64)
            best = np.zeros((self.B, self.n), dtype=np.int64)
            best[self.mask] = src - self.lo_of[self.seq_of]
            return best
        return None

    def record(self, s, bi, sub, layer, new) -> None:
        s.xf = new
        s.F = s.ev.np64(new)[self.mask]
        md, where, nonfin = _dev(s.F, self.E)
        s.res.layers.append(LayerRow(bi, sub, layer.label, md, self.loc(where), self.max_abs,
                                     s.exits, nonfin))
        s.res.exits_total += s.exits
        if s.pending:
            s.res.first_exit = min(s.pending, key=lambda p: p[0])[1]
            s.checking = False
            s.res.checked_until = {"block": bi, "sublayer": sub}


def _float(v) -> float:
    try:
        return float(v)
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def _dev(F, E):
    """``(max |F - E|, (row, coordinate) or None, number of non-finite F)``;
    NaN counts as an infinite deviation."""
    if not F.size:
        return 0.0, None, 0
    with np.errstate(all="ignore"):
        diff = np.abs(F - E)
    nonfin = int((~np.isfinite(F)).sum())
    diff = np.where(np.isnan(diff), np.inf, diff)
    k = int(np.argmax(diff))
    md = float(diff.flat[k])
    d = F.shape[1]
    return md, ((k // d, k % d) if md > 0 else None), nonfin


def _ff_exits(ff, Zf, E, ex, eps, report) -> int:
    """Count (row, unit) pairs whose float ReLU state differs from the exact one;
    ``Zf`` ``(T, width)`` float pre-activations (float64 copy), ``E``/``ex`` the
    exact layer input (float64-rounded / Fractions)."""
    U = np.array([[float(x) for x in u] for u in ff.U], dtype=np.float64)
    b = np.array([float(x) for x in ff.b], dtype=np.float64)
    with np.errstate(all="ignore"):
        za = E @ U.T + b
        err = eps * (np.abs(E) @ np.abs(U).T + np.abs(b)) * (len(ff.U[0]) + 2) + 1e-300
    sure = np.isfinite(za) & np.isfinite(err) & (np.abs(za) > err)
    fl_act = Zf > 0
    bad = ~np.isfinite(Zf)
    mism = sure & (fl_act != (za > 0))
    hits = np.argwhere(mism | (bad & sure))            # exact sign known from the filter
    count = len(hits)
    if count:
        row, k = hits[0]
        report(int(row), int(k), f"~{za[row, k]:.6g}", Zf[row, k])
    for row, k in np.argwhere(~sure):                  # undecided: exact Fractions
        z = sum((a * x for a, x in zip(ff.U[k], ex[row])), Fraction(0)) + ff.b[k]
        zh = Zf[row, k]
        if z == 0:
            if np.isfinite(zh):
                continue        # at a kink: both sides give the same value
        elif np.isfinite(zh) and (z > 0) == (zh > 0):
            continue
        count += 1
        report(int(row), int(k), z, zh)
    return count


def head_layers(sa) -> list:
    """One single-head layer per head of ``sa`` (``sa`` itself when H = 1), mask kept."""
    from proofcheck.kernel.model import SA
    return [sa] if sa.H == 1 else [SA(Fraction(0), A, V, causal=sa.causal) for A, V in sa.heads]


def _sa_exits(sa, Cf, E, ex, mask, spans, d, eps, report, best=None) -> int:
    """Count query tokens whose float argmax set differs from the exact one.

    ``Cf`` ``(B, n, n)`` float argmax sets; ``E`` ``(T, d)`` float64 copies of
    the exact layer input and ``ex[i]`` its exact rows (Fractions, read only
    where the filter cannot decide); ``best`` ``(B, n)`` ints or None: the exact
    unique attended token (sequence-local) when the exact backend knows it (a
    tag or a rank-one gather), which replaces the filter.  ``report(row, key,
    exact set, float set)`` is called for the first exit and every exactly
    decided one."""
    if best is not None:
        Cq = np.zeros_like(Cf)
        np.put_along_axis(Cq, best[..., None], True, -1)
        differs = mask & np.any(Cq != Cf, axis=-1)
        count = int(differs.sum())
        if count:
            j, t = np.argwhere(differs)[0]
            report(spans[j][0] + int(t), int(best[j, t]), [int(best[j, t])],
                   [int(x) for x in np.nonzero(Cf[j, t, :spans[j][1] - spans[j][0]])[0]])
        return count
    Cx = _rank_one_sets(sa, ex, mask, spans)
    if Cx is not None:  # exact argmax sets of a rank-one A (Lemma 4.1), ties included
        differs = mask & np.any(Cx != Cf, axis=-1)
        count = int(differs.sum())
        for j, t in np.argwhere(differs)[:1]:
            lo, hi = spans[j]
            report(lo + int(t), int(np.argmax(Cx[j, t])),
                   [int(x) for x in np.nonzero(Cx[j, t, :hi - lo])[0]],
                   [int(x) for x in np.nonzero(Cf[j, t, :hi - lo])[0]])
        return count
    A = np.array(_dense(sa.A, d), dtype=np.float64)
    B, n = mask.shape
    Ep = np.zeros((B, n, d))
    Ep[mask] = E
    with np.errstate(all="ignore"):
        AX = Ep @ A.T
        S = AX @ np.swapaxes(Ep, -1, -2)
        err = eps * (d + 2) * (np.abs(Ep) @ np.abs(A).T) @ np.abs(np.swapaxes(Ep, -1, -2)) + 1e-300
    keys = mask[:, None, :] & (np.tril(np.ones((n, n), dtype=bool)) if sa.causal else True)
    S = np.where(keys, S, -np.inf)
    err = np.where(keys, err, 0.0)
    best = S.argmax(axis=-1)
    sb = np.take_along_axis(S, best[..., None], -1)
    eb = np.take_along_axis(err, best[..., None], -1)
    others = S.copy()
    np.put_along_axis(others, best[..., None], -np.inf, -1)
    clear = np.all((sb - others) > (eb + err), axis=-1) & np.isfinite(sb[..., 0])
    Cq = np.zeros_like(Cf)
    np.put_along_axis(Cq, best[..., None], True, -1)
    differs = mask & clear & np.any(Cq != Cf, axis=-1)
    count = int(differs.sum())
    if count:
        j, t = np.argwhere(differs)[0]
        report(spans[j][0] + int(t), int(best[j, t]), [int(best[j, t])],
               [int(x) for x in np.nonzero(Cf[j, t, :spans[j][1] - spans[j][0]])[0]])
    Ad = sa.A
    for j, t in np.argwhere(mask & ~clear):          # undecided: exact Fractions
        lo, hi = spans[j]
        ax = Ad.apply(ex[lo + t])
        sc = [sum((a * x for a, x in zip(ax, ex[lo + l])), Fraction(0))
              for l in range(t + 1 if sa.causal else hi - lo)]
        m = max(sc)
        exact_set = [l for l, s in enumerate(sc) if s == m]
        float_set = [int(x) for x in np.nonzero(Cf[j, t, :hi - lo])[0]]
        if exact_set != float_set:
            count += 1
            report(lo + int(t), exact_set[0], exact_set, float_set)
    return count


def _rank_one_sets(sa, ex, mask, spans):
    """Exact hardmax argmax sets ``(B, n, n)`` for ``A = a b^T`` (no identity part):
    ``s_il = <b, x_i> <a, x_l>``, so token i attends to the a-maximal tokens of its
    sequence if ``<b, x_i> > 0``, the a-minimal if ``< 0``, all if ``= 0`` (Lemma
    4.1).  The projections are exact (python-flint products on the exact backend
    state ``ex.state``); ``None`` when A is not of that form or the state holds
    pending offsets."""
    A = sa.A
    state = getattr(ex, "state", None)
    if (A.lam != 0 or len(A.left) != 1 or state is None or sa.causal
            or getattr(state, "off", None) is not None):
        return None
    from flint import fmpq, fmpq_mat
    d = state.d

    def col(v):
        return fmpq_mat(d, 1, [fmpq(x.numerator, x.denominator) for x in v])
    p = (state.X * col(A.left[0])).entries()
    q = (state.X * col(A.right[0])).entries()
    C = np.zeros(mask.shape + (mask.shape[1],), dtype=bool)
    zero = fmpq(0)
    for j, (lo, hi) in enumerate(spans):
        ps = p[lo:hi]
        top, bot = max(ps), min(ps)
        sets = {1: [v == top for v in ps], -1: [v == bot for v in ps], 0: [True] * (hi - lo)}
        for t in range(hi - lo):
            v = q[lo + t]
            C[j, t, :hi - lo] = sets[1 if v > zero else -1 if v < zero else 0]
    return C


def _final(F, targets, spans, fmt) -> dict:
    """Compare the float outputs ``F`` ``(T, d)`` with the targets."""
    from proofcheck.frontend.export.rounding import to_float
    pairs_equal = pairs_round = 0
    first_bad = None
    for j, ((lo, hi), Y) in enumerate(zip(spans, targets)):
        Yf = np.array([[to_float(v, fmt) for v in y] for y in Y], dtype=np.float64)
        out = F[lo:hi]
        eq = {tuple(r) for r in out.tolist()} == {tuple(r) for r in Yf.tolist()}
        pairs_equal += eq
        Yq = [tuple(Fraction(v) for v in y) for y in Y]
        sep = min((max(abs(a - b) for a, b in zip(y1, y2)) for k, y1 in enumerate(Yq)
                   for y2 in Yq[k + 1:]), default=None)
        rad = 0.5 if sep is None else float(sep) / 2
        with np.errstate(all="ignore"):
            dist = np.max(np.abs(out[:, None, :] - Yf[None, :, :]), axis=-1)  # (n_j, m_j)
        near = dist < rad
        ok = bool(np.all(near.any(axis=1)) and np.all(near.any(axis=0)))
        pairs_round += ok
        if not ok and first_bad is None:
            t = int(np.argmin(near.any(axis=1))) if not np.all(near.any(axis=1)) else None
            first_bad = {"sequence": j, "token": t,
                         "distance": _j(float(np.min(dist[t]))) if t is not None else None}
    N = len(targets)
    return {"pairs": N, "pairs_equal": pairs_equal, "pairs_round_to_targets": pairs_round,
            "all_equal": pairs_equal == N, "all_round": pairs_round == N,
            "first_failure": first_bad}


def deviation_series(pts):
    """``(blocks, log10 deviations, exact blocks)`` to draw from ``[(block,
    deviation)]``: every finite positive deviation is a point on the log axis; a
    deviation of exactly 0 has no logarithm and goes to the "exactly 0" strip (its
    block in the third list); infinite or NaN deviations are left to the inf/NaN
    strip."""
    xs = [b for b, v in pts if np.isfinite(v) and v > 0]
    ys = [float(np.log10(v)) for b, v in pts if np.isfinite(v) and v > 0]
    return xs, ys, [b for b, v in pts if v == 0]


def deviation_plot(path, results, title: str):
    """PNG of the largest deviation after each block against the block (both on log
    scales: the float trajectories of long networks leave early; the deviation as
    log10 on a linear axis, ticks labelled 10^k, because deviations reach 1e300) for
    one or more audits (``results``: list of :class:`AuditResult`), in three panels
    sharing the block axis: the log axis (every finite positive deviation a marker,
    so an isolated value is always drawn), below it a strip for the blocks whose
    deviation is exactly 0 (no 0 on a log axis), above it a strip for the first
    block whose deviation is infinite or NaN (an x and a dotted line).  The first
    region exit is a dashed line, one per block with every precision that exits
    there named in its label.  Block ticks are plain integers."""
    from proofcheck.frontend.reporting.plots import save_png
    return save_png(deviation_figure(results, title), path, tight=False)


def deviation_figure(results, title: str):
    """The matplotlib figure of :func:`deviation_plot` (axes: inf/NaN strip, log axis,
    exactly-0 strip)."""
    from proofcheck.frontend.reporting.plots import pyplot
    plt = pyplot()
    fig, (top, ax, low) = plt.subplots(3, 1, sharex=True, figsize=(10.5, 4.6), dpi=100,
                                       gridspec_kw={"height_ratios": [0.5, 4, 0.5],
                                                    "hspace": 0.08})
    exits, infs = {}, {}
    for k, r in enumerate(results):
        pts = r.per_block()
        xs, ys, zeros = deviation_series(pts)
        line, = ax.plot(xs, ys, "o-", ms=3, lw=1.2, label=f"{r.dtype}: max |float - exact|")
        if zeros:  # one row per precision inside the strip, so that none hides another
            y = 0.5 * (k - (len(results) - 1) / 2)
            low.plot(zeros, [y] * len(zeros), "o", ms=3, color=line.get_color(),
                     label=f"{r.dtype}: deviation exactly 0")
        first_inf = next((b for b, v in pts if not np.isfinite(v)), None)
        if first_inf is not None:
            infs.setdefault(first_inf, []).append((r.dtype, line.get_color()))
        if r.first_exit:
            exits.setdefault(r.first_exit["block"], []).append((r.dtype, line.get_color()))
    _mark_blocks(top, ax, low, infs, exits)
    _deviation_axes(top, ax, low, title)
    return fig


def _mark_blocks(top, ax, low, infs, exits) -> None:
    """The first inf/NaN block of each precision (an x in the top strip, a dotted line)
    and the first region exits (dashed lines), across the three panels."""
    for block, who in sorted(infs.items()):
        for dtype, color in who:
            for a in (top, ax, low):
                a.axvline(block, color=color, ls=":", lw=1)
            top.plot([block], [0], "x", color=color, ms=8, mew=2,
                     label=f"{dtype}: inf/NaN from block {block}")
    for block, who in sorted(exits.items()):
        for a in (top, low):
            a.axvline(block, color=who[0][1], ls="--", lw=1.2)
        ax.axvline(block, color=who[0][1], ls="--", lw=1.2,
                   label=", ".join(d for d, _ in who) + f": first region exit (block {block})")


def _deviation_axes(top, ax, low, title: str) -> None:
    """Scales, ticks (10^k on the log axis: no 0 there), labels and legends."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter
    low.set_xscale("log")
    low.xaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    low.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    low.xaxis.set_minor_formatter(NullFormatter())
    for strip, text in ((top, "inf/NaN"), (low, "exactly 0")):
        strip.set_ylim(-1.2, 1.2)
        strip.yaxis.set_major_locator(FixedLocator([0]))
        strip.yaxis.set_major_formatter(FuncFormatter(lambda v, _, t=text: t))
    lo, hi = ax.get_ylim()
    ticks = [t for t in ax.get_yticks() if lo <= t <= hi and float(t).is_integer()]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"$10^{{{v:g}}}$"))
    low.set_xlabel("block (log scale)")
    ax.set_ylabel("largest deviation\n(max norm, log scale)")
    top.set_title(title)
    handles, labels = [], []
    for a in (top, ax, low):
        h, lab = a.get_legend_handles_labels()
        handles, labels = handles + h, labels + lab
    ax.figure.subplots_adjust(left=0.1, right=0.68, top=0.92, bottom=0.11)
    ax.figure.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.7, 0.9), fontsize=8,
                     frameon=False)
