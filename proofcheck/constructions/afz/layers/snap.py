"""Lemma 3.3 (interval-to-point snap).

For tokens on the line ``{t e_a}`` (``e_a`` a coordinate axis), a width-4 FF with
``eta = 1`` maps every ``t e_a`` with ``|t - kappa| <= delta`` exactly to ``y`` and
fixes every point whose ``a``-th coordinate lies outside
``(kappa - 2 delta, kappa + 2 delta)``.  It adds ``G(x_a)``, the continuous
piecewise-linear function with kinks ``kappa -/+ 2delta, kappa -/+ delta`` that is
``y - t e_a`` on the plateau and 0 outside; its four slope changes are the columns
of ``W``.

``snap_ff`` is generic in its scalars (Fractions, or sympy symbols whose
assumptions carry the hypotheses); ``symbolic()`` proves the conclusion on the layer
it returns (``proofcheck.constructions.provers.symbolic.prove_profile``).
"""
from __future__ import annotations

import functools
from fractions import Fraction

from proofcheck.constructions.afz.scalars import require, scalar, scalars
from proofcheck.kernel.model import FF, ParameterError

ID = "3.3"


def snap_ff(axis: int, d: int, kappa, delta, y, label="snap (3.3)") -> FF:
    """Width-4 FF snapping ``[kappa - delta, kappa + delta] e_axis`` onto ``y``
    (``(d,)``); scalars are rationals or sympy expressions.  Raises ``ParameterError``
    (a ``ValueError``) if ``delta <= 0`` (or undecided), ``axis`` is out of range or ``y`` is not of length d."""
    kappa, delta, y = scalar(kappa), scalar(delta), scalars(y)
    if not 0 <= axis < d or len(y) != d:
        raise ParameterError("snap: need 0 <= axis < d and y of length d")
    require(delta > 0, "snap: need delta > 0")
    e = _axis(axis, d)
    k1, k2, k3, k4 = kappa - 2 * delta, kappa - delta, kappa + delta, kappa + 2 * delta
    # G(t) = y - t e_axis on the plateau; off the axis coordinate e_i = 0, so the
    # values G2 = G(k2), G3 = G(k3) differ from y only there (written out, no
    # products by 0 or 1: the same entries as the generic formula, fewer operations)
    G2 = tuple(yi - k2 if i == axis else yi for i, yi in enumerate(y))  # value at k2
    G3 = tuple(yi - k3 if i == axis else yi for i, yi in enumerate(y))  # value at k3
    s1 = tuple(g / delta for g in G2)                 # slope on (k1, k2)
    s2 = tuple(-ei for ei in e)                       # slope on the plateau
    s3 = tuple(-g / delta for g in G3)                # slope on (k3, k4)
    W = (s1, tuple(b - a for a, b in zip(s1, s2)), tuple(b - a for a, b in zip(s2, s3)),
         tuple(-a for a in s3))                       # slope changes (zero outside)
    return FF(Fraction(1), U=(e,) * 4, b=(-k1, -k2, -k3, -k4), W=W, label=label)


@functools.lru_cache(maxsize=64)
def _axis(axis: int, d: int):
    """``e_axis`` in Q^d (one tuple per (axis, d), shared by every snap)."""
    return tuple(Fraction(int(i == axis)) for i in range(d))


def symbolic(d: int = 3, axis: int = 0):
    """See :func:`_symbolic`; computed once per process and argument (the proof
    depends only on them), returned as fresh copies."""
    import copy
    return copy.deepcopy(_symbolic(d, axis))


@functools.lru_cache(maxsize=None)
def _symbolic(d: int = 3, axis: int = 0):
    """sympy and z3 proofs, on the layer ``snap_ff`` returns for symbolic ``kappa``, ``y`` in
    R^d and ``delta > 0``: ``FF(x) = y`` for every ``x = t e_axis`` with
    ``|t - kappa| <= delta`` and ``FF(x) = x`` for EVERY x whose axis coordinate is
    outside ``(kappa - 2 delta, kappa + 2 delta)``.  The profile along ``e_axis``
    comes from the returned U, b, W."""
    import sympy as sp

    from proofcheck.constructions.provers.smt import Z3Prover
    from proofcheck.constructions.provers.symbolic import prove_profile
    kap = sp.Symbol("kappa", real=True)
    y = sp.symbols(f"y0:{d}", real=True)
    dl = sp.Symbol("delta", positive=True)
    e = [int(i == axis) for i in range(d)]
    zero = lambda t: [0] * d  # noqa: E731
    onto_y = lambda t: [yi - t * ei for yi, ei in zip(y, e)]  # FF(t e) = t e + (y - t e) = y
    return prove_profile(
        f"3.3 for all parameters (symbolic): the returned snap layer maps t e_{axis} to y for |t - kappa| <= delta and "
        f"fixes every x with |x_{axis} - kappa| >= 2 delta (all parameters, d = {d})",
        snap_ff(axis, d, kap, dl, y), e,
        [(None, kap - 2 * dl, zero, f"FF(x) = x when x_{axis} <= kappa - 2 delta"),
         (kap - dl, kap + dl, onto_y, "FF(t e) = y when |t - kappa| <= delta"),
         (kap + 2 * dl, None, zero, f"FF(x) = x when x_{axis} >= kappa + 2 delta")],
        f"kappa in R, y in R^{d}, delta > 0, axis {axis}", second=Z3Prover())


