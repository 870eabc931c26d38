"""Exact transformer model: FF, SA, Block, Transformer (docs/spec.md §1). Parameters are exact rationals
(or, in the constructions' symbolic proofs, sympy expressions); a token is a tuple of ``d`` of them;
``U`` is ``(width, d)``, ``b`` ``(width,)``, ``W`` stored as ``width`` columns of length ``d``;
``A`` and ``V`` are stored factored as ``lam I + sum_r a_r b_r^T`` (:class:`Factored`). Block order
is FF then SA. Every class validates its arguments at entry (:class:`ParameterError`)."""
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Sequence

from flint import fmpq

from proofcheck.kernel.numbers import coprime_fraction

Vec = tuple[Fraction, ...]


class ParameterError(ValueError, TypeError):
    """``"<routine>: <parameter> must be <expected>, got <value>"`` (both a
    ``ValueError`` and a ``TypeError``); ``routine`` and ``parameter`` name the culprit."""

    def __init__(self, message: str, routine: str | None = None, parameter: str | None = None):
        super().__init__(message)
        self.routine, self.parameter = routine, parameter


def reject(routine: str, parameter: str, expected: str, got) -> ParameterError:
    r = repr(got)
    return ParameterError(f"{routine}: {parameter} must be {expected}, got "
                          f"{r if len(r) <= 80 else r[:77] + '...'}", routine, parameter)


# A scalar type has arithmetic and is not None, a bool, a string or a container
# (Fraction, int, sympy expressions, fmpq, ...); decided once per type.
_NOT_SCALAR = (type(None), bool, str, bytes, tuple, list, dict, set, frozenset)


@cache
def _scalar_type(t: type) -> bool:
    return (not issubclass(t, _NOT_SCALAR) and hasattr(t, "__add__") and hasattr(t, "__mul__")
            and not hasattr(t, "__iter__"))


def _check_scalar(routine: str, parameter: str, x) -> None:
    if not _scalar_type(type(x)):
        raise reject(routine, parameter, "a scalar (rational or symbolic)", x)


def check_vector(routine: str, parameter: str, v, d: int | None) -> int:
    """``v`` is a tuple/list of scalars (of length ``d`` if given); returns its length."""
    if not isinstance(v, (tuple, list)):
        raise reject(routine, parameter, "a vector (tuple of scalars)" +
                     (f" of length d = {d}" if d is not None else ""), v)
    if d is not None and len(v) != d:
        raise reject(routine, parameter, f"a vector of length d = {d}", v)
    if not all(map(_scalar_type, set(map(type, v)))):
        raise reject(routine, parameter, "a vector of scalars (rational or symbolic)", v)
    return len(v)


def _check_rows(routine: str, parameter: str, rows, width: int | None, d: int | None,
                ref: str = "") -> int | None:
    """``rows``: ``width`` vectors of one common length, returned (``d`` if no rows)."""
    if not isinstance(rows, (tuple, list)):
        raise reject(routine, parameter, "a tuple of vectors", rows)
    if width is not None and len(rows) != width:
        raise reject(routine, parameter, f"{width} vectors (as many as {ref})", rows)
    for k, r in enumerate(rows):
        d = check_vector(routine, f"{parameter}[{k}]", r, d)
    return d


def dot(x: Sequence, y: Sequence):
    """``sum_i x_i y_i`` (generic scalars); :class:`ParameterError` unless ``x`` and
    ``y`` are iterables of the same length."""
    try:
        pairs = list(zip(x, y, strict=True))
    except (TypeError, ValueError) as e:
        raise reject("dot", "x, y", "two vectors" + " of the same length" * isinstance(
            e, ValueError), (x, y)) from None
    return sum((a * b for a, b in pairs), 0)


@dataclass(frozen=True)
class Factored:
    """The ``(d, d)`` matrix ``lam I + sum_r left[r] right[r]^T`` (factors of length d)."""

    lam: Fraction
    left: tuple[Vec, ...] = ()
    right: tuple[Vec, ...] = ()

    def __post_init__(self):
        _check_scalar("Factored", "lam", self.lam)
        d = _check_rows("Factored", "left", self.left, None, None)
        _check_rows("Factored", "right", self.right, len(self.left), d, "left")

    def apply(self, x: Sequence) -> list:
        """``M x`` (generic scalars)."""
        out = [self.lam * xi for xi in x]
        for a, b in zip(self.left, self.right):
            c = dot(b, x)
            if c:
                for i, ai in enumerate(a):
                    out[i] += ai * c
        return out

    def dense(self, d: int) -> list[list[Fraction]]:
        return [[sum((a[i] * b[j] for a, b in zip(self.left, self.right)),
                     self.lam if i == j else Fraction(0)) for j in range(d)] for i in range(d)]

    @property
    def is_zero(self) -> bool:
        return self.lam == 0 and all(
            all(x == 0 for x in a) or all(x == 0 for x in b) for a, b in zip(self.left, self.right))

    def n_params(self) -> int:
        """Stored scalars: ``1 + 2 d r``."""
        return 1 + sum(len(a) + len(b) for a, b in zip(self.left, self.right))


