"""Construction options for Theorems 1.6/1.8 (docs/spec.md §4; issue 13, deliverable 3).

Float-safe phase-L hats: each leader's plateau hat (Lemma 3.2p) is centred at the
nearest ``float_format`` value of the leader's projection, with power-of-two
half-widths ``delta1' = delta2' / 2`` inside the original support (see
:func:`float_safe_hat`), so that rounding its weights keeps the plateau height 1
(up to the rounding of ``shift / (delta2' - delta1')``).

``ConstructionOptions()`` (the default) builds today's network unchanged.
``ConstructionOptions(float_format="float32")`` makes the phase-I snaps (Lemma
3.3) float-safe: each snap is centred at the nearest ``float_format`` value ``c``
of its kappa, with a half-width ``delta'`` that is a power of two, chosen so that
the plateau ``[c - delta', c + delta']`` still contains kappa with the largest
possible margin and the support ``(c - 2 delta', c + 2 delta')`` stays inside the
original one (so no snap reaches another leader image or a placed target).  With
integer targets and moderate kappas every snap parameter is then exactly
representable, so rounding the weights to the format leaves the snaps' plateaus
exactly constant — the snap maps a whole interval onto its target, which absorbs
the drift that rounding the earlier weights causes (the margin is
``delta' - |c - kappa|``).

The options are a construction choice: the exact checker verifies the network
they produce like any other.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class ConstructionOptions:
    """``float_format``: None (exact construction as before) or a format name of
    ``proofcheck.frontend.export.rounding.FORMATS`` for float-safe snaps."""

    float_format: str | None = None


DEFAULT = ConstructionOptions()


def pow2_floor(x: Fraction) -> Fraction:
    """Largest power of two ``<= x``.  Raises ``ValueError`` unless ``x > 0``."""
    x = Fraction(x)
    if x <= 0:
        raise ValueError(f"no power of two below {x}")
    e = x.numerator.bit_length() - x.denominator.bit_length()
    p = Fraction(2) ** e
    while p > x:
        p /= 2
    while p * 2 <= x:
        p *= 2
    return p


def check_targets(targets, fmt_name: str) -> None:
    """Raise ``ValueError`` naming the first target coordinate (leader order) that
    is not a ``fmt_name`` value: a float-safe snap's plateau value is
    ``W1 delta + k2 e`` with float weights, so it cannot be such a target (with
    dyadic inputs every value of a float-weight network is dyadic)."""
    from proofcheck.constructions.floats import get_format, is_representable
    fmt = get_format(fmt_name)
    for l, y in enumerate(targets):
        for c, v in enumerate(y):
            if not is_representable(v, fmt):
                raise ValueError(f"float-safe {fmt_name} construction: target token {l} "
                                 f"(leader order) coordinate {c} = {v} is not a {fmt_name} value")


def float_safe_snap(kappa: Fraction, delta: Fraction, fmt_name: str):
    """``(centre, half-width)`` of a float-safe snap replacing the snap
    ``(kappa, delta)``: ``centre`` = nearest ``fmt_name`` value of kappa,
    half-width = largest power of two ``<= delta - |centre - kappa| / 2``, so that
    ``2 delta' + |c - kappa| <= 2 delta``.  Raises ``ValueError`` when the plateau
    would not contain kappa (the format is too coarse at this magnitude)."""
    from proofcheck.constructions.floats import get_format, round_q
    c = round_q(kappa, get_format(fmt_name))
    off = abs(c - kappa)
    if off >= delta / 2 or off > pow2_floor(delta - off / 2) / 2:
        raise ValueError(f"{fmt_name} is too coarse for a snap at kappa ~ {float(kappa):.6g}: "
                         f"nearest value {float(c):.6g}, half-width {float(delta):.3g}")
    return c, pow2_floor(delta - off / 2)


def float_safe_hat(t_p: Fraction, delta2: Fraction, fmt_name: str):
    """``(centre, delta1', delta2')`` of a float-safe plateau hat replacing the hat
    centred at ``t_p`` with outer half-width ``delta2``: centre = nearest format
    value ``c`` of ``t_p``, ``delta2'`` = largest power of two ``<= delta2 - |c - t_p|``
    (support inside the original one), ``delta1' = delta2' / 2``.  Raises
    ``ValueError`` when ``|c - t_p| > delta1' / 2`` (the format is too coarse)."""
    from proofcheck.constructions.floats import get_format, round_q
    c = round_q(t_p, get_format(fmt_name))
    off = abs(c - t_p)
    if off >= delta2 / 2 or off > pow2_floor(delta2 - off) / 4:
        raise ValueError(f"{fmt_name} is too coarse for a hat at projection ~ {float(t_p):.6g}: "
                         f"nearest value {float(c):.6g}, half-width {float(delta2):.3g}")
    d2 = pow2_floor(delta2 - off)
    return c, d2 / 2, d2