def run(dataset=None, seed: int = 0):
    """Lemma 3.3 on the lines ``Q e_a`` (the axis a = seed mod d, so every axis is
    used across the instances of :func:`proofcheck.constructions.afz.instances.lemma_instances`):
    the interval around a seeded kappa (one of the dataset's a-th coordinates)
    snaps to a target y; exact check on the line, on the dataset's points off the
    line outside the support, and on probes generated from the layer, plus the
    symbolic proof."""
    from proofcheck.constructions.afz.instances import each_instance, user_dimension
    from proofcheck.constructions.provers.sa_proofs import guarded
    d = user_dimension(dataset)
    return (each_instance(_instance, dataset, seed) + [rejections_check()]
            + guarded("3.3 symbolic", symbolic, max(2, min(d, 3))))


def rejections_check():
    """``snap_ff`` rejects ``delta <= 0``, an axis outside ``0..d-1`` and a target
    of the wrong length with its messages, and accepts every axis of d = 2..5
    and the tightest delta."""
    from proofcheck.constructions.afz.instances import rejections_check as check
    A, SD = "snap: need 0 <= axis < d and y of length d", "snap: need delta > 0"
    cases = [("delta = 0", lambda: snap_ff(0, 2, 0, 0, (1, 1)), SD),
             ("delta = -1", lambda: snap_ff(0, 2, 0, -1, (1, 1)), SD),
             ("axis = d", lambda: snap_ff(2, 2, 0, 1, (1, 1)), A),
             ("axis = -1", lambda: snap_ff(-1, 2, 0, 1, (1, 1)), A),
             ("y of length d + 1", lambda: snap_ff(0, 2, 0, 1, (1, 1, 1)), A),
             ("y of length d - 1", lambda: snap_ff(1, 3, 0, 1, (1, 1)), A)]
    cases += [(f"axis {a}, d = {d}", lambda a=a, d=d: snap_ff(a, d, -2, Fraction(1, 999), (0,) * d),
               None) for d in (2, 3, 4, 5) for a in range(d)]
    return check("3.3", cases)


def _instance(dataset, seed):
    import random

    from proofcheck.constructions.afz.instances import distinct_points, input_sequences, targets
    from proofcheck.constructions.afz.probes import probes
    from proofcheck.constructions.results import check_layer
    from proofcheck.kernel.lemma_checks.profile import NotAlong
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value
    seqs, d = input_sequences(dataset)
    a = seed % d
    pts = distinct_points(seqs)
    ts = sorted({x[a] for x in pts})
    rng = random.Random(seed)
    kappa = ts[rng.randrange(len(ts))]
    others = [abs(t - kappa) for t in ts if t != kappa]
    delta = (min(others) if others else Fraction(1)) / 4
    y = targets(dataset)[rng.randrange(len(targets(dataset)))]
    ff = snap_ff(a, d, kappa, delta, y)
    e = _axis(a, d)
    zero = (Fraction(0),) * d
    line = [tuple(t * v for v in e) for t in ts]
    off_line = [x for x in pts if abs(x[a] - kappa) >= 2 * delta]
    exp = [tuple(y) if abs(x[a] - kappa) <= delta else x for x in line] + off_line
    table = [(kappa - 2 * delta, zero),
             (kappa - delta, tuple(yi - (kappa - delta) * ei for yi, ei in zip(y, e))),
             (kappa + delta, tuple(yi - (kappa + delta) * ei for yi, ei in zip(y, e))),
             (kappa + 2 * delta, zero)]
    name = (f"3.3 exact, on this instance: |t - {fmt_value(kappa)}| <= {fmt_value(delta)} on the "
            f"line Q e_{a + 1} snaps to {fmt_value(y)}, outside +-2delta fixed")
    try:
        ptoks, pexp = probes(ff, e, zero, table)
    except NotAlong as exc:
        res = CheckResult(name, Verdict.REFUTED, [], Witness(f"the layer does not act along "
                                                             f"e_{a + 1}: {exc}"))
    else:
        res = check_layer(name, ff, [line + off_line + ptoks], [exp + pexp],
                          details=[f"{len(line)} tokens on the line, {len(off_line)} off it, "
                                   f"{len(ptoks)} probes generated from the layer (every kink, inside "
                                   "every linear piece, two on each tail, on and off the line), "
                                   f"width {ff.width}"])
    res.data = {"line": e, "kappa": kappa, "delta": delta, "target": y}
    return res