@dataclass(frozen=True)
class FF:
    """``x -> eta x + W relu(U x + b)``: ``U`` ``width`` rows, ``b`` ``width`` scalars,
    ``W`` stored as its ``width`` columns (``W[k]``); ``label`` names its lemma instance."""

    eta: Fraction
    U: tuple[Vec, ...] = ()
    b: tuple[Fraction, ...] = ()
    W: tuple[Vec, ...] = ()
    label: str = ""

    def __post_init__(self):
        _check_scalar("FF", "eta", self.eta)
        d = _check_rows("FF", "U", self.U, None, None)
        width = len(self.U)
        check_vector("FF", "b", self.b, None)
        if len(self.b) != width:
            raise reject("FF", "b", f"{width} scalars (the width of U)", self.b)
        _check_rows("FF", "W", self.W, width, d, "U has rows")
        if type(self.label) is not str:
            raise reject("FF", "label", "a string (the lemma instance's name)", self.label)

    @property
    def width(self) -> int:
        return len(self.U)

    @property
    def is_identity(self) -> bool:
        return self.eta == 1 and all(all(x == 0 for x in w) for w in self.W)

    def n_params(self) -> int:
        """``1 + width (2 d + 1)`` stored scalars."""
        return 1 + sum(len(u) + 1 + len(w) for u, w in zip(self.U, self.W))


@dataclass(frozen=True)
class SA:
    """``SA(X)_i = rho x_i + sum_h V_h sum_l pi^h_il x_l``, scores ``s^h_il = <A_h x_i, x_l>``,
    ``pi^h`` from the attention rule chosen at evaluation, per head (docs/spec.md §1 "Extensions"); head 1
    is ``(A, V)``, heads 2..H are ``more_heads`` (pairs of :class:`Factored`); ``causal``: token i
    attends to ``l <= i`` only. Build a multi-head layer with :meth:`multi`."""

    rho: Fraction
    A: Factored
    V: Factored
    label: str = ""
    more_heads: tuple = ()
    causal: bool = False

    def __post_init__(self):
        _check_scalar("SA", "rho", self.rho)
        if not isinstance(self.more_heads, tuple) or not all(
                isinstance(h, tuple) and len(h) == 2 for h in self.more_heads):
            raise reject("SA", "more_heads", "a tuple of (A, V) pairs", self.more_heads)
        dims = set()
        for h, (A, V) in enumerate(self.heads, start=1):
            for name, f in (("A", A), ("V", V)):
                if not isinstance(f, Factored):
                    raise reject("SA", name if h == 1 else f"head {h} {name}",
                                 "a Factored matrix (lam I + sum_r left_r right_r^T)", f)
                dims.update(len(a) for a in f.left)
        if len(dims) > 1:
            raise reject("SA", "A, V", "factors of one common length d", sorted(dims))
        if type(self.label) is not str:
            raise reject("SA", "label", "a string (the lemma instance's name)", self.label)
        if type(self.causal) is not bool:
            raise reject("SA", "causal", "True or False", self.causal)

    @classmethod
    def multi(cls, rho, heads, causal: bool = False, label: str = "") -> "SA":
        """The layer with heads ``[(A_1, V_1), ..., (A_H, V_H)]`` (H >= 1)."""
        heads = tuple(tuple(h) for h in heads)
        if not heads:
            raise reject("SA.multi", "heads", "at least one (A, V) pair", heads)
        return cls(rho, *heads[0], label=label, more_heads=heads[1:], causal=causal)

    @property
    def heads(self) -> tuple:
        """``((A_1, V_1), ..., (A_H, V_H))``."""
        return ((self.A, self.V),) + self.more_heads

    @property
    def H(self) -> int:
        return 1 + len(self.more_heads)

    @property
    def is_identity(self) -> bool:
        return self.rho == 1 and all(V.is_zero for _, V in self.heads)

    def n_params(self) -> int:
        """``1 + sum_h`` (stored scalars of ``A_h`` and ``V_h``)."""
        return 1 + sum(A.n_params() + V.n_params() for A, V in self.heads)


