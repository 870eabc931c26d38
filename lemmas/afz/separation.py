"""Proposition *separation* (SPEC §4, phase S): at most N blocks make the input
sequences pairwise disjoint as point sets.

Only u-projections are tracked: every step moves points along ``u`` or adds a
multiple of a token, and its claim is stated on rows.  Invariants (all exact):
every coordinate >= 1 after block 1; ``<u, .>`` is injective on the distinct points;
two sequences share a point only if they share their u-maximal token (top).

* Block 1: FF = translation (3.1) to coordinates >= 1; SA = tag (4.1).
* Each round: pick a class of sequences with a common top and a point p in some
  but not all of them; FF = plateau hat (3.2p) moving p by ``H u`` above every
  projection, so p becomes the unique top of the sequences holding it; SA = tag.
  A tag with ``lam`` keeps ``<u, .>`` injective on the new points iff the values
  ``pi(x) + lam pi(T)`` are distinct over the distinct pairs (point x, top T);
  ``lam > spread / (min gap of distinct top projections)`` always works (the
  pairs are then ordered lexicographically), smaller integers are tried first to
  keep numbers short.  Each round splits one class, so ``R <= N - 1``.
"""
from __future__ import annotations

import random
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from math import floor

from proofcheck.claims import SequenceShift, Shift, Translate
from proofcheck.model import Block, dot

from .clustering import tag_sa
from .hat import plateau_ff
from .translation import translation_ff

ID = "separation"


@dataclass
class Separation:
    """Blocks 1..R+1 with their claims, the direction ``u``, and per-round data."""

    blocks: list[Block]
    claims: list[tuple]
    u: tuple[Fraction, ...]
    R: int
    lambdas: list[Fraction] = field(default_factory=list)
    classes_after_first_tag: int = 0


def _candidates(d: int, budget: int = 24, seed: int = 0):
    """A few structured and seeded-random positive integer directions, then the
    powers ``(1, k, ..., k^(d-1))`` for k = 2, 3, ...: for a finite point set all
    but finitely many k give distinct projections, so the search terminates."""
    for k in (2, 3, 5, 17):
        yield tuple(Fraction(k ** (d - 1 - i)) for i in range(d))
    rng = random.Random(seed)
    for _ in range(budget):
        yield tuple(Fraction(rng.randint(1, 97)) for _ in range(d))
    k = 2
    while True:
        yield tuple(Fraction(k ** i) for i in range(d))
        k += 1


def choose_u(points, seqs, d: int, tries: int = 8):
    """Positive integer ``u`` with pairwise distinct projections of ``points``;
    among the valid candidates of the first ``tries`` + budget the one giving most
    distinct sequence tops (fewest separation rounds).  Deterministic."""
    best, examined = None, 0
    for u in _candidates(d):
        examined += 1
        proj = [dot(u, p) for p in points]
        if len(set(proj)) == len(proj):
            tops = len({max(s, key=proj.__getitem__) for s in seqs})
            if best is None or tops > best[0]:
                best = (tops, u)
            if tops == len(seqs):
                break
        if best is not None and examined >= tries:
            break
    return best[1]


def _tag_lambda(pairs, pi, tops):
    """Smallest candidate ``lam`` keeping projections injective on the new points.
    ``pairs``: distinct (point, top) ids; ``pi``: projections; ``tops``: top ids."""
    vals = sorted(set(pi))
    spread = vals[-1] - vals[0]
    tp = sorted({pi[t] for t in tops})
    gap = min((b - a for a, b in zip(tp, tp[1:])), default=None)
    safe = Fraction(1) if gap is None else Fraction(floor(spread / gap) + 1)
    for lam in [Fraction(k) for k in (1, 2, 3, 5, 8, 13)] + [safe]:
        if lam > safe:
            lam = safe
        new = {pi[x] + lam * pi[t] for x, t in pairs}
        if len(new) == len(pairs):
            return lam
    raise AssertionError("unreachable: the safe lambda always separates")


def _nearest_gap(values_sorted, v):
    """Distance from ``v`` (an element of the sorted list) to its nearest other value."""
    i = bisect_left(values_sorted, v)
    near = [abs(values_sorted[k] - v) for k in (i - 1, i + 1) if 0 <= k < len(values_sorted)]
    return min(near) if near else Fraction(1)


def separate(inputs, d: int) -> Separation:
    """Phase S for ``inputs[j]``: ``(n_j, d)`` tuples of Fractions (admissible)."""
    ids: dict = {}
    seq_pts = [[ids.setdefault(tuple(x), len(ids)) for x in X] for X in inputs]
    points = list(ids)
    u = choose_u(points, seq_pts, d)
    uu = dot(u, u)
    starts, seq_of = [], []
    for j, s in enumerate(seq_pts):
        starts.append(len(seq_of))
        seq_of += [j] * len(s)
    c = tuple(1 - min(p[i] for p in points) for i in range(d))
    pi = [dot(u, p) + dot(u, c) for p in points]

    def tops_of():
        return [max(s, key=pi.__getitem__) for s in seq_pts]

    def tag():
        """Tag layer data; re-indexes points as (point, top) pairs."""
        nonlocal pi, seq_pts
        tops = tops_of()
        pairs = sorted({(x, tops[j]) for j, s in enumerate(seq_pts) for x in s})
        lam = _tag_lambda(pairs, pi, tops)
        claim = SequenceShift(lam, [starts[j] + s.index(tops[j]) for j, s in enumerate(seq_pts)],
                              seq_of)
        new_id = {pr: k for k, pr in enumerate(pairs)}
        pi = [pi[x] + lam * pi[t] for x, t in pairs]
        seq_pts = [[new_id[(x, tops[j])] for x in s] for j, s in enumerate(seq_pts)]
        return lam, claim

    def rows_at(p):
        return [starts[j] + k for j, s in enumerate(seq_pts) for k, x in enumerate(s) if x == p]

    lam, claim = tag()
    blocks = [Block(translation_ff(c), tag_sa(u, lam), phase="S")]
    claims = [(Translate(c), claim)]
    lambdas = [lam]
    first_classes = len(set(tops_of()))
    while True:
        tops = tops_of()
        classes = Counter(tops)
        big = [t for t in dict.fromkeys(tops) if classes[t] > 1]
        if not big:
            break
        members = [j for j, t in enumerate(tops) if t == big[0]]
        cnt = Counter(x for j in members for x in set(seq_pts[j]))
        size = len(members)
        p = min((x for x, n in cnt.items() if n < size),
                key=lambda x: (abs(2 * cnt[x] - size), x))
        H = Fraction(floor((max(pi) - pi[p]) / uu) + 1)
        d2 = _nearest_gap(sorted(pi), pi[p]) / 2
        shift = tuple(H * x for x in u)
        ff = plateau_ff(u, pi[p], d2 / 2, d2, shift, label="probe (3.2p)")
        moved = rows_at(p)
        pi[p] += H * uu
        lam, claim = tag()
        blocks.append(Block(ff, tag_sa(u, lam), phase="S"))
        claims.append((Shift(moved, shift), claim))
        lambdas.append(lam)
    return Separation(blocks, claims, u, len(blocks) - 1, lambdas, first_classes)
