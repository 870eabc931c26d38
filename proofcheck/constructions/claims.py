"""Claims: what a construction step says a sub-layer does to the tokens.

A construction (untrusted) attaches one claim to every sub-layer; the checker
evaluates the network exactly and compares every token with the claim, so a
wrong parameter is caught at the first sub-layer where it changes a token.
Rows are global token indices (``State.spans``).  Each claim has

* ``rows()``: the rows it says change (``None`` for all rows);
* ``expected(i, old)``: the claimed new value of row ``i`` given ``old(i)``, the
  row before the sub-layer (backend numbers), after ``bind(num)`` converted the
  claim's constants to the backend's number type.

``restrict(r0, r1, j0, j1, memo)`` gives the claim for the sequences ``j0 <= j < j1``
alone, whose rows are ``r0 <= i < r1`` (renumbered from 0): the exact check shards
by sequence (:mod:`proofcheck.frontend.runs.distributed`).  A claim that ties a row of the shard
to a row outside it raises ``ValueError`` (the shard then ends in ERROR).

Construction side (untrusted): the kernel never imports it; it imports only the kernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from proofcheck.kernel.model import check_vector, reject


@dataclass
class Fixed:
    """No token changes (identity sub-layer, or a layer whose support holds no token)."""

    kind = "fixed"

    def bind(self, num):
        return self

    def rows(self):
        return []

    def expected(self, i, old):
        return old(i)

    def restrict(self, r0, r1, j0, j1, memo=None):
        return Fixed()


def _local(i, r0, r1):
    if not r0 <= i < r1:
        raise ValueError(f"claim refers to row {i}, outside the shard's rows {r0}..{r1 - 1}")
    return i - r0


@dataclass
class Moves:
    """Rows in ``targets`` move to the given exact points; every other row is fixed
    (Lemmas 3.2/3.2p/3.3 instances)."""

    targets: dict[int, tuple[Fraction, ...]]
    kind = "moves"
    _bound: dict = field(default=None, repr=False)

    def bind(self, num):
        conv: dict = {}  # id(point) -> converted point: rows sent to one point (a snap's
        bound = {}       # whole sequence) share it; the dict keeps the points alive
        for i, v in self.targets.items():
            c = conv.get(id(v))
            if c is None:
                c = conv[id(v)] = tuple(num(x) for x in v)
            bound[i] = c
        self._bound = bound
        return self

    def rows(self):
        return sorted(self.targets)

    def expected(self, i, old):
        v = self._bound.get(i)
        return old(i) if v is None else v

    def restrict(self, r0, r1, j0, j1, memo=None):
        t = self.targets
        if not t or max(t) < r0 or min(t) >= r1:  # (min/max in C: most claims of a
            return Moves({})                      # phase touch one other shard's rows)
        return Moves({i - r0: v for i, v in t.items() if r0 <= i < r1})


@dataclass
class Shift:
    """Rows in ``rows`` move by the vector ``c``; every other row is fixed (the
    plateau of Lemma 3.2p moves every token at the probed point by ``q - p``)."""

    moved: list[int]
    c: tuple[Fraction, ...]
    kind = "shift"
    _c: tuple = field(default=None, repr=False)
    _set: frozenset = field(default=None, repr=False)

    def bind(self, num):
        self._c = tuple(num(x) for x in self.c)
        self._set = frozenset(self.moved)
        return self

    def rows(self):
        return sorted(self.moved)

    def expected(self, i, old):
        if i not in self._set:
            return old(i)
        return tuple(x + y for x, y in zip(old(i), self._c))

    def restrict(self, r0, r1, j0, j1, memo=None):
        return Shift([i - r0 for i in self.moved if r0 <= i < r1], self.c)


@dataclass
class Translate:
    """Every row moves by the vector ``c`` (Lemma 3.1)."""

    c: tuple[Fraction, ...]
    kind = "translate"
    _c: tuple = field(default=None, repr=False)

    def bind(self, num):
        self._c = tuple(num(x) for x in self.c)
        return self

    def rows(self):
        return None

    def expected(self, i, old):
        return tuple(x + y for x, y in zip(old(i), self._c))

    def restrict(self, r0, r1, j0, j1, memo=None):
        return Translate(self.c)


@dataclass
class SequenceShift:
    """Row ``i`` of sequence ``j`` moves by ``lam`` times the (old) row
    ``top[j]`` (the tag of Lemma 4.1: each token adds lam times its sequence's
    u-maximal token).  ``seq_of[i]`` is the sequence of row ``i``."""

    lam: Fraction
    top: list[int]
    seq_of: list[int]
    kind = "sequence-shift"
    _lam: object = field(default=None, repr=False)

    def bind(self, num):
        self._lam = num(self.lam)
        return self

    def rows(self):
        return None

    def expected(self, i, old):
        t = old(self.top[self.seq_of[i]])
        return tuple(x + self._lam * y for x, y in zip(old(i), t))

    def restrict(self, r0, r1, j0, j1, memo=None):
        memo = {} if memo is None else memo  # one restricted list per shared seq_of
        key = ("seq_of", id(self.seq_of))
        if key not in memo:
            seq = [j - j0 for j in self.seq_of[r0:r1]]
            if any(not 0 <= j < j1 - j0 for j in seq):
                raise ValueError("sequence-shift claim maps a shard row to another shard's "
                                 "sequence")
            memo[key] = (self.seq_of, seq)  # keeps the object alive: its id stays unique
        seq = memo[key][1]
        return SequenceShift(self.lam, [_local(t, r0, r1) for t in self.top[j0:j1]], seq)


@dataclass
class Collapse:
    """Row ``i`` becomes ``<k, old(leader[i])> e_axis`` (phase C: attention to the
    leader, then the rank-one value map ``V = e_axis k^T``, ``rho = 0``)."""

    k: tuple[Fraction, ...]
    leader: list[int]
    axis: int = 0
    kind = "collapse"
    _k: tuple = field(default=None, repr=False)
    _zero: object = field(default=None, repr=False)
    _memo: dict = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        """Validates at entry (``ParameterError``): ``k`` a vector of scalars,
        ``leader`` a list of row indices (ints), ``axis`` an int."""
        check_vector("Collapse", "k", self.k, None)
        if not isinstance(self.leader, (list, tuple)) or not {int}.issuperset(map(type, self.leader)):
            raise reject("Collapse", "leader", "a list of row indices (ints)", self.leader)
        if type(self.axis) is not int:
            raise reject("Collapse", "axis", "an int", self.axis)

    def bind(self, num):
        self._k = tuple(num(x) for x in self.k)
        self._zero = num(Fraction(0))
        self._memo = {}  # leader row -> expected point, for this comparison only
        return self

    def rows(self):
        return None

    def expected(self, i, old):
        lead = self.leader[i]
        out = self._memo.get(lead)
        if out is not None:  # every row attending this leader gets the same point
            return out
        x = old(lead)
        kappa = self._zero
        for a, b in zip(self._k, x):
            kappa = kappa + a * b
        out = [self._zero] * len(x)
        out[self.axis] = kappa
        out = self._memo[lead] = tuple(out)
        return out

    def restrict(self, r0, r1, j0, j1, memo=None):
        return Collapse(self.k, [_local(t, r0, r1) for t in self.leader[r0:r1]], self.axis)


@dataclass
class Affine:
    """Every row ``x`` moves to ``M x + c`` (a token-wise affine map: an FF whose
    every ReLU is active on every token, e.g. the layout FF of the bounded
    construction).  ``M``: ``d`` rows of ``d`` scalars; ``c``: ``d`` scalars."""

    M: tuple[tuple[Fraction, ...], ...]
    c: tuple[Fraction, ...]
    kind = "affine"
    _M: tuple = field(default=None, repr=False)
    _c: tuple = field(default=None, repr=False)

    def bind(self, num):
        self._M = tuple(tuple(num(x) for x in row) for row in self.M)
        self._c = tuple(num(x) for x in self.c)
        return self

    def rows(self):
        return None

    def expected(self, i, old):
        x = old(i)
        out = []
        for row, ci in zip(self._M, self._c):
            v = ci
            for a, xj in zip(row, x):
                if a:
                    v = v + a * xj
            out.append(v)
        return tuple(out)

    def restrict(self, r0, r1, j0, j1, memo=None):
        return Affine(self.M, self.c)


@dataclass
class SequenceTranslate:
    """Every row of sequence ``j`` moves by the vector ``c[j]`` (``j`` in ``c``);
    rows of the other sequences are fixed.  ``spans[j]`` = rows ``(lo, hi)`` of
    sequence j (a tag whose value map reads a functional that is constant on each
    sequence's attended tokens, e.g. the flag tag of the bounded construction)."""

    c: dict[int, tuple[Fraction, ...]]
    spans: list[tuple[int, int]]
    kind = "sequence-translate"
    _by_row: dict = field(default=None, repr=False)

    def bind(self, num):
        by_row = {}
        for j, v in self.c.items():
            if any(x != 0 for x in v):
                bv = tuple(num(x) for x in v)
                lo, hi = self.spans[j]
                for i in range(lo, hi):
                    by_row[i] = bv
        self._by_row = by_row
        return self

    def rows(self):
        return [i for j in sorted(self.c) if any(x != 0 for x in self.c[j])
                for i in range(*self.spans[j])]

    def expected(self, i, old):
        v = self._by_row.get(i)
        x = old(i)
        return x if v is None else tuple(a + b for a, b in zip(x, v))

    def restrict(self, r0, r1, j0, j1, memo=None):
        spans = []
        for lo, hi in self.spans[j0:j1]:
            if hi > lo:
                _local(lo, r0, r1), _local(hi - 1, r0, r1)
            spans.append((lo - r0, hi - r0))
        return SequenceTranslate({j - j0: v for j, v in self.c.items() if j0 <= j < j1}, spans)
