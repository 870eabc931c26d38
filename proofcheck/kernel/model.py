"""Exact transformer model: FF, SA, Block, Transformer (SPEC §1).

All parameters are ``fractions.Fraction``.  Shapes: a token is a tuple of ``d``
rationals; ``U`` is ``(width, d)``, ``b`` is ``(width,)``, ``W`` is ``(d, width)``.
``A`` and ``V`` of a self-attention layer are stored factored as
``lam * I + sum_r a_r b_r^T`` (:class:`Factored`).  Block order is FF then SA.

This module is part of the trusted kernel: it imports nothing from ``lemmas``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain as _chain
from fractions import Fraction
from typing import Sequence

Q = Fraction
Vec = tuple[Fraction, ...]


class ParameterError(ValueError, TypeError):
    """A routine rejects its own input: ``"<routine>: <parameter> must be
    <expected>, got <value>"``.  Both a ``ValueError`` and a ``TypeError`` (callers
    catching either keep working); ``routine`` and ``parameter`` name the culprit."""

    def __init__(self, message: str, routine: str | None = None, parameter: str | None = None):
        super().__init__(message)
        self.routine, self.parameter = routine, parameter


def _short(x) -> str:
    r = repr(x)
    return r if len(r) <= 80 else r[:77] + "..."


def _reject(routine: str, parameter: str, expected: str, got) -> ParameterError:
    return ParameterError(f"{routine}: {parameter} must be {expected}, got {_short(got)}",
                          routine, parameter)


# Scalars are generic (Fraction, int, sympy expressions, python-flint fmpq, ...):
# a type is accepted if it has arithmetic and is not None, a bool, a string or a
# container.  Decided once per type (cached), so a check costs one dict lookup.
_NOT_SCALAR = (type(None), bool, str, bytes, tuple, list, dict, set, frozenset)
_SCALAR_TYPE: dict[type, bool] = {}
_ROW_TYPES = frozenset((tuple, list))


def _scalar_type(t: type) -> bool:
    ok = _SCALAR_TYPE.get(t)
    if ok is None:
        ok = (not issubclass(t, _NOT_SCALAR) and hasattr(t, "__add__")
              and hasattr(t, "__mul__") and not hasattr(t, "__iter__"))
        _SCALAR_TYPE[t] = ok
    return ok


def _check_scalar(routine: str, parameter: str, x) -> None:
    if not (_SCALAR_TYPE.get(type(x)) or _scalar_type(type(x))):
        raise _reject(routine, parameter, "a scalar (rational or symbolic)", x)


def _check_vector(routine: str, parameter: str, v, d: int | None) -> int:
    """``v`` is a tuple/list of scalars (of length ``d`` if given); returns its length.
    The entry check is one ``set(map(type, v))`` and a cached lookup per type."""
    if type(v) is tuple and (d is None or len(v) == d) and all(
            _SCALAR_TYPE.get(t) or _scalar_type(t) for t in set(map(type, v))):
        return len(v)
    if not isinstance(v, (tuple, list)):
        raise _reject(routine, parameter, "a vector (tuple of scalars)" +
                      (f" of length d = {d}" if d is not None else ""), v)
    if d is not None and len(v) != d:
        raise _reject(routine, parameter, f"a vector of length d = {d}", v)
    for t in set(map(type, v)):
        if not _scalar_type(t):
            raise _reject(routine, parameter, "a vector of scalars (rational or symbolic)", v)
    return len(v)


def _check_rows(routine: str, parameter: str, rows, width: int | None, d: int | None,
                ref: str = "") -> int | None:
    """``rows``: a tuple of ``width`` vectors of one common length; returns that
    length (``d``), or ``d`` unchanged when there are no rows.  Fast path: a few
    C-level passes (lengths, row types, entry types); the slow per-row walk runs
    only to word the error."""
    if isinstance(rows, (tuple, list)) and (width is None or len(rows) == width):
        if not rows:
            return d
        if _ROW_TYPES.issuperset(map(type, rows)):
            lens = set(map(len, rows))
            if len(lens) == 1 and (d is None or d in lens):
                if all(_SCALAR_TYPE.get(t) or _scalar_type(t) for t in set(map(type, _chain(*rows)))):
                    return lens.pop()
    if not isinstance(rows, (tuple, list)):
        raise _reject(routine, parameter, "a tuple of vectors", rows)
    if width is not None and len(rows) != width:
        raise _reject(routine, parameter, f"{width} vectors (as many as {ref})", rows)
    for k, r in enumerate(rows):
        d = _check_vector(routine, f"{parameter}[{k}]", r, d)
    return d


def vec(xs) -> Vec:
    """Tuple of Fractions from any iterable of ints/Fractions/strings.  Raises
    :class:`ParameterError` if ``xs`` is not an iterable of such numbers."""
    try:
        return tuple(Fraction(x) for x in xs)
    except (TypeError, ValueError):
        raise _reject("vec", "xs", "an iterable of rationals (ints, Fractions, numeric strings)",
                      xs) from None


def dot(x: Sequence, y: Sequence):
    """``sum_i x_i y_i`` (generic scalars).  Raises :class:`ParameterError` unless
    ``x`` and ``y`` are iterables of the same length.  (The checks cost nothing on
    valid input: they are the ``except`` clauses of what runs anyway.)"""
    s = 0
    try:
        pairs = zip(x, y, strict=True)
    except TypeError:
        raise _reject("dot", "x, y", "two vectors", (x, y)) from None
    try:
        for a, b in pairs:
            s += a * b
    except ValueError as e:
        if "zip()" not in str(e):
            raise
        raise _reject("dot", "x, y", "two vectors of the same length", (x, y)) from None
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
        """Validates at entry (:class:`ParameterError`): ``lam`` a scalar, ``left``
        and ``right`` tuples of the same number of vectors, all of one length d."""
        L, R = self.left, self.right
        if (type(L) is tuple and type(R) is tuple and len(L) == len(R)  # fast path: one pass
                and _ROW_TYPES.issuperset(map(type, L)) and _ROW_TYPES.issuperset(map(type, R))
                and len(set(map(len, L)) | set(map(len, R))) <= 1
                and all(_SCALAR_TYPE.get(t) for t in set(map(type, _chain((self.lam,), *L, *R))))):
            return
        _check_scalar("Factored", "lam", self.lam)
        d = _check_rows("Factored", "left", self.left, None, None)
        _check_rows("Factored", "right", self.right, len(self.left), d, "left")

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
        """Validates at entry (:class:`ParameterError` naming the parameter): ``eta``
        a scalar; ``U`` a tuple of ``width`` vectors of one length d; ``b`` ``width``
        scalars; ``W`` ``width`` vectors of length d.  Cost: O(width) plus one type
        lookup per distinct entry type (measured in docs/mutation.md)."""
        U, b, W = self.U, self.b, self.W
        if (type(U) is tuple and type(b) is tuple and type(W) is tuple  # fast path: one pass
                and len(U) == len(b) == len(W) and type(self.label) is str
                and _ROW_TYPES.issuperset(map(type, U)) and _ROW_TYPES.issuperset(map(type, W))
                and len(set(map(len, U)) | set(map(len, W))) <= 1
                and all(_SCALAR_TYPE.get(t) for t in set(map(type, _chain((self.eta,), b, *U, *W))))):
            return
        _check_scalar("FF", "eta", self.eta)
        d = _check_rows("FF", "U", self.U, None, None)
        width = len(self.U)
        _check_vector("FF", "b", self.b, None)
        if len(self.b) != width:
            raise _reject("FF", "b", f"{width} scalars (the width of U)", self.b)
        _check_rows("FF", "W", self.W, width, d, "U has rows")
        if type(self.label) is not str:
            raise _reject("FF", "label", "a string (the lemma instance's name)", self.label)

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

    def __post_init__(self):
        """Validates at entry (:class:`ParameterError`): ``rho`` a scalar, ``A`` and
        ``V`` :class:`Factored` whose factors have one common length."""
        _check_scalar("SA", "rho", self.rho)
        dims = set()
        for name in ("A", "V"):
            f = getattr(self, name)
            if not isinstance(f, Factored):
                raise _reject("SA", name, "a Factored matrix (lam I + sum_r left_r right_r^T)", f)
            dims.update(len(a) for a in f.left)
        if len(dims) > 1:
            raise _reject("SA", "A, V", "factors of one common length d", sorted(dims))
        if type(self.label) is not str:
            raise _reject("SA", "label", "a string (the lemma instance's name)", self.label)

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

    def __post_init__(self):
        if not isinstance(self.ff, FF):
            raise _reject("Block", "ff", "an FF layer", self.ff)
        if not isinstance(self.sa, SA):
            raise _reject("Block", "sa", "an SA layer", self.sa)


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
        the ``tikhonov`` statement reports (SPEC §2).

        Summed exactly over common denominators: per denominator ``q`` the integer
        ``sum p^2`` of the rationals ``p/q`` with that denominator, then the terms
        ``(sum p^2) / q^2`` added pairwise in a balanced tree (the same value as the
        plain left-to-right sum, which re-reduces a huge running denominator once
        per parameter).  Scalars other than ``int``/``Fraction`` are summed as they
        are."""
        by_den: dict[int, int] = {}
        other = []
        for *_, v in self.parameters():
            if type(v) is Fraction or type(v) is int:
                q = v.denominator
                by_den[q] = by_den.get(q, 0) + v.numerator * v.numerator
            else:
                other.append(v * v)
        terms = [Fraction(s, q * q) for q, s in by_den.items()]
        while len(terms) > 1:
            pairs = [terms[i] + terms[i + 1] for i in range(0, len(terms) - 1, 2)]
            terms = pairs + terms[-1:] if len(terms) % 2 else pairs
        return sum(other, terms[0] if terms else Fraction(0))

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
