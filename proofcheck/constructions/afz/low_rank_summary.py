"""The low-rank parts of a network's SA layers, per block and summed up, for the constructions'
own checks and reports (statement ``low-rank``; the kernel's decision is
:func:`proofcheck.kernel.low_rank.low_rank_part`, which ``verify`` runs)."""
from proofcheck.kernel.low_rank import low_rank_part
from proofcheck.kernel.model import Transformer


def ranks(net: Transformer) -> list[tuple[int, int, int]]:
    """``[(block, low_rank_part(A), low_rank_part(V))]`` over the SA layers (1-based; the
    largest over the layer's heads)."""
    return [(b, max(low_rank_part(A, net.d) for A, _ in blk.sa.heads),
             max(low_rank_part(V, net.d) for _, V in blk.sa.heads))
            for b, blk in enumerate(net.blocks, start=1)]


def summary(net: Transformer) -> dict:
    """``{"sa_layers", "max_rank_A", "max_rank_V", "V_multiple_of_identity"}``: the
    largest low-rank parts, and how many layers' V are nonzero multiples of I alone."""
    rs = ranks(net)
    scaled = sum(1 for blk, r in zip(net.blocks, rs) if r[2] == 0
                 and all(V.lam != 0 for _, V in blk.sa.heads))
    return {"sa_layers": len(rs), "max_rank_A": max((r[1] for r in rs), default=0),
            "max_rank_V": max((r[2] for r in rs), default=0), "V_multiple_of_identity": scaled}
