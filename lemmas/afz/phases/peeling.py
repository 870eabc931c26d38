"""Interpolation by peeling (phase I of the ``peel`` construction; a project
reconstruction): ``ceil(M/4)`` peel layers (:mod:`lemmas.afz.layers.peel`) along
``e_1`` map the M leader images ``kappa_l e_1`` exactly onto their targets.

Every ``|kappa_l|`` exceeds every target's ``|y_1|`` (:func:`lemmas.afz.phases.
top_collapse.scaled_k`), so the placed targets and the live kappas never mix: each
layer takes the (up to) four largest live kappas, filling up with the smallest
ones when fewer than four positive ones are left; ``hi`` / ``lo`` are the extreme
first coordinates of everything that must stay (the other live kappas and every
target), so no layer moves a placed target or another leader image.
"""
from __future__ import annotations

from fractions import Fraction

from lemmas.afz.layers.peel import peel_ff
from proofcheck.kernel.claims import Moves

ID = "peeling"


def peels(kappas, targets, attending, d: int, progress=None):
    """``kappas[l]``, ``targets[l]`` (``(d,)``), ``attending[l]``: the rows sitting at
    ``kappa_l e_1``.  Returns ``(ffs, claims)``, ``ceil(M/4)`` of each.  Raises
    ``ValueError`` if some ``|kappa_l| <= max |y_1|``.  ``progress()`` once per layer."""
    y1 = [y[0] for y in targets]
    ymax, ymin = max(y1), min(y1)
    if any(-max(ymax, -ymin) <= k <= max(ymax, -ymin) for k in kappas):
        raise ValueError("peeling: every |kappa| must exceed every target's |y_1|")
    pos = sorted((l for l, k in enumerate(kappas) if k > 0), key=lambda l: kappas[l],
                 reverse=True)
    neg = sorted((l for l, k in enumerate(kappas) if k < 0), key=lambda l: kappas[l])
    e1 = tuple(Fraction(int(i == 0)) for i in range(d))
    ffs, claims = [], []
    p = q = 0
    while p < len(pos) or q < len(neg):
        a = min(4, len(pos) - p)
        b = min(4 - a, len(neg) - q)
        take_top, take_bot = pos[p:p + a], neg[q:q + b]
        p, q = p + a, q + b
        hi = max([ymax] + ([kappas[pos[p]]] if p < len(pos) else []))
        lo = min([ymin] + ([kappas[neg[q]]] if q < len(neg) else []))

        def disp(l):
            return tuple(y - (kappas[l] if i == 0 else 0) for i, y in enumerate(targets[l]))
        ffs.append(peel_ff(e1, [(kappas[l], disp(l)) for l in take_top],
                           [(kappas[l], disp(l)) for l in take_bot], hi, lo))
        claims.append(Moves({r: tuple(targets[l]) for l in take_top + take_bot
                             for r in attending[l]}))
        if progress:
            progress()
    return ffs, claims
