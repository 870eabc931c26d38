"""The stated conclusions of the constructions ``causal-last`` and ``causal-all``
(:mod:`proofcheck.constructions.causal.prefix_construction`), checked on the network each returned for
one dataset (``theorem 1.6 --attention causal --construction causal-...`` runs them
after the claims and the constants).

Each is a deterministic choice the construction's docstrings state, read from the
built layers and the masked network's own states (evaluated exactly, block by block,
by the kernel's checker), never from the construction's report:

* ``causal-translation``: block 1's FF is ``x -> x + c`` with ``c = (1 - lo) (1, ..., 1)``
  for the least input coordinate ``lo < 1`` (``c = 0`` when ``lo >= 1``);
* ``causal-direction``: every tag's ``A = u u^T`` with the same ``u = (1, k, ..., k^(d-1))``,
  ``k`` the least integer ``>= 1`` with pairwise distinct u-projections of the distinct
  tokens after block 1's FF;
* ``causal-lift``: every probe block's FF (blocks 2..R+1) moves the tokens at one point
  ``p`` to ``p + H u``, ``H`` the least integer putting ``<u, p + H u>`` above every
  current u-projection, and nothing else;
* ``causal-tag``: every tag factor ``lam`` (``V = lam I``) is the least integer ``>= 1``
  making ``(value, top) -> value + lam top`` injective over all positions, the tops read
  from the tag's own output (``(x' - x) / lam``).

A failing conclusion is REFUTED with a witness carrying its code; each has a regression
test with a named mutant (``tests/pipeline/test_seed_causal_conclusions.py``).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.constructions.afz.theorems.conclusions import guarded, refuted
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.model import Block, Transformer, dot
from proofcheck.kernel.verdicts import Verdict
from proofcheck.constructions.layers import identity_ff, identity_sa


def _ok(name: str, details) -> CheckResult:
    return CheckResult(name, Verdict.VERIFIED, list(details))


def _run(net_d: int, blocks, state):
    from proofcheck.constructions.claim_check import check_network
    nc = check_network(Transformer(net_d, list(blocks)), state, None, None)
    if nc.outputs is None:
        raise RuntimeError(f"the masked network could not be evaluated ({nc.verdict.value})")
    return nc.outputs


class _Causal:
    """The masked network's states around every phase-S block: ``before[b]``,
    ``mid[b]`` (after its FF) and ``after[b]`` (after its SA), rows flattened, for
    b = 1..R+1 (1-based), evaluated exactly one sub-layer at a time."""

    def __init__(self, c, inputs):
        self.c, self.d = c, c.net.d
        self.S = [bi for bi, b in enumerate(c.net.blocks, start=1) if b.phase == "S"]
        self.before, self.mid, self.after = {}, {}, {}
        state = [list(s) for s in inputs]
        for bi in self.S:
            blk = c.net.blocks[bi - 1]
            mid = _run(self.d, [Block(blk.ff, identity_sa(), blk.phase)], state)
            out = _run(self.d, [Block(identity_ff(), blk.sa, blk.phase)], mid)
            self.before[bi], self.mid[bi], self.after[bi] = (_flat(state), _flat(mid),
                                                             _flat(out))
            state = out


def _flat(state):
    return [tuple(x) for s in state for x in s]


def translation_check(cs: _Causal, inputs) -> list[CheckResult]:
    name = "causal: block 1 translates every coordinate by 1 - (least input coordinate), if below 1"
    lo = min(v for X in inputs for x in X for v in x)
    want = tuple(Fraction(1) - lo if lo < 1 else Fraction(0) for _ in range(cs.d))
    b1 = cs.S[0]
    got = {tuple(b - a for a, b in zip(x, y)) for x, y in zip(cs.before[b1], cs.mid[b1])}
    if got != {want}:
        return [refuted(name, "causal-translation", "block 1's FF is not the stated translation",
                        block=b1, sublayer="FF", expected=want, got=sorted(got))]
    return [_ok(name, [f"c = {tuple(str(x) for x in want)}"])]


def _least_direction(points, d: int):
    k = 1
    while True:
        u = tuple(Fraction(k) ** e for e in range(d))
        if len({dot(u, x) for x in points}) == len(points):
            return u
        k += 1


def direction_check(cs: _Causal, inputs) -> list[CheckResult]:
    name = ("causal: every tag's u = (1, k, ..., k^(d-1)), k the least with distinct "
            "u-projections after block 1's FF")
    want = _least_direction(list(dict.fromkeys(cs.mid[cs.S[0]])), cs.d)
    for bi in cs.S:
        A = cs.c.net.blocks[bi - 1].sa.A
        got = tuple(A.left[0]) if A.lam == 0 and len(A.left) == 1 else None
        if got != want or tuple(A.right[0]) != want:
            return [refuted(name, "causal-direction", "the tag's direction is not the stated u",
                            block=bi, sublayer="SA", expected=want, got=got)]
    return [_ok(name, [f"u = {tuple(str(x) for x in want)}"])]


def lift_check(cs: _Causal, inputs) -> list[CheckResult]:
    name = ("causal: every probe FF lifts the tokens at one point p to p + H u, H the least "
            "integer above every current u-projection")
    u = tuple(cs.c.net.blocks[cs.S[0] - 1].sa.A.left[0])
    uu = dot(u, u)
    for bi in cs.S[1:]:
        before, mid = cs.before[bi], cs.mid[bi]
        moved = {(x, y) for x, y in zip(before, mid) if x != y}
        ps = {x for x, _ in moved}
        if len(ps) != 1 or len({y for _, y in moved}) != 1 or \
                any(x in ps for x, y in zip(before, mid) if x == y):
            return [refuted(name, "causal-lift", "the probe FF does not move exactly the tokens "
                            "at one point", block=bi, sublayer="FF", got=sorted(moved))]
        (p, q), = moved
        top = max(dot(u, x) for x in before)
        H = (dot(u, q) - dot(u, p)) / uu
        ok = (tuple(a + H * c for a, c in zip(p, u)) == q and H.denominator == 1
              and dot(u, q) > top >= dot(u, q) - uu)
        if not ok:
            return [refuted(name, "causal-lift", "the lifted point is not p + H u with the least "
                            "H above every u-projection", block=bi, sublayer="FF",
                            expected=f"p + H u with <u, p> + H |u|^2 > {top} >= <u, p> + (H-1) |u|^2",
                            got=(p, q))]
    return [_ok(name, [f"{len(cs.S) - 1} probe lifts"])]


def tag_check(cs: _Causal, inputs) -> list[CheckResult]:
    name = ("causal: every tag factor lam the least integer >= 1 with (value, top) -> value + "
            "lam top injective over all positions")
    for bi in cs.S:
        V = cs.c.net.blocks[bi - 1].sa.V
        lam = V.lam
        if V.left or lam.denominator != 1 or lam < 1:
            return [refuted(name, "causal-tag", "the tag's V is not lam I with an integer lam >= 1",
                            block=bi, sublayer="SA", got=lam)]
        pairs = list(dict.fromkeys(
            (x, tuple((b - a) / lam for a, b in zip(x, y)))
            for x, y in zip(cs.mid[bi], cs.after[bi])))

        def injective(k):
            return len({tuple(a + k * b for a, b in zip(x, t)) for x, t in pairs}) == len(pairs)
        least = next((k for k in range(1, int(lam) + 1) if injective(k)), None)
        if least != lam:
            return [refuted(name, "causal-tag", "the tag factor is not the least injective one",
                            block=bi, sublayer="SA",
                            expected=least if least is not None else "an injective lam",
                            got=lam)]
    return [_ok(name, [f"{len(cs.S)} tags"])]


def causal_conclusions(c, inputs, targets, d) -> list[CheckResult]:
    """Every stated conclusion of ``causal-last`` / ``causal-all`` on this dataset (one
    ERROR result if the masked network's states cannot be evaluated: fail closed)."""
    css = []
    out = guarded("causal conclusions: the masked states",
                  lambda: css.append(_Causal(c, inputs)) or [])
    for fn in (translation_check, direction_check, lift_check, tag_check):
        out += guarded(f"causal conclusion {fn.__name__}", fn, *css, inputs) if css else []
    return out
