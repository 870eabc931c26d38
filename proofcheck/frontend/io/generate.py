"""Seeded random ADMISSIBLE datasets with heavy overlaps, for tests (docs/spec.md §1).

``random_dataset`` draws input sequences from a small pool of points so that
sequences share many tokens (the hard case for the construction):

* ``"overlap"``: each X_j is a random subset of the pool;
* ``"nested"``: chains X_1 ⊂ X_2 ⊂ ... (a new chain starts when ``max_n`` is reached);
* ``"union"``: some X_k = X_i ∪ X_j of earlier sequences (when small enough);
* ``"mixed"``: each sequence built by a random one of the above.

Coordinates are small rationals (integers, halves, thirds) in
[-coord_range, coord_range].  Targets are 1 <= m_j <= n_j distinct tokens, drawn
from the pool (so targets may coincide with inputs), from a pool of targets shared
between pairs, or fresh.  Token order inside sequences is shuffled.  Generation
is retried (same RNG, so deterministic in ``seed``) until ``check_admissible``
passes.
"""
from __future__ import annotations

import random
from fractions import Fraction
from math import comb

from proofcheck.kernel.dataset import Dataset, Pair, Token, check_admissible
from proofcheck.kernel.errors import Inadmissible

STYLES = ("overlap", "nested", "union", "mixed")
_MAX_ATTEMPTS = 200


def _coord(rng: random.Random, R: int) -> Fraction:
    den = rng.choice((1, 1, 2, 3))
    return Fraction(rng.randint(-R * den, R * den), den)


def _distinct_points(rng: random.Random, k: int, d: int, R: int) -> list[Token]:
    pts: dict[Token, None] = {}
    while len(pts) < k:
        pts[tuple(_coord(rng, R) for _ in range(d))] = None
    return list(pts)


def _subset(rng: random.Random, pool: list[Token], max_n: int) -> set[Token]:
    return set(rng.sample(pool, rng.randint(1, min(max_n, len(pool)))))


def _overlapping_subset(rng, pool, max_n, sets) -> set[Token]:
    """A random subset that shares at least one point with an earlier set (if any)."""
    s = _subset(rng, pool, max_n)
    if sets and max_n > 1 and not any(s & t for t in sets):
        if len(s) == max_n:
            s.discard(rng.choice(sorted(s)))
        s.add(rng.choice(sorted(rng.choice(sets))))
    return s


def _inputs(rng, style, pool, N, max_n) -> list[set[Token]]:
    """N input sets (as Python sets), built in the given style; distinct when possible."""
    sets: list[set[Token]] = []
    chain: set[Token] = set()
    for _ in range(N):
        st = rng.choice(STYLES[:3]) if style == "mixed" else style
        new = None
        if st == "nested":
            if len(chain) < min(max_n, len(pool)):
                extra = [p for p in pool if p not in chain]
                k = rng.randint(1, min(len(extra), max_n - len(chain)))
                chain = chain | set(rng.sample(extra, k))
            else:  # start a new chain
                chain = set(rng.sample(pool, rng.randint(1, min(2, max_n))))
            new = set(chain)
        elif st == "union" and len(sets) >= 2:
            a, b = rng.sample(sets, 2)
            if len(a | b) <= max_n:
                new = a | b
        for _ in range(20):  # redraw collisions (overlap style / fallbacks)
            if new is not None and new not in sets:
                break
            new = _overlapping_subset(rng, pool, max_n, sets)
        sets.append(new)
    return sets


def random_dataset(seed: int, d: int = 2, N: int = 4, max_n: int = 5,
                   coord_range: int = 3, style: str = "mixed") -> Dataset:
    """A seeded admissible dataset in Q^d with N pairs and 1 <= n_j <= max_n.

    Raises ``ValueError`` for impossible parameters (d < 2, N < 1, max_n < 1,
    coord_range < 1, unknown style) or if no admissible dataset was found.
    """
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}, expected one of {STYLES}")
    if d < 2 or N < 1 or max_n < 1 or coord_range < 1:
        raise ValueError("need d >= 2, N >= 1, max_n >= 1, coord_range >= 1")
    rng = random.Random(seed)
    P = max(max_n + 2, 4)  # pool size: large enough for N distinct subsets
    while sum(comb(P, k) for k in range(1, min(P, max_n) + 1)) < 3 * N:
        P += 1
    for _ in range(_MAX_ATTEMPTS):
        pool = _distinct_points(rng, P, d, coord_range)
        shared_targets = _distinct_points(rng, max(2, max_n), d, coord_range)
        pairs = []
        for xs in _inputs(rng, style, pool, N, max_n):
            x = list(xs)
            rng.shuffle(x)
            m = rng.randint(1, len(x))
            source = rng.choice(("pool", "shared", "fresh"))
            if source == "pool":
                ys = rng.sample(pool, min(m, len(pool)))
            elif source == "shared":
                ys = rng.sample(shared_targets, min(m, len(shared_targets)))
            else:
                ys = _distinct_points(rng, m, d, coord_range)
            pairs.append(Pair(tuple(x), tuple(ys)))
        ds = Dataset(name=f"random-{style}-{seed}", d=d, pairs=tuple(pairs))
        try:
            check_admissible(ds)
        except Inadmissible:
            continue
        return ds
    raise ValueError(f"no admissible dataset found for seed={seed}, N={N}, max_n={max_n}")


