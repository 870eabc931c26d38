"""Edge instances of the Theorem 1.6 construction: admissible datasets built to
reach the places where a wrong construction shows (ties of projections along
many directions, nearest neighbours at equal distance on both sides, negative
coordinates and projections, the tightest margins, every separation round
needed, leaders on the e_1 axis and targets sharing first coordinates).

Used by the phase statements (``lemma separation`` etc.) next to seeded
datasets, and by the tests.  Each is checked admissible in the tests.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.dataset import Dataset, Pair


def _t(*xs):
    return tuple(Fraction(x) for x in xs)


def _pairs(rows):
    return tuple(Pair(tuple(_t(*x) for x in xs), tuple(_t(*y) for y in ys)) for xs, ys in rows)


def common_top() -> Dataset:
    """Every positive direction has (10, 10) on top of every sequence: the
    separation needs all N - 1 rounds."""
    rows = [([(10, 10)] + sub, [(k, -k), (0, k)][:1 + k % 2])
            for k, sub in enumerate([[(0, 0)], [(0, 0), (1, 0)], [(1, 0)], [(0, 1), (1, 0)],
                                     [(0, 0), (0, 1), (1, 0)], [(2, 1)]], start=1)]
    return Dataset("edge-common-top", 2, _pairs(rows))


def ties() -> Dataset:
    """A lattice square and its sub-squares: projections tie along (1, 1),
    (1, -1) and the axes; shared points at both ends of every ordering."""
    sq = [(0, 0), (1, 0), (0, 1), (1, 1)]
    rows = [(sq, [(2, 2), (0, 0)]), (sq[:3], [(5, -5)]), (sq[1:], [(0, 0), (1, 0)]),
            ([(0, 0), (1, 1)], [(-1, 3)]), ([(1, 0), (0, 1), (2, 2)], [(2, 2)])]
    return Dataset("edge-ties", 2, _pairs(rows))


def both_sides() -> Dataset:
    """Equally spaced tokens on a line (every interior token has its nearest
    neighbours at equal distance on both sides), in d = 3, with negative
    coordinates."""
    line = [(k, -2 * k, -3) for k in range(-3, 4)]
    rows = [(line[:5], [(1, 1, 1), (-1, 0, 2)]), (line[2:], [(1, 1, 1)]),
            (line[1:6], [(0, 0, 0), (3, 0, 0)]), (line[::2], [(-4, 0, 0)])]
    return Dataset("edge-both-sides", 3, _pairs(rows))


def negative() -> Dataset:
    """Every coordinate negative (negative projections along every positive
    direction), in d = 4, with targets on the e_1 axis and targets sharing their
    first coordinate."""
    pts = [_t(-9, -1, -5, -2), _t(-8, -7, -1, -3), _t(-3, -9, -4, -8), _t(-1, -2, -3, -4),
           _t(-6, -6, -6, -6), _t(-2, -8, -7, -1)]
    ys = [_t(4, 0, 0, 0), _t(4, 1, 0, 0), _t(-7, 0, 0, 0), _t(0, 0, 0, 0)]
    pairs = (Pair(tuple(pts[:4]), (ys[0], ys[1])), Pair(tuple(pts[2:]), (ys[2],)),
             Pair(tuple(pts[::2]), (ys[3], ys[0], ys[2])), Pair(tuple(pts[1::2]), (ys[1],)))
    return Dataset("edge-negative", 4, pairs)


def tight() -> Dataset:
    """The tightest margins: tokens 1/1000 apart next to tokens far away, targets
    1/997 apart, in d = 5."""
    e = Fraction(1, 1000)
    base = [_t(0, 0, 0, 0, 0), _t(e, 0, 0, 0, 0), _t(0, e, 0, 0, e), _t(40, -30, 20, 0, 1),
            _t(-40, 30, 0, 20, -1), _t(e, e, e, e, e)]
    f = Fraction(1, 997)
    ys = [_t(1, 2, 3, 4, 5), _t(1 + f, 2, 3, 4, 5), _t(1, 2 + f, 3, 4, 5), _t(-1, 0, 0, 0, 0)]
    pairs = (Pair(tuple(base[:4]), (ys[0], ys[1])), Pair(tuple(base[1:5]), (ys[2],)),
             Pair(tuple(base[2:]), (ys[3], ys[0])), Pair(tuple(base[::2]), (ys[1],)),
             Pair((base[0], base[5]), (ys[2],)))
    return Dataset("edge-tight", 5, pairs)


def two_token_top() -> Dataset:
    """A two-token sequence whose top is nearest its other token (gap 1 after the
    separation) next to longer sequences with wider gaps: the smallest gap below a
    top, which bounds the peel collapse's mu, comes from the short sequence."""
    rows = [([(1, 1), (1, 2)], [(1, 0), (0, 1)]), ([(4, 1), (1, 4), (6, 6)], [(2, 0)]),
            ([(9, 9), (2, 3)], [(3, 3)])]
    return Dataset("edge-two-token-top", 2, _pairs(rows))


