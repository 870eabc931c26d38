"""Float audit of the constructed network (issue 13, deliverable 2).

The network's weights are rounded to the working format (nearest, exactly:
:mod:`proofcheck.export.rounding`), the dataset's input tokens too, and the
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
    seconds: dict = field(default_factory=dict)

    @property
    def max_dev(self) -> float:
        return max((r.max_dev for r in self.layers), default=0.0)

    def per_block(self):
        """``[(block, max deviation after the block's SA)]``."""
        return [(r.block, r.max_dev) for r in self.layers if r.sublayer == "SA"]

    def to_json(self):
        return {"dtype": self.dtype, "attention": self.attention,
                "tau": None if self.tau is None else str(self.tau),
                "max_dev": _j(self.max_dev), "first_region_exit": self.first_exit,
                "region_exits": self.exits_total, "final": self.final,
                "inputs_rounded": self.inputs_rounded, "weights_rounded": self.weights_rounded,
                "weights_total": self.weights_total, "weights_overflow": self.weights_overflow,
                "layers": [r.to_json() for r in self.layers], "seconds": self.seconds}


class _TorchAdapter:
    """bfloat16 evaluation with the standalone PyTorch layers; returns numpy float64."""

    def __init__(self, tensors, desc):
        import torch

        from proofcheck.export import standalone_torch as st
        self.torch = torch
        self.model = st.ProofcheckTransformer(desc, torch.bfloat16)
        self.model.load_state_dict({k: torch.from_numpy(np.asarray(v, dtype=np.float32).copy())
                                    .to(torch.bfloat16) for k, v in tensors.items()})
        self.blocks = list(self.model.blocks)

    def prepare(self, X, mask):
        t = self.torch
        return t.from_numpy(X.astype(np.float32)).to(t.bfloat16), t.from_numpy(mask)

    def ff(self, i, X):
        f = self.blocks[i].ff
        with self.torch.no_grad():
            Z = f.preactivation(X) if f.width else None
            return f(X), Z

    def sa(self, i, X, mask):
        a = self.blocks[i].sa
        with self.torch.no_grad():
            if a.value_zero:
                return a(X, mask), None, None
            S = a.scores(X, mask)
            return a(X, mask), S == S.amax(dim=-1, keepdim=True), S

    def np64(self, x):
        if x is None:
            return None
        if x.dtype == self.torch.bool:
            return x.numpy()
        return x.float().numpy().astype(np.float64)


class _NumpyAdapter:
    def __init__(self, tensors, desc, dtype):
        from proofcheck.export.numpy_eval import NumpyNet
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


def _qfloat(q: Fraction) -> float:
    try:
        return q.numerator / q.denominator  # correctly rounded (CPython int true division)
    except OverflowError:
        return float("inf") if q > 0 else float("-inf")


def _dense(f, d):
    return [[float(x) for x in row] for row in f.dense(d)]


def audit(net, inputs, targets, dtype: str = "float64", attention: str = "hardmax", tau=None,
          progress=None) -> AuditResult:
    """Evaluate ``net`` (exact :class:`~proofcheck.kernel.model.Transformer`) in
    ``dtype`` and compare it sub-layer by sub-layer with the exact hardmax
    trajectory.  ``inputs[j]``: ``(n_j, d)``, ``targets[j]``: ``(m_j, d)``
    Fractions.  ``attention``: ``hardmax`` or ``softmax`` (then ``tau`` > 0, the
    float network uses softmax at τ while the exact reference stays hardmax).
    Raises ``ValueError`` for an unknown dtype; ``ImportError`` when bfloat16 is
    asked without torch.  Source: issue 13; SPEC §1 semantics."""
    from proofcheck.export.arch import arrays, describe
    from proofcheck.export.rounding import FormatOverflow, get_format, round_q, round_network
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.backends import get_backend, spans_of
    from proofcheck.kernel.backends.flint import f2q
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; choose one of {', '.join(DTYPES)}")
    t_start = time.perf_counter()
    fmt = get_format(dtype)
    res = AuditResult(dtype, attention, tau)
    _, stats = round_network(net, fmt)
    res.weights_rounded, res.weights_total = stats["changed"], stats["total"]
    res.weights_overflow = len(stats["overflow"])
    desc = describe(net, attention, tau)
    tensors = arrays(net, dtype)
    ev = _TorchAdapter(tensors, desc) if dtype == "bfloat16" else \
        _NumpyAdapter(tensors, desc, np.float64 if dtype == "float64" else np.float32)
    d = net.d
    spans = spans_of(len(X) for X in inputs)
    T = spans[-1][1]
    seq_of = np.empty(T, dtype=np.int64)
    tok_of = np.empty(T, dtype=np.int64)
    for j, (lo, hi) in enumerate(spans):
        seq_of[lo:hi] = j
        tok_of[lo:hi] = np.arange(hi - lo)
    B, n = len(inputs), max(len(X) for X in inputs)
    mask = np.zeros((B, n), dtype=bool)
    for j, X in enumerate(inputs):
        mask[j, :len(X)] = True

    # float inputs, rounded to the format
    Xf = np.zeros((B, n, d), dtype=np.float64)
    for j, X in enumerate(inputs):
        for t, x in enumerate(X):
            for c, v in enumerate(x):
                try:
                    r = round_q(v, fmt)
                    Xf[j, t, c] = float(r)
                except FormatOverflow:
                    r = None
                    Xf[j, t, c] = np.inf if v > 0 else -np.inf
                if r != v:
                    res.inputs_rounded += 1
    xf, mk = ev.prepare(Xf, mask)

    # exact side
    be = get_backend("flint")
    state = be.load(inputs)
    ex = [tuple(Fraction(v) for v in x) for X in inputs for x in X]
    E = np.array([[_qfloat(v) for v in x] for x in ex], dtype=np.float64)
    eps = 2.0 ** -50  # float64 filter: generous relative error allowance

    def exact_update(new, touched):
        if touched is None:
            rows = be.to_fractions(new)
            ex[:] = rows
            E[:] = [[_qfloat(v) for v in x] for x in rows]
            return
        for i in touched:
            r = tuple(f2q(v) for v in be.row(new, i))
            ex[i] = r
            E[i] = [_qfloat(v) for v in r]

    def record_exit(bi, sub, row, what, exact_val, float_val):
        pending.append((row, {"block": bi, "sublayer": sub, "sequence": int(seq_of[row]),
                              "token": int(tok_of[row]), **what,
                              "exact": exact_val, "float": float_val}))

    t_float = t_exact = t_check = 0.0
    for bi, blk in enumerate(net.blocks, start=1):
        i = bi - 1
        for sub in ("FF", "SA"):
            layer = blk.ff if sub == "FF" else blk.sa
            t0 = time.perf_counter()
            if sub == "FF":
                xf_new, Z = ev.ff(i, xf)
                C = None
            else:
                xf_new, C, _ = ev.sa(i, xf, mk)
                Z = None
            F = ev.np64(xf_new)[mask]
            t1 = time.perf_counter()
            t_float += t1 - t0
            # region checks on the layer's INPUT (E, ex still hold it)
            exits, pending = 0, []
            if Z is not None:
                exits = _ff_exits(layer, ev.np64(Z)[mask], E, ex, eps,
                                  lambda row, k, z, zh: record_exit(
                                      bi, "FF", row, {"unit": int(k), "coordinate": None},
                                      str(z), float(zh)))
            if C is not None:
                exits = _sa_exits(layer, ev.np64(C), E, ex, mask, spans, d, eps,
                                  lambda row, key, ex_set, fl_set: record_exit(
                                      bi, "SA", row, {"key": key, "coordinate": None},
                                      ex_set, fl_set))
            res.exits_total += exits
            if pending and res.first_exit is None:
                res.first_exit = min(pending, key=lambda p: p[0])[1]
            t2 = time.perf_counter()
            t_check += t2 - t1
            # exact sub-layer
            new, touched, _ = (be.ff(layer, state) if sub == "FF" else
                               be.sa(layer, state, HARDMAX))
            exact_update(new, touched)
            state = new
            t_exact += time.perf_counter() - t2
            with np.errstate(all="ignore"):
                diff = np.abs(F - E)
            nonfin = int((~np.isfinite(F)).sum())
            diff = np.where(np.isnan(diff), np.inf, diff)
            k = int(np.argmax(diff)) if diff.size else 0
            md = float(diff.flat[k]) if diff.size else 0.0
            where = (int(seq_of[k // d]), int(tok_of[k // d]), int(k % d)) if md > 0 else None
            res.layers.append(LayerRow(bi, sub, layer.label, md, where,
                                       float(np.max(np.abs(E))) if E.size else 0.0, exits, nonfin))
            xf = xf_new
        if progress:
            progress(bi, net.L)
    res.final = _final(ev.np64(xf)[mask], ex, targets, spans, fmt)
    res.seconds = {"float": t_float, "exact": t_exact, "region checks": t_check,
                   "total": time.perf_counter() - t_start}
    return res


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


def _sa_exits(sa, Cf, E, ex, mask, spans, d, eps, report) -> int:
    """Count query tokens whose float argmax set differs from the exact one."""
    A = np.array(_dense(sa.A, d), dtype=np.float64)
    B, n = mask.shape
    Ep = np.zeros((B, n, d))
    Ep[mask] = E
    with np.errstate(all="ignore"):
        AX = Ep @ A.T
        S = AX @ np.swapaxes(Ep, -1, -2)
        err = eps * (d + 2) * (np.abs(Ep) @ np.abs(A).T) @ np.abs(np.swapaxes(Ep, -1, -2)) + 1e-300
    S = np.where(mask[:, None, :], S, -np.inf)
    err = np.where(mask[:, None, :], err, 0.0)
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
        sc = [sum((a * x for a, x in zip(ax, ex[lo + l])), Fraction(0)) for l in range(hi - lo)]
        m = max(sc)
        exact_set = [l for l, s in enumerate(sc) if s == m]
        float_set = [int(x) for x in np.nonzero(Cf[j, t, :hi - lo])[0]]
        if exact_set != float_set:
            count += 1
            report(lo + int(t), exact_set[0], exact_set, float_set)
    return count


def _final(F, ex, targets, spans, fmt) -> dict:
    """Compare the float outputs ``F`` ``(T, d)`` with the targets."""
    from proofcheck.export.rounding import to_float
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


def deviation_plot(path, results, title: str):
    """PNG of the largest deviation after each block (log scale) for one or more
    audits (``results``: list of :class:`AuditResult`), first region exit marked."""
    from proofcheck.reporting.plots import _plt, _save
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.0, 4.0), dpi=100)
    for r in results:
        pts = r.per_block()
        xs = [b for b, _ in pts]
        ys = [v if np.isfinite(v) else np.nan for _, v in pts]
        ys = [max(v, 1e-300) if v == v else np.nan for v in ys]
        line, = ax.semilogy(xs, ys, label=f"{r.dtype}: max |float - exact|")
        inf_x = [b for b, v in pts if not np.isfinite(v)]
        if inf_x:
            ax.plot(inf_x, [ax.get_ylim()[1]] * len(inf_x), "x", color=line.get_color(),
                    label=f"{r.dtype}: inf/NaN")
        if r.first_exit:
            ax.axvline(r.first_exit["block"], color=line.get_color(), ls="--", lw=1,
                       label=f"{r.dtype}: first region exit (block {r.first_exit['block']})")
    ax.set_xlabel("block")
    ax.set_ylabel("largest deviation (max norm)")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=7)
    return _save(fig, path)
