"""Seeded random ADMISSIBLE datasets with heavy overlaps, for tests (SPEC §1).

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


def admissible_datasets(min_d: int = 2, max_d: int = 6, max_N: int = 8, max_n: int = 6):
    """Hypothesis strategy of admissible datasets (hypothesis is imported lazily)."""
    from hypothesis import strategies as st

    return st.builds(random_dataset,
                     seed=st.integers(0, 2 ** 32 - 1),
                     d=st.integers(min_d, max_d),
                     N=st.integers(1, max_N),
                     max_n=st.integers(1, max_n),
                     coord_range=st.integers(1, 3),
                     style=st.sampled_from(STYLES))
