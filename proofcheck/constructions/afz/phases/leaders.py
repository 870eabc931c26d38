"""Proposition *leaders* (docs/spec.md §4, phase L): place m_j leaders per sequence.

After phase S the sequences are disjoint, every coordinate is >= 1 and
``<u, .>`` is injective on the tokens.  For sequence j the first m_j tokens (input
order) are its leaders: the first moves to ``t_j 1`` (region P, Lemma 4.2
geometry, ``t_j > beta`` = the largest coordinate), the others to distinct
rational points of the sphere ``|s| = r`` in the open negative orthant (Lemma 4.3
geometry).  One plateau hat (3.2p) in direction u per leader: the new point's
projection is kept distinct from every other token's, so each hat moves exactly
one token.
"""
from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass
from fractions import Fraction
from math import floor

from flint import fmpq

try:
    from sortedcontainers import SortedList
except ImportError:  # pragma: no cover - installed with hypothesis
    SortedList = None

from proofcheck.constructions.afz.layers.hat import plateau_ff
from proofcheck.constructions.afz.layers.sphere import iter_negative_orthant_points
from proofcheck.constructions.claims import Moves
from proofcheck.kernel.model import FF, dot

ID = "leaders"


@dataclass
class Leaders:
    """``ffs``/``claims``: one FF per leader; ``leader_rows[j]``: rows of sequence
    j's leaders (first is the region-P leader); ``positions[row]``: new point."""

    ffs: list[FF]
    claims: list
    leader_rows: list[list[int]]
    positions: dict
    t: list[Fraction]
    r: Fraction
    beta: Fraction


def place_leaders(rows, spans, m, u, r=Fraction(32), margin=Fraction(1),
                  spacing=Fraction(1), float_format=None, progress=None) -> Leaders:
    """``rows``: current tokens ``(n, d)`` (Fractions); ``spans``: sequence row
    ranges; ``m[j]``: number of leaders of sequence j (``1 <= m_j <= n_j``).
    Region-P leaders sit at ``t_j = floor(beta) + margin + spacing j``; sphere
    leaders on radius ``r``.  Larger scales give larger attention gaps (softmax).
    ``float_format``: float-safe hats (:func:`proofcheck.constructions.afz.options.float_safe_hat`).
    ``progress()`` (optional) once per sequence."""
    d = len(rows[0])
    fast = hasattr(rows, "projections")  # the lazy rows of phase S
    beta = rows.max_coordinate() if fast else max(max(x) for x in rows)
    base = Fraction(floor(beta)) + margin
    t = [base + spacing * j for j in range(len(spans))]
    n_sphere = sum(m) - len(m)
    pool = iter_negative_orthant_points(2 * n_sphere + 4, d, r) if n_sphere else iter([])
    proj = rows.projections() if fast else [dot(u, x) for x in rows]  # row -> <u, x>
    # the sorted projections are kept as python-flint fmpq (exact, compared in C:
    # a Fraction comparison costs microseconds, and a million tokens make tens of
    # millions of them); every value handed to the layers is a Fraction again
    fproj = [fmpq(x.numerator, x.denominator) for x in proj]
    pi = sorted(fproj)
    if SortedList is not None:  # O(log T) updates (a million tokens)
        pi = SortedList(pi)
    used = {(x.numerator, x.denominator) for x in proj}  # every projection so far
    ffs, claims, leader_rows, positions = [], [], [], {}
    su = sum(u)  # <u, t 1> = t sum(u)

    def move(row, q, tq):
        p = rows[row]
        tp, ftp = proj[row], fproj[row]
        i = pi.bisect_left(ftp) if SortedList is not None else bisect_left(pi, ftp)
        near = [abs(pi[k] - ftp) for k in (i - 1, i + 1) if 0 <= k < len(pi)]
        d2 = (Fraction(int(min(near).p), int(min(near).q)) if near else Fraction(1)) / 2
        c, d1 = tp, d2 / 2
        if float_format is not None:
            from proofcheck.constructions.afz.options import float_safe_hat
            c, d1, d2 = float_safe_hat(tp, d2, float_format)
        ffs.append(plateau_ff(u, c, d1, d2, tuple(b - a for a, b in zip(p, q)),
                              label="leader (3.2p)"))
        claims.append(Moves({row: q}))
        pi.pop(i)
        ftq = fmpq(tq.numerator, tq.denominator)
        proj[row], fproj[row] = tq, ftq
        if SortedList is not None:
            pi.add(ftq)
        else:
            insort(pi, ftq)
        used.add((tq.numerator, tq.denominator))
        positions[row] = q

    for j, (lo, hi) in enumerate(spans):
        if progress:
            progress()
        leader_rows.append(list(range(lo, lo + m[j])))
        move(lo, (t[j],) * d, t[j] * su)
        for row in range(lo + 1, lo + m[j]):
            for q in pool:
                tq = dot(u, q)
                if (tq.numerator, tq.denominator) not in used:
                    break
            else:
                raise AssertionError("sphere point pool exhausted")
            move(row, q, tq)
    return Leaders(ffs, claims, leader_rows, positions, t, Fraction(r), beta)
