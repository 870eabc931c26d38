"""Proposition *collapse* (SPEC §4, phase C): one SA layer with ``A = I``,
``rho = 0``, ``V = e_1 k^T`` sends every non-leader of sequence j onto
``kappa_P e_1`` (it attends uniquely to the region-P leader ``t_j 1``, Lemma 4.2)
and every leader l to ``kappa_l e_1`` (sphere leaders attend to themselves,
Lemma 4.3; the P leader too), ``kappa_l = <k, l>``.  ``k`` is the first vector
``(1, c, c^2, ...)`` (c = 1, 2, ...) making the kappas pairwise distinct over all
leaders and different from every target's first coordinate.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.claims import Collapse
from proofcheck.kernel.model import SA, Factored, dot

ID = "collapse"


def choose_k(leader_points, forbidden, d: int):
    """``k`` and the kappas; ``leader_points``: ``(M, d)``; ``forbidden``: values
    the kappas must avoid.  Terminates: each coincidence is a polynomial equation
    of degree < d in c."""
    forbidden = set(forbidden)
    c = 1
    while True:
        k = tuple(Fraction(c) ** i for i in range(d))
        kappas = [dot(k, x) for x in leader_points]
        if len(set(kappas)) == len(kappas) and not forbidden.intersection(kappas):
            return k, kappas
        c += 1


def collapse_sa(k) -> SA:
    """``A = I``, ``rho = 0``, ``V = e_1 k^T`` (rank one)."""
    d = len(k)
    e1 = tuple(Fraction(int(i == 0)) for i in range(d))
    return SA(Fraction(0), Factored(Fraction(1)), Factored(Fraction(0), (e1,), (tuple(k),)),
              label="collapse (4.2+4.3)")


def collapse_claim(k, spans, leader_rows) -> Collapse:
    """Row -> row of the leader it attends to (itself for leaders)."""
    leader = []
    for (lo, hi), lrows in zip(spans, leader_rows):
        ls = set(lrows)
        leader += [i if i in ls else lrows[0] for i in range(lo, hi)]
    return Collapse(tuple(k), leader)
