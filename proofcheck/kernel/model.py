"""Exact transformer model: FF, SA, Block, Transformer (SPEC §1).

All parameters are ``fractions.Fraction``.  Shapes: a token is a tuple of ``d``
rationals; ``U`` is ``(width, d)``, ``b`` is ``(width,)``, ``W`` is ``(d, width)``.
``A`` and ``V`` of a self-attention layer are stored factored as
``lam * I + sum_r a_r b_r^T`` (:class:`Factored`).  Block order is FF then SA.

This module is part of the trusted kernel: it imports nothing from ``lemmas``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

Q = Fraction
Vec = tuple[Fraction, ...]


def vec(xs) -> Vec:
    """Tuple of Fractions from any iterable of ints/Fractions/strings."""
    return tuple(Fraction(x) for x in xs)


def dot(x: Sequence, y: Sequence):
    s = 0
    for a, b in zip(x, y, strict=True):
        s += a * b
    return s


@dataclass(frozen=True)
class Factored:
    """A ``(d, d)`` matrix ``lam * I + sum_r left[r] right[r]^T``.

    ``left``/``right`` are tuples of length-``d`` vectors (the low-rank factors).
    """

    lam: Fraction
    left: tuple[Vec, ...] = ()
    right: tuple[Vec, ...] = ()

    def __post_init__(self):
        if len(self.left) != len(self.right):
            raise ValueError("Factored: left and right factor counts differ")

    def apply(self, x: Sequence) -> list:
        """``M x`` for a vector ``x`` of length d (generic number type)."""
        out = [self.lam * xi for xi in x]
        for a, b in zip(self.left, self.right):
            c = dot(b, x)
            if c:
                for i, ai in enumerate(a):
                    out[i] += ai * c
        return out

    def dense(self, d: int) -> list[list[Fraction]]:
        m = [[self.lam if i == j else Fraction(0) for j in range(d)] for i in range(d)]
        for a, b in zip(self.left, self.right):
            for i in range(d):
                for j in range(d):
                    m[i][j] += a[i] * b[j]
        return m

    @property
    def is_zero(self) -> bool:
        return self.lam == 0 and all(
            all(x == 0 for x in a) or all(x == 0 for x in b) for a, b in zip(self.left, self.right))

    def n_params(self) -> int:
        """Stored scalars: ``1 + 2 d r``."""
        return 1 + sum(len(a) + len(b) for a, b in zip(self.left, self.right))

    def rank(self, d: int) -> int:
        """Exact rank of the dense ``(d, d)`` matrix."""
        return _rank(self.dense(d))


def _rank(rows: list[list[Fraction]]) -> int:
    m = [list(r) for r in rows]
    rank, ncols = 0, len(m[0]) if m else 0
    for c in range(ncols):
        piv = next((i for i in range(rank, len(m)) if m[i][c] != 0), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for i in range(len(m)):
            if i != rank and m[i][c] != 0:
                f = m[i][c] / m[rank][c]
                m[i] = [x - f * y for x, y in zip(m[i], m[rank])]
        rank += 1
    return rank


@dataclass(frozen=True)
class FF:
    """Token-wise feed-forward layer ``x -> eta x + W relu(U x + b)``.

    ``U``: ``width`` rows of length d; ``b``: ``width`` scalars; ``W``: stored as
    ``width`` columns of length d (``W[k]`` is the k-th column).  ``width == 0``
    gives ``x -> eta x``.  ``label`` names the lemma instance that built it.
    """

    eta: Fraction
    U: tuple[Vec, ...] = ()
    b: tuple[Fraction, ...] = ()
    W: tuple[Vec, ...] = ()
    label: str = ""

    def __post_init__(self):
        if not (len(self.U) == len(self.b) == len(self.W)):
            raise ValueError("FF: U, b, W must have the same width")

    @property
    def width(self) -> int:
        return len(self.U)

    @property
    def is_identity(self) -> bool:
        return self.eta == 1 and all(all(x == 0 for x in w) for w in self.W)

    def n_params(self) -> int:
        """``1 + width (2 d + 1)`` stored scalars."""
        return 1 + sum(len(u) + 1 + len(w) for u, w in zip(self.U, self.W))

    def rank_U(self) -> int:
        return _rank([list(u) for u in self.U]) if self.U else 0


@dataclass(frozen=True)
class SA:
    """Self-attention layer ``SA(X)_i = rho x_i + V sum_l pi_il x_l``.

    Scores ``s_il = <A x_i, x_l>``; the weights ``pi`` come from the attention
    rule chosen at evaluation (hardmax or softmax).  ``A``, ``V``: :class:`Factored`.
    """

    rho: Fraction
    A: Factored
    V: Factored
    label: str = ""

    @property
    def is_identity(self) -> bool:
        return self.rho == 1 and self.V.is_zero

    def n_params(self) -> int:
        return 1 + self.A.n_params() + self.V.n_params()


def identity_ff() -> FF:
    return FF(Fraction(1), label="identity")


def identity_sa() -> SA:
    return SA(Fraction(1), Factored(Fraction(0)), Factored(Fraction(0)), label="identity")


@dataclass(frozen=True)
class Block:
    """Transformer block ``SA o FF`` (FF acts first)."""

    ff: FF
    sa: SA
    phase: str = ""


@dataclass
class Transformer:
    """``T = TB^L o ... o TB^1`` on tokens of dimension ``d``."""

    d: int
    blocks: list[Block] = field(default_factory=list)

    @property
    def L(self) -> int:
        return len(self.blocks)

    @property
    def max_width(self) -> int:
        return max((b.ff.width for b in self.blocks), default=0)

    def n_params(self) -> int:
        """Stored scalars of all layers (factored entries for A and V), SPEC §1."""
        return sum(b.ff.n_params() + b.sa.n_params() for b in self.blocks)

    def parameters(self):
        """Yield ``(block, sublayer, name, value)`` for every stored scalar, in a
        canonical order (block 1-based; sublayer "FF"/"SA")."""
        for bi, blk in enumerate(self.blocks, start=1):
            ff = blk.ff
            yield bi, "FF", "eta", ff.eta
            for k in range(ff.width):
                for i, x in enumerate(ff.U[k]):
                    yield bi, "FF", f"U[{k}][{i}]", x
                yield bi, "FF", f"b[{k}]", ff.b[k]
                for i, x in enumerate(ff.W[k]):
                    yield bi, "FF", f"W[{i}][{k}]", x
            sa = blk.sa
            yield bi, "SA", "rho", sa.rho
            for nm, f in (("A", sa.A), ("V", sa.V)):
                yield bi, "SA", f"{nm}.lam", f.lam
                for r, (a, b) in enumerate(zip(f.left, f.right)):
                    for i, x in enumerate(a):
                        yield bi, "SA", f"{nm}.left[{r}][{i}]", x
                    for i, x in enumerate(b):
                        yield bi, "SA", f"{nm}.right[{r}][{i}]", x

    def sq_norm(self) -> Fraction:
        """Exact ``||theta||^2``: the sum of squares of every stored scalar, i.e. of
        exactly the scalars counted by :meth:`n_params` (eta and rho included; A and
        V as their factored entries lam, left, right).  This convention is the one
        the ``tikhonov`` statement reports (SPEC §2)."""
        return sum((v * v for *_, v in self.parameters()), Fraction(0))

    def max_bits(self) -> int:
        return max((max(v.numerator.bit_length(), v.denominator.bit_length())
                    for *_, v in self.parameters()), default=0)


def _set(tup, idx, value):
    lst = list(tup)
    lst[idx] = value
    return tuple(lst)


def with_parameter(net: Transformer, block: int, sublayer: str, name: str, value) -> Transformer:
    """A copy of ``net`` with one stored scalar replaced (names as yielded by
    :meth:`Transformer.parameters`).  Used by mutation tests.  Raises ``KeyError``
    for an unknown name."""
    import re
    from dataclasses import replace
    value = Fraction(value)
    blocks = list(net.blocks)
    blk = blocks[block - 1]
    idx = [int(x) for x in re.findall(r"\[(\d+)\]", name)]
    base = name.split("[")[0]
    if sublayer == "FF":
        ff = blk.ff
        if base == "eta":
            ff = replace(ff, eta=value)
        elif base == "U":
            ff = replace(ff, U=_set(ff.U, idx[0], _set(ff.U[idx[0]], idx[1], value)))
        elif base == "b":
            ff = replace(ff, b=_set(ff.b, idx[0], value))
        elif base == "W":  # W[i][k]: row i of column k
            ff = replace(ff, W=_set(ff.W, idx[1], _set(ff.W[idx[1]], idx[0], value)))
        else:
            raise KeyError(name)
        blk = replace(blk, ff=ff)
    else:
        sa = blk.sa
        if base == "rho":
            sa = replace(sa, rho=value)
        else:
            which, part = base.split(".")
            f = getattr(sa, which)
            if part == "lam":
                f = replace(f, lam=value)
            elif part in ("left", "right"):
                facs = getattr(f, part)
                f = replace(f, **{part: _set(facs, idx[0], _set(facs[idx[0]], idx[1], value))})
            else:
                raise KeyError(name)
            sa = replace(sa, **{which: f})
        blk = replace(blk, sa=sa)
    blocks[block - 1] = blk
    return Transformer(net.d, blocks)
