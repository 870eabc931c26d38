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

Cost (the choice of every round is exactly the one described above; only the
bookkeeping is incremental).  A tag multiplies every class top by ``1 + lam``
and moves each class rigidly by the growth of its top, so offsets are kept
lazily (``top = top_at_birth * G_now / G_birth`` with ``G`` the running product
of the ``1 + lam``).  Classes whose projection intervals ``[min, top]`` are
pairwise disjoint (*narrow*, kept sorted by top) stay disjoint under every tag
with ``lam >= 0`` (``l_K > t_C`` and ``t_K > t_C`` give
``l_K + lam t_K > t_C + lam t_C``), so injectivity of a candidate ``lam`` is
decided exactly by looking only at the values of the other (*wide*) classes:
each against the one narrow interval that can hold it and against each other.
A round costs O(points of the split class + points of wide classes + classes)
instead of O(T) hashed big integers per candidate ``lam``.
"""
from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections import Counter, deque
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from math import gcd
from operator import add, mul

from lemmas.afz.layers.clustering import tag_sa
from lemmas.afz.layers.hat import plateau_ff
from lemmas.afz.layers.translation import translation_ff
from proofcheck.kernel.claims import SequenceShift, Shift, Translate
from proofcheck.kernel.model import Block, dot

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
    rows: list = field(default_factory=list)  # token coordinates after block R+1


class _Rows:
    """Token coordinates after block R+1, computed on demand (``rows[i]``, a tuple
    of Fractions); ``projections()`` lists every row's u-projection and
    ``max_coordinate()`` the largest coordinate, both from the scaled integers."""

    def __init__(self, where, coords, proj, Dx, D):
        self._where, self._coords, self._proj, self._Dx, self._D = where, coords, proj, Dx, D

    def __len__(self):
        return len(self._where)

    def __getitem__(self, i):
        return tuple(Fraction(v, self._Dx) for v in self._coords(*self._where[i]))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def projections(self):
        return [Fraction(self._proj(i), self._D) for i in range(len(self))]

    def max_coordinate(self):
        seen = {(id(C), p): (C, p) for C, p in self._where}
        return Fraction(max(max(self._coords(C, p)) for C, p in seen.values()), self._Dx)


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


def _lcm_denominators(points) -> int:
    """Least common multiple of the denominators of every coordinate (``points``:
    an iterable of tuples of Fractions)."""
    den = 1
    for q in {v.denominator for p in points for v in p}:
        den = den * q // gcd(den, q)
    return den


def _scaled(points, den: int):
    """``points`` times ``den`` as tuples of ints (exact: ``den`` is a common
    multiple of the denominators)."""
    return [tuple(v.numerator * (den // v.denominator) for v in p) for p in points]


def choose_u(points, seqs, d: int, tries: int = 8):
    """Positive integer ``u`` with pairwise distinct projections of ``points``;
    among the valid candidates of the first ``tries`` + budget the one giving most
    distinct sequence tops (fewest separation rounds).  Deterministic.
    Projections are compared on the points scaled to integers."""
    return _choose_u_scaled(_scaled(points, _lcm_denominators(points)), seqs, d, tries)


def _choose_u_scaled(ipts, seqs, d: int, tries: int = 8):
    """:func:`choose_u` on points already scaled to integer tuples (a positive
    scaling changes no comparison of projections)."""
    best, examined = None, 0
    for u in _candidates(d):
        examined += 1
        iu = [int(x) for x in u]
        proj = [sum(map(mul, iu, p)) for p in ipts]
        if len(set(proj)) == len(proj):
            tops = len({max(s, key=proj.__getitem__) for s in seqs})
            if best is None or tops > best[0]:
                best = (tops, u)
            if tops == len(seqs):
                break
        if best is not None and examined >= tries:
            break
    return best[1]


class _Class:
    """Sequences with a common top (SA tags shift them by the same vector).

    ``bs``: sorted class-relative projections ``P0[p] + h[p] step`` of its points
    (the projection in the class is that plus the offset); ``h``: multiples of
    ``u`` added to points by probes; ``k``: number of tags applied before the
    class was formed; ``tb``: its top projection then; ``yb``: its top's scaled
    coordinates then.  After ``G[-1] / G[k] = F`` more growth the top projection
    is ``tb F``, the offset ``tb F - btop`` and the coordinate offset
    ``yb F - xtop``."""

    __slots__ = ("_set", "bs", "btop", "h", "k", "off", "pts", "seqs", "tb", "top", "voff",
                 "width", "xtop", "yb")

    def members(self):
        if self._set is None:
            self._set = set(self.bs)
        return self._set


def separate(inputs, d: int, float_format=None, progress=None) -> Separation:
    """Phase S for ``inputs[j]``: ``(n_j, d)`` tuples of Fractions (admissible).

    Bookkeeping by *classes* (sequences with a common top; SA tags shift a whole
    class by the same vector, so a class is stored once): per class its
    class-relative projections, the probe shifts of its points, and lazily the
    offset of the projection and of the coordinates (module docstring).
    Projections are scaled to integers (common denominator ``D``).  ``rows`` of
    the result are the exact token coordinates after block R+1 (the checker
    re-derives them by evaluation).
    ``float_format``: float-safe probe hats (:func:`lemmas.afz.options.float_safe_hat`).
    ``progress()`` (optional) is called after each probe round.
    """
    # distinct points as integer tuples (coordinates times the common denominator Dx)
    Dx = _lcm_denominators(x for X in inputs for x in X)
    ids: dict = {}
    if Dx == 1:
        seq_pts = [[ids.setdefault(tuple(v.numerator for v in x), len(ids)) for x in X]
                   for X in inputs]
    else:
        seq_pts = [[ids.setdefault(tuple(v.numerator * (Dx // v.denominator) for v in x),
                                   len(ids)) for x in X] for X in inputs]
    ipts = list(ids)
    u = _choose_u_scaled(ipts, seq_pts, d)
    iu = [int(x) for x in u]
    if any(x != v for x, v in zip(iu, u)):  # pragma: no cover - _candidates are integers
        raise ValueError("separation: u must be an integer vector")
    uu = dot(iu, iu)
    starts, seq_of, pos = [], [], []
    for j, s_ in enumerate(seq_pts):
        starts.append(len(seq_of))
        seq_of += [j] * len(s_)
        pos.append({p: k for k, p in enumerate(s_)})
    # translation c = 1 - (coordinate-wise minimum); scaled integer coordinates
    # X0 = (p + c) Dx and projections P0 = <u, X0> (D = Dx: u is an integer vector
    # and every decision below is scale-free)
    cD = [Dx - min(p[i] for p in ipts) for i in range(d)]
    c = tuple(Fraction(v, Dx) for v in cD)
    X0 = [tuple(map(add, x, cD)) for x in ipts]
    D = Dx
    P0 = [sum(map(mul, iu, x)) for x in X0]
    step = uu * D                             # projection change of a shift by u
    uD = tuple(x * Dx for x in iu)
    seq_sets = [set(s_) for s_ in seq_pts]
    G = [1]                                   # G[k]: product of (1 + lam) of the first k tags

    def new_class(seqs, base_h, top, h_top=0):
        K = _Class()
        K.seqs, K.top, K._set = seqs, top, None
        K.pts = pts = set().union(*(seq_sets[j] for j in seqs))
        K.h = {p: v for p, v in base_h.items() if p in pts}
        if h_top:
            K.h[top] = K.h.get(top, 0) + h_top
        h = K.h
        K.bs = sorted(P0[p] + h.get(p, 0) * step for p in pts)
        K.btop = P0[top] + h.get(top, 0) * step
        K.width = K.btop - K.bs[0]
        K.xtop = tuple(x + h.get(top, 0) * w for x, w in zip(X0[top], uD))
        return K

    def top_now(K):
        return K.tb * (G[-1] // G[K.k])

    def off_now(K):
        return K.tb * (G[-1] // G[K.k]) - K.btop

    def voff_now(K):
        F = G[-1] // G[K.k]
        return tuple(y * F - x for y, x in zip(K.yb, K.xtop))

    def born(K, off, voff):
        """Class formed now with projection offset ``off`` and coordinate offset ``voff``."""
        K.k, K.tb = len(G) - 1, K.btop + off
        K.yb = tuple(x + v for x, v in zip(K.xtop, voff))

    by_top: dict = {}
    for j, s_ in enumerate(seq_pts):
        by_top.setdefault(max(s_, key=P0.__getitem__), []).append(j)
    classes = []
    for t, seqs in by_top.items():
        K = new_class(seqs, {}, t)
        born(K, 0, (0,) * d)
        classes.append(K)
    queue = deque(K for K in classes if len(K.seqs) > 1)   # classes to split, in order
    top_row = [0] * len(seq_pts)
    for K in classes:
        for j in K.seqs:
            top_row[j] = starts[j] + pos[j][K.top]
    srt = sorted(top_now(K) for K in classes)
    gap = min((b - a for a, b in pairwise(srt)), default=None)  # min gap of tops
    kmax = max(classes, key=top_now)        # the class with the largest top
    # narrow classes: sorted by top, intervals [top - width, top] pairwise disjoint
    nar, ntop, nw = [], [], []
    wide = list(classes)

    def promote():
        """Move wide classes whose interval meets no narrow interval to the narrow list."""
        keep = []
        for W in wide:
            t = top_now(W)
            i = bisect_left(ntop, t)
            if (i == 0 or ntop[i - 1] < t - W.width) and (i == len(ntop) or ntop[i] - nw[i] > t):
                nar.insert(i, W)
                ntop.insert(i, t)
                nw.insert(i, W.width)
            else:
                keep.append(W)
        wide[:] = keep

    scaled = {}  # lam -> narrow tops after a tag with lam

    def injective(lam):
        """Whether the tag with ``lam`` keeps the projections injective (exact).
        Narrow classes stay pairwise disjoint; a wide class's value can only meet
        the one narrow interval around it, or another wide class's value."""
        f = 1 + lam
        nt = scaled[lam] = [t * f for t in ntop]
        if not wide:
            return True
        lo_n = nt[0] - nw[0] if nt else None
        seen, n_vals = set(), 0
        for W in wide:
            s = off_now(W) + lam * top_now(W)
            vals = [b + s for b in W.bs]
            n_vals += len(vals)
            seen.update(vals)
            if not nt:
                continue
            for v in vals[bisect_left(vals, lo_n):bisect_right(vals, nt[-1])]:
                i = bisect_left(nt, v)
                if nt[i] - nw[i] <= v:
                    K = nar[i]
                    if v - off_now(K) - lam * top_now(K) in K.members():
                        return False
        return len(seen) == n_vals

    def tag():
        """Smallest candidate lambda keeping projections injective, then apply it."""
        nonlocal ntop, gap
        hi = top_now(kmax)
        lows = [top_now(W) - W.width for W in wide]
        if ntop:
            lows.append(ntop[0] - nw[0])
        lo = min(lows)
        safe = 1 if gap is None else (hi - lo) // gap + 1
        scaled.clear()
        for lam in sorted({min(k, safe) for k in (1, 2, 3, 5, 8, 13)} | {safe}):
            if injective(lam):
                break
        f = 1 + lam
        G.append(G[-1] * f)
        ntop = scaled[lam]  # the narrow tops times 1 + lam
        if gap is not None:
            gap *= f
        promote()
        return Fraction(lam), SequenceShift(Fraction(lam), list(top_row), seq_of)

    def nearest(tp, C):
        """Smallest |projection - tp| over every (class, point) except tp itself in C.
        Narrow classes: the one whose interval may hold tp (bisected), the top of
        the one below, the bottom of the one above."""
        best = None

        def near_in(K, t):
            nonlocal best
            bs = K.bs
            i = bisect_left(bs, t)
            for k in (i - 1, i, i + 1):
                if 0 <= k < len(bs) and not (K is C and bs[k] == t):
                    v = abs(bs[k] - t)
                    if best is None or v < best:
                        best = v
        i = bisect_left(ntop, tp)
        if i > 0:
            best = tp - ntop[i - 1]
        if i < len(ntop):
            lo = ntop[i] - nw[i]
            if lo <= tp:
                near_in(nar[i], tp - off_now(nar[i]))
            elif best is None or lo - tp < best:
                best = lo - tp
        for W in wide:
            near_in(W, tp - off_now(W))
        return best

    promote()
    lam, claim = tag()
    blocks = [Block(translation_ff(c), tag_sa(u, lam), phase="S")]
    claims = [(Translate(c), claim)]
    lambdas = [lam]
    first_classes = len(classes)
    while queue:
        C = queue.popleft()
        size = len(C.seqs)
        cnt = Counter(p for j in C.seqs for p in seq_sets[j])
        p = min((x for x, n in cnt.items() if n < size), key=lambda x: (abs(2 * cnt[x] - size), x))
        offC = off_now(C)
        tp = P0[p] + C.h.get(p, 0) * step + offC
        gmax = top_now(kmax)
        H = (gmax - tp) // step + 1
        near = nearest(tp, C)
        d2 = Fraction(near, 2 * D)
        shift = tuple(H * x for x in u)
        cc, d1 = Fraction(tp, D), d2 / 2
        if float_format is not None:
            from lemmas.afz.options import float_safe_hat
            cc, d1, d2 = float_safe_hat(cc, d2, float_format)
        ff = plateau_ff(u, cc, d1, d2, shift, label="probe (3.2p)")
        with_p = [j for j in C.seqs if p in seq_sets[j]]
        rest = [j for j in C.seqs if p not in seq_sets[j]]
        moved = [starts[j] + pos[j][p] for j in with_p]
        voffC = voff_now(C)
        C1 = new_class(with_p, C.h, p, H)
        C2 = new_class(rest, C.h, C.top)
        born(C1, offC, voffC)
        born(C2, offC, voffC)
        for j in with_p:
            top_row[j] = starts[j] + pos[j][p]
        # the top set gains C1's top, the new maximum; C2 keeps C's top (and, being
        # a subset of C, C's place among the narrow classes)
        t1 = top_now(C1)
        gap = t1 - gmax if gap is None else min(gap, t1 - gmax)
        kmax = C1
        i = bisect_left(ntop, top_now(C))
        if i < len(nar) and nar[i] is C:
            nar[i], nw[i] = C2, C2.width
        else:
            wide[wide.index(C)] = C2
        wide.append(C1)
        for K in (C1, C2):
            if len(K.seqs) > 1:
                queue.append(K)
        lam, claim = tag()
        blocks.append(Block(ff, tag_sa(u, lam), phase="S"))
        claims.append((Shift(moved, shift), claim))
        lambdas.append(lam)
        if progress:
            progress()
    live = {id(K): K for K in nar + wide}
    for K in live.values():
        K.off, K.voff = off_now(K), voff_now(K)

    def coords(C, p):
        """Scaled integer coordinates (times Dx) of point p in class C."""
        h = C.h.get(p, 0)
        return tuple(x + h * w + v for x, w, v in zip(X0[p], uD, C.voff))

    def proj(C, p):
        return P0[p] + C.h.get(p, 0) * step + C.off

    where = [None] * len(seq_of)  # row -> (class, point)
    for C in live.values():
        for j in C.seqs:
            for k, p in enumerate(seq_pts[j]):
                where[starts[j] + k] = (C, p)
    rows = _Rows(where, coords, lambda i: proj(*where[i]), Dx, D)
    return Separation(blocks, claims, u, len(blocks) - 1, lambdas, first_classes, rows)
