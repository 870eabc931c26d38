"""Size measures of a network, computed from the network alone (no construction
internals): the largest |parameter|, ‖θ‖², and the *hat resolution ratio*.

The hat resolution ratio of an FF layer whose ``U`` has rank one
(``U_k = alpha_k w``) is ``max_k |t_k| / min spacing`` over its distinct kinks
``t_k = -b_k / alpha_k`` along w: how finely a float evaluation of ``<w, x>`` must
resolve positions of that magnitude to stay on the right linear piece.  It is
invariant under rescaling w.  The network's ratio is the largest over its FF
layers with at least two distinct kinks (``None`` when there is none); layers
whose U has rank >= 2 have no single direction and are counted apart.
Display only: nothing here decides a verdict.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass
class Measures:
    """``max_abs``: largest |stored scalar| (exact); ``max_bits``: largest bit size of
    a numerator or denominator; ``sq_norm``: ‖θ‖² (exact); ``ratio``: hat resolution
    ratio (exact, or ``None``); ``ratio_block``: the block where it is attained;
    ``multi_direction_ffs``: FF layers whose U has rank >= 2 (no ratio)."""

    max_abs: Fraction
    max_bits: int
    sq_norm: Fraction
    ratio: Fraction | None
    ratio_block: int | None
    multi_direction_ffs: int


def kinks_along(ff):
    """Distinct sorted kinks of ``ff`` along the direction of its first nonzero U row,
    or ``None`` when U has rank >= 2 (``[]`` for width 0 / all-zero U)."""
    w = next((u for u in ff.U if any(x != 0 for x in u)), None)
    if w is None:
        return []
    j = next(i for i, x in enumerate(w) if x != 0)
    out = set()
    for u, b in zip(ff.U, ff.b):
        a = Fraction(u[j]) / Fraction(w[j])
        if any(Fraction(ui) != a * Fraction(wi) for ui, wi in zip(u, w)):
            return None
        if a != 0:
            out.add(-Fraction(b) / a)
    return sorted(out)


def layer_ratio(kinks) -> Fraction | None:
    """``max |kink| / min spacing`` of sorted distinct kinks (``None`` for fewer than 2)."""
    if len(kinks) < 2:
        return None
    gap = min(b - a for a, b in zip(kinks, kinks[1:]))
    return max(abs(kinks[0]), abs(kinks[-1])) / gap


def measures(net) -> Measures:
    """All measures of ``net`` (a :class:`proofcheck.kernel.model.Transformer`)."""
    max_abs = max((abs(Fraction(v)) for *_, v in net.parameters()), default=Fraction(0))
    ratio, where, multi = None, None, 0
    for bi, blk in enumerate(net.blocks, start=1):
        ks = kinks_along(blk.ff)
        if ks is None:
            multi += 1
            continue
        r = layer_ratio(ks)
        if r is not None and (ratio is None or r > ratio):
            ratio, where = r, bi
    return Measures(max_abs, net.max_bits(), net.sq_norm(), ratio, where, multi)