# ---------------------------------------------------------------------------
# Large datasets shaped like the digits example (issue: a million tokens)

class _Interned:
    """Tokens from integer ``(patch, position)`` keys; equal tokens are the same tuple
    object (memory)."""

    F = [Fraction(v) for v in range(0, 32)]

    def __init__(self):
        self.seen: dict = {}

    def __call__(self, patch, pos):
        key = patch + pos
        t = self.seen.get(key)
        if t is None:
            t = self.seen[key] = tuple(self.F[v] for v in key)
        return t


def _dim_pool(rng: random.Random, common: int) -> list:
    """``common`` distinct dim patches (pixels 0..8) of one position, the blank first."""
    pool = [(0, 0, 0, 0)]
    while len(pool) < common:
        p = tuple(rng.randint(0, 8) for _ in range(4))
        if p not in pool:
            pool.append(p)
    return pool


def _stroke(code: int, n_pos: int, shared_top: bool):
    """``(position, patch)`` of a sequence's bright stroke: the saturated patch at the
    last position for a shared top, else a bright patch (pixels 9..16) numbered by
    ``code``."""
    if shared_top:
        return n_pos - 1, (16, 16, 16, 16)
    stroke = tuple(9 + (code // n_pos >> (3 * i)) % 8 for i in range(4))
    return code % n_pos, (16, 16, 16, 15) if stroke == (16, 16, 16, 16) else stroke


def digits_like(n_seq: int, seed: int = 0, tokens: int = 16, targets: tuple[int, int] = (1, 3),
                common: int = 6, fresh: float = 0.3, top_share: float = 0.0,
                name: str | None = None) -> Dataset:
    """An admissible dataset of ``n_seq`` sequences of ``tokens`` (2..16) tokens in
    d = 6 that share tokens the way the digits images do.

    Token k of a sequence is a 2x2 "patch" (4 pixel values 0..16) followed by its
    position (row, column) on a 4x4 grid, as ``--example digits`` builds them (docs/spec.md
    §3), so tokens of one sequence are distinct.  One position per sequence holds
    a bright "stroke" patch (pixels 9..16) numbered by the sequence index, so
    strokes rarely repeat; every other position holds, with probability
    ``1 - fresh``, one of ``common`` dim patches of that position (pixels 0..8;
    Zipf weights, the first a blank patch — the background shared by most images),
    else a fresh dim random patch.  A sequence equal as a set to an earlier one is
    redrawn.  ``top_share``: the fraction of sequences whose stroke is replaced by
    the saturated patch (16, 16, 16, 16) at the last position, which then is their
    top in every positive direction: with 1 all sequences share their top and the
    separation needs R = N - 1 rounds (the hard case), with 0 the tops are mostly
    distinct and R is small.  Targets: ``m_j`` drawn in ``targets`` (inclusive),
    the points ``(20 + j mod 10, k, 0, 0, 0, 0)``.  Deterministic in ``seed``;
    equal tokens are the same tuple object (memory).  Raises ``ValueError`` for
    impossible parameters.
    """
    if not 2 <= tokens <= 16 or n_seq < 1 or not 1 <= targets[0] <= targets[1] <= tokens:
        raise ValueError("need 2 <= tokens <= 16, n_seq >= 1, 1 <= m_min <= m_max <= tokens")
    if not 0 <= top_share <= 1 or not 0 <= fresh <= 1 or common < 1:
        raise ValueError("need 0 <= top_share, fresh <= 1 and common >= 1")
    rng = random.Random(seed)
    tok = _Interned()
    positions = [(k // 4, k % 4) for k in range(16)][:tokens]
    pools = [_dim_pool(rng, common) for _ in positions]
    weights = [1.0 / (k + 1) for k in range(common)]
    seen: set = set()
    pairs = []
    for j in range(n_seq):
        shared_top = rng.random() < top_share
        attempt = 0
        while True:
            sk, stroke = _stroke(j + attempt * n_seq, len(positions), shared_top)
            attempt += 1
            patches = [stroke if k == sk else
                       tuple(rng.randint(0, 8) for _ in range(4)) if rng.random() < fresh else
                       rng.choices(pools[k], weights)[0] for k in range(len(positions))]
            # the integer (patch, position) keys: equal iff the tokens are equal, and
            # hashed far faster than tuples of Fractions (a million tokens)
            key = frozenset(p + pos for p, pos in zip(patches, positions))
            if key not in seen:
                seen.add(key)
                break
        x = tuple(tok(p, pos) for p, pos in zip(patches, positions))
        m = rng.randint(*targets)
        y = tuple(tok((20 + j % 10, k, 0, 0), (0, 0)) for k in range(m))
        pairs.append(Pair(x, y))
    ds = Dataset(name=name or f"digits-like-{n_seq}x{tokens}-s{seed}"
                 + (f"-top{top_share:g}" if top_share else ""), d=6, pairs=tuple(pairs))
    check_admissible(ds)
    return ds