@dataclass(frozen=True)
class Block:
    """Transformer block ``SA o FF`` (FF acts first)."""

    ff: FF
    sa: SA
    phase: str = ""

    def __post_init__(self):
        if not isinstance(self.ff, FF):
            raise reject("Block", "ff", "an FF layer", self.ff)
        if not isinstance(self.sa, SA):
            raise reject("Block", "sa", "an SA layer", self.sa)


@dataclass
class Transformer:
    """``T = TB^L o ... o TB^1`` on tokens of dimension ``d``. A multi-head or masked SA layer (docs/spec.md
    §1 "Extensions") is evaluated through :func:`proofcheck.kernel.evaluate.attend` per head."""

    d: int
    blocks: list[Block] = field(default_factory=list)

    @property
    def causal(self) -> bool:
        """True iff some SA layer is masked (:func:`proofcheck.constructions.causal.with_mask` masks all of them)."""
        return any(b.sa.causal for b in self.blocks)

    @property
    def L(self) -> int:
        return len(self.blocks)

    @property
    def max_width(self) -> int:
        return max((b.ff.width for b in self.blocks), default=0)

    def n_params(self) -> int:
        """Stored scalars of all layers (factored entries for A and V), docs/spec.md §1."""
        return sum(b.ff.n_params() + b.sa.n_params() for b in self.blocks)

    def parameters(self):
        """Yield ``(block, sublayer, name, value)`` for every stored scalar, in a
        canonical order (block 1-based; sublayer "FF"/"SA")."""
        for bi, blk in enumerate(self.blocks, start=1):
            ff, sa = blk.ff, blk.sa
            yield bi, "FF", "eta", ff.eta
            for k in range(ff.width):
                yield from ((bi, "FF", f"U[{k}][{i}]", x) for i, x in enumerate(ff.U[k]))
                yield bi, "FF", f"b[{k}]", ff.b[k]
                yield from ((bi, "FF", f"W[{i}][{k}]", x) for i, x in enumerate(ff.W[k]))
            yield bi, "SA", "rho", sa.rho
            for h, (A, V) in enumerate(sa.heads):  # head h >= 1 of H > 1: "heads[h]."
                pre = f"heads[{h}]." if sa.H > 1 else ""
                for nm, f in ((pre + "A", A), (pre + "V", V)):
                    yield bi, "SA", f"{nm}.lam", f.lam
                    for r, (a, b) in enumerate(zip(f.left, f.right)):
                        yield from ((bi, "SA", f"{nm}.left[{r}][{i}]", x) for i, x in enumerate(a))
                        yield from ((bi, "SA", f"{nm}.right[{r}][{i}]", x) for i, x in enumerate(b))

    def values(self):
        """Every stored scalar, in the order of :meth:`parameters` (without the names)."""
        for blk in self.blocks:
            ff, sa = blk.ff, blk.sa
            yield ff.eta
            for u, b, w in zip(ff.U, ff.b, ff.W):
                yield from u
                yield b
                yield from w
            yield sa.rho
            for A, V in sa.heads:
                for f in (A, V):
                    yield f.lam
                    for a, b in zip(f.left, f.right):
                        yield from a
                        yield from b

    def sq_norm(self) -> Fraction:
        """Exact ``||theta||^2``, the sum of squares of the scalars :meth:`n_params`
        counts (docs/spec.md §2 ``tikhonov``): per denominator ``q`` the integer ``sum p^2``,
        then the terms ``(sum p^2) / q^2`` added in a balanced tree (the value of the
        left-to-right sum, without re-reducing a huge running denominator), in FLINT's
        ``fmpq`` (its gcd and products are subquadratic; CPython's gcd is quadratic, which
        at a million tokens made this sum take minutes).  Kept with the blocks it was
        computed from (blocks are frozen: the same block objects have the same scalars)."""
        key = tuple(self.blocks)
        got = self.__dict__.get("_sq_norm")
        if got is not None and len(got[0]) == len(key) and all(a is b for a, b in zip(got[0], key)):
            return got[1]
        by_den: dict[int, int] = {}
        other = []
        for v in self.values():
            if type(v) is Fraction or type(v) is int:
                q = v.denominator
                by_den[q] = by_den.get(q, 0) + v.numerator * v.numerator
            else:
                other.append(v * v)
        terms = [fmpq(s, q * q) for q, s in by_den.items()]
        while len(terms) > 1:
            pairs = [terms[i] + terms[i + 1] for i in range(0, len(terms) - 1, 2)]
            terms = pairs + terms[-1:] if len(terms) % 2 else pairs
        total = coprime_fraction(int(terms[0].p), int(terms[0].q)) if terms else Fraction(0)
        value = sum(other, total)
        self._sq_norm = (key, value)
        return value

    def max_bits(self) -> int:
        return max((max(v.numerator.bit_length(), v.denominator.bit_length())
                    for v in self.values()), default=0)
