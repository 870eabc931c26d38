"""Exact-to-float rounding of networks and the certified-rounding check (issue 13,
deliverable 3).

The formats and ``round_q(q, fmt)`` (nearest value, exact integer arithmetic, no
double rounding) are :mod:`proofcheck.constructions.floats`; the rounded network is again an
exact rational network that the claim checker (:mod:`proofcheck.constructions.claim_check`)
evaluates exactly.

``certify_rounded(net, inputs, targets, fmt)`` rounds every stored scalar of the
network (``Transformer.parameters()``: FF eta, U, b, W; SA rho and the factored
entries of A and V) and re-runs the exact check of exact interpolation on the
rounded network.  The verdict is about the ROUNDED network: it never changes the
verdict of the exact construction (docs/spec.md §5).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from proofcheck.constructions.floats import (  # the formats, for the exporters
    FORMATS,
    FloatFormat,
    FormatOverflow,
    get_format,
    is_representable,
    round_q,
    short_decimal,
    to_float,
)

ROUNDING_NOTE = ("each exact rational stored scalar rounded to the nearest {fmt} value "
                 "(IEEE 754 round-half-to-even, gradual underflow), computed in exact integer "
                 "arithmetic (no double rounding); a value beyond the largest finite {fmt} "
                 "becomes +-inf")

__all__ = ["FORMATS", "FloatFormat", "FormatOverflow", "ROUNDING_NOTE", "certify_rounded",
           "get_format", "is_representable", "round_network", "round_q", "to_float"]


def round_network(net, fmt: FloatFormat):
    """``(rounded_net, report)``: every stored scalar of ``net`` rounded with
    :func:`round_q`.  ``report`` = dict with ``changed`` (scalars whose value
    changed), ``total``, ``max_rel_change`` (float), ``overflow`` (list of
    ``(block, sublayer, name, exact)`` that overflow ``fmt``; their rounded value is
    left at the exact one and the network must not be called representable).
    Source: issue 13 deliverable 3; docs/spec.md §1 (stored scalars)."""
    from dataclasses import replace

    from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
    stats = {"changed": 0, "total": 0, "max_rel_change": 0.0, "overflow": []}

    def r(bi, sub, name, x):
        stats["total"] += 1
        try:
            y = round_q(x, fmt)
        except FormatOverflow:
            stats["overflow"].append((bi, sub, name, x))
            return x
        if y != x:
            stats["changed"] += 1
            rel = abs((y - x) / x)
            stats["max_rel_change"] = max(stats["max_rel_change"], float(rel))
        return y

    def rv(bi, sub, name, v):
        return tuple(r(bi, sub, f"{name}[{i}]", x) for i, x in enumerate(v))

    def rfac(bi, nm, f: Factored):
        return Factored(r(bi, "SA", f"{nm}.lam", f.lam),
                        tuple(rv(bi, "SA", f"{nm}.left[{k}]", a) for k, a in enumerate(f.left)),
                        tuple(rv(bi, "SA", f"{nm}.right[{k}]", b) for k, b in enumerate(f.right)))

    blocks = []
    for bi, blk in enumerate(net.blocks, start=1):
        ff = blk.ff
        W = tuple(tuple(r(bi, "FF", f"W[{i}][{k}]", x) for i, x in enumerate(w))
                  for k, w in enumerate(ff.W))
        nff = FF(r(bi, "FF", "eta", ff.eta),
                 tuple(rv(bi, "FF", f"U[{k}]", u) for k, u in enumerate(ff.U)),
                 tuple(r(bi, "FF", f"b[{k}]", x) for k, x in enumerate(ff.b)), W, label=ff.label)
        sa = blk.sa
        pre = [f"heads[{h}]." if sa.H > 1 else "" for h in range(sa.H)]
        nsa = SA.multi(r(bi, "SA", "rho", sa.rho), [
            (rfac(bi, p + "A", A), rfac(bi, p + "V", V)) for p, (A, V) in zip(pre, sa.heads)],
            sa.causal, sa.label)
        blocks.append(replace(blk, ff=nff, sa=nsa) if isinstance(blk, Block) else Block(nff, nsa))
    return Transformer(net.d, blocks), stats


@dataclass
class RoundingCheck:
    """Result of :func:`certify_rounded`.  ``verdict``: exact verdict of exact
    interpolation for the ROUNDED network (REFUTED when a weight overflows);
    ``witness``: its witness; ``departure``: the first sub-layer where the rounded
    network's exact trajectory leaves the original construction's claims (a
    Witness or None; informational); ``stats``: from :func:`round_network`."""

    fmt: str
    verdict: object
    witness: object
    departure: object
    stats: dict
    rounded: object
    seconds: float = 0.0


def certify_rounded(net, inputs, targets, fmt: FloatFormat, claims=None,
                    backend: str = "flint") -> RoundingCheck:
    """Round every weight of ``net`` to ``fmt`` and check exact interpolation of the
    rounded network with the trusted exact checker.  ``inputs[j]``: ``(n_j, d)``,
    ``targets[j]``: ``(m_j, d)`` Fractions; ``claims``: the original construction's
    claims (to locate where the rounded trajectory departs from them).
    Never raises for a bad rounding: overflow gives REFUTED with the parameter as
    witness."""
    import time

    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.verdicts import Verdict, Witness
    t0 = time.perf_counter()
    rounded, stats = round_network(net, fmt)
    if stats["overflow"]:
        bi, sub, name, x = stats["overflow"][0]
        w = Witness(f"parameter {name} = {short_decimal(abs(x))} (sign {'-' if x < 0 else '+'}) "
                    f"overflows {fmt.name}: {len(stats['overflow'])} stored scalar(s) have no "
                    f"finite {fmt.name} value", block=bi, sublayer=sub)
        return RoundingCheck(fmt.name, Verdict.REFUTED, w, None, stats, None,
                             time.perf_counter() - t0)
    nc = check_network(rounded, inputs, targets, None, backend=backend)
    departure = None
    if claims is not None and stats["changed"]:
        dc = check_network(rounded, inputs, None, claims, backend=backend)
        departure = dc.witness
    return RoundingCheck(fmt.name, nc.verdict, nc.witness, departure, stats, rounded,
                         time.perf_counter() - t0)
