"""Low-rank attention (statement ``low-rank``; seed 000 §3.3: "A is a rank-one matrix plus a
multiple of the identity"): is ``m = c I + (rank <= 1)`` for some real ``c``, decided exactly, for
m = A and V of every SA layer (stored ``lam I + sum_r a_r b_r^T``)? :func:`low_rank_part` is
``min_c rank(m - c I)`` when that is <= 1, else a rank >= 2. One nonzero stored term: 1 (none: 0),
no matrix formed.  Else, B = m dense: d = 1: 0; d = 2: 0 if B is a multiple of I, 1 if its
characteristic polynomial has a real root (discriminant >= 0), else 2; d >= 3: with ``B_jk != 0``
(j != k) the 2x2 minor on rows {i, j}, columns {i, k} (i apart) must vanish, ``(B_ii - c) B_jk =
B_ik B_ji``: one ``c``; a diagonal B needs c equal to all diagonal entries but one (one taken twice
among the first three); exact ranks (``fmpq_mat.rank``) at that c and the stored lam.  Used on
every theorem certificate (:func:`check`) and by the statement.
"""
from flint import fmpq_mat

from proofcheck.kernel.evaluate import q
from proofcheck.kernel.model import Factored, Transformer

BOUND = 1


def rank_of(rows) -> int:
    """Exact rank of a matrix of rationals given by its rows."""
    return fmpq_mat([[q(x) for x in r] for r in rows]).rank() if rows and rows[0] else 0


def _candidate(B: list, d: int):
    """The only ``c`` other than the stored ``lam`` with ``rank(B - c I) <= 1`` (d >= 3)."""
    off = next(((j, k) for j in range(d) for k in range(d) if j != k and B[j][k] != 0), None)
    if off is None:
        a, b, c = B[0][0], B[1][1], B[2][2]
        return a if a in (b, c) else b
    j, k = off
    i = next(i for i in range(d) if i not in off)
    return B[i][i] - B[i][k] * B[j][i] / B[j][k]


def low_rank_part(m: Factored, d: int) -> int:
    """``min_c rank(m - c I)`` over real ``c`` when it is <= 1, else a rank >= 2 (module text)."""
    terms = [(a, b) for a, b in zip(m.left, m.right)
             if any(x != 0 for x in a) and any(x != 0 for x in b)]
    if len(terms) <= 1 and d >= 2:
        return len(terms)
    B = m.dense(d)
    if d <= 2:
        if d == 1 or (B[0][1] == B[1][0] == 0 and B[0][0] == B[1][1]):
            return 0
        tr, det = B[0][0] + B[1][1], B[0][0] * B[1][1] - B[0][1] * B[1][0]
        return 1 if tr * tr - 4 * det >= 0 else 2
    c = _candidate(B, d)
    return min(rank_of([[x - (lam if i == j else 0) for j, x in enumerate(row)]
                        for i, row in enumerate(B)]) for lam in (m.lam, c))


def ranks(net: Transformer) -> list[tuple[int, int, int]]:
    """``[(block, low_rank_part(A), low_rank_part(V))]`` over the SA layers (1-based; the
    largest over the layer's heads)."""
    return [(b, max(low_rank_part(A, net.d) for A, _ in blk.sa.heads),
             max(low_rank_part(V, net.d) for _, V in blk.sa.heads))
            for b, blk in enumerate(net.blocks, start=1)]


def failures(net: Transformer, bound: int = BOUND) -> list[str]:
    """One reason per head whose A or V is ``c I + rank <= bound`` for no real c."""
    return [f"block {b} SA{f' head {h}' if blk.sa.H > 1 else ''}: {name} - c I has rank >= "
            f"{r} > {bound} for every real c (the seed's low-rank form c I + rank one fails)"
            for b, blk in enumerate(net.blocks, start=1)
            for h, (A, V) in enumerate(blk.sa.heads, start=1)
            for name, r in (("A", low_rank_part(A, net.d)), ("V", low_rank_part(V, net.d)))
            if r > bound]


def summary(net: Transformer) -> dict:
    """``{"sa_layers", "max_rank_A", "max_rank_V", "V_multiple_of_identity"}``: the
    largest low-rank parts, and how many layers' V are nonzero multiples of I alone."""
    rs = ranks(net)
    scaled = sum(1 for blk, r in zip(net.blocks, rs) if r[2] == 0
                 and all(V.lam != 0 for _, V in blk.sa.heads))
    return {"sa_layers": len(rs), "max_rank_A": max((r[1] for r in rs), default=0),
            "max_rank_V": max((r[2] for r in rs), default=0), "V_multiple_of_identity": scaled}


def check(net: Transformer, lines: list) -> list[str]:
    """The failures on a theorem certificate (none: one summary line in ``lines``)."""
    bad = failures(net)
    if not bad:
        s = summary(net)
        lines.append(f"low-rank: all {s['sa_layers']} SA layers have A, V = c I + rank <= "
                     f"{BOUND} for some real c, decided exactly (largest: A {s['max_rank_A']}, "
                     f"V {s['max_rank_V']})")
    return bad
