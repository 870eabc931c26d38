"""Proposition *separation* (docs/spec.md §4, phase S): at most N blocks make the input
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
A wide class's values in the gap below a narrow interval are skipped with one
bisection; wide values are compared with each other on their residues modulo a
61-bit prime (numpy; equal values have equal residues, and a residue collision
is decided on the exact values).  A wide class keeps its top up to date (one
multiplication by ``1 + lam`` per tag; narrow tops are a sorted list).  A round
costs O(points of the split class + wide classes + narrow intervals met) Python
operations and O(points of wide classes) numpy ones per candidate ``lam``,
instead of O(T) hashed big integers.

The steps are the methods of :class:`_PhaseS` (set-up, classes and their lazy
offsets, narrow and wide classes, the tag, a probe round, the result), run by
:func:`separate`.
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

import numpy as np

from proofcheck.constructions.afz.layers.clustering import tag_sa
from proofcheck.constructions.afz.layers.hat import plateau_ff
from proofcheck.constructions.afz.layers.translation import translation_ff
from proofcheck.constructions.claims import SequenceShift, Shift, Translate
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


# residues of projections modulo a 61-bit prime: distinct residues prove distinct
# values (a residue collision is decided on the exact values).  Not a Mersenne
# prime: values here are sums of powers of 1 + lam (often 2), and 2^61 - 1 divides
# 2^(61 k) - 1; the order of 2 modulo this prime is (p - 1) / 2.
_P = 1729382282125174393


class _Class:
    """Sequences with a common top (SA tags shift them by the same vector).

    ``bs``: sorted class-relative projections ``P0[p] + h[p] step`` of its points
    (the projection in the class is that plus the offset); ``h``: multiples of
    ``u`` added to points by probes; ``k``: number of tags applied before the
    class was formed; ``tb``: its top projection then; ``yb``: its top's scaled
    coordinates then.  After ``G[-1] / G[k] = F`` more growth the top projection
    is ``tb F``, the offset ``tb F - btop`` and the coordinate offset
    ``yb F - xtop``.  A wide class also keeps its top projection ``tnow`` up to
    date (``None`` for a narrow one: the narrow tops are kept in a list) and its
    residue ``tres`` modulo :data:`_P` (``bres``: ``btop`` modulo :data:`_P`)."""

    __slots__ = ("_res", "_set", "bres", "bs", "btop", "h", "k", "off", "pts", "seqs", "tb",
                 "tnow", "top", "tres", "voff", "width", "xtop", "yb")

    def members(self):
        if self._set is None:
            self._set = set(self.bs)
        return self._set

    def residues(self):
        """``bs`` modulo :data:`_P` (an int64 array, computed once)."""
        if self._res is None:
            self._res = np.array([b % _P for b in self.bs], dtype=np.int64)
        return self._res


class _PhaseS:
    """The state of phase S between rounds, and its steps (module docstring).

    Points: the distinct input tokens, scaled to integers (``Dx``), translated
    (``X0``) and projected (``P0``); ``seq_pts[j]`` the points of sequence j and
    ``starts[j] + pos[j][p]`` the row of point p in sequence j.  Classes: every
    class (:class:`_Class`) is either *narrow* (``nar``, sorted by top, with
    tops ``ntop`` and widths ``nw``; their intervals ``[top - width, top]`` are
    pairwise disjoint) or *wide* (``wide``); ``queue`` holds the classes still to
    split, ``kmax`` the one with the largest top, ``gap`` the least gap between
    tops.  ``G[k]``: the product of the ``1 + lam`` of the first k tags."""

    def __init__(self, inputs, d: int, float_format=None):
        self.d, self.float_format = d, float_format
        self._points(inputs)
        self._rows_of_points()
        self._translation()
        self.G = [1]
        self._F: dict = {}      # k -> G[-1] // G[k] while G does not grow
        self._wide_res = None   # residues of the wide classes' bs (while wide is unchanged)
        self._first_classes()

    # ---- set-up ------------------------------------------------------------
    def _points(self, inputs):
        """Distinct points as integer tuples (coordinates times the common
        denominator ``Dx``), ``seq_pts``, and the direction ``u``."""
        self.Dx = Dx = _lcm_denominators(x for X in inputs for x in X)
        ids: dict = {}
        if Dx == 1:
            self.seq_pts = [[ids.setdefault(tuple(v.numerator for v in x), len(ids)) for x in X]
                            for X in inputs]
        else:
            self.seq_pts = [[ids.setdefault(tuple(v.numerator * (Dx // v.denominator) for v in x),
                                            len(ids)) for x in X] for X in inputs]
        self.ipts = list(ids)
        self.seq_sets = [set(s) for s in self.seq_pts]
        self.u = _choose_u_scaled(self.ipts, self.seq_pts, self.d)
        self.iu = [int(x) for x in self.u]
        if any(x != v for x, v in zip(self.iu, self.u)):  # pragma: no cover - integers
            raise ValueError("separation: u must be an integer vector")

    def _rows_of_points(self):
        self.starts, self.seq_of, self.pos = [], [], []
        for j, s in enumerate(self.seq_pts):
            self.starts.append(len(self.seq_of))
            self.seq_of += [j] * len(s)
            self.pos.append({p: k for k, p in enumerate(s)})

    def _translation(self):
        """Translation ``c = 1 - (coordinate-wise minimum)``; scaled integer
        coordinates ``X0 = (p + c) Dx`` and projections ``P0 = <u, X0>`` (the
        projection scale ``D = Dx``: u is an integer vector and every decision
        is scale-free); ``step``: the projection change of a shift by u."""
        Dx, iu, pts = self.Dx, self.iu, self.ipts
        cD = [Dx - min(p[i] for p in pts) for i in range(self.d)]
        self.c = tuple(Fraction(v, Dx) for v in cD)
        self.X0 = [tuple(map(add, x, cD)) for x in pts]
        self.D = Dx
        self.P0 = [sum(map(mul, iu, x)) for x in self.X0]
        self.step = dot(iu, iu) * self.D
        self.uD = tuple(x * Dx for x in iu)

    def _first_classes(self):
        """One class per distinct top of the input sequences (in order of first
        occurrence), all wide; the least gap between their tops; the rows of the
        tops."""
        by_top: dict = {}
        for j, s in enumerate(self.seq_pts):
            by_top.setdefault(max(s, key=self.P0.__getitem__), []).append(j)
        self.classes = []
        for t, seqs in by_top.items():
            K = self.new_class(seqs, {}, t)
            self.born(K, 0, (0,) * self.d)
            self.classes.append(K)
        self.queue = deque(K for K in self.classes if len(K.seqs) > 1)
        self.top_row = [0] * len(self.seq_pts)
        for K in self.classes:
            self._set_top_rows(K)
        srt = sorted(self.top_now(K) for K in self.classes)
        self.gap = min((b - a for a, b in pairwise(srt)), default=None)
        self.kmax = max(self.classes, key=self.top_now)
        self.nar, self.ntop, self.nw = [], [], []
        self.wide = list(self.classes)

    # ---- classes and their lazy offsets ------------------------------------
    def new_class(self, seqs, base_h, top, h_top=0) -> _Class:
        """The class of ``seqs`` with top point ``top`` (probe shifts ``base_h``
        restricted to its points, plus ``h_top`` on the top)."""
        K = _Class()
        K.seqs, K.top, K._set, K._res = seqs, top, None, None
        K.pts = pts = set().union(*(self.seq_sets[j] for j in seqs))
        K.h = h = {p: v for p, v in base_h.items() if p in pts}
        if h_top:
            h[top] = h.get(top, 0) + h_top
        P0, step = self.P0, self.step
        K.bs = sorted(P0[p] + h.get(p, 0) * step for p in pts)
        K.btop = P0[top] + h.get(top, 0) * step
        K.width = K.btop - K.bs[0]
        K.xtop = tuple(x + h.get(top, 0) * w for x, w in zip(self.X0[top], self.uD))
        return K

    def born(self, K: _Class, off, voff):
        """Class formed now with projection offset ``off`` and coordinate offset ``voff``."""
        K.k, K.tb = len(self.G) - 1, K.btop + off
        K.tnow, K.tres, K.bres = K.tb, K.tb % _P, K.btop % _P
        K.yb = tuple(x + v for x, v in zip(K.xtop, voff))

    def factor(self, k: int) -> int:
        """``G[-1] / G[k]`` (exact; cached until the next tag)."""
        F = self._F.get(k)
        if F is None:
            F = self._F[k] = self.G[-1] // self.G[k]
        return F

    def top_now(self, K: _Class) -> int:
        return K.tnow if K.tnow is not None else K.tb * self.factor(K.k)

    def off_now(self, K: _Class) -> int:
        return self.top_now(K) - K.btop

    def voff_now(self, K: _Class):
        F = self.factor(K.k)
        return tuple(y * F - x for y, x in zip(K.yb, K.xtop))

    def _set_top_rows(self, K: _Class):
        for j in K.seqs:
            self.top_row[j] = self.starts[j] + self.pos[j][K.top]

    # ---- narrow and wide classes --------------------------------------------
    def promote(self):
        """Move wide classes whose interval meets no narrow interval to the narrow list."""
        keep, ntop, nw = [], self.ntop, self.nw
        for W in self.wide:
            t = self.top_now(W)
            i = bisect_left(ntop, t)
            if (i == 0 or ntop[i - 1] < t - W.width) and (i == len(ntop) or ntop[i] - nw[i] > t):
                self.nar.insert(i, W)
                ntop.insert(i, t)
                nw.insert(i, W.width)
                W.tnow = None
            else:
                keep.append(W)
        if len(keep) != len(self.wide):
            self._wide_res = None
        self.wide = keep

    def _replace(self, C: _Class, C2: _Class, C1: _Class):
        """C splits into C2 (same top: C's place, narrow or wide) and C1 (wide)."""
        i = bisect_left(self.ntop, self.top_now(C))
        if i < len(self.nar) and self.nar[i] is C:
            self.nar[i], self.nw[i] = C2, C2.width
            C2.tnow = None
        else:
            self.wide[self.wide.index(C)] = C2
        self.wide.append(C1)
        self._wide_res = None

    # ---- the tag ------------------------------------------------------------
    def injective(self, lam: int, nt) -> bool:
        """Whether the tag with ``lam`` keeps the projections injective (exact);
        ``nt``: the narrow tops times ``1 + lam``.  Narrow classes stay pairwise
        disjoint; a wide class's value can only meet the one narrow interval
        around it (:meth:`_meets_narrow`), or another wide class's value
        (:meth:`_wide_distinct`)."""
        if not self.wide:
            return True
        # the shift of a wide class: its offset plus lam times its top (exact, and
        # modulo _P from the residues of its top)
        f = 1 + lam
        shifts = [f * W.tnow - W.btop for W in self.wide]
        if nt:
            lo_n, hi_n = nt[0] - self.nw[0], nt[-1]
            for W, s in zip(self.wide, shifts):
                if self._meets_narrow(W.bs, s, lam, nt, lo_n, hi_n):
                    return False
        return self._wide_distinct(shifts, [(f * W.tres - W.bres) % _P for W in self.wide])

    def _meets_narrow(self, bs, s, lam, nt, lo_n, hi_n) -> bool:
        """Whether some value ``b + s`` (``b`` in the sorted ``bs``) equals a value
        of the narrow class whose interval holds it after the tag.  Values in the
        gap below a narrow interval are skipped by one bisection."""
        nw, nar = self.nw, self.nar
        pos, end = bisect_left(bs, lo_n - s), bisect_right(bs, hi_n - s)
        while pos < end:
            v = bs[pos] + s
            i = bisect_left(nt, v)
            bot = nt[i] - nw[i]
            if bot <= v:
                K = nar[i]
                if v - self.off_now(K) - lam * self.top_now(K) in K.members():
                    return True
                pos += 1
            else:
                pos = bisect_left(bs, bot - s, pos + 1, end)
        return False

    def _wide_distinct(self, shifts, shift_res) -> bool:
        """The wide classes' values ``b + s`` are pairwise distinct (values of one
        class are); ``shift_res``: the shifts modulo :data:`_P`.  Decided on
        residues (numpy); residue collisions are compared exactly."""
        if self._wide_res is None:
            res = [W.residues() for W in self.wide]
            self._wide_res = (np.concatenate(res), np.array([len(r) for r in res]))
        res, lens = self._wide_res
        vals = (res + np.repeat(np.array(shift_res, dtype=np.int64), lens)) % _P
        order = np.argsort(vals, kind="stable")
        same = vals[order[1:]] == vals[order[:-1]]
        if not same.any():
            return True
        # every value whose residue is shared, by residue: the exact values must differ
        shared = np.zeros(len(vals), dtype=bool)
        shared[1:] |= same
        shared[:-1] |= same
        where = [b + s for W, s in zip(self.wide, shifts) for b in W.bs]
        groups: dict = {}
        for k in order[shared].tolist():
            g = groups.setdefault(int(vals[k]), set())
            if where[k] in g:
                return False
            g.add(where[k])
        return True

    def tag(self):
        """Smallest candidate lambda keeping projections injective, then apply it
        (the narrow tops grow by ``1 + lam``; classes grow lazily through ``G``)."""
        hi = self.top_now(self.kmax)
        lows = [self.top_now(W) - W.width for W in self.wide]
        if self.ntop:
            lows.append(self.ntop[0] - self.nw[0])
        safe = 1 if self.gap is None else (hi - min(lows)) // self.gap + 1
        for lam in sorted({min(k, safe) for k in (1, 2, 3, 5, 8, 13)} | {safe}):
            nt = [t * (1 + lam) for t in self.ntop]
            if self.injective(lam, nt):
                break
        f = 1 + lam
        self.G.append(self.G[-1] * f)
        self._F = {}
        self.ntop = nt
        for W in self.wide:
            W.tnow *= f
            W.tres = W.tres * f % _P
        if self.gap is not None:
            self.gap *= f
        self.promote()
        return Fraction(lam), SequenceShift(Fraction(lam), list(self.top_row), self.seq_of)

    # ---- a probe round ------------------------------------------------------
    def nearest(self, tp, C: _Class):
        """Smallest |projection - tp| over every (class, point) except tp itself in C.
        Narrow classes: the one whose interval may hold tp (bisected), the top of
        the one below, the bottom of the one above; every wide class bisected."""
        ntop, nw, best = self.ntop, self.nw, None
        i = bisect_left(ntop, tp)
        if i > 0:
            best = tp - ntop[i - 1]
        near = []
        if i < len(ntop):
            lo = ntop[i] - nw[i]
            if lo <= tp:
                near.append(self.nar[i])
            elif best is None or lo - tp < best:
                best = lo - tp
        for K in near + self.wide:
            t = tp - self.off_now(K)
            bs = K.bs
            k = bisect_left(bs, t)
            for b in bs[max(k - 1, 0):k + 2]:
                if not (K is C and b == t):
                    v = abs(b - t)
                    if best is None or v < best:
                        best = v
        return best

    def probe_point(self, C: _Class):
        """The point of C held by some but not all of its sequences that splits
        them most evenly (ties: the smallest point id)."""
        size = len(C.seqs)
        cnt = Counter(p for j in C.seqs for p in self.seq_sets[j])
        return min((x for x, n in cnt.items() if n < size),
                   key=lambda x: (abs(2 * cnt[x] - size), x))

    def probe(self, C: _Class):
        """One round's FF: the plateau hat moving the probe point p of C by ``H u``
        above every projection, its claim, and the split of C."""
        p = self.probe_point(C)
        offC = self.off_now(C)
        tp = self.P0[p] + C.h.get(p, 0) * self.step + offC
        gmax = self.top_now(self.kmax)
        H = (gmax - tp) // self.step + 1
        d2 = Fraction(self.nearest(tp, C), 2 * self.D)
        shift = tuple(H * x for x in self.u)
        cc, d1 = Fraction(tp, self.D), d2 / 2
        if self.float_format is not None:
            from proofcheck.constructions.afz.options import float_safe_hat
            cc, d1, d2 = float_safe_hat(cc, d2, self.float_format)
        ff = plateau_ff(self.u, cc, d1, d2, shift, label="probe (3.2p)")
        with_p = [j for j in C.seqs if p in self.seq_sets[j]]
        moved = [self.starts[j] + self.pos[j][p] for j in with_p]
        self.split(C, p, H, with_p, offC, gmax)
        return ff, Shift(moved, shift)

    def split(self, C: _Class, p, H: int, with_p, offC, gmax):
        """C becomes C1 (the sequences holding p, whose top p now is, above every
        projection) and C2 (the rest, C's top); both are born with C's offsets.
        The top set gains C1's top, the new maximum."""
        rest = [j for j in C.seqs if p not in self.seq_sets[j]]
        voffC = self.voff_now(C)
        C1 = self.new_class(with_p, C.h, p, H)
        C2 = self.new_class(rest, C.h, C.top)
        self.born(C1, offC, voffC)
        self.born(C2, offC, voffC)
        self._set_top_rows(C1)
        t1 = self.top_now(C1)
        self.gap = t1 - gmax if self.gap is None else min(self.gap, t1 - gmax)
        self.kmax = C1
        self._replace(C, C2, C1)
        self.queue.extend(K for K in (C1, C2) if len(K.seqs) > 1)

    # ---- the result ---------------------------------------------------------
    def rows(self) -> _Rows:
        """The token coordinates after the last block (exact, on demand)."""
        live = {id(K): K for K in self.nar + self.wide}
        for K in live.values():
            K.off, K.voff = self.off_now(K), self.voff_now(K)
        X0, uD, P0, step = self.X0, self.uD, self.P0, self.step

        def coords(C, p):
            """Scaled integer coordinates (times Dx) of point p in class C."""
            h = C.h.get(p, 0)
            return tuple(x + h * w + v for x, w, v in zip(X0[p], uD, C.voff))

        def proj(C, p):
            return P0[p] + C.h.get(p, 0) * step + C.off

        where = [None] * len(self.seq_of)  # row -> (class, point)
        for C in live.values():
            for j in C.seqs:
                for k, p in enumerate(self.seq_pts[j]):
                    where[self.starts[j] + k] = (C, p)
        return _Rows(where, coords, lambda i: proj(*where[i]), self.Dx, self.D)


def separate(inputs, d: int, float_format=None, progress=None) -> Separation:
    """Phase S for ``inputs[j]``: ``(n_j, d)`` tuples of Fractions (admissible).

    Block 1 translates to coordinates >= 1 and tags; then, while a class of
    sequences with a common top has more than one sequence, one round: probe
    (:meth:`_PhaseS.probe`) and tag (:meth:`_PhaseS.tag`).  ``rows`` of the
    result are the exact token coordinates after block R+1 (the checker
    re-derives them by evaluation).  ``float_format``: float-safe probe hats
    (:func:`proofcheck.constructions.afz.options.float_safe_hat`).  ``progress()``
    (optional) is called after each probe round.
    """
    st = _PhaseS(inputs, d, float_format)
    st.promote()
    lam, claim = st.tag()
    blocks = [Block(translation_ff(st.c), tag_sa(st.u, lam), phase="S")]
    claims = [(Translate(st.c), claim)]
    lambdas = [lam]
    for _ in inputs:  # each round splits a class of >= 2 sequences: at most N - 1 rounds
        if not st.queue:
            break
        ff, shift_claim = st.probe(st.queue.popleft())
        lam, claim = st.tag()
        blocks.append(Block(ff, tag_sa(st.u, lam), phase="S"))
        claims.append((shift_claim, claim))
        lambdas.append(lam)
        if progress:
            progress()
    if st.queue:
        raise RuntimeError(f"separation: classes left to split after {len(inputs)} rounds")
    return Separation(blocks, claims, st.u, len(blocks) - 1, lambdas, len(st.classes),
                      st.rows())
