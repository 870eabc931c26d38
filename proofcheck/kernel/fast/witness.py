"""The plain checks of the fast tier's witnesses (the table of :mod:`proofcheck.kernel.fast`).

Every shortcut of the fast tier returns, with its answer, a witness; the functions
here check that witness EXACTLY (fmpq comparisons, or a float inequality whose
rounding direction is stated) before the answer is used, in a few plain lines each,
and raise :class:`~proofcheck.kernel.errors.WitnessCheckFailed` naming the shortcut
when it does not hold.  They never decide a verdict: a failed check is ERROR.
"""
from __future__ import annotations

import numpy as np
from flint import fmpq

from proofcheck.kernel.errors import WitnessCheckFailed
from proofcheck.kernel.numbers import fmt_num

#: the stable codes of the shortcuts (the table of proofcheck.kernel.fast)
WINDOW, NEAREST, PIECE, BOX_PIECE = "window", "nearest-outside", "ff-piece", "box-piece"
TAG_TOP, TAG_OFFSETS, Q_SIGN = "tag-top", "tag-offsets", "q-sign"
UNIQUE_TOP, RANK_ONE_ARGMAX, MAX_MODULUS = "unique-top", "rank-one-argmax", "max-modulus"
GRAM, GRAM_GAP, HEAD_PREFIX = "gram-argmax", "gram-gap", "head-prefix"
CODES = (WINDOW, NEAREST, PIECE, BOX_PIECE, TAG_TOP, TAG_OFFSETS, Q_SIGN, UNIQUE_TOP,
         RANK_ONE_ARGMAX, MAX_MODULUS, GRAM, GRAM_GAP, HEAD_PREFIX)


_ZERO = fmpq(0)


def fail(code: str, detail: str):
    raise WitnessCheckFailed(code, detail)


def _n(x) -> str:
    return "unbounded" if x is None else fmt_num(x)


def inside(code: str, row, t, lo, hi) -> None:
    """``lo <= t <= hi`` (``None``: unbounded) for the exact projection ``t`` of ``row``."""
    if not ((lo is None or lo <= t) and (hi is None or t <= hi)):
        fail(code, f"row {row} was returned for [{_n(lo)}, {_n(hi)}] but its projection is {_n(t)}")


def outside(code: str, row, t, lo, hi) -> None:
    """``t < lo`` or ``t > hi``: ``row`` lies outside the closed interval."""
    if (lo is None or lo <= t) and (hi is None or t <= hi):
        fail(code, f"row {row} was named outside [{_n(lo)}, {_n(hi)}] but its projection is {_n(t)}")


def nearest(D, t, lo, hi, radius) -> None:
    """``D = (distance, row)`` of a nearest-outside query over ``[lo - radius, hi + radius]``
    (``radius`` ``None``: every row was considered): a named row lies outside ``[lo, hi]``,
    inside the queried window, at exactly ``distance`` (``t``: its projection recomputed
    from its token); ``row`` ``None`` claims only the window's own radius."""
    dist, row = D
    if row is None:
        if radius is None or dist != radius:
            fail(NEAREST, f"no row named, distance {_n(dist)} but the query's radius is {_n(radius)}")
        return
    outside(NEAREST, row, t, lo, hi)
    exact = lo - t if t < lo else t - hi
    if dist != exact:
        fail(NEAREST, f"row {row} is {fmt_num(exact)} from [{_n(lo)}, {_n(hi)}], not {fmt_num(dist)}")
    if radius is not None and exact > radius:
        fail(NEAREST, f"row {row} is {fmt_num(exact)} from [{_n(lo)}, {_n(hi)}], outside the "
                      f"queried window of radius {fmt_num(radius)}: a closer row may not have been seen")


def in_piece(kinks, p, t, row) -> None:
    """``t`` lies in piece ``p`` of the sorted kinks: ``kinks[p-1] <= t <= kinks[p]`` (the
    active units, hence the affine map, are constant between two kinks)."""
    if (p > 0 and t < kinks[p - 1]) or (p < len(kinks) and t > kinks[p]):
        fail(PIECE, f"row {row} at t = {fmt_num(t)} was given piece {p} of the kinks "
                    f"{[fmt_num(k) for k in kinks]}")


def box_in_piece(kinks, p, t, wr, where) -> None:
    """The box ``[t - wr, t + wr]`` lies in piece ``p``, between ``kinks[p-1]`` and
    ``kinks[p]`` (kept as it is when that piece is the identity)."""
    if (p > 0 and t - wr < kinks[p - 1]) or (p < len(kinks) and t + wr > kinks[p]):
        fail(BOX_PIECE, f"{where}: the box [{fmt_num(t - wr)}, {fmt_num(t + wr)}] is not inside "
                        f"piece {p} of the kinks {[fmt_num(k) for k in kinks]}")


