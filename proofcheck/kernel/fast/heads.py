"""Multi-head and causally masked SA on the flint backend (docs/spec.md §1 "Extensions"):
``rho x_i + sum_h V_h m^h_i`` with ``m^h_i = sum_l pi^h_il x_l``, the same values as
the plain route (:func:`proofcheck.kernel.evaluate.sa_rows`), by two shortcuts:

* hardmax with rank-one ``A_h = a b^T``: ``s_il = q_i p_l`` (``p = <a, x>``, ``q = <b,
  x>``), so token i attends to the ``p``-maximal keys it may see if ``q_i > 0``, the
  ``p``-minimal ones if ``q_i < 0`` and to all of them if ``q_i = 0`` (Lemma 4.1 on
  the allowed keys).  Under the causal mask the allowed keys of token i are the
  prefix ``0..i``: one pass keeps the running maximum and minimum of ``p`` with the
  running sums of the rows attaining them (ties averaged) and the running sum of
  all rows, so a sequence costs O(n d) exact operations instead of O(n^2 d);
* any other head (or rule): the sequence's score matrix once, each row read over
  its allowed keys, the attended mean computed once per distinct argmax set.

``V_h`` is applied to the matrix of means in its factored form (fmpq_mat products).
"""
from __future__ import annotations

from flint import fmpq, fmpq_mat

from proofcheck.kernel.evaluate import allowed, apply_factored, bits
from proofcheck.kernel.fast import witness
from proofcheck.kernel.limits import charge
from proofcheck.kernel.model import SA, Factored


def _q(x) -> fmpq:
    return x if isinstance(x, fmpq) else fmpq(x.numerator, x.denominator)


def _col(v) -> fmpq_mat:
    return fmpq_mat(len(v), 1, [_q(x) for x in v])


def _mean(total, k):
    w = fmpq(1, k)
    return [x * w for x in total]


def _add(total, row):
    return [a + b for a, b in zip(total, row)]


def _rank_one_means(p, qv, rows, causal):
    """Means of one sequence (``rows``: lists of fmpq) under hardmax ``s_il = q_i p_l``."""
    n = len(rows)
    if not causal:
        top, bot = max(p), min(p)
        sets = {1: [l for l in range(n) if p[l] == top], -1: [l for l in range(n) if p[l] == bot],
                0: list(range(n))}
        means = {k: _mean([sum(c, fmpq(0)) for c in zip(*[rows[l] for l in C])], len(C))
                 for k, C in sets.items()}
        return [means[(qi > 0) - (qi < 0)] for qi in qv]
    out, ext = _prefix_means(p, qv, rows)
    witness.prefix_extremes(p, *ext)
    return out


def _prefix_means(p, qv, rows):
    """The causal means of one sequence and the witness ``(vmax, cmax, vmin, cmin)``: per
    token the largest and smallest ``p`` over the keys ``0..i`` and how many keys attain
    them (one pass with running sums of the rows attaining them)."""
    out, ext = [], ([], [], [], [])
    hi = lo = None  # [value, row sum, count] of the running maximum / minimum
    total = None
    for i, (pi, qi, x) in enumerate(zip(p, qv, rows)):
        total = list(x) if total is None else _add(total, x)
        if hi is None or pi > hi[0]:
            hi = [pi, list(x), 1]
        elif pi == hi[0]:
            hi = [pi, _add(hi[1], x), hi[2] + 1]
        if lo is None or pi < lo[0]:
            lo = [pi, list(x), 1]
        elif pi == lo[0]:
            lo = [pi, _add(lo[1], x), lo[2] + 1]
        for lst, v in zip(ext, (hi[0], hi[2], lo[0], lo[2])):
            lst.append(v)
        key = (qi > 0) - (qi < 0)
        out.append(_mean(*hi[1:]) if key == 1 else _mean(*lo[1:]) if key == -1
                   else _mean(total, i + 1))
    return out, ext


def _dense_means(A: Factored, Xs, rows, rule, causal):
    """Means of one sequence from its score matrix, row i over :func:`allowed` keys."""
    n = len(rows)
    S = (apply_factored(A, Xs) * Xs.transpose()).entries()
    hard = getattr(rule, "name", "") == "hardmax"
    cache, out = {}, []
    for i in range(n):
        keys = allowed(i, n, causal)
        sc = S[i * n:i * n + len(keys)]
        if hard:
            top = max(sc)
            C = tuple(l for l, s in enumerate(sc) if s == top)
            if C not in cache:
                cache[C] = _mean([sum(c, fmpq(0)) for c in zip(*[rows[l] for l in C])], len(C))
            out.append(cache[C])
            continue
        m = [fmpq(0)] * len(rows[0])
        for l, w in rule.weights(sc, _q):
            m = [a + w * b for a, b in zip(m, rows[keys[l]])]
        out.append(m)
    return out


def head_means(A: Factored, X, spans, rule, causal: bool) -> fmpq_mat:
    """The ``(n, d)`` matrix of ``m_i = sum_l pi_il x_l`` for one head."""
    n, d = X.nrows(), X.ncols()
    e = X.entries()
    rank_one = getattr(rule, "name", "") == "hardmax" and A.lam == 0 and len(A.left) == 1
    if rank_one:
        p = (X * _col(A.left[0])).entries()
        qv = (X * _col(A.right[0])).entries()
    flat, b = [], max(map(bits, e), default=0)  # scores cost with the values' size
    for lo, hi in spans:
        rows = [e[i * d:(i + 1) * d] for i in range(lo, hi)]
        if rank_one:
            charge((hi - lo) * (d + 8), "an SA head (prefix extremes)")
            ms = _rank_one_means(p[lo:hi], qv[lo:hi], rows, causal)
        else:
            charge((hi - lo) ** 2 * (d + 8), "an SA head (scores)", b)
            Xs = fmpq_mat(hi - lo, d, [x for r in rows for x in r])
            ms = _dense_means(A, Xs, rows, rule, causal)
        for m in ms:
            flat += m
    return fmpq_mat(n, d, flat)


def sa_heads(sa: SA, X, spans, rule):
    """``rho X + sum_h V_h M_h`` (``M_h`` = :func:`head_means`) for an offset-free ``X``."""
    out = X * _q(sa.rho)
    for A, V in sa.heads:
        if not V.is_zero and spans:
            out += apply_factored(V, head_means(A, X, spans, rule, sa.causal))
    return out
