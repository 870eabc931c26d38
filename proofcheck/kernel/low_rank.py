"""Low-rank attention (statement ``low-rank``; seed 000 §3.3: "A is a rank-one matrix plus a
multiple of the identity"): is ``m = c I + (rank <= 1)`` for some real ``c``, decided exactly, for
m = A and V of every SA layer (stored ``lam I + sum_r a_r b_r^T``, ``K = sum_r a_r b_r^T``)?
:func:`low_rank_part` is ``min_c rank(m - c I)`` when that is <= 1, else a rank >= 2 that
``m - c I`` has for every real c.  One nonzero stored term: 1 (none: 0), no matrix formed.

* Few terms (``r <= d - 2`` nonzero terms, d >= 3), from the factors, no d x d matrix.  Lemma:
  ``rank(mu I + K) >= d - rank K >= 2`` for ``mu != 0``, so only ``c = lam`` can leave rank <= 1,
  and ``rank K = rank(B^T B A^T A)`` (A, B the d x r factor matrices: over the reals ``ker A^T A
  = ker A``): an r x r product; ``min(rank K, d - rank K)`` bounds every ``rank(m - c I)``.
* Else (``r >= d - 1``: as many stored entries as a dense matrix), B = m dense (one fmpq_mat
  product): d = 1: 0; d = 2: 0 if B is a multiple of I, 1 if its characteristic polynomial has a
  real root (discriminant >= 0), else 2; d >= 3: with ``B_jk != 0`` (j != k) the 2x2 minor on
  rows {i, j}, columns {i, k} (i apart) must vanish, ``(B_ii - c) B_jk = B_ik B_ji``: one ``c``;
  a diagonal B needs c equal to all diagonal entries but one (one taken twice among the first
  three); exact ranks (``fmpq_mat.rank``) at that c and the stored lam.

Every product and rank is charged before it runs, by the matrices' sizes and the entries' bit
sizes (a rank of a k x k matrix of b-bit entries as k^3 operations on k b bits: fraction-free
elimination; :mod:`.limits`).  Used on every theorem certificate (:func:`check`) and by the
statement."""
from flint import fmpq_mat

from proofcheck.kernel.evaluate import mat_units, q
from proofcheck.kernel.limits import charge
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


def _columns(vectors, d: int):
    """The ``(d, r)`` matrix whose columns are ``vectors``."""
    return fmpq_mat(d, len(vectors), [q(v[i]) for i in range(d) for v in vectors])


def _bits(m: Factored, terms) -> int:
    return max([q(m.lam).height_bits()] + [q(x).height_bits() for a, b in terms for x in a + b])


def _few_terms(m: Factored, terms, d: int, b: int) -> int:
    """``r <= d - 2`` terms: ``rank K`` if <= 1, else ``min(rank K, d - rank K)`` (module text)."""
    r, where = len(terms), "the low-rank check (factor Grams)"
    g = 2 * b + d.bit_length()  # bits of a Gram entry; its product's, and a rank's growth
    charge(2 * mat_units(r, d, r), where, g)
    charge(mat_units(r, r, r), where, 2 * g + r.bit_length())
    charge(mat_units(r, r, r), where, r * (2 * g + r.bit_length()))
    A, B = _columns([a for a, _ in terms], d), _columns([b_ for _, b_ in terms], d)
    k = ((B.transpose() * B) * (A.transpose() * A)).rank()
    return k if k <= 1 else min(k, d - k)


def _dense(m: Factored, terms, d: int, b: int) -> int:
    """``r >= d - 1`` terms: the dense matrix (module text)."""
    r, where = len(terms), "the low-rank check (a dense SA matrix)"
    e = 2 * b + r.bit_length()  # bits of an entry; an exact rank's entries grow d-fold
    charge(mat_units(d, r, d) + 2 * d * d, where, e)
    charge(2 * mat_units(d, d, d), where, d * e)
    K = _columns([a for a, _ in terms], d) * _columns([b_ for _, b_ in terms], d).transpose()
    lam = q(m.lam)
    B = [[K[i, j] + (lam if i == j else 0) for j in range(d)] for i in range(d)]
    if d <= 2:
        if d == 1 or (B[0][1] == B[1][0] == 0 and B[0][0] == B[1][1]):
            return 0
        tr, det = B[0][0] + B[1][1], B[0][0] * B[1][1] - B[0][1] * B[1][0]
        return 1 if tr * tr - 4 * det >= 0 else 2
    c = _candidate(B, d)
    shifted = fmpq_mat([[x - c if i == j else x for j, x in enumerate(row)]
                        for i, row in enumerate(B)])
    return min(K.rank(), shifted.rank())


def low_rank_part(m: Factored, d: int) -> int:
    """``min_c rank(m - c I)`` over real ``c`` when it is <= 1, else a rank >= 2 (module text)."""
    terms = [(a, b) for a, b in zip(m.left, m.right)
             if any(x != 0 for x in a) and any(x != 0 for x in b)]
    if len(terms) <= 1 and d >= 2:
        return len(terms)
    b = _bits(m, terms)
    if d >= 3 and len(terms) <= d - 2:
        return _few_terms(m, terms, d, b)
    return _dense(m, terms, d, b)


def failures(net: Transformer, bound: int = BOUND) -> list[str]:
    """One reason per head whose A or V is ``c I + rank <= bound`` for no real c."""
    return [f"block {b} SA{f' head {h}' if blk.sa.H > 1 else ''}: {name} - c I has rank >= "
            f"{r} > {bound} for every real c (the seed's low-rank form c I + rank one fails)"
            for b, blk in enumerate(net.blocks, start=1)
            for h, (A, V) in enumerate(blk.sa.heads, start=1)
            for name, r in (("A", low_rank_part(A, net.d)), ("V", low_rank_part(V, net.d)))
            if r > bound]


def check(net: Transformer, lines: list) -> list[str]:
    """The failures on a theorem certificate (none: one summary line in ``lines``)."""
    bad = failures(net)
    if not bad:
        rA, rV = (max((low_rank_part(h[k], net.d) for b in net.blocks for h in b.sa.heads),
                      default=0) for k in (0, 1))
        lines.append(f"low-rank: all {net.L} SA layers have A, V = c I + rank <= {BOUND} for "
                     f"some real c, decided exactly (largest: A {rA}, V {rV})")
    return bad
