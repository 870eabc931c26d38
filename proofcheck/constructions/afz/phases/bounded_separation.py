"""Phase S of the *bounded* construction: separation with magnitudes linear in N.

proofcheck's own variant of docs/spec.md §4 phase S (issue 24 item 4; not the seed's proof).
The default construction's tag ``x -> x + lam M(X)`` (proofcheck's reconstruction of phase
S) multiplies the lifted top by ``1 + lam`` every round, so its numbers grow like ``2^R``
(docs/measurements/float-audit.md).  Here a tag never adds
a token to tokens; it adds a multiple of a fixed direction ``z`` read off a flag:

* **Layout** (FF of block 1, :func:`plan_layout`): scale to integers (``eta = D``),
  translate every content coordinate to >= 1 and fold one coordinate into another
  (``x_i + S x_j``, injective) to free the flag coordinate F, and for ``d >= 3`` a
  second one to free the signature coordinate Z (``z = e_Z``); for ``d = 2`` the
  signature is stacked above the one content coordinate (``z = S_z e_i``).
* **Signature tag** (SA of block 1, :func:`choose_signature`): every sequence j moves
  by ``s_j z`` with ``s_j`` the v-maximum or ``lcm(n) x`` the v-mean of its tokens
  (the candidate v with most distinct values inside the budget ``4N``: signatures
  are shifted to start at 0 for d >= 3; for d = 2 the largest is at most 4N).  A *class* is
  a set of sequences with one signature; inside a class shared points sit at one
  position, points of different classes differ (in the signature).
* **Rounds** (blocks 2..R+1), while some class holds two sequences that share a
  point: pick such a class C and a point p in some but not all of its sequences
  (as balanced as possible); FF = flag lift of p's copies in C (a triangle of
  half-width 1 along a direction that isolates p's position; integer projections)
  plus the reset of the previous round's flag; SA = flag tag moving the sequences
  holding p by ``(s' - s_C) z``, ``s'`` the least unused signature.  Each round adds
  one class, so ``R <= N - 1``, every signature is < max(4N + 1, N) and the flag is
  0 or 1.

Invariants (exact, integer): coordinates are integers; content coordinates >= 1;
``x_F`` is 0 except on the previous round's lifted point (1); ``<w, x>`` of every hat
direction is injective on the positions it must resolve (gap >= 1).  Every claim is
checked by the kernel on the returned layers.
"""
from __future__ import annotations

import math
import random
from collections import Counter, deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from proofcheck.constructions.afz.layers.flag import flag_tag_sa, layout_ff, lift_ff, signature_tag_sa, unit
from proofcheck.constructions.claims import Affine, Moves, SequenceTranslate
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block

ID = "bounded-separation"


@dataclass
class Layout:
    """Block 1's affine map ``x -> M x + c`` on the inputs and where it puts things.

    ``D``: common denominator (``eta``); ``content``: content coordinates (>= 1 on
    every token after block 1); ``F``: flag coordinate; ``Z``: signature coordinate
    (``None`` for d = 2); ``z``: signature direction (ints); ``b_axis``: the content
    coordinate the attention scores are signed by; ``units``: the fold units
    ``(U_k, b_k, W_k)``; ``translation``; ``M``, ``c``: the affine map;
    ``cmax[k]``: largest value of coordinate k over the contents."""

    D: int
    d: int
    content: list[int]
    F: int
    Z: int | None
    z: tuple[int, ...]
    b_axis: int
    units: list
    translation: list[int]
    M: tuple
    c: tuple
    cmax: list[int]


