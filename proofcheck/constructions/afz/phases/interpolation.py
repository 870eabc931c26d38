"""Proposition *interpolation* (docs/spec.md §4, phase I): M snaps (Lemma 3.3) along
``e_1`` map the M leader images ``kappa_l e_1`` exactly onto their targets.

``delta_l = 1/4`` of the distance from ``kappa_l`` to the nearest other value among
all kappas and all targets' first coordinates, so a snap never moves another
leader image or an already placed target.
"""
from __future__ import annotations

from bisect import bisect_left
from fractions import Fraction

from flint import fmpq

from proofcheck.constructions.afz.layers.snap import snap_ff
from proofcheck.constructions.claims import Moves

ID = "interpolation"


def quarter_gaps(kappas, targets) -> list[Fraction]:
    """Per ``kappas[l]``: 1/4 of its distance to the nearest other value among all
    kappas and all targets' first coordinates (1/4 when there is none).  ``kappas``:
    distinct Fractions, none equal to a target's first coordinate; ``targets``:
    ``(M, d)``."""
    # the distinct values, sorted as python-flint fmpq (exact; compared in C, a
    # Fraction comparison costs microseconds); keys (numerator, denominator)
    vals = sorted({(v.numerator, v.denominator): fmpq(v.numerator, v.denominator)
                   for v in list(kappas) + [y[0] for y in targets]}.values())
    out = []
    for kap in kappas:
        fk = fmpq(kap.numerator, kap.denominator)
        i = bisect_left(vals, fk)
        near = [abs(vals[k] - fk) for k in (i - 1, i + 1) if 0 <= k < len(vals)]
        out.append((Fraction(int(min(near).p), int(min(near).q)) if near else Fraction(1)) / 4)
    return out


def snaps(kappas, targets, attending, d: int, float_format=None, progress=None):
    """``kappas[l]``, ``targets[l]`` (``(d,)``), ``attending[l]``: rows sitting at
    ``kappa_l e_1``.  Returns ``(ffs, claims, deltas)``.  ``float_format``: see
    :mod:`proofcheck.constructions.afz.options` (float-safe centre and power-of-two half-width).
    ``progress()`` (optional) once per snap."""
    if float_format is not None:
        from proofcheck.constructions.afz.options import check_targets
        check_targets(targets, float_format)
    ffs, claims, deltas = [], [], []
    for kap, y, rows, delta in zip(kappas, targets, attending, quarter_gaps(kappas, targets)):
        centre = kap
        if float_format is not None:
            from proofcheck.constructions.afz.options import float_safe_snap
            centre, delta = float_safe_snap(kap, delta, float_format)
        if progress:
            progress()
        ffs.append(snap_ff(0, d, centre, delta, y))
        claims.append(Moves({r: tuple(y) for r in rows}))
        deltas.append(delta)
    return ffs, claims, deltas
