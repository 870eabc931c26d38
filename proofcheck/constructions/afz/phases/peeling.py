"""Interpolation by peeling (phase I of the ``peel`` construction; a project
reconstruction): ``ceil(M/4)`` peel layers (:mod:`proofcheck.constructions.afz.layers.peel`) along
``e_1`` map the M leader images ``kappa_l e_1`` exactly onto their targets.

Every ``|kappa_l|`` exceeds every target's ``|y_1|`` (:func:`proofcheck.constructions.afz.phases.
top_collapse.scaled_k`), so the placed targets and the live kappas never mix: each
layer takes the (up to) four largest live kappas, filling up with the smallest
ones when fewer than four positive ones are left; ``hi`` / ``lo`` are the extreme
first coordinates of everything that must stay (the other live kappas and every
target), so no layer moves a placed target or another leader image.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.constructions.afz.layers.peel import peel_ff
from proofcheck.constructions.claims import Moves

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
    for _ in range(len(kappas)):  # at most one layer per kappa (each takes one or more)
        if not (p < len(pos) or q < len(neg)):
            break
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
    if p < len(pos) or q < len(neg):
        raise RuntimeError(f"peeling: {len(pos) - p + len(neg) - q} kappas left after "
                           f"{len(kappas)} layers")
    return ffs, claims


MAX_SUBSETS = 20000  # five-element subsets checked by direct_placement_bound


def direct_placement_bound(points, targets, layers: int):
    """Lower bound for the class of *direct placements* (a project statement):
    after the collapse, FF layers ``x -> x + W relu(U x + b)`` of width <= 4 with
    identity SAs, each token moved at most once, straight from its image
    ``points[l]`` to ``targets[l]``.  A layer moves a token by ``W relu(...)``, a
    vector in the span of its <= 4 columns, so the displacements ``y_l - p_l`` of
    the images one layer places have rank <= 4.  If every five displacements are
    linearly independent (needs d >= 5), a layer places at most four images and
    every direct placement needs >= ceil(M/4) layers; ``layers`` (the peel phase's
    count) is compared with it.  Without "moved at most once" the argument bounds
    only the rank (<= d), which is why the class is stated.

    Returns a CheckResult: VERIFIED (premise holds, ``layers == ceil(M/4)``: the peel
    phase is optimal in the class on this instance), REFUTED (premise holds,
    ``layers`` below the bound: impossible for a valid network, or above it),
    INCONCLUSIVE (five dependent displacements — the premise fails — or more than
    :data:`MAX_SUBSETS` subsets)."""
    from itertools import combinations
    from math import comb

    from flint import fmpq, fmpq_mat

    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness
    name = ("the peel phase has ceil(M/4) layers, the lower bound of every direct placement "
            "when every 5 displacements are independent (on this instance)")
    disp = [[fmpq(y.numerator, y.denominator) - fmpq(p.numerator, p.denominator)
             for y, p in zip(ys, ps)] for ys, ps in zip(targets, points)]
    M = len(disp)
    bound = -(-M // 4)
    if comb(M, 5) > MAX_SUBSETS:
        return CheckResult(name, Verdict.INCONCLUSIVE,
                           [f"C({M}, 5) = {comb(M, 5)} subsets > {MAX_SUBSETS}: not checked"])
    for sub in combinations(range(M), 5):
        if fmpq_mat([disp[i] for i in sub]).rank() < 5:
            return CheckResult(name, Verdict.INCONCLUSIVE,
                               [f"the premise fails: displacements {sub} are linearly dependent"])
    ok = layers == bound
    return CheckResult(name, Verdict.VERIFIED if ok else Verdict.REFUTED,
                       [f"all C({M}, 5) = {comb(M, 5)} five-subsets of the displacements y_l - "
                        f"p_l have rank 5 (exact): every direct placement needs >= ceil({M}/4) "
                        f"= {bound} FF layers; the peel phase has {layers}"],
                       None if ok else Witness(
                           "peel phase shorter than the lower bound (impossible for a valid "
                           "placement)" if layers < bound else "peel phase longer than the "
                           "lower bound (not optimal in the class)", expected=bound, got=layers))