def plan_layout(ipts, d: int, D: int, z0: int = 0) -> tuple[Layout, list[tuple[int, ...]]]:
    """The layout for the distinct points ``ipts`` (integer tuples, the inputs times
    ``D``), and every point's position after block 1 (ints, flag 0, signature 0 —
    i.e. ``Z = 0``; the FF itself puts ``Z = -z0`` so that the signature tag lands on
    ``s_j - z0``).  Folds pick greedily the pair of content coordinates with the
    smallest product of value counts (constant coordinates first), each with the
    least scale that keeps the points distinct."""
    lo = [min(p[k] for p in ipts) for k in range(d)]
    cur = [[p[k] - lo[k] for k in range(d)] for p in ipts]   # >= 0, folded so far
    span = {k: max(q[k] for q in cur) + 1 for k in range(d)}  # values of coordinate k
    folds = []                                 # (i, j, S): x_i += S (x_j - lo_j)
    received = set()                           # coordinates that hold a fold: never
    for _ in range(1 if d == 2 else 2):        # folded away (units read the inputs)
        i, j = min(((i, j) for i in span for j in span if i != j and j not in received),
                   key=lambda ij: (span[ij[0]] * span[ij[1]], ij))
        S = _least_injective_scale(cur, [k for k in span if k != j], i, j, span[i])
        received.add(i)
        folds.append((i, j, S))
        for q in cur:
            q[i] += S * q[j]
        span[i] = max(q[i] for q in cur) + 1
        del span[j]
    F = folds[0][1]
    Z = folds[1][1] if d > 2 else None
    content = sorted(span)
    target = {F: 0, **({Z: -z0} if Z is not None else {})}
    translation = [target[k] - lo[k] if k in target else 1 - lo[k] for k in range(d)]
    units = []
    for i, j, S in folds:
        units.append((unit(j, d, D), -lo[j], tuple(S if k == i else -1 if k == j else 0
                                                     for k in range(d))))
    M = [[D if r == c_ else 0 for c_ in range(d)] for r in range(d)]
    c = list(translation)
    for i, j, S in folds:
        M[i][j] += D * S
        M[j][j] -= D
        c[i] -= S * lo[j]
        c[j] += lo[j]
    M = tuple(tuple(Fraction(x) for x in row) for row in M)
    c = tuple(Fraction(x) for x in c)
    z = tuple(1 if k == Z else 0 for k in range(d)) if Z is not None else \
        tuple(span[content[0]] + 1 if k == content[0] else 0 for k in range(d))
    out = []
    for p in ipts:
        q = [sum(int(M[r][k]) * p[k] for k in range(d)) // D + int(c[r]) for r in range(d)]
        if Z is not None:
            q[Z] = 0
        out.append(tuple(q))
    cmax = [max(q[k] for q in out) for k in range(d)]
    return Layout(D, d, content, F, Z, z, content[0], units, translation, M, c, cmax), out


def _least_injective_scale(cur, keep, i: int, j: int, safe: int) -> int:
    """The least ``S >= 1`` for which ``x_i + S x_j`` keeps the points (``cur``: int
    rows, >= 0) distinct on the coordinates ``keep`` (i among them); ``safe`` (more
    than every value of coordinate i) always works, so the search stops there."""
    for S in range(1, safe):
        seen = set()
        for q in cur:
            key = tuple(q[k] + S * q[j] if k == i else q[k] for k in keep)
            if key in seen:
                break
            seen.add(key)
        else:
            return S
    return safe


@dataclass
class Signature:
    """The first tag: ``kind`` "mean" or "max", direction ``v`` (ints on content
    coordinates), factor ``lam``; ``key[j]``: the signature value it adds (times z);
    ``classes``: number of distinct keys."""

    kind: str
    v: tuple[int, ...]
    lam: int
    key: list[int]
    classes: int
    spread: int = 0
    dyadic: bool = False


def _signature_candidates(layout: Layout, seed: int = 0, count: int = 160):
    """Content directions to try: unit vectors, then seeded small-integer vectors."""
    d, cont = layout.d, layout.content
    for k in cont:
        yield unit(k, d)
    rng = random.Random(seed)
    for _ in range(count):
        yield tuple(rng.randint(0, 30) if k in cont else 0 for k in range(d))


def _dyadic_weights(kind: str, proj, seq_pts) -> bool:
    """Every attention weight of the tag is a power of two (1/n_j for the mean, one
    over the number of v-maximal tokens for the max), so that its float evaluation
    on integer tokens is exact too."""
    def pow2(k):
        return k & (k - 1) == 0
    if kind == "mean":
        return all(pow2(len(s)) for s in seq_pts)
    for s in seq_pts:
        top = max(proj[p] for p in s)
        if not pow2(sum(proj[p] == top for p in s)):
            return False
    return True


def choose_signature(pos0, seq_pts, layout: Layout, budget: int) -> Signature | None:
    """The candidate (kind, v) whose attention weights are powers of two (so float
    evaluation is exact on integer data) if there is one, then with most distinct
    signatures, whose values span at most ``budget`` (for d = 2, where block 1
    cannot pre-offset the signature, whose largest value is at most ``budget``);
    ``None`` when no candidate gives two classes."""
    n = [len(s) for s in seq_pts]
    lcm_n = math.lcm(*n)
    best = None
    for v in _signature_candidates(layout):
        v = tuple(int(x) for x in v)
        proj = [sum(a * b for a, b in zip(v, q)) for q in pos0]
        for kind in ("mean", "max"):
            if kind == "mean":
                key = [lcm_n // len(s) * sum(proj[p] for p in s) for s in seq_pts]
            else:
                key = [max(proj[p] for p in s) for s in seq_pts]
            spread = max(key) - (min(key) if layout.Z is not None else 0)
            if spread > budget:
                continue
            k = len(set(key))
            dy = _dyadic_weights(kind, proj, seq_pts)
            if best is None or (dy, k, -spread) > (best.dyadic, best.classes, -best.spread):
                best = Signature(kind, v, lcm_n if kind == "mean" else 1, key, k, spread, dy)
    return best if best is not None and best.classes > 1 else None


class Positions:
    """The distinct positions (point, signature) of the current tokens, flag 0, for
    exact isolation checks of hat directions ``w_c + k z`` (``w_c`` a content
    direction): ``<w_c + k z, x> = <w_c, pos0[p]> + k s <z, z>``-free form
    ``tc(w_c) + k s`` for ``z = e_Z`` (d >= 3); for d = 2 the only direction is
    ``e_i`` (the signature is stacked in coordinate i).  numpy int64 when every value
    fits below 2^40, else exact Python ints.  ``row[(p, s)]``: index of a pair."""

    def __init__(self, sep, pairs):
        self.sep = sep
        self.pairs = list(pairs)
        self.row = {ps: i for i, ps in enumerate(self.pairs)}
        self.smax = max(sep.members) if sep.members else 0
        P0 = sep.pos0_array()
        self.fast = P0 is not None and self.smax < 2 ** 30
        if self.fast:
            a = np.array(self.pairs, dtype=np.int64).reshape(-1, 2)
            self.pid, self.sg = a[:, 0], a[:, 1]
        self._tc = {}

    def tc(self, w_c):
        """``<w_c, pos0[p]>`` of every row (w_c on content coordinates)."""
        w_c = tuple(w_c)
        if w_c not in self._tc:
            if self.fast and sum(abs(x) for x in w_c) < 2 ** 20:
                self._tc[w_c] = self.sep.pos0_array()[self.pid] @ np.array(w_c, dtype=np.int64)
            else:
                self._tc[w_c] = [_dot(w_c, self.sep.pos0[p]) for p, _ in self.pairs]
        return self._tc[w_c]

    def proj(self, w):
        """``<w, x>`` of every row for a direction ``w`` (``w_F = 0``)."""
        lay = self.sep.layout
        w_c = tuple(0 if k in (lay.F, lay.Z) else x for k, x in enumerate(w))
        zk = _dot(w, lay.z)
        tc = self.tc(w_c)
        if isinstance(tc, np.ndarray) and abs(zk) * self.smax < 2 ** 40:
            return tc + zk * self.sg
        return [t + zk * s for t, (_, s) in zip(tc, self.pairs)]

    def extent(self, w) -> tuple[int, int]:
        """``(min, max)`` of ``<w, x>`` over the rows."""
        pr = self.proj(w)
        return int(min(pr)), int(max(pr))

    def least_k(self, w_c, p: int, s: int, kmax: int):
        """Least ``k`` in ``1..kmax`` with ``<w_c + k e_Z, .>`` isolating the position
        (p, s), or ``None``.  Row y collides iff ``tc_y - tc_P = k (s - s_y)``: same
        signature needs ``tc_y != tc_P`` (else no k works), other signatures rule out
        at most one k each."""
        tc = self.tc(w_c)
        P = self.row[(p, s)]
        if isinstance(tc, np.ndarray):
            dt = tc - tc[P]
            ds = s - self.sg
            same = ds == 0
            if np.count_nonzero(dt[same] == 0) > 1:
                return None
            m = ~same & (dt % np.where(same, 1, ds) == 0)
            q = dt[m] // ds[m]
            bad = set(q[(q >= 1) & (q <= kmax)].tolist())
        else:
            bad = set()
            for (_, sy), t in zip(self.pairs, tc):
                dt, ds = t - tc[P], s - sy
                if ds == 0:
                    if dt == 0 and (_, sy) != (p, s):
                        return None
                elif dt % ds == 0 and 1 <= dt // ds <= kmax:
                    bad.add(dt // ds)
        return next((k for k in range(1, kmax + 1) if k not in bad), None)


def isolating_direction(sep, index: Positions, p: int, s: int):
    """A hat direction ``w`` (ints, ``w_F = 0``) on which the position of point ``p``
    in class ``s`` projects to a value no other position of ``index`` takes; integer
    positions, so every other projection is at distance >= 1.

    Among ``w_c + k e_Z`` (``w_c`` from :func:`_direction_candidates`, ``k`` the least
    that isolates, :meth:`Positions.least_k`) the one with the smallest bound on its
    projections.  ``k = spread(w_c) + 1`` isolates whenever ``w_c`` separates p from
    the other contents of its class (positions of other classes then differ by
    ``>= k - spread >= 1``), and the mixed-radix ``w_c`` separates every content, so
    the search always succeeds.  For d = 2 the direction is ``e_i``."""
    lay = sep.layout
    cands = _direction_candidates(lay)
    if lay.Z is None:
        return cands[0]
    spread = _spreads(lay)
    best = None
    for w_c in cands:
        k = index.least_k(w_c, p, s, spread(w_c) + 1)
        if k is None:
            continue
        w = _with_z(lay, w_c, k)
        m = _magnitude(lay, w, index.smax)
        if best is None or m < best[0]:
            best = (m, w)
    return best[1]


def common_direction(sep, index: Positions, seqs, token_pairs):
    """``(w, leaders)``: one direction on which every sequence in ``seqs`` has a token
    whose position no other position shares (``leaders[j]``: its index in the
    sequence, the first such), with the smallest bound on its projections among
    ``w_c + k e_Z`` (``k`` up to the lexicographic value); the mixed radix with the
    lexicographic k makes every position unique, so one always exists.
    ``token_pairs[j]``: the row of ``index`` of each token of sequence j."""
    lay = sep.layout
    spread = _spreads(lay)
    cands = _direction_candidates(lay)
    last = len(cands) - 1   # the mixed radix: its lexicographic k only
    tries = sorted((_magnitude(lay, _with_z(lay, w_c, k), index.smax), i, k)
                   for i, w_c in enumerate(cands)
                   for k in ([0] if lay.Z is None else
                             [spread(w_c) + 1] if i == last else range(1, spread(w_c) + 2)))
    for _, i, k in tries:
        w = _with_z(lay, cands[i], k) if lay.Z is not None else cands[i]
        pr = index.proj(w)
        uniq = _unique_mask(pr)
        leaders = {}
        for j in seqs:
            t = next((t for t, r in enumerate(token_pairs[j]) if uniq[r]), None)
            if t is None:
                break
            leaders[j] = t
        else:
            return w, leaders
    raise AssertionError("the lexicographic mixed radix makes every position unique")  # pragma: no cover


def _unique_mask(pr):
    """Per row: its value occurs once in ``pr``."""
    if isinstance(pr, np.ndarray):
        _, inv, cnt = np.unique(pr, return_inverse=True, return_counts=True)
        return cnt[inv] == 1
    c = Counter(pr)
    return [c[t] == 1 for t in pr]


def _with_z(lay: Layout, w_c, k: int):
    """``w_c + k e_Z`` (d >= 3); ``w_c`` itself for d = 2 (z is along a content axis)."""
    if lay.Z is None:
        return tuple(w_c)
    return tuple(x + (k if i == lay.Z else 0) for i, x in enumerate(w_c))


def _magnitude(lay: Layout, w, smax: int) -> int:
    """Upper bound of ``<w, x>`` over positions with signature <= smax (w >= 0)."""
    return sum(w[k] * lay.cmax[k] for k in lay.content) + smax * _dot(w, lay.z)


def _spreads(layout: Layout):
    def spread(w):
        return sum(a * (layout.cmax[k] - 1) for k, a in enumerate(w) if k in layout.content)
    return spread


def _direction_candidates(layout: Layout):
    """Content directions by increasing spread over the contents: unit vectors, sums
    of two, ``(1, 2)`` pairs, then the mixed radix (injective on all contents)."""
    d, cont = layout.d, layout.content
    if layout.Z is None:
        return [unit(cont[0], d)]
    cands = [tuple(int(k == i) for k in range(d)) for i in cont]
    cands += [tuple(int(k in (i, j)) for k in range(d)) for i in cont for j in cont if i < j]
    cands += [tuple(1 if k == i else 2 if k == j else 0 for k in range(d))
              for i in cont for j in cont if i != j]
    spread = _spreads(layout)
    cands.sort(key=lambda w: (spread(w), w))
    radix, mult = [0] * d, 1
    for k in cont:
        radix[k] = mult
        mult *= layout.cmax[k]
    return cands + [tuple(radix)]


@dataclass
class BoundedSeparation:
    """Blocks 1..R+1 with their claims, and the state after them.

    ``sig[j]``: signature of sequence j; ``members[s]``: sequences of class s;
    ``seq_pts[j]``: point ids of sequence j's tokens; ``pos0[p]``: point p's
    position with signature 0 and flag 0; ``flagged``: ``(rows, point, signature)``
    of the token with flag 1 (``None`` when R = 0); ``stats``: magnitudes."""

    blocks: list
    claims: list
    layout: Layout
    R: int
    sig: list[int]
    members: dict
    seq_pts: list
    pos0: list
    spans: list
    flagged: tuple | None
    signature: Signature | None
    stats: dict = field(default_factory=dict)

    def pos0_array(self):
        """``pos0`` as an int64 ``(points, d)`` array when every coordinate is below
        2^30 (else ``None``: exact Python ints are used)."""
        if not hasattr(self, "_P0"):
            big = max((abs(x) for q in self.pos0 for x in q), default=0)
            self._P0 = np.array(self.pos0, dtype=np.int64) if big < 2 ** 30 else None
        return self._P0

    def position(self, p: int, s: int, flag: int = 0) -> tuple[int, ...]:
        """Exact position (ints) of point p in the class with signature s."""
        z, F = self.layout.z, self.layout.F
        return tuple(x + s * zk + (flag if k == F else 0)
                     for k, (x, zk) in enumerate(zip(self.pos0[p], z)))

    def rows(self) -> list[tuple[Fraction, ...]]:
        """Every token after block R+1 (Fractions), in row order."""
        flag_rows = set(self.flagged[0]) if self.flagged else set()
        out = []
        for j, s_ in enumerate(self.seq_pts):
            lo = self.spans[j][0]
            for k, p in enumerate(s_):
                f = 1 if lo + k in flag_rows else 0
                out.append(tuple(Fraction(x) for x in self.position(p, self.sig[j], f)))
        return out


def _first_block(layout: Layout, sigc: Signature | None, spans):
    """Block 1 (layout FF, signature tag) and its claims."""
    ff = layout_ff(layout.D, layout.units, layout.translation)
    ffc = Affine(layout.M, layout.c)
    if sigc is None:
        return Block(ff, identity_sa(), phase="S"), (ffc, SequenceTranslate({}, spans))
    sa = signature_tag_sa(sigc.kind, sigc.v, sigc.lam, layout.z, layout.b_axis)
    z = tuple(Fraction(x) for x in layout.z)
    sac = SequenceTranslate({j: tuple(k * x for x in z) for j, k in enumerate(sigc.key)}, spans)
    return Block(ff, sa, phase="S"), (ffc, sac)


def _load(inputs):
    """``(D, distinct scaled points, seq_pts)``: the common denominator, the distinct
    points times D (int tuples) and each sequence's point ids."""
    D = math.lcm(*{v.denominator for X in inputs for x in X for v in x})
    ids: dict = {}
    seq_pts = [[ids.setdefault(tuple(v.numerator * (D // v.denominator) for v in x), len(ids))
                for x in X] for X in inputs]
    return D, list(ids), seq_pts


def separate_bounded(inputs, d: int, budget: int | None = None, progress=None) -> BoundedSeparation:
    """Phase S (bounded) for ``inputs[j]``: ``(n_j, d)`` tuples of Fractions of an
    admissible dataset (d >= 2; not re-validated).  ``budget``: largest spread of
    the first tag's signatures (default ``4N``).  ``progress()`` after each round."""
    from proofcheck.kernel.evaluate import spans_of
    D, ipts, seq_pts = _load(inputs)
    spans = spans_of(len(s) for s in seq_pts)
    N = len(seq_pts)
    layout, pos0 = plan_layout(ipts, d, D)
    sigc = choose_signature(pos0, seq_pts, layout, 4 * N if budget is None else budget)
    z0 = min(sigc.key) if sigc is not None and layout.Z is not None else 0
    if z0:
        layout, pos0 = plan_layout(ipts, d, D, z0)
    block, claim = _first_block(layout, sigc, spans)
    sig = [k - z0 for k in sigc.key] if sigc is not None else [0] * N
    sep = BoundedSeparation([block], [claim], layout, 0, sig, {}, seq_pts, pos0, spans, None,
                            sigc, {"rounds": []})
    for j, s in enumerate(sig):
        sep.members.setdefault(s, []).append(j)
    _rounds(sep, progress)
    sep.R = len(sep.blocks) - 1
    return sep


def _split_point(seqs, sets):
    """A point in some but not all of ``seqs`` (closest to half of them; smallest id
    on ties), or ``None`` when no two of them share a point."""
    cnt = Counter(p for j in seqs for p in sets[j])
    if all(n == 1 for n in cnt.values()):
        return None, cnt
    size = len(seqs)
    return min((x for x, n in cnt.items() if n < size),
               key=lambda x: (abs(2 * cnt[x] - size), x)), cnt


def _rounds(sep: BoundedSeparation, progress=None) -> None:
    """The probe rounds (module docstring), appended to ``sep`` in place."""
    sets = [set(s) for s in sep.seq_pts]
    where = [{p: sep.spans[j][0] + k for k, p in enumerate(s)} for j, s in enumerate(sep.seq_pts)]
    pairs = Counter((p, sep.sig[j]) for j, s_ in enumerate(sep.seq_pts) for p in s_)
    used = set(sep.members)
    free = 0
    queue = deque(sorted(sep.members))
    budget = len(sep.seq_pts)  # each round splits a class of >= 2 sequences: < N rounds
    while queue:
        s = queue.popleft()
        if len(sep.stats["rounds"]) >= budget:
            raise RuntimeError(f"bounded separation: more than {budget} rounds")
        seqs = sep.members[s]
        p, _ = _split_point(seqs, sets)
        if p is None:
            continue
        index = Positions(sep, pairs)
        w = isolating_direction(sep, index, p, s)
        c1 = [j for j in seqs if p in sets[j]]
        while free in used:
            free += 1
        used.add(free)
        ff, moves = probe_ff(sep, w, p, s, [where[j][p] for j in c1])
        _append_round(sep, ff, moves, c1, s, free)
        sep.stats["rounds"].append({"t_p": _dot(w, sep.position(p, s)), "w": w,
                                    "g": free - s})
        for j in c1:
            for q in sep.seq_pts[j]:
                pairs[(q, s)] -= 1
                if not pairs[(q, s)]:
                    del pairs[(q, s)]
                pairs[(q, free)] += 1
        sep.flagged = ([where[j][p] for j in c1], p, free)
        queue.extend((free, s))
        if progress:
            progress()


def probe_ff(sep: BoundedSeparation, w, p: int, s: int, rows_p, a: int = 1,
             label: str = "probe: flag lift (3.2)"):
    """``(ff, moves)``: the flag lift by ``a`` of the rows ``rows_p`` (point p in class
    s) along ``w``; when a previous round left a flagged token, along ``2w`` (every
    flag-0 projection even) with that token put at ``t_p + 1`` by the ``e_F`` entry
    of the direction, and reset.  ``moves``: every row the FF changes -> its new
    position (ints)."""
    lay = sep.layout
    moves, gamma = {}, None
    t_p = _dot(w, sep.position(p, s))
    if sep.flagged is not None:
        rows_f, pf, sf = sep.flagged
        base = sep.position(pf, sf)
        w = tuple(2 * x for x in w)
        t_p *= 2
        gamma = t_p + 1 - _dot(w, base)
        moves.update({r: base for r in rows_f})
    moves.update({r: sep.position(p, s, a) for r in rows_p})
    return lift_ff(w, t_p, a, lay.F, gamma, label=label), moves


def _append_round(sep: BoundedSeparation, ff, moves, c1, s: int, s_new: int) -> None:
    """Block (probe FF, flag tag moving ``c1`` from signature s to s_new) and claims."""
    lay = sep.layout
    g = s_new - s
    sa = flag_tag_sa(lay.F, lay.b_axis, g, lay.z)
    gz = tuple(Fraction(g * x) for x in lay.z)
    sep.blocks.append(Block(ff, sa, phase="S"))
    sep.claims.append((Moves({r: tuple(Fraction(x) for x in v) for r, v in moves.items()}),
                       SequenceTranslate({j: gz for j in c1}, sep.spans)))
    moved = set(c1)
    sep.members[s] = [j for j in sep.members[s] if j not in moved]
    sep.members[s_new] = list(c1)
    for j in c1:
        sep.sig[j] = s_new


def _dot(a, b) -> int:
    return sum(x * y for x, y in zip(a, b))
