"""The exported architecture: tensors and a small JSON description (issue 13).

Every exporter (PyTorch, ONNX, safetensors) writes the same tensors, named

* ``blocks.{i}.ff.eta`` ``()``, ``.U`` ``(width, d)``, ``.b`` ``(width,)``,
  ``.W`` ``(d, width)`` — ``FF(x) = eta x + W relu(U x + b)``;
* ``blocks.{i}.sa.rho`` ``()``, ``.A_lam`` ``()``, ``.A_left`` / ``.A_right``
  ``(rank, d)``, and the same for ``V`` — ``A = A_lam I + A_left^T A_right``
  (``sum_r left_r right_r^T``, docs/spec.md §1), ``SA(X)_i = rho x_i + V sum_l pi_il x_l``
  with scores ``s_il = <A x_i, x_l>``,

A multi-head SA layer (docs/spec.md §1 "Extensions") stores head ``h`` (0-based) as
``blocks.{i}.sa.heads.{h}.A_lam`` ... ``V_right`` and adds the heads' terms; a
causal mask (``sa.causal`` in the description) restricts token i to keys ``l <= i``
before the max / softmax.  Layers without them are written exactly as before.

``i`` = 0-based block index (proofcheck's block i+1), FF before SA.  Tensors of
a zero dimension (width 0, rank 0) are written with that zero dimension except
in safetensors (see there).  The description (``proofcheck-export/1``) records
d, L, the attention rule (hardmax with exact tie averaging, or softmax at τ),
per block the FF width and the A/V ranks, the flags ``ff.identity`` (eta = 1,
W = 0) and ``sa.value_zero`` (V = 0: the layer is ``rho x``) which every
evaluator honours by skipping the attention (mathematically the same map), and
the metadata (dataset SHA-256, certificate digest, rounding).

Hardmax in floating point: ``C_i = {l : s_il == max_k s_ik}`` compared on the
computed (rounded) scores, weight ``1/|C_i|`` each.  A float tie is therefore an
exact equality of two rounded scores; it may differ from the exact tie set,
which the audit (:mod:`proofcheck.frontend.export.audit`) reports.
"""
from __future__ import annotations

from fractions import Fraction

FORMAT = "proofcheck-export/1"


def tensor_values(net):
    """``{name: (shape, [Fraction, ...] row-major)}`` for every tensor of ``net``
    (exact values; the writers round them).  Names as in the module docstring."""
    out = {}
    d = net.d
    for i, blk in enumerate(net.blocks):
        ff, sa = blk.ff, blk.sa
        p = f"blocks.{i}."
        w = ff.width
        out[p + "ff.eta"] = ((), [ff.eta])
        out[p + "ff.U"] = ((w, d), [x for u in ff.U for x in u])
        out[p + "ff.b"] = ((w,), list(ff.b))
        out[p + "ff.W"] = ((d, w), [ff.W[k][r] for r in range(d) for k in range(w)])
        out[p + "sa.rho"] = ((), [sa.rho])
        for h, (A, V) in enumerate(sa.heads):
            for nm, f in (("A", A), ("V", V)):
                r, q = len(f.left), p + head_prefix(sa.H, h)
                out[q + f"{nm}_lam"] = ((), [f.lam])
                out[q + f"{nm}_left"] = ((r, d), [x for a in f.left for x in a])
                out[q + f"{nm}_right"] = ((r, d), [x for b in f.right for x in b])
    return out


def head_prefix(H: int, h: int) -> str:
    """Tensor-name prefix of head ``h`` (0-based) of an SA layer with ``H`` heads."""
    return "sa." if H == 1 else f"sa.heads.{h}."


def heads_of(block_desc: dict) -> list:
    """``[(prefix, rank_A, rank_V, value_zero)]`` per head of a described block."""
    sa = block_desc["sa"]
    hs = sa.get("heads", [sa])
    return [(head_prefix(len(hs), h), x["rank_A"], x["rank_V"], x["value_zero"])
            for h, x in enumerate(hs)]


def uses_extensions(description: dict) -> bool:
    """True when some SA layer has several heads or the causal mask."""
    return any("heads" in b["sa"] or b["sa"].get("causal") for b in description["blocks"])


def require_one_unmasked_head(description: dict, what: str) -> None:
    """``ValueError`` naming ``what`` when the description uses the extensions (the
    PyTorch module and the safetensors reader know one unmasked head only)."""
    if uses_extensions(description):
        raise ValueError(f"{what} supports one unmasked head per SA layer; this network has "
                         "multi-head or causally masked SA layers (export to ONNX instead)")


def arrays(net, fmt_name: str = "float64"):
    """``{name: numpy array}`` of dtype float64 (or float32 for ``fmt_name ==
    'float32'``) holding each exact value rounded to the NEAREST value of the
    format (:func:`proofcheck.frontend.export.rounding.round_q`; bfloat16 values are
    returned in float32 arrays, exactly).  Overflow gives ``+-inf``."""
    return rounded_arrays(net, fmt_name)[0]


