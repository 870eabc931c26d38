"""Phases L, C and I of the *bounded* construction for one output per pair (all m_j = 1).

proofcheck's own variant of docs/spec.md §4 (issue 24 item 4).  After the bounded phase S
(:mod:`proofcheck.constructions.afz.phases.bounded_separation`) the sequences are pairwise disjoint,
every coordinate is an integer and every flag is 0 except one token's (1).

* **Values** (:func:`assign_kappas`): each distinct target y gets ``kappa(y)``: its
  first coordinate when ``y = y_1 e_1`` with ``y_1 >= 0`` (no snap needed), else the
  least positive integer that is no target's first coordinate and no other kappa.
* **Leaders** (phase L): for each sequence j with ``kappa_j != 0``, one FF lifts the
  flag of one token (its leader) to ``kappa_j`` (triangle of half-width 1 along one
  direction common to every lift, on which each leader's position is unique); the
  first one also resets the last separation round's flag, unless that flagged token is
  itself a lifted leader: then its flag 1 is kept and topped up by ``kappa_j - 1``
  (docs/constructions/bounded.md).  A sequence with ``kappa_j = 0`` keeps every flag 0.
* **Collapse** (phase C, SA of the last leader block): ``A = e_F e_b^T``,
  ``V = e_1 e_F^T``, ``rho = 0``: every token attends to its sequence's flag-maximal
  tokens (the leader, or all tokens when every flag is 0) and becomes
  ``kappa_j e_1``.
* **Snaps** (phase I): one snap (Lemma 3.3) per distinct target off that set, mapping
  ``kappa e_1`` onto it.

Blocks: ``max(1, M') + D'`` with ``M'`` the pairs with ``kappa_j != 0`` and ``D'`` the
distinct targets that need a snap.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from proofcheck.constructions.afz.layers.flag import flag_collapse_sa, lift_ff
from proofcheck.constructions.afz.layers.snap import snap_ff
from proofcheck.constructions.afz.phases.bounded_separation import Positions, _dot, common_direction, probe_ff
from proofcheck.constructions.claims import Collapse, Fixed, Moves
from proofcheck.constructions.layers import identity_ff, identity_sa
from proofcheck.kernel.model import FF, Block

ID = "bounded-collapse"


@dataclass
class FlagPhases:
    """Blocks and claims of phases L, C, I; ``kappa[j]``; ``leaders[j]`` (row or
    None); ``snapped``: distinct targets that got a snap; ``hats``: per lift FF the
    direction and centre."""

    blocks: list
    claims: list
    kappa: list
    leaders: list
    snapped: list
    hats: list = field(default_factory=list)


def assign_kappas(ys) -> dict:
    """``target -> kappa`` (module docstring).  ``ys``: one target (tuple of
    Fractions) per pair."""
    firsts = {y[0] for y in ys}
    kappa = {}
    for y in ys:
        if y not in kappa and y[0] >= 0 and all(v == 0 for v in y[1:]):
            kappa[y] = y[0]
    taken = firsts | set(kappa.values())
    k = 1
    for y in ys:
        if y in kappa:
            continue
        while Fraction(k) in taken:
            k += 1
        kappa[y] = Fraction(k)
        taken.add(kappa[y])
    return kappa


def flag_phases(sep, targets, d: int, float_format=None, progress=None) -> FlagPhases:
    """Phases L, C, I after ``sep`` (a :class:`BoundedSeparation`); ``targets[j]``: the
    one target of pair j.  ``progress()`` once per leader and per snap."""
    from collections import Counter
    ys = [tuple(t[0]) for t in targets]
    kap = assign_kappas(ys)
    kappa = [kap[y] for y in ys]
    pairs = Counter((p, sep.sig[j]) for j, s_ in enumerate(sep.seq_pts) for p in s_)
    index = Positions(sep, pairs)
    out = FlagPhases([], [], kappa, [None] * len(ys), [])
    lifted = [j for j in range(len(ys)) if kappa[j] != 0]
    token_pairs = [[index.row[(p, sep.sig[j])] for p in s_] for j, s_ in enumerate(sep.seq_pts)]
    w, lead = common_direction(sep, index, lifted, token_pairs)
    held = _held_flag(sep, lifted, lead)
    for j in lifted:
        ff, claim = _leader_lift(sep, w, j, lead[j], kappa[j], held)
        out.blocks.append(Block(ff, identity_sa(), phase="L"))
        out.claims.append((claim, Fixed()))
        out.leaders[j] = sep.spans[j][0] + lead[j]
        if progress:
            progress()
    out.hats.append((w, index.extent(w)))
    _collapse(sep, out, d)
    _snaps(sep, out, ys, d, float_format, progress)
    return out


def _held_flag(sep, lifted, lead):
    """The lifted sequence whose leader is the token the last separation round left
    with flag 1 (then that flag is kept and topped up, not reset), or ``None``; in
    both cases ``sep.flagged`` is cleared when the lifts will handle it."""
    if sep.flagged is None:
        return None
    rows_f = set(sep.flagged[0])
    held = next((j for j in lifted if sep.spans[j][0] + lead[j] in rows_f), None)
    if held is not None:
        sep.flagged = None
    return held


def _leader_lift(sep, w, j: int, t: int, kappa, held):
    """``(ff, claim)`` of the lift of sequence j's leader (its token t) to flag
    ``kappa``.  When the leader already holds flag 1 (``j == held``) the hat along
    ``w`` (``w_F = 0``: it sees that token at its flag-0 projection) adds
    ``kappa - 1`` (no FF when that is 0); otherwise :func:`probe_ff`, which also
    resets the flagged token while ``sep.flagged`` is set (the first lift)."""
    p, s = sep.seq_pts[j][t], sep.sig[j]
    row = sep.spans[j][0] + t
    if j != held:
        ff, moves = probe_ff(sep, w, p, s, [row], a=kappa, label="leader: flag lift (3.2)")
        sep.flagged = None  # reset by the first lift
    elif kappa == 1:
        return identity_ff(), Fixed()
    else:
        ff = lift_ff(w, _dot(w, sep.position(p, s)), kappa - 1, sep.layout.F,
                     label="leader: flag top-up (3.2)")
        moves = {row: sep.position(p, s, kappa)}
    return ff, Moves({r: tuple(Fraction(x) for x in v) for r, v in moves.items()})


def _collapse(sep, out: FlagPhases, d: int) -> None:
    """The collapse SA on the last leader block (or on a block of its own, whose FF
    resets the last separation flag if there is one)."""
    lay = sep.layout
    if not out.blocks:
        ff, claim = identity_ff(), Fixed()
        if sep.flagged is not None:
            rows_f, pf, sf = sep.flagged
            eF = tuple(Fraction(int(k == lay.F)) for k in range(d))
            ff = FF(Fraction(1), U=(eF,), b=(Fraction(0),), W=(tuple(-x for x in eF),),
                    label="flag reset")
            base = tuple(Fraction(x) for x in sep.position(pf, sf))
            claim = Moves({r: base for r in rows_f})
            sep.flagged = None
        out.blocks.append(Block(ff, identity_sa(), phase="L"))
        out.claims.append((claim, Fixed()))
    leader = []
    for j, (lo, hi) in enumerate(sep.spans):
        leader += [lo if out.leaders[j] is None else out.leaders[j]] * (hi - lo)
    k = tuple(Fraction(int(i == lay.F)) for i in range(d))
    last = out.blocks[-1]
    out.blocks[-1] = Block(last.ff, flag_collapse_sa(lay.F, lay.b_axis, 0, d), phase="L+C")
    out.claims[-1] = (out.claims[-1][0], Collapse(k, leader))


def _snaps(sep, out: FlagPhases, ys, d: int, float_format, progress) -> None:
    """One snap (Lemma 3.3) per distinct target whose ``kappa e_1`` is not the target
    itself; ``delta = 1/4`` of the distance from its kappa to the nearest other value
    among every kappa and every target's first coordinate, so no snap moves another
    sequence's image or a placed target."""
    order, rows = [], {}
    for j, y in enumerate(ys):
        if y[0] == out.kappa[j] and all(v == 0 for v in y[1:]):
            continue
        if y not in rows:
            order.append((y, out.kappa[j]))
            rows[y] = []
        rows[y] += list(range(*sep.spans[j]))
    vals = set(out.kappa) | {y[0] for y in ys}
    for y, kap in order:
        delta = min(abs(v - kap) for v in vals if v != kap) / 4
        centre = kap
        if float_format is not None:
            from proofcheck.constructions.afz.options import float_safe_snap
            centre, delta = float_safe_snap(kap, delta, float_format)
        out.blocks.append(Block(snap_ff(0, d, centre, delta, y), identity_sa(), phase="I"))
        out.claims.append((Moves({r: y for r in rows[y]}), Fixed()))
        out.snapped.append(y)
        if progress:
            progress()
