"""Peel layer (project lemma, a reconstruction used by the ``peel`` construction):
one width-<=4 FF moves the a largest and the b smallest of a set of collinear
points (a + b <= 4) to arbitrary points and fixes every point in between.

Along a direction ``w`` with projections ``t = <w, x>``: the top points
``q_1 < ... < q_a`` lie above ``hi`` and the bottom points ``r_1 > ... > r_b``
below ``lo`` (``lo <= hi``; every other token has ``lo <= t <= hi``).  Nested
half-lines

    D(t) = sum_m W_m relu(t - beta_m) + sum_m V_m relu(gamma_m - t)

with ``hi < beta_1 < q_1 < beta_2 < q_2 < ...`` and
``lo > gamma_1 > r_1 > gamma_2 > r_2 > ...`` vanish on ``[lo, hi]``; at ``q_m``
only the first m top units are active, so ``D(q_m) = sum_{i<=m} W_i (q_m - beta_i)``
is a triangular system in the columns ``W_i`` (likewise for the bottom), solved
exactly for any prescribed displacements.  ``FF(x) = x + D(<w,x>)``: a token x
with ``<w,x> = q_m`` moves by the prescribed ``D_m``.

A bump needs three or four ReLUs per interior point; a half-line from either end
needs one, so peeling from the ends places four points per FF (against one per
snap, Lemma 3.3).  ``peel_ff`` is generic in its scalars; :func:`symbolic` proves
the profile on the layer it returns (``proofcheck.constructions.provers.symbolic.prove_profile``).
"""
from __future__ import annotations

import functools
from fractions import Fraction

from proofcheck.constructions.afz.scalars import require, scalar, scalars
from proofcheck.kernel.model import FF, ParameterError

ID = "peel"


def peel_ff(w, top, bottom, hi, lo, label="peel") -> FF:
    """FF of width ``len(top) + len(bottom) <= 4`` with ``FF(x) = x + D_m`` for every
    x with ``<w,x> = t_m`` (``(t_m, D_m)`` in ``top`` or ``bottom``) and ``FF(x) = x``
    for every x with ``lo <= <w,x> <= hi``.

    ``w``: ``(d,)``; ``top``: pairs ``(t, D)`` with ``t > hi`` (any order, distinct
    t); ``bottom``: pairs with ``t < lo``; ``D``: ``(d,)`` displacements; ``lo <= hi``.
    Kinks sit at the midpoints between consecutive points (and between ``hi`` / ``lo``
    and the innermost point).  Raises ``ParameterError`` (a ``ValueError``) when
    the width exceeds 4, a point is on the wrong side, two points coincide or
    ``lo > hi``."""
    w = scalars(w)
    hi, lo = scalar(hi), scalar(lo)
    top = sorted(((scalar(t), scalars(D)) for t, D in top), key=lambda p: p[0])
    bottom = sorted(((scalar(t), scalars(D)) for t, D in bottom), key=lambda p: p[0],
                    reverse=True)
    if len(top) + len(bottom) > 4:
        raise ParameterError(f"peel: at most 4 points per layer, got {len(top) + len(bottom)}")
    require(lo <= hi, "peel: need lo <= hi")
    if any(len(D) != len(w) for _, D in top + bottom):
        raise ParameterError("peel: every displacement D must have length d = len(w)")
    U, b, W = [], [], []
    for side, (sign, edge) in ((top, (1, hi)), (bottom, (-1, lo))):
        prev, cols, kinks = edge, [], []
        for t, D in side:
            require(sign * (t - prev) > 0, "peel: points must lie beyond hi (top) / lo "
                    "(bottom) and be distinct")
            kinks.append((prev + t) / 2)
            prev = t
            # D = sum_{i <= m} col_i * sign (t - kink_i): solve for the new column
            rest = [sum((c[k] * sign * (t - kk) for c, kk in zip(cols, kinks)), Fraction(0))
                    for k in range(len(w))]
            a = sign * (t - kinks[-1])
            cols.append(tuple((Dk - rk) / a for Dk, rk in zip(D, rest)))
        for kk, c in zip(kinks, cols):
            U.append(tuple(sign * x for x in w))
            b.append(-sign * kk)
            W.append(c)
    return FF(Fraction(1), U=tuple(U), b=tuple(b), W=tuple(W), label=label)


