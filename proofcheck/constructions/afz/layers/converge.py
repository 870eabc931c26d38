"""Non-residual convergence layer: the FF of the seed's softmax sketch (Theorem 1.8,
"O(N) additional blocks of non-residual FF layers with ReLU that iteratively
converge small neighbourhoods of tokens onto the leaders"), as proofcheck
reconstructs it.  The seed gives no formula; this layer is a reconstruction.

A width-4 FF with ``eta = 0`` along the coordinate axis ``e = e_axis``:

    FF(x) = f(x_axis) e,
    f(t) = -relu(t - k1) + relu(t - k2) - relu(k3 - t) + relu(t - k4),

for kinks ``k1 < k2 < k3 < k4``.  ``f`` is continuous and non-decreasing with slopes
1, 0, 1, 0, 1 (:func:`profile`):

    t - k3            on t <= k1
    k1 - k3           on [k1, k2]     (flat: one point)
    t - k2 + k1 - k3  on [k2, k3]
    k1 - k2           on [k3, k4]     (flat: one point)
    t - k4 + k1 - k2  on t >= k4.

So every token with ``k1 <= x_axis <= k2`` goes to the one point ``(k1 - k3) e`` and
every token with ``k3 <= x_axis <= k4`` to ``(k1 - k2) e``: two neighbourhoods
converge EXACTLY, whatever their radius inside the flats.  On the three other
pieces f is a translation, and the five images are ordered (f is monotone), so
distinct values off the flats stay distinct.  Non-residual: the other coordinates
of the output are 0 (W has only ``e`` columns); the construction applies it to
tokens on the line ``Q e`` (after the rank-one collapse), whose other coordinates
are 0 already.

Why ``eta = 0`` and these offsets: a ReLU combination without an output bias has
an affine part fixed by which units face left; here unit 3 faces left, which makes
the left piece ``t - k3``, so no image is pinned to a constant independent of the
kinks (the construction shifts kinks to keep the final points off the targets'
first coordinates).

:func:`converge_ff` is generic in its scalars; :func:`symbolic` proves the profile
on the returned layer for all kinks ``k1 < k2 < k3 < k4`` (sympy).
"""
from __future__ import annotations

import functools
from fractions import Fraction

from proofcheck.constructions.afz.scalars import require, scalar
from proofcheck.kernel.model import FF, ParameterError

ID = "converge"


def _axis(axis: int, d: int):
    return tuple(Fraction(int(i == axis)) for i in range(d))


def converge_ff(axis: int, d: int, k1, k2, k3, k4, label: str = "converge (eta = 0)") -> FF:
    """Width-4 non-residual FF ``x -> f(x_axis) e_axis`` (module docstring).

    ``k1 < k2 < k3 < k4``: rationals or sympy expressions.  Raises
    ``ParameterError`` (a ``ValueError``) when the kinks are not increasing (or the
    order is undecided) or ``axis`` is not in ``0..d-1``."""
    if not (isinstance(axis, int) and isinstance(d, int) and 0 <= axis < d):
        raise ParameterError(f"converge: need 0 <= axis < d, got axis = {axis!r}, d = {d!r}")
    k1, k2, k3, k4 = (scalar(k) for k in (k1, k2, k3, k4))
    for lo, hi, name in ((k1, k2, "k1 < k2"), (k2, k3, "k2 < k3"), (k3, k4, "k3 < k4")):
        require(lo < hi, f"converge: need {name}")
    e = _axis(axis, d)
    me = tuple(-x for x in e)
    return FF(Fraction(0), U=(e, e, me, e), b=(-k1, -k2, k3, -k4), W=(me, e, me, e),
              label=label)


