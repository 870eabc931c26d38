"""Seeded rational generator of the authors' synthetic Tikhonov data (SPEC §2,
statement ``tikhonov``).

The authors' experiment (Alcalde–Fantuzzi–Zuazua, the regularised-learning
section; their published script) draws N = 10 input sequences of n = 100 tokens in
d = 16 with coordinates uniform on [0, 1), one transformer block whose
self-attention has Q = K = 0 (so every score is 0 and attention is uniform), V = I,
rho = 0, followed by an FF layer with eta = 1 and width 4 whose U, b, W are drawn
uniform on [0, 1); the single target token of sequence j (m = 1) is that block's
output, FF applied to the sequence mean.

Here every draw is an exact rational on the grid ``{0, 1/g, ..., (g-1)/g}``
(``g = grid``, default 1024, a dyadic stand-in for ``torch.rand``), from
``random.Random(seed)``, so the dataset and the parameters are exact and
reproducible.  Tokens of a sequence are redrawn until pairwise distinct and
sequences until distinct as sets (admissibility, SPEC §1).  The target is
computed here by the formula ``y_j = eta m_j + W relu(U m_j + b)`` with ``m_j``
the exact mean of ``X_j``; the network that realises it is built and checked
separately (``lemmas.afz.theorems.tikhonov``).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from proofcheck.kernel.dataset import Dataset, Pair, Token

AUTHORS_N, AUTHORS_D, AUTHORS_N_TOKENS, AUTHORS_WIDTH = 10, 16, 100, 4


@dataclass(frozen=True)
class SyntheticSetting:
    """A draw of the authors' setting.

    ``dataset``: N pairs, inputs ``(n, d)``, outputs ``(1, d)``; ``U``: ``width``
    rows of length d; ``b``: ``width`` scalars; ``W``: ``width`` columns of length
    d (the project's FF storage, :class:`proofcheck.kernel.model.FF`); ``eta = 1``.
    """

    dataset: Dataset
    U: tuple[Token, ...]
    b: tuple[Fraction, ...]
    W: tuple[Token, ...]
    eta: Fraction
    seed: int
    grid: int


def _draw(rng: random.Random, grid: int) -> Fraction:
    return Fraction(rng.randrange(grid), grid)


def _token(rng: random.Random, d: int, grid: int) -> Token:
    return tuple(_draw(rng, grid) for _ in range(d))


def ff_of_mean(X, U, b, W, eta) -> Token:
    """``eta m + W relu(U m + b)`` for the exact mean ``m`` of the tokens ``X``
    (``(n, d)``); ``U``, ``b``, ``W`` as in :class:`SyntheticSetting`."""
    n, d = len(X), len(X[0])
    m = [sum((x[c] for x in X), Fraction(0)) / n for c in range(d)]
    y = [eta * v for v in m]
    for u, bk, w in zip(U, b, W):
        z = sum((ui * mi for ui, mi in zip(u, m)), Fraction(0)) + bk
        if z > 0:
            for c in range(d):
                y[c] += w[c] * z
    return tuple(y)


def authors_setting(seed: int = 0, N: int = AUTHORS_N, d: int = AUTHORS_D,
                    n: int = AUTHORS_N_TOKENS, width: int = AUTHORS_WIDTH,
                    grid: int = 1024) -> SyntheticSetting:
    """The seeded rational draw described in the module docstring.

    Sizes default to the authors' (N = 10, d = 16, n = 100, width 4); ``n`` may be a
    list of N lengths (sequences of different lengths).  Raises ``ValueError`` for
    sizes below 1, ``d < 2`` or ``grid < 2``, or when ``grid**d`` is too small to
    hold n distinct tokens.
    """
    ns = list(n) if isinstance(n, (list, tuple)) else [n] * N
    if N < 1 or len(ns) != N or min(ns) < 1 or d < 2 or width < 0 or grid < 2:
        raise ValueError(f"bad sizes: N = {N}, n = {n}, d = {d}, width = {width}, grid = {grid}")
    if grid ** d < max(ns):
        raise ValueError(f"grid {grid} in d = {d} has fewer than {max(ns)} distinct tokens")
    rng = random.Random(seed)
    inputs: list[tuple[Token, ...]] = []
    seen_sets = set()
    for j in range(N):
        while True:
            toks: list[Token] = []
            have = set()
            while len(toks) < ns[j]:
                t = _token(rng, d, grid)
                if t not in have:
                    have.add(t)
                    toks.append(t)
            key = frozenset(toks)
            if key not in seen_sets:
                seen_sets.add(key)
                inputs.append(tuple(toks))
                break
    # the authors draw W (4 x d), U (d x 4), b (4) in this order
    W = tuple(_token(rng, d, grid) for _ in range(width))
    U_cols = [_token(rng, width, grid) for _ in range(d)] if width else []
    U = tuple(tuple(U_cols[i][k] for i in range(d)) for k in range(width))
    b = tuple(_draw(rng, grid) for _ in range(width))
    eta = Fraction(1)
    pairs = tuple(Pair(X, (ff_of_mean(X, U, b, W, eta),)) for X in inputs)
    name = f"tikhonov-synthetic-s{seed}-N{N}-d{d}-n{'x'.join(map(str, sorted(set(ns))))}"
    ds = Dataset(name, d, pairs, notes=(
        f"authors' Tikhonov setting, seeded rational draw (seed {seed}, grid 1/{grid}); "
        "target = FF(mean of the sequence)",))
    return SyntheticSetting(ds, U, b, W, eta, seed, grid)