def symbolic(d: int = 2):
    """See :func:`_symbolic`; computed once per process, returned as a fresh copy."""
    import copy
    return copy.deepcopy(_symbolic(d))


#: every (top, bottom) point count a peel layer can have: 1 <= a + b <= 4
CONFIGURATIONS = tuple((a, b) for n in range(1, 5) for a in range(n, -1, -1) for b in (n - a,))


@functools.lru_cache(maxsize=None)
def _symbolic(d: int = 2):
    """sympy proof, on the layer ``peel_ff`` returns, for EVERY configuration of
    :data:`CONFIGURATIONS` (a top and b bottom points, a + b <= 4: the construction
    uses all of them), with symbolic positions ``q_1 = hi + s_1``, ``q_{m+1} = q_m +
    s_{m+1}``, ``r_1 = lo - g_1``, ``r_{m+1} = r_m - g_{m+1}``, ``lo = hi - h`` (all
    ``s, g > 0``, ``h >= 0`` as ``h > 0`` and ``lo = hi``), a direction with ``w_0 > 0``
    and symbolic displacements in R^d: ``FF(x) = x + D_m`` at each point and
    ``FF(x) = x`` on ``[lo, hi]``.  VERIFIED only when every configuration is proved;
    else the first one that is not, with its witness."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict
    name = (f"peel symbolic: for every a top and b bottom points (a + b <= 4, all "
            f"{len(CONFIGURATIONS)} configurations) the returned layer moves each point by its "
            f"displacement and fixes [lo, hi] (all parameters, d = {d})")
    det = [f"hypotheses: w in R^{d} with w_0 > 0, D_m in R^{d}; r_b < ... < r_1 < lo <= hi < "
           "q_1 < ... < q_a (lo < hi and lo = hi both)"]
    for a, b in CONFIGURATIONS:
        for band in ("lo < hi", "lo = hi"):
            r = _one_configuration(d, a, b, band == "lo = hi")
            if r.verdict != Verdict.VERIFIED:
                return CheckResult(name, r.verdict, det + [f"a = {a}, b = {b}, {band}: not proved"]
                                   + r.details, r.witness)
            det.append(f"a = {a}, b = {b}, {band}: " + "; ".join(
                x.removeprefix("proved: ") for x in r.details if x.startswith("proved: ")))
    return CheckResult(name, Verdict.VERIFIED, det)


def _one_configuration(d: int, a: int, b: int, flat_band: bool):
    """The proof of :func:`_symbolic` for one configuration (a CheckResult)."""
    import sympy as sp

    from proofcheck.constructions.provers.symbolic import prove_profile
    # w_0 > 0 (any direction is a positive multiple of one with w_0 > 0 or of a
    # coordinate axis): the profile divides the rows -w by w
    w = (sp.Symbol("w0", positive=True),) + sp.symbols(f"w1:{d}", real=True)
    hi = sp.Symbol("hi", real=True)
    lo = hi if flat_band else hi - sp.Symbol("h", positive=True)
    ss, gs = sp.symbols(f"s1:{a + 1}", positive=True), sp.symbols(f"g1:{b + 1}", positive=True)
    tops = [hi + sum(ss[:m + 1]) for m in range(a)]
    bots = [lo - sum(gs[:m + 1]) for m in range(b)]
    Ds = [sp.symbols(f"D{m}_0:{d}", real=True) for m in range(a + b)]
    ff = peel_ff(w, list(zip(tops, Ds[:a])), list(zip(bots, Ds[a:])), hi, lo)
    const = lambda D: (lambda t: list(D))  # noqa: E731
    names = [f"q{m + 1}" for m in range(a)] + [f"r{m + 1}" for m in range(b)]
    claims = [(t, t, const(D), f"FF(x) = x + D{m} when <w,x> = {nm}")
              for m, (t, D, nm) in enumerate(zip(tops + bots, Ds, names))]
    claims.append((lo, hi, lambda t: [0] * d, "FF(x) = x when lo <= <w,x> <= hi"))
    return prove_profile(f"peel a = {a}, b = {b}", ff, w, claims, "")
