"""The authors' synthetic Tikhonov data, drawn exactly (docs/spec.md §2, statement
``tikhonov``).

The authors' experiment (Alcalde–Fantuzzi–Zuazua, the regularised-learning
section; their script ``tikhonov/src/generateData.py`` after
``torch.manual_seed(0)``) draws, in this order,

    inputs = torch.rand(N, n, d);  W = torch.rand(4, d);  U = torch.rand(d, 4);
    b = torch.rand(4)

(N = 10, n = 100, d = 16), builds one block whose self-attention has Q = K = 0
(every score 0: uniform attention), V = I, rho = 0, followed by an FF layer with
eta = 1 and width 4: ``FF(z) = eta z + W^T relu(U^T z + b)`` in the project's
column convention; the single target token of sequence j (m = 1) is the block's
output, FF applied to the sequence mean.

**The draw is reproduced exactly, without torch.**  torch's CPU generator is
MT19937 seeded by ``init_genrand(seed mod 2^32)``; ``torch.rand`` in float32 takes
one 32-bit output ``w`` per value and returns ``(w & (2^24 - 1)) * 2^-24`` — a float32
value that is exactly the dyadic rational ``k / 2^24`` (24-bit mantissa, so no
rounding).  :class:`MT19937` and :func:`torch_rand` implement exactly that (the
reference MT19937 of Matsumoto–Nishimura; the masking rule of ATen's
``uniform_real_distribution`` for float); the tests compare the first values with
the known ``torch.manual_seed(0); torch.rand(6)`` = 0.4963 0.7682 0.0885 0.1320
0.3074 0.6341 (and, where PyTorch is installed, the whole draw bit for bit).
The draw is not redrawn for admissibility: ``lemma tikhonov`` checks it.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from proofcheck.kernel.dataset import Dataset, Pair, Token

AUTHORS_N, AUTHORS_D, AUTHORS_N_TOKENS, AUTHORS_WIDTH = 10, 16, 100, 4
SEED_LIMIT = 2 ** 64  # torch.manual_seed's unsigned seeds: 0 <= seed < 2^64
MANTISSA_BITS = 24  # float32: torch.rand keeps the low 24 bits of each 32-bit output
_M32 = 0xFFFFFFFF


class MT19937:
    """The 32-bit Mersenne Twister (Matsumoto–Nishimura 1998), seeded with
    ``init_genrand(seed mod 2^32)`` as ``torch.manual_seed(seed)`` seeds torch's CPU
    generator.  :meth:`next_u32` returns the next output (``0 <= w < 2^32``).
    Raises ``ValueError`` for a negative seed."""

    N, M = 624, 397

    def __init__(self, seed: int):
        if seed < 0:
            raise ValueError(f"MT19937 seed must be >= 0 (got {seed})")
        mt = [seed & _M32]
        for i in range(1, self.N):
            mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & _M32)
        self._mt, self._i = mt, self.N

    def _twist(self) -> None:
        mt, n, m = self._mt, self.N, self.M
        for k in range(n):
            y = (mt[k] & 0x80000000) | (mt[(k + 1) % n] & 0x7FFFFFFF)
            mt[k] = mt[(k + m) % n] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        self._i = 0

    def next_u32(self) -> int:
        if self._i >= self.N:
            self._twist()
        y = self._mt[self._i]
        self._i += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)


def torch_rand(gen: MT19937, count: int) -> list[Fraction]:
    """The next ``count`` values of ``torch.rand`` (float32, CPU) from ``gen``, as
    exact rationals ``k / 2^24`` with ``0 <= k < 2^24``, in the order torch fills a
    contiguous tensor (row-major)."""
    mask, den = (1 << MANTISSA_BITS) - 1, 1 << MANTISSA_BITS
    return [Fraction(gen.next_u32() & mask, den) for _ in range(count)]


@dataclass(frozen=True)
class SyntheticSetting:
    """A draw of the authors' setting.

    ``dataset``: N pairs, inputs ``(n, d)``, outputs ``(1, d)``; ``U``: ``width``
    rows of length d; ``b``: ``width`` scalars; ``W``: ``width`` columns of length
    d (the project's FF storage, :class:`proofcheck.kernel.model.FF`; the authors'
    ``U`` is ``d x width``, so the project's row k is their column k, and the project's
    column k is their row ``W[k]``); ``eta = 1``."""

    dataset: Dataset
    U: tuple[Token, ...]
    b: tuple[Fraction, ...]
    W: tuple[Token, ...]
    eta: Fraction
    seed: int

    @property
    def authors_sizes(self) -> bool:
        """True when the draw has the authors' sizes (N, d, n, width)."""
        ds = self.dataset
        return (ds.N, ds.d, ds.n_tokens, len(self.U)) == \
            (AUTHORS_N, AUTHORS_D, AUTHORS_N * AUTHORS_N_TOKENS, AUTHORS_WIDTH)


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


def _rows(vals, width: int) -> list[tuple[Fraction, ...]]:
    return [tuple(vals[i:i + width]) for i in range(0, len(vals), width)]


def authors_setting(seed: int = 0, N: int = AUTHORS_N, d: int = AUTHORS_D,
                    n: int | list[int] = AUTHORS_N_TOKENS,
                    width: int = AUTHORS_WIDTH) -> SyntheticSetting:
    """The authors' draw after ``torch.manual_seed(seed)`` (module docstring), exact.

    Sizes default to the authors' (N = 10, d = 16, n = 100, width 4).  ``n`` may be
    a list of N lengths: the sequences then take ``n_j * d`` consecutive values each,
    which for equal lengths is exactly ``torch.rand(N, n, d)``.  Raises
    ``ValueError`` for a seed outside ``0 <= seed < 2^64`` (:data:`SEED_LIMIT`), sizes
    below 1, ``d < 2`` or a negative width."""
    if not (isinstance(seed, int) and 0 <= seed < SEED_LIMIT):
        raise ValueError(f"seed {seed!r}: this reproduction takes seeds 0 <= seed < 2^64 "
                         "(torch.manual_seed's unsigned range; torch maps a negative seed to an "
                         "unsigned one, which is not reproduced here)")
    ns = list(n) if isinstance(n, (list, tuple)) else [n] * N
    if N < 1 or len(ns) != N or min(ns) < 1 or d < 2 or width < 0:
        raise ValueError(f"bad sizes: N = {N}, n = {n}, d = {d}, width = {width}")
    gen = MT19937(seed)
    inputs = [tuple(_rows(torch_rand(gen, nj * d), d)) for nj in ns]
    W = tuple(_rows(torch_rand(gen, width * d), d))          # torch.rand(4, d)
    U_auth = _rows(torch_rand(gen, d * width), width)        # torch.rand(d, 4)
    U = tuple(tuple(U_auth[i][k] for i in range(d)) for k in range(width))
    b = tuple(torch_rand(gen, width))                        # torch.rand(4)
    eta = Fraction(1)
    pairs = tuple(Pair(X, (ff_of_mean(X, U, b, W, eta),)) for X in inputs)
    name = f"tikhonov-authors-s{seed}-N{N}-d{d}-n{'x'.join(map(str, sorted(set(ns))))}"
    ds = Dataset(name, d, pairs, notes=(
        f"authors' Tikhonov setting, torch.manual_seed({seed}) draw reproduced exactly "
        "(MT19937, values k/2^24); target = FF(mean of the sequence)",))
    return SyntheticSetting(ds, U, b, W, eta, seed)