def _place(where) -> str:
    """``where`` is a text or a function giving it (built only when a check fails)."""
    return where() if callable(where) else where


def margin(code: str, top_value, other_value, where) -> None:
    """The chosen maximiser beats the named runner-up strictly (exact values)."""
    if not top_value > other_value:
        fail(code, f"{_place(where)}: the chosen maximum {fmt_num(top_value)} does not exceed the "
                   f"runner-up {fmt_num(other_value)}")


def dot_margins(code: str, e, d, triples) -> None:
    """``<x_r, x_a> > <x_r, x_b>`` exactly for every ``(r, a, b)`` (rows of the row-major fmpq
    entries ``e`` of width ``d``)."""
    for r, a, b in triples:
        xr = e[r * d:(r + 1) * d]
        margin(code, sum([x * y for x, y in zip(xr, e[a * d:(a + 1) * d])], _ZERO),
               sum([x * y for x, y in zip(xr, e[b * d:(b + 1) * d])], _ZERO),
               lambda: f"row {r} attending to row {a} against row {b}")


def equal(code: str, stated, exact, where) -> None:
    if stated != exact:
        fail(code, f"{_place(where)}: stated {fmt_num(stated)}, recomputed {fmt_num(exact)}")


def all_true(code: str, mask, what: str) -> None:
    """Every entry of the boolean array ``mask`` holds (``what`` names the bound)."""
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise TypeError("a witness mask must be boolean")
    bad = np.flatnonzero(~mask)
    if len(bad):
        fail(code, f"{what} fails at index {int(bad[0])} ({len(bad)} in all)")


def prefix_extremes(p, vmax, cmax, vmin, cmin) -> None:
    """``vmax[i] = max(p[0..i])`` attained ``cmax[i]`` times, ``vmin``/``cmin`` likewise, by
    induction on ``i``: each is ``p[i]`` or the previous one, and bounds both."""
    for name, v, c, ge in (("maximum", vmax, cmax, lambda a, b: a >= b),
                           ("minimum", vmin, cmin, lambda a, b: a <= b)):
        for i, pi in enumerate(p):
            prev, pc = (v[i - 1], c[i - 1]) if i else (pi, 0)
            want = (pc if v[i] == prev else 0) + (pi == v[i])
            if not (ge(v[i], pi) and ge(v[i], prev) and v[i] in (pi, prev) and c[i] == want):
                fail(HEAD_PREFIX, f"token {i}: the prefix {name} {fmt_num(v[i])} attained "
                                  f"{c[i]} times does not follow from p = {fmt_num(pi)} and the "
                                  f"previous {fmt_num(prev)} ({pc} times)")


def frexp_exact(x):
    """``(m, e)`` floats with ``x = m 2^e (1 + delta)``, ``|delta| <= 2^-53`` for an exact
    rational of any size (0: ``(0.0, 0)``)."""
    if x == 0:
        return 0.0, 0
    p, q = int(x.numerator), int(x.denominator)
    s = p.bit_length() - q.bit_length()
    y = (p / (q << s)) if s >= 0 else ((p << -s) / q)  # correctly rounded, |y| in (1/2, 2)
    m, e = np.frexp(y)
    return float(m), int(e) + s


def exceeds(lower_m, lower_e, x, strict: bool = True):
    """Mask of ``L_j = lower_m_j 2^lower_e_j > x`` (``>=`` when not ``strict``) for an exact
    rational ``x``, decided rigorously in float64: ``x``'s copy is moved one relative step
    of ``2^-50`` away (an upper bound of ``x``) and each side is scaled by ``2^-max(e)``
    (shifts down only: exact, or an underflow, covered by moving ``L_j`` down and the bound
    of ``x`` up by ``2^-1074``)."""
    xm, xe = frexp_exact(x)
    xm = xm * (1 + 2.0 ** -50) if xm > 0 else xm * (1 - 2.0 ** -50)
    lower_m = np.asarray(lower_m, dtype=float)
    E = np.maximum(np.asarray(lower_e, dtype=np.int64), xe)
    L = np.ldexp(lower_m, np.clip(lower_e - E, -1100, 0).astype(np.int32)) - 2.0 ** -1074
    X = np.ldexp(np.full(len(L), xm), np.clip(xe - E, -1100, 0).astype(np.int32)) + 2.0 ** -1074
    return L > X if strict else L >= X