def leader_neighbour() -> Dataset:
    """Shared points in several orders (found by a seeded search): after the
    separation the first token of a later sequence has a region-P leader placed
    before it as its nearest projection, so that leader's recorded projection
    decides the later hat's width."""
    F = Fraction
    a, b, c = (F(-1, 2), 3), (2, -1), (F(-1, 3), 0)
    rows = [([a, b, c], [(-1, -1)]), ([(-3, F(-4, 3)), b], [(0, -2), (0, 2)]),
            ([c, a, b, (0, -1)], [(0, F(-5, 3)), (F(-1, 2), 3)]),
            ([b, (0, F(-5, 3))], [(3, F(-5, 2)), (-3, F(-2, 3))])]
    return Dataset("edge-leader-neighbour", 2, _pairs(rows))


def fold_offsets() -> Dataset:
    """Coordinates whose minima differ (-3 against 1; found by a seeded search, one
    target added): the bounded layout folds coordinates into others, and a fold read
    with another coordinate's offset puts points outside the range its scale was
    chosen for (a content coordinate below 1 after the layout)."""
    F = Fraction
    a, b, c = _t(1, F(5, 3), -3, -3), _t(F(3, 2), 1, -1, 3), _t(1, 1, -1, 2)
    pairs = (Pair((a,), (_t(F(1, 3), -1, -2, -3),)), Pair((b, a), (_t(F(4, 3), -1, 1, F(1, 2)),)),
             Pair((c, a, b), (_t(F(7, 3), 1, 3, 2), _t(-1, 0, 2, 1))))
    return Dataset("edge-fold-offsets", 4, pairs)


def fold_scale() -> Dataset:
    """Three points (0,0,0), (1,0,0), (0,1,0): the bounded layout folds the constant
    third coordinate, then the second into the first, where only the scale 2 keeps
    the points apart (scale 1 sends (1,0) and (0,1) to 1): the least injective scale
    is the fallback bound itself."""
    A, B, C = _t(0, 0, 0), _t(1, 0, 0), _t(0, 1, 0)
    pairs = (Pair((A, B), (_t(1, 1, 1), _t(2, 0, 1))), Pair((C,), (_t(0, 0, 2),)),
             Pair((B, C), (_t(-1, 2, 0),)))
    return Dataset("edge-fold-scale", 3, pairs)


def held_leader(y0, name: str = "edge-held-leader") -> Dataset:
    """The smallest admissible dataset found (d = 3, 4 tokens, one target per
    pair) where the token the bounded separation's last round leaves with flag 1
    is the leader of the first lifted sequence; ``y0``: that sequence's target
    (it decides kappa: 1 when off the e_1 ray, y0[0] on it)."""
    F = Fraction
    return Dataset(name, 3, (
        Pair((_t(F(5, 2), -3, -1), _t(1, -3, 1)), (_t(*y0),)), Pair((_t(1, -3, 1),), (_t(-2, 1, 1),)),
        Pair((_t(2, 2, F(-1, 2)),), (_t(-1, -1, -2),))))


def held_leader_datasets() -> list[Dataset]:
    """:func:`held_leader` with kappa 1 (no FF), 2 (a top-up by 1) and 1/2 (a top-up
    by -1/2): the bounded construction's three ways of lifting a flag-1 leader."""
    F = Fraction
    return [held_leader((-3, F(1, 3), F(4, 3)), "edge-held-leader-k1"),
            held_leader((2, 0, 0), "edge-held-leader-k2"),
            held_leader((F(1, 2), 0, 0), "edge-held-leader-khalf")]


def peel_spread() -> Dataset:
    """Five pairs (d = 2, found by a seeded search) whose targets' first
    coordinates spread on both sides of 0 (-40 .. 15): the peel construction's
    second layer takes the last positive kappa, and its fixed region must reach
    up to the largest target first coordinate (15), above which the targets the
    first layer placed would be moved again by a kink below them."""
    rows = [([(0, 1), (2, 0)], [(-20, -3)]), ([(2, 0)], [(10, 3)]), ([(1, 0)], [(15, -1)]),
            ([(0, 1)], [(-40, 3)]), ([(0, 1), (1, 1), (2, 2)], [(10, 2)])]
    return Dataset("edge-peel-spread", 2, _pairs(rows))


def edge_datasets() -> list[Dataset]:
    """The edge datasets above (d = 2, 2, 3, 4, 5, 2, 2, 4, 3)."""
    return [common_top(), ties(), both_sides(), negative(), tight(), two_token_top(),
            leader_neighbour(), fold_offsets(), fold_scale()]


def single_target(ds: Dataset) -> Dataset:
    """``ds`` with one target per pair (its first; the constructions that treat
    M = N apart, e.g. the bounded one's flag path, take another route there)."""
    return Dataset(ds.name + "-single", ds.d,
                   tuple(Pair(p.inputs, p.outputs[:1]) for p in ds.pairs))