def profile(k1, k2, k3, k4):
    """The five pieces ``(lo, hi, f)`` of the layer's profile (``None`` = unbounded;
    ``f`` maps t to the scalar on that piece): the statement :func:`symbolic` proves."""
    return [(None, k1, lambda t: t - k3), (k1, k2, lambda t: k1 - k3),
            (k2, k3, lambda t: t - k2 + k1 - k3), (k3, k4, lambda t: k1 - k2),
            (k4, None, lambda t: t - k4 + k1 - k2)]


def image(k1, k2, k3, k4, t):
    """``f(t)`` (exact) from :func:`profile`; ``t`` a rational."""
    for lo, hi, f in profile(k1, k2, k3, k4):
        if (lo is None or t >= lo) and (hi is None or t <= hi):
            return f(t)
    raise AssertionError("the pieces cover the line")


def symbolic(d: int = 3, axis: int = 0):
    """See :func:`_symbolic` (cached per argument, returned as a fresh copy)."""
    import copy
    return copy.deepcopy(_symbolic(d, axis))


@functools.lru_cache(maxsize=None)
def _symbolic(d: int, axis: int):
    """sympy proof on the layer ``converge_ff`` returns for symbolic kinks ``k1`` (real)
    and ``k2 = k1 + a``, ``k3 = k2 + b``, ``k4 = k3 + c`` (``a, b, c > 0``): ``eta = 0``,
    every row of U is a multiple of ``e_axis``, and ``FF(x) = f(x_axis) e_axis`` for
    EVERY x on each of the five pieces of :func:`profile` (decided at the ends, every
    kink inside and the tail slopes, :mod:`proofcheck.kernel.lemma_checks.profile`)."""
    import sympy as sp

    from proofcheck.kernel.lemma_checks.profile import NotAlong, Profile, Undecided
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness
    from proofcheck.constructions.provers.symbolic import sympy_field
    k1 = sp.Symbol("k1", real=True)
    a, b, c = sp.symbols("a b c", positive=True)
    ks = (k1, k1 + a, k1 + a + b, k1 + a + b + c)
    e = list(_axis(axis, d))
    name = (f"converge symbolic: the returned eta = 0 layer maps x to f(x_{axis}) e_{axis}, "
            f"flat on [k1, k2] and [k3, k4], a translation elsewhere (for all parameters "
            f"(symbolic): k1 < k2 < k3 < k4, d = {d})")
    det = [f"hypotheses: k1 real, k2 = k1 + a, k3 = k2 + b, k4 = k3 + c, a, b, c > 0, d = {d}",
           "profile from the returned U, b, W: FF(x) = eta x + sum_k W_k relu(alpha_k x_axis + b_k)"]
    try:
        ff = converge_ff(axis, d, *ks)
        prof = Profile.along(ff, e, sympy_field())
        if not sympy_field().is_zero(prof.eta):
            return CheckResult(name, Verdict.REFUTED, det, Witness(
                "the layer is residual", expected=0, got=prof.eta))
        det.append(f"eta = 0; alpha = {prof.alphas}")
        texts = ["f(t) = t - k3 on t <= k1", "f = k1 - k3 on [k1, k2]",
                 "f(t) = t - k2 + k1 - k3 on [k2, k3]", "f = k1 - k2 on [k3, k4]",
                 "f(t) = t - k4 + k1 - k2 on t >= k4"]
        for (lo, hi, f), text in zip(profile(*ks), texts):
            bad = prof.first_difference(lo, hi, lambda t, f=f: [f(t) * x for x in e])
            if bad is not None:
                return CheckResult(name, Verdict.REFUTED, det + [f"NOT proved: {text}"],
                                   Witness(f"{text} fails at {bad[0]}", expected=bad[2],
                                           got=bad[1]))
            det.append(f"proved: {text}")
    except (NotAlong, ParameterError) as exc:
        return CheckResult(name, Verdict.REFUTED, det, Witness(str(exc)))
    except Undecided as exc:
        return CheckResult(name, Verdict.INCONCLUSIVE, det + [f"undecided: {exc}"])
    return CheckResult(name, Verdict.VERIFIED, det)