def rounded_arrays(net, fmt_name: str = "float64"):
    """``(arrays, stats)``: :func:`arrays` and, from the same single rounding
    pass, ``stats`` = ``{"total": scalars, "changed": scalars whose value the
    rounding changed, "overflow": scalars beyond the format's range}`` (counted
    over the tensors of :func:`tensor_values`, i.e. every stored scalar)."""
    import numpy as np

    from proofcheck.frontend.export.rounding import FormatOverflow, get_format, round_q
    fmt = get_format(fmt_name)
    dt = np.float64 if fmt_name == "float64" else np.float32
    memo = {}
    stats = {"total": 0, "changed": 0, "overflow": 0}

    def rnd(v):
        hit = memo.get(v)
        if hit is None:
            try:
                r = round_q(v, fmt)
                hit = memo[v] = (float(r), r != v, False)
            except FormatOverflow:
                hit = memo[v] = (float("inf") if v > 0 else float("-inf"), True, True)
        stats["changed"] += hit[1]
        stats["overflow"] += hit[2]
        return hit[0]

    out = {}
    for name, (shape, vals) in tensor_values(net).items():
        stats["total"] += len(vals)
        a = np.array([rnd(v) for v in vals], dtype=np.float64).reshape(shape)
        out[name] = a.astype(dt)  # exact: the values are already in the format
    return out, stats


def _tau_float(tau, dtype) -> float:
    """tau rounded once, to the nearest value of the export dtype (float64 when unknown)."""
    from proofcheck.frontend.export.rounding import get_format, to_float
    return to_float(Fraction(tau), get_format(dtype or "float64"))


def describe(net, attention: str = "hardmax", tau=None, metadata=None) -> dict:
    """The JSON description of the architecture (``proofcheck-export/1``)."""
    blocks = []
    for blk in net.blocks:
        ff, sa = blk.ff, blk.sa
        blocks.append({
            "phase": blk.phase,
            "ff": {"width": ff.width, "identity": bool(ff.is_identity and ff.width == 0),
                   "label": ff.label},
            "sa": _sa_desc(sa),
        })
    ext = ({"extensions": "multi-head SA adds sum_h V_h sum_l pi^h_il x_l (tensors "
                          "blocks.{i}.sa.heads.{h}.*); causal: pi_il = 0 for l > i, the max / "
                          "normaliser over l <= i"}
           if any(b["sa"].get("causal") or "heads" in b["sa"] for b in blocks) else {})
    desc = {"format": FORMAT, "d": net.d, "L": net.L, "order": "FF then SA in every block",
            "attention": attention,
            "tau": None if tau is None else str(Fraction(tau)),
            "tau_float": None if tau is None else _tau_float(tau, (metadata or {}).get("dtype")),
            "hardmax_ties": "C_i = {l : s_il == max_k s_ik} on the computed float scores; "
                            "weight 1/|C_i| each (exact tie averaging of equal floats)",
            "softmax": "pi_il = exp((s_il - max_k s_ik)/tau) / sum_k exp((s_ik - max_k s_ik)/tau)",
            "ff": "FF(x) = eta x + W relu(U x + b)",
            "sa": "SA(X)_i = rho x_i + V sum_l pi_il x_l, s_il = <A x_i, x_l>, "
                  "A = A_lam I + A_left^T A_right, V likewise",
            "tensors": "blocks.{i}.ff.{eta,U,b,W}, blocks.{i}.sa.{rho,A_lam,A_left,A_right,"
                       "V_lam,V_left,V_right}; i 0-based",
            **ext,
            "blocks": blocks,
            "metadata": metadata or {}}
    return desc


def _sa_desc(sa) -> dict:
    """One SA layer's description (one head: as before; keys added only when used)."""
    ranks = [{"rank_A": len(A.left), "rank_V": len(V.left), "value_zero": bool(V.is_zero)}
             for A, V in sa.heads]
    out = dict(ranks[0]) if sa.H == 1 else {"heads": ranks, "value_zero": bool(
        all(r["value_zero"] for r in ranks))}
    out["label"] = sa.label
    if sa.causal:
        out["causal"] = True
    return out


class Unrepresentable(ValueError):
    """A value the export format cannot hold: non-zero but rounding to 0 or to a
    subnormal, or overflowing.  ``name``: ``"tau"`` or the tensor entry."""

    def __init__(self, message: str, name: str):
        super().__init__(message)
        self.name = name


def check_representable(net=None, tau=None, dtype: str = "float64") -> None:
    """Raise :class:`Unrepresentable` naming the first value — ``tau``, then the stored
    scalars of ``net`` in tensor order (:func:`tensor_values`) — that is not 0 and whose
    nearest ``dtype`` value is 0, subnormal or infinite (a softmax at tau = 0 is NaN;
    a subnormal weight has lost its precision), with the format's normal range and the
    number of such scalars.  Exact zeros are representable.  ``dtype``: float64,
    float32 or bfloat16."""
    from proofcheck.frontend.export.rounding import FormatOverflow, get_format, round_q
    from proofcheck.kernel.verdicts import fmt_num
    fmt = get_format(dtype)
    tiny = Fraction(2) ** fmt.emin
    memo = {}

    def why(v):
        if v not in memo:
            try:
                r = round_q(v, fmt)
                memo[v] = ("rounds to 0" if r == 0 else "rounds to a subnormal"
                           if abs(r) < tiny else None)
            except FormatOverflow:
                memo[v] = "overflows"
        return memo[v]
    items = [("tau", Fraction(tau))] if tau is not None else []
    if net is not None:
        items += [(f"{name}[{k}]", v) for name, (_, vals) in tensor_values(net).items()
                  for k, v in enumerate(vals) if v != 0]
    bad = [(name, v, why(v)) for name, v in items if why(v) is not None]
    if bad:
        name, v, reason = bad[0]
        more = f" ({len(bad)} values in all)" if len(bad) > 1 else ""
        raise Unrepresentable(
            f"cannot export to {dtype}: {name} = {fmt_num(v)} {reason} in {dtype}{more}; "
            f"{dtype} holds 0 and magnitudes from {fmt_num(tiny)} (smallest normal) to "
            f"{fmt_num(fmt.max_finite)}; nothing written", name)
