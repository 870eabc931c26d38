"""The stated conclusions of the ``seed`` construction (proofcheck's reconstruction of
the seed's Theorem 1.8 mechanism, :mod:`proofcheck.constructions.afz.theorems.theorem_1_8_seed`), checked
on the network it returned for one dataset (``theorem 1.8 --construction seed`` runs
them beside the certificate, whatever the certificate's verdict).

The converge phase is what makes the softmax network exact, and its choices are fixed
before any tau (the construction's docstring), so each is checked on the built layers
along the hardmax trajectory (the tau -> 0 limit, evaluated exactly block by block by
the kernel's checker), never on the construction's own report:

* ``converge-flat``: phase V has ``ceil(M/2)`` blocks; block ``i`` converges the
  ``2i``-th and ``(2i+1)``-th smallest leader images (leader order of the collapse,
  read from the tokens at the leader rows entering the block): its kinks are
  ``(va - da, va + da, vb - db, vb + db)`` — for odd M the last block's second flat is
  ``[va + 2 da, va + 3 da]``, above every token — with ``da = min(|vb - va| / 3,
  (va - top) / 2)`` (``top`` the highest converged point; 1 with neither) and
  ``db = min(|vb - va| / 3, |vn - vb| / 3)`` (``vn`` the next unconverged image); the
  last block's half-widths scaled by ``(s, s^2)``, ``s = 1 - j / (2c)``,
  ``c = 2 M |F| + 1`` (F the targets' first coordinates), ``j`` the least keeping
  every final point off F;
* ``hat-rule``: phase I holds one point hat per leader, along ``e_1``, centred on the
  leader's final point with half-width 1/4 of its distance to the nearest other final
  point or target first coordinate;
* ``seed-info``: the reported kappas, K, kinks, block of each leader, flat half-widths
  (and their least), final points, scale and hat half-widths are the network's.

A failing conclusion is REFUTED (this construction on this dataset) with a witness
carrying its code; each has a regression test with a named mutant
(``tests/pipeline/test_seed_causal_conclusions.py``).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.model import Transformer
from proofcheck.kernel.verdicts import Verdict

from proofcheck.constructions.afz.theorems.conclusions import guarded, refuted


def _ok(name: str, details) -> CheckResult:
    return CheckResult(name, Verdict.VERIFIED, list(details))


def trajectory(net, inputs) -> list:
    """The hardmax states of ``net`` on ``inputs``: ``out[b]`` the tokens after block b
    (``out[0]`` the inputs), each block evaluated exactly by the kernel's checker on the
    state before it; rows flattened (``(n, d)``).  ``RuntimeError`` if a block cannot
    be evaluated."""
    from proofcheck.constructions.claim_check import check_network
    state = [list(s) for s in inputs]
    out = [[x for s in state for x in s]]
    for bi, blk in enumerate(net.blocks, start=1):
        nc = check_network(Transformer(net.d, [blk]), state, None, None)
        if nc.outputs is None:
            raise RuntimeError(f"block {bi} could not be evaluated ({nc.verdict.value})")
        state = nc.outputs
        out.append([x for s in state for x in s])
    return out


def _kinks(ff, d: int) -> tuple:
    """The kinks of an FF along ``e_1`` (the kernel's profile reader), sorted."""
    from proofcheck.kernel.lemma_checks.profile import Profile
    e1 = tuple(Fraction(int(i == 0)) for i in range(d))
    return tuple(sorted(Profile.along(ff, e1).kinks()))


def _f(ks, t):
    """The converge profile ``f(t) = -relu(t - k1) + relu(t - k2) - relu(k3 - t) +
    relu(t - k4)`` (:mod:`proofcheck.constructions.afz.layers.converge`) at a candidate kink set."""
    k1, k2, k3, k4 = ks

    def relu(x):
        return x if x > 0 else 0
    return -relu(t - k1) + relu(t - k2) - relu(k3 - t) + relu(t - k4)


def _half_width(v, nbrs, top):
    cands = [abs(u - v) / 3 for u in nbrs] + ([(v - top) / 2] if top is not None else [])
    return min(cands) if cands else Fraction(1)


def _pair(va, vb, da, db) -> tuple:
    if vb is None:
        return (va - da, va + da, va + 2 * da, va + 3 * da)
    return (va - da, va + da, vb - db, vb + db)


class _Seed:
    """What the checks read from the built network: leader rows (leader order),
    converge and hat blocks (1-based, by their phase labels), the hardmax states."""

    def __init__(self, c, inputs, targets, d):
        self.c, self.d = c, d
        self.rows = [row for lr in c.info["leader_rows"] for row in lr]
        self.M = len(self.rows)
        self.conv = [bi for bi, b in enumerate(c.net.blocks, start=1) if b.phase == "V"]
        self.hats = [bi for bi, b in enumerate(c.net.blocks, start=1) if b.phase == "I"]
        self.traj = trajectory(c.net, inputs)
        self.forbidden = {y[0] for ys in targets for y in ys}

    def value(self, before_block: int, leader: int):
        """The e_1 coordinate of ``leader``'s row entering block ``before_block``."""
        return self.traj[before_block - 1][self.rows[leader]][0]

    def kinks(self, bi: int) -> tuple:
        return _kinks(self.c.net.blocks[bi - 1].ff, self.d)


def _rule(sd: _Seed):
    """``(kinks per converge block, s, order)`` by the stated rule, from the leader
    images entering each block; ``s`` None if no candidate keeps the finals off F."""
    M, conv = sd.M, sd.conv
    order = sorted(range(M), key=lambda l: sd.value(conv[0], l))
    want, s = [], None
    for i, bi in enumerate(conv):
        a = order[2 * i]
        b = order[2 * i + 1] if 2 * i + 1 < M else None
        n = order[2 * i + 2] if 2 * i + 2 < M else None
        va = sd.value(bi, a)
        vb = None if b is None else sd.value(bi, b)
        top = max((sd.value(bi, l) for l in order[:2 * i]), default=None)
        da = _half_width(va, [] if b is None else [vb], top)
        db = None if b is None else _half_width(
            vb, [va] + ([] if n is None else [sd.value(bi, n)]), None)
        if i < len(conv) - 1:
            want.append(_pair(va, vb, da, db))
            continue
        c = 2 * M * len(sd.forbidden) + 1
        for j in range(c):
            cand = 1 - Fraction(j, 2 * c)
            ks = _pair(va, vb, da * cand, None if b is None else db * cand * cand)
            if not sd.forbidden & {_f(ks, sd.value(bi, l)) for l in range(M)}:
                want.append(ks)
                s = cand
                break
    return want, s, order


def converge_flat_check(sd: _Seed) -> list[CheckResult]:
    """Phase V's blocks against the stated rule (module docstring)."""
    name = ("seed: each converge block's flats centred on the two lowest unconverged leader "
            "images, half-widths by the stated rule (the last scaled by the least s)")
    K = (sd.M + 1) // 2
    if len(sd.conv) != K:
        return [refuted(name, "converge-flat", "phase V does not have ceil(M/2) blocks",
                        expected=K, got=len(sd.conv))]
    want, s, _ = _rule(sd)
    if s is None:
        return [refuted(name, "converge-flat", "no scale s keeps the final points off the "
                        "targets' first coordinates", block=sd.conv[-1], sublayer="FF")]
    for bi, ks in zip(sd.conv, want):
        got = sd.kinks(bi)
        if got != ks:
            return [refuted(name, "converge-flat", "the converge layer's kinks are not the "
                            "stated flats around the leader images", block=bi, sublayer="FF",
                            expected=ks, got=got)]
    return [_ok(name, [f"{len(sd.conv)} converge blocks, last scaled by s = {s}"])]


def hat_rule_check(sd: _Seed) -> list[CheckResult]:
    """Phase I: one point hat per leader on its final point, half-width 1/4 of the
    nearest gap among the final points and the targets' first coordinates."""
    name = ("seed: each phase-I hat is centred on its leader's final point, half-width 1/4 "
            "of the nearest other final point or target first coordinate")
    if len(sd.hats) != sd.M:
        return [refuted(name, "hat-rule", "phase I does not hold one hat per leader",
                        expected=sd.M, got=len(sd.hats))]
    finals = [sd.value(sd.hats[0], l) for l in range(sd.M)]
    vals = set(finals) | sd.forbidden
    for l, bi in enumerate(sd.hats):
        p = finals[l]
        others = [abs(v - p) for v in vals if v != p]
        want = (p - (w := (min(others) if others else Fraction(1)) / 4), p, p + w)
        got = sd.kinks(bi)
        if got != want:
            return [refuted(name, "hat-rule", "the hat is not centred on its leader's final "
                            "point with half-width 1/4 of the nearest gap", block=bi,
                            sublayer="FF", expected=want, got=got)]
    return [_ok(name, [f"{sd.M} hats on the final points"])]


def seed_info_check(sd: _Seed) -> list[CheckResult]:
    """The construction's reported values against the network (module docstring)."""
    name = ("seed: the reported kappas, converge kinks, flats, final points, scale and hats "
            "are the network's")
    info = sd.c.info
    want, s, order = _rule(sd)
    ks = [sd.kinks(bi) for bi in sd.conv]
    half = [None] * sd.M
    block_of = [None] * sd.M
    for pos, l in enumerate(order):
        if pos // 2 < len(ks):
            k1, k2, k3, k4 = ks[pos // 2]
            half[l] = (k2 - k1) / 2 if pos % 2 == 0 else (k4 - k3) / 2
            block_of[l] = pos // 2
    finals = [sd.value(sd.hats[0], l) for l in range(sd.M)] if sd.hats else None
    hat_w = [(sd.kinks(bi)[2] - sd.kinks(bi)[0]) / 2 for bi in sd.hats]
    stated = [("kappas", [sd.value(sd.conv[0], l) for l in range(sd.M)] if sd.conv else None),
              ("K", len(sd.conv)), ("converge_kinks", ks), ("converge_block_of", block_of),
              ("deltas", half), ("min_delta", min(half) if None not in half else None),
              ("final_points", finals), ("scale", s), ("hat_deltas", hat_w)]
    for key, net_value in stated:
        got = info.get(key)
        got = [tuple(x) for x in got] if key == "converge_kinks" and got is not None else got
        if got is None or (list(got) if isinstance(got, (list, tuple)) else got) != \
                (list(net_value) if isinstance(net_value, (list, tuple)) else net_value):
            return [refuted(name, "seed-info", f"reported {key} differs from the network's",
                            expected=net_value, got=info.get(key))]
    return [_ok(name, [f"kappas, K = {len(sd.conv)}, kinks, flats (least {min(half)}), "
                       f"final points, s = {s}, hat half-widths"])]


def seed_conclusions(c, inputs, targets, d) -> list[CheckResult]:
    """Every stated conclusion of the ``seed`` construction on this dataset (one
    ERROR result if the hardmax trajectory cannot be evaluated: fail closed)."""
    sds = []
    out = guarded("seed conclusions: the hardmax trajectory",
                  lambda: sds.append(_Seed(c, inputs, targets, d)) or [])
    for fn in (converge_flat_check, hat_rule_check, seed_info_check):
        out += guarded(f"seed conclusion {fn.__name__}", fn, *sds) if sds else []
    return out
