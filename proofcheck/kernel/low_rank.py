"""Low-rank attention matrices (statement ``low-rank``; seed 000 §3.3: "A is a
rank-one matrix plus a multiple of the identity").

Every SA layer stores ``A`` and ``V`` factored as ``lam I + sum_r a_r b_r^T``
(:class:`proofcheck.kernel.model.Factored`).  The check: for every SA layer of a
network, ``A - lam_A I`` and ``V - lam_V I`` (with the stored ``lam``) have exact
rank <= 1.  One stored term has rank <= 1 by construction (rank 0 iff a factor is
zero); two or more terms are summed into the dense matrix and its rank is computed
exactly (Gaussian elimination on rationals).  Used by the kernel on every theorem
certificate (:func:`check`) and by the statement.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import Factored, Transformer, rank_of

BOUND = 1


def low_rank_part(m: Factored, d: int) -> int:
    """Exact rank of ``m - lam I`` for the stored ``lam`` (a ``(d, d)`` matrix)."""
    terms = [(a, b) for a, b in zip(m.left, m.right)
             if any(x != 0 for x in a) and any(x != 0 for x in b)]
    if len(terms) <= 1:
        return len(terms)
    return rank_of(Factored(Fraction(0), tuple(a for a, _ in terms),
                            tuple(b for _, b in terms)).dense(d))


def ranks(net: Transformer) -> list[tuple[int, int, int]]:
    """``[(block, rank of A - lam_A I, rank of V - lam_V I)]`` over the SA layers
    (blocks 1-based; the largest over the layer's heads)."""
    return [(b, max(low_rank_part(A, net.d) for A, _ in blk.sa.heads),
             max(low_rank_part(V, net.d) for _, V in blk.sa.heads))
            for b, blk in enumerate(net.blocks, start=1)]


def failures(net: Transformer, bound: int = BOUND) -> list[str]:
    """One reason per head whose A or V is not ``lam I + rank <= bound``."""
    return [f"block {b} SA{f' head {h}' if blk.sa.H > 1 else ''}: {name} - lam I has rank "
            f"{r} > {bound} (the seed's low-rank form lam I + rank one)"
            for b, blk in enumerate(net.blocks, start=1)
            for h, (A, V) in enumerate(blk.sa.heads, start=1)
            for name, r in (("A", low_rank_part(A, net.d)), ("V", low_rank_part(V, net.d)))
            if r > bound]


def summary(net: Transformer) -> dict:
    """``{"sa_layers", "max_rank_A", "max_rank_V", "V_multiple_of_identity"}``: the
    largest low-rank parts and how many layers' V are nonzero multiples of I alone."""
    rs = ranks(net)
    scaled = sum(1 for blk in net.blocks if all(V.lam != 0 and low_rank_part(V, net.d) == 0
                                                for _, V in blk.sa.heads))
    return {"sa_layers": len(rs), "max_rank_A": max((r[1] for r in rs), default=0),
            "max_rank_V": max((r[2] for r in rs), default=0), "V_multiple_of_identity": scaled}


def check(net: Transformer, lines: list) -> list[str]:
    """The kernel's check on a theorem certificate: the failures (empty when every SA
    layer has the low-rank form; then one summary line is appended to ``lines``)."""
    bad = failures(net)
    if not bad:
        s = summary(net)
        lines.append(f"low-rank: all {s['sa_layers']} SA layers have A, V = lam I + rank <= "
                     f"{BOUND} (largest: A {s['max_rank_A']}, V {s['max_rank_V']})")
    return bad
