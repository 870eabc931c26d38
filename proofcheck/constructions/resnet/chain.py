"""A chain of relocation layers (Lemma 3.2) that maps given points to given images.

Used by the ``resnet`` statement twice: for the residual FF network on flattened
sequences (one point per sequence, in Q^{n d}) and for token-wise networks (one point
per distinct token, in Q^d).  Every layer is the hat of Lemma 3.2,
:func:`proofcheck.constructions.afz.layers.hat.hat_ff` (width 3, ``eta = 1``: a residual layer
``x + W relu(U x + b)``), which moves one current point and fixes every other one.

Choices of Lemma 3.2, made once for the whole chain instead of per layer (what
:func:`proofcheck.constructions.afz.layers.hat.relocate` does, which costs a pass over all points and
coordinates per layer: quadratic in N times the dimension): ONE direction
``w = (1, k, k^2, ...)`` (smallest k) whose projections are pairwise distinct over the
current points, kept in a sorted list; the hat's half-width ``delta`` is the distance
from ``<w, p>`` to the nearest other projection (two neighbours in the sorted list).
When a moved point's projection would collide with another point's, a new
direction is chosen for the current points.  Every layer's claim (one point moves,
all others fixed) is checked exactly by the kernel, whatever these choices.

Order of the moves.  Moving point ``i`` onto ``q_i`` is safe when ``q_i`` is not the
current position of another point still waiting to move (that point would later
drag ``i`` along).  Safe points are moved first; when none is safe (the images form
cycles among the waiting points), one waiting point ON a cycle takes a *detour* to a
fresh point (first coordinate beyond every position and image) and moves on later,
which makes its predecessor on the cycle safe.  Each detour costs one extra layer;
there is at most one detour per cycle, so at most ``2 N`` layers for ``N`` points.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bisect import bisect_left

from proofcheck.constructions.afz.layers.hat import hat_ff
from proofcheck.constructions.layers import vec
from proofcheck.kernel.model import FF, dot


@dataclass
class Move:
    """One layer's claim: point ``index`` moves from ``p`` to ``q``; every other
    current point is fixed."""

    index: int
    p: tuple
    q: tuple
    detour: bool = False


@dataclass
class Chain:
    """``layers[t]`` realises ``moves[t]``; ``final[i]`` is where point ``i`` ends."""

    layers: list[FF]
    moves: list[Move]
    final: list[tuple]

    @property
    def detours(self) -> int:
        return sum(m.detour for m in self.moves)


def relocation_chain(points, images, label: str = "relocation (3.2)") -> Chain:
    """Layers whose composition maps ``points[i] -> images[i]`` for every ``i``.

    ``points``: pairwise distinct ``(D,)`` rational vectors; ``images``: ``(D,)``
    vectors, repeats allowed.  Points already at their image get no layer.
    Returns a :class:`Chain` (``len(layers) <= 2 * len(points)``).
    Raises ``ValueError`` if the points are not distinct or the lengths differ.
    Source: docs/spec.md §2 ``resnet`` (a), built from Lemma 3.2 (``proofcheck.constructions.afz.layers.hat``)."""
    cur = [vec(p) for p in points]
    images = [vec(q) for q in images]
    if len(cur) != len(images):
        raise ValueError("relocation_chain: points and images differ in number")
    if len(set(cur)) != len(cur):
        raise ValueError("relocation_chain: points must be pairwise distinct")
    pending = [i for i in range(len(cur)) if cur[i] != images[i]]
    layers: list[FF] = []
    moves: list[Move] = []
    fresh = 1 + max((abs(x) for v in cur + images for x in v), default=Fraction(0))
    w, proj, ts = _projections(cur)
    limit = 2 * len(pending)
    while pending:
        if len(layers) >= limit:  # fail closed: cannot happen (one detour per cycle)
            raise RuntimeError("relocation_chain: more layers than 2 x points")
        waiting = {cur[k]: k for k in pending}
        i = next((k for k in pending if waiting.get(images[k], k) == k), None)
        detour = i is None
        if detour:  # every image is another waiting point's position: break a cycle
            i = _on_a_cycle(pending[0], cur, images, waiting)
            q = (fresh,) + (Fraction(0),) * (len(cur[i]) - 1)
            fresh += 1
        else:
            q = images[i]
        p = cur[i]
        t_p = proj[p]
        at = bisect_left(ts, t_p)
        gaps = [abs(ts[a] - t_p) for a in (at - 1, at + 1) if 0 <= a < len(ts)]
        delta = min(gaps) if gaps else Fraction(1)
        layers.append(hat_ff(w, t_p, delta, tuple(b - a for a, b in zip(p, q)),
                             label=f"{label}{' detour' if detour else ''}: point {i}"))
        moves.append(Move(i, p, q, detour))
        cur[i] = q
        if not detour:
            pending.remove(i)
        del ts[at]
        del proj[p]
        if q not in proj:
            t_q = dot(w, q)
            k = bisect_left(ts, t_q)
            if k < len(ts) and ts[k] == t_q:  # projection collision: new direction
                w, proj, ts = _projections(cur)
            else:
                proj[q] = t_q
                ts.insert(k, t_q)
    return Chain(layers, moves, cur)


def _on_a_cycle(start: int, cur, images, waiting) -> int:
    """A waiting point on a cycle of "my image is your position", reached from
    ``start`` (every waiting point's image is another waiting point's position, so
    following images from ``start`` repeats).  Detouring it frees its predecessor on
    the cycle; detouring a point off the cycles (no predecessor) would free nothing."""
    seen = set()
    k = start
    while k not in seen:
        seen.add(k)
        k = waiting[images[k]]
    return k


def _projections(points):
    """``(w, {point: <w, point>}, sorted projections)`` for the smallest ``k >= 1``
    such that ``w = (1, k, k^2, ...)`` separates the distinct points (a nonzero
    difference of two points is a polynomial in k of degree < dimension, so only
    finitely many k fail)."""
    pts = list(dict.fromkeys(points))
    D = len(pts[0]) if pts else 1
    k = 1
    while True:
        w = tuple(Fraction(k) ** e for e in range(D))
        proj = {x: dot(w, x) for x in pts}
        if len(set(proj.values())) == len(pts):
            return w, proj, sorted(proj.values())
        k += 1
