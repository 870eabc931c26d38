"""The stated conclusions of the ``peel`` and ``bounded`` constructions, checked on
the network each returned for one dataset (``theorem 1.6 --construction NAME``
runs them after the kernel's check of every claim and the constants).

Each conclusion is a deterministic choice or a safety margin the construction's
docstrings state; it is checked on the built layers and the states they produce
(the network's own outputs, evaluated exactly), never on a value typed again
beside the construction:

* ``peel`` (:mod:`proofcheck.constructions.afz.phases.top_collapse`, :mod:`proofcheck.constructions.afz.theorems.peel`):
  ``mu`` of the collapse layer is the largest power of two ``<= min(1, sum(u) g /
  (2 d beta^2))`` on the tokens after phase S (0 when every ``m_j = 1``); the extra
  leaders are the first ``m_j - 1`` non-top tokens of each sequence, moved into the
  open negative orthant onto one level set ``Q(s) = c^2 Q(-1)`` per sequence
  (``Q(x) = x^T A x``, ``A`` the collapse layer's, ``c`` a positive integer, distinct
  across sequences); the reported leader rows are those; ``k`` of the collapse layer
  is the least ``(1, c, ..., c^(d-1))`` with distinct kappas times the least positive
  integer making every ``|kappa| > max |y_1|``;
* ``bounded``: the reported phase-S block count, N and largest signature are the
  network's (blocks labelled S; the signature coordinate after phase S for d >= 3);
  with one output per pair the kappas follow the stated rule (a target ``y_1 e_1``,
  ``y_1 >= 0``, is its own; else the least positive integer no target's first
  coordinate and no other kappa), ``L = R + 1 + max(1, M') + D'`` with ``M'`` and
  ``D'`` counted on the dataset, and every snap's half-width is exactly 1/4 of its
  kappa's distance to the nearest other kappa or target first coordinate (its
  support holds no other); otherwise the lexicographic ``u`` is a mixed radix on the
  positions after phase S: integer positions, and along content coordinates, ``Z``,
  ``F`` every weight exceeds the largest difference the lower ones can make, and
  the region-P leaders sit above every coordinate (``t_j > beta``); block 1's
  layout gives integer positions, contents >= 1, flag 0, and stacks the signature
  above the content (``z = S_z e_i``, ``S_z`` above the coordinate's range, d = 2);
  after phase L the ``M - N`` sphere leaders lie on ``|s| = r > 0`` in the open
  negative orthant and every other token in the closed positive orthant.

A failing conclusion is REFUTED with a witness whose ``code`` names the
conclusion (``mu-rule``, ``extra-leader-rows``, ``extra-leader-level-set``,
``leader-rows``, ``k-scale``, ``phase-S-info``, ``kappa-rule``, ``block-count``,
``snap-delta``, ``radix``, ``region-P``, ``layout``, ``sphere-leaders``).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block, Transformer, dot
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness


def _ok(name: str, details) -> CheckResult:
    return CheckResult(name, Verdict.VERIFIED, list(details))


def refuted(name: str, code: str, reason: str, **where) -> CheckResult:
    """A REFUTED result whose witness carries the stable ``code``."""
    return CheckResult(name, Verdict.REFUTED, [], Witness(reason, code=code, **where))


def states(c, inputs, last_block: int, drop_last_sa: bool = False):
    """The tokens after block ``last_block`` of ``c.net`` (its SA left out with
    ``drop_last_sa``), evaluated exactly by the kernel's checker: ``(n_j, d)`` per
    sequence.  ``RuntimeError`` if the evaluation fails."""
    from proofcheck.constructions.claim_check import check_network
    blocks = list(c.net.blocks[:last_block])
    if drop_last_sa and blocks:
        blocks[-1] = Block(blocks[-1].ff, identity_sa(), blocks[-1].phase)
    if not blocks:
        return [list(s) for s in inputs]
    nc = check_network(Transformer(c.net.d, blocks), inputs, None, None)
    if nc.outputs is None:
        raise RuntimeError(f"the network up to block {last_block} could not be evaluated "
                           f"({nc.verdict.value})")
    return nc.outputs


def guarded(name: str, fn, *args) -> list[CheckResult]:
    """``fn(*args)`` (a list of results), or one ERROR result naming the exception
    (fail closed: a conclusion that cannot be evaluated is never VERIFIED)."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001
        return [CheckResult(name, Verdict.ERROR, [f"{type(exc).__name__}: {exc}"[:300]])]


# --------------------------------------------------------------------------- snaps

def snap_rule_check(name: str, net, blocks, kappas, values) -> CheckResult:
    """Snap block ``blocks[l]`` (1-based) is centred on ``kappas[l]`` with half-width
    exactly 1/4 of the distance from ``kappas[l]`` to the nearest other value of
    ``values`` (1/4 when there is none), read from its layer's kinks along e_1;
    so its support ``(kappa - 2 delta, kappa + 2 delta)`` holds no other value."""
    from proofcheck.kernel.lemma_checks.profile import Profile
    e1 = tuple(Fraction(int(i == 0)) for i in range(net.d))
    vals = sorted(set(values) | set(kappas))
    for blk, kap in zip(blocks, kappas):
        kinks = sorted(Profile.along(net.blocks[blk - 1].ff, e1).kinks())
        others = [abs(v - kap) for v in vals if v != kap]
        want = (min(others) if others else Fraction(1)) / 4
        got = (kinks[3] - kinks[0]) / 4 if len(kinks) == 4 else None
        if got is None or (kinks[0] + kinks[3]) / 2 != kap or got != want:
            return refuted(name, "snap-delta", "the snap is not centred on its kappa with half-width "
                           "1/4 of the distance to the nearest other kappa or target first "
                           "coordinate", block=blk, sublayer="FF",
                           expected=(kap, want), got=kinks)
    return _ok(name, [f"{len(kappas)} snaps, half-widths 1/4 of the nearest gap"])


# --------------------------------------------------------------------------- peel

def _top_collapse_layer(c):
    blk = c.phases["C"][1]
    return blk, c.net.blocks[blk - 1].sa


def _largest_power_of_two(bound: Fraction) -> Fraction:
    """The largest ``2^-e`` (e >= 0) that is ``<= min(1, bound)`` (``bound > 0``)."""
    mu = Fraction(1)
    while mu > bound:
        mu /= 2
    return mu


def peel_mu_check(c, inputs, targets, d) -> list[CheckResult]:
    """``mu`` of the collapse layer against the rule of ``choose_mu``."""
    name = "top collapse: mu the largest power of two <= min(1, sum(u) g / (2 d beta^2))"
    blk, sa = _top_collapse_layer(c)
    mu, u = sa.A.lam, tuple(c.info["u"])
    m = [len(y) for y in targets]
    if sum(m) == len(m):
        want, why = Fraction(0), "every m_j = 1: no extra leader"
    else:
        outs = states(c, inputs, c.phases["S"][1])
        beta = max(max(x) for s in outs for x in s)
        gaps = []
        for s in outs:
            pr = sorted((dot(u, x) for x in s), reverse=True)
            if len(pr) >= 2:
                gaps.append(pr[0] - pr[1])
        if not gaps:
            want, why = Fraction(1), "no sequence has two tokens"
        else:
            bound = Fraction(sum(u)) * min(gaps) / (2 * d * Fraction(beta) ** 2)
            if not bound > 0:
                return [refuted(name, "mu-rule", "a sequence has no unique top after phase S",
                                block=blk, sublayer="SA", got=bound)]
            want = _largest_power_of_two(bound)
            why = f"g = {min(gaps)}, beta = {beta}, bound = {bound}"
    if mu != want:
        return [refuted(name, "mu-rule", "mu of the collapse layer is not the stated one",
                        block=blk, sublayer="SA", expected=want, got=mu)]
    return [_ok(name, [f"mu = {mu} ({why})"])]


def peel_leaders_check(c, inputs, targets, d) -> list[CheckResult]:
    """The extra leaders (rows, level sets) and the reported leader rows."""
    name = ("top collapse: extra leaders = the first m_j - 1 non-top tokens, each "
            "sequence's on one level set Q(s) = c^2 Q(-1) in the open negative orthant")
    blk, sa = _top_collapse_layer(c)
    u = tuple(c.info["u"])
    one = sum(len(y) for y in targets) == len(targets)  # the collapse replaced the last tag
    after_s = states(c, inputs, c.phases["S"][1], drop_last_sa=one)
    before_c = states(c, inputs, blk, drop_last_sa=True)

    def Q(x):
        return sa.A.lam * dot(x, x) + sum(dot(a, x) * dot(b, x) for a, b in zip(sa.A.left, sa.A.right))
    q0 = Q((Fraction(-1),) * d)
    if any(len(y) > 1 for y in targets) and not q0 > 0:  # no ellipsoid Q = c^2 Q(-1) to be on
        return [refuted(name, "extra-leader-level-set", "the collapse layer's form Q is not "
                        "positive at s0 = -1 (1, ..., 1)", block=blk, sublayer="SA",
                        expected="Q(-1) > 0", got=q0)]
    row, rows_stated, scales = 0, [], set()
    for j, (s, s2) in enumerate(zip(after_s, before_c)):
        top = max(range(len(s)), key=lambda i: dot(u, s[i]))
        want = [i for i in range(len(s)) if i != top][:len(targets[j]) - 1]
        neg = [i for i, x in enumerate(s2) if max(x) < 0]
        if neg != want:
            return [refuted(name, "extra-leader-rows", "the tokens moved into the negative orthant "
                            "are not the first m_j - 1 non-top tokens", sequence=j,
                            expected=want, got=neg)]
        rows_stated.append([row + top] + [row + i for i in want])
        levels = {Q(s2[i]) for i in want}
        if want:
            ratio = levels.pop() / q0 if len(levels) == 1 else None
            c2 = None if ratio is None else _square_root(ratio)
            if c2 is None or c2 in scales:
                return [refuted(name, "extra-leader-level-set", "the sequence's extra leaders are "
                                "not on one level set c^2 Q(-1) of their own (c a positive integer)",
                                sequence=j, expected=f"Q(s) = c^2 {q0}",
                                got=sorted({Q(s2[i]) for i in want}))]
            scales.add(c2)
        row += len(s)
    if [list(r) for r in c.info["leader_rows"]] != rows_stated:
        return [refuted(name, "leader-rows", "the reported leader rows are not the tops and the "
                        "extra leaders", expected=rows_stated, got=c.info["leader_rows"])]
    return [_ok(name, [f"{sum(len(r) - 1 for r in rows_stated)} extra leaders on "
                       f"{len(scales)} level sets"])]


def _square_root(x: Fraction):
    """The positive integer c with c^2 = x, or None."""
    from math import isqrt
    if x.denominator != 1 or x <= 0:
        return None
    r = isqrt(x.numerator)
    return r if r * r == x.numerator else None


def peel_k_check(c, inputs, targets, d) -> list[CheckResult]:
    """``k`` of the collapse layer: the least (1, c, ...) with distinct kappas on the
    leaders it collapses onto, times the least positive integer s with every
    ``|kappa| > max |y_1|``."""
    from proofcheck.constructions.afz.phases.collapse import least_k
    name = "top collapse: k = s (1, c, ..., c^(d-1)), c and s the least that work"
    blk, sa = _top_collapse_layer(c)
    before = [x for s in states(c, inputs, blk, drop_last_sa=True) for x in s]
    pts = [before[r] for lr in c.info["leader_rows"] for r in lr]
    k0, bound = least_k(pts, set(), d)
    k = tuple(sa.V.right[0]) if sa.V.right else None
    big = max(abs(y[0]) for ys in targets for y in ys)
    if k0 is None or k is None:
        return [refuted(name, "k-scale", "no k with distinct kappas", block=blk, sublayer="SA",
                        expected=f"a c <= {bound}", got=k)]
    low = min(abs(dot(k0, p)) for p in pts)
    s = max(1, int(Fraction(big) // low) + 1)  # the least s >= 1 with low s > big (no search:
    # targets of 2^41 would take 2^41 steps)
    want = tuple(s * x for x in k0)
    if k != want:
        return [refuted(name, "k-scale", "k of the collapse layer is not the least scaled k",
                        block=blk, sublayer="SA", expected=want, got=k)]
    return [_ok(name, [f"k = {tuple(str(x) for x in k)} (scale {s})"])]


def peel_conclusions(c, inputs, targets, d) -> list[CheckResult]:
    """Every stated conclusion of the ``peel`` construction on this dataset."""
    out = []
    for fn in (peel_mu_check, peel_leaders_check, peel_k_check):
        out += guarded(f"peel conclusion {fn.__name__}", fn, c, inputs, targets, d)
    return out


# --------------------------------------------------------------------------- bounded

def bounded_info_check(c, inputs, targets, d) -> list[CheckResult]:
    """The reported phase-S block count, N and largest signature against the network."""
    name = "bounded: the reported phase-S blocks, N and largest signature are the network's"
    info, lay = c.info, c.info["layout"]
    labelled = sum(1 for b in c.net.blocks if b.phase == "S")
    bad = [(k, want, info[k]) for k, want in (("phase_S_blocks", labelled),
                                              ("N", len(inputs)), ("R", labelled - 1))
           if info[k] != want]
    if c.phases["S"] != (1, labelled):
        bad.append(("phases['S']", (1, labelled), c.phases["S"]))
    if info["report"].get("largest signature") != info["S_max"]:
        bad.append(("report: largest signature", info["S_max"],
                    info["report"].get("largest signature")))
    if lay.Z is not None:  # d >= 3: the signature coordinate holds the signature alone
        smax = max(x[lay.Z] for s in states(c, inputs, labelled) for x in s)
        if smax != info["S_max"]:
            bad.append(("S_max", smax, info["S_max"]))
    if bad:
        key, want, got = bad[0]
        return [refuted(name, "phase-S-info", f"reported {key} differs from the network's",
                        expected=want, got=got)]
    return [_ok(name, [f"{labelled} phase-S blocks, N = {len(inputs)}, largest signature "
                       f"{info['S_max']}"])]


def stated_kappas(ys) -> list[Fraction]:
    """The kappas of the flag path by its stated rule (one target per pair)."""
    firsts = {y[0] for y in ys}
    kap = {y: y[0] for y in ys if y[0] >= 0 and all(v == 0 for v in y[1:])}
    taken, k = firsts | set(kap.values()), 1
    for y in ys:
        if y not in kap:
            while Fraction(k) in taken:
                k += 1
            kap[y] = Fraction(k)
            taken.add(kap[y])
    return [kap[y] for y in ys]


def bounded_flag_check(c, inputs, targets, d) -> list[CheckResult]:
    """Kappas, block count from the dataset, and the snaps' half-widths."""
    name = "bounded (one output per pair): kappas by the stated rule, L from M' and D'"
    info = c.info
    ys = [tuple(t[0]) for t in targets]
    want = stated_kappas(ys)
    if list(info["kappas"]) != want:
        return [refuted(name, "kappa-rule", "the kappas do not follow the stated rule",
                        expected=want, got=list(info["kappas"]))]
    snapped = list(dict.fromkeys(y for y, k in zip(ys, want)
                                 if y != (k,) + (Fraction(0),) * (d - 1)))
    Mp = sum(1 for k in want if k != 0)
    L = info["R"] + 1 + max(1, Mp) + len(snapped)
    if (info["lifts"], info["snaps"], c.net.L) != (Mp, len(snapped), L):
        return [refuted(name, "block-count", "lifts, snaps or L differ from M', D' and "
                        "R + 1 + max(1, M') + D' on the dataset",
                        expected=(Mp, len(snapped), L),
                        got=(info["lifts"], info["snaps"], c.net.L))]
    first = c.net.L - len(snapped) + 1
    kap_of = dict(zip(ys, want))
    snap = snap_rule_check("bounded: every snap's half-width is 1/4 of the nearest gap",
                           c.net, range(first, c.net.L + 1), [kap_of[y] for y in snapped],
                           set(want) | {y[0] for y in ys})
    return [_ok(name, [f"M' = {Mp}, D' = {len(snapped)}, L = {L}"]), snap]


def bounded_radix_check(c, inputs, targets, d) -> list[CheckResult]:
    """The lexicographic u is a mixed radix on the positions after phase S."""
    name = ("bounded (general path): u a mixed radix on the positions after phase S "
            "(content coordinates, Z, F)")
    info, lay = c.info, c.info["layout"]
    u = tuple(info["u"])
    order = list(lay.content) + ([lay.Z] if lay.Z is not None else []) + [lay.F]
    if sorted(order) != list(range(d)) or not all(Fraction(x).denominator == 1 and x > 0
                                                  for x in u):
        return [refuted(name, "radix", "u is not a positive integer weight on every coordinate",
                        expected=f"u > 0 on coordinates {order}", got=u)]
    pts = [x for s in states(c, inputs, c.phases["S"][1]) for x in s]
    if any(Fraction(v).denominator != 1 for x in pts for v in x):
        return [refuted(name, "radix", "a position after phase S is not integer",
                        got=next(x for x in pts if any(Fraction(v).denominator != 1 for v in x)))]
    reach = Fraction(0)  # the largest difference the lower coordinates make
    for k in order:
        if not u[k] > reach:
            return [refuted(name, "radix", "a weight of u does not exceed the largest difference "
                            "the lower coordinates make", coordinate=k,
                            expected=f"> {reach}", got=u[k])]
        reach += u[k] * (max(x[k] for x in pts) - min(x[k] for x in pts))
    beta = max(max(x) for x in pts)
    if not min(info["t"]) > beta:  # the default phase L's region P: t_j > beta
        return [refuted(name, "region-P", "a region-P leader is not above every coordinate after "
                        "phase S", expected=f"t_j > beta = {beta}", got=min(info["t"]))]
    return [_ok(name, [f"u = {tuple(int(x) for x in u)} along {order}; t_j from "
                       f"{min(info['t'])} > beta = {beta}"])]


def bounded_layout_check(c, inputs, targets, d) -> list[CheckResult]:
    """Block 1's layout (its FF, evaluated): integer positions, content coordinates
    >= 1, flag 0; for d = 2 the signature stacked above the one content coordinate
    (``z = S_z e_i`` with ``S_z`` above the coordinate's range), for d >= 3 ``z = e_Z``."""
    name = "bounded: block 1's layout (integers, contents >= 1, flag 0, signature direction)"
    lay = c.info["layout"]
    net = Transformer(c.net.d, [Block(c.net.blocks[0].ff, identity_sa(), "S")])
    from proofcheck.constructions.claim_check import check_network
    pts = [x for s in check_network(net, inputs, None, None).outputs for x in s]
    bad = next((x for x in pts if any(Fraction(v).denominator != 1 for v in x)
                or min(x[k] for k in lay.content) < 1 or x[lay.F] != 0), None)
    if bad is not None:
        return [refuted(name, "layout", "a position after the layout is not integer, has a "
                        "content coordinate below 1 or a flag", got=bad)]
    if lay.Z is None:
        i = lay.content[0]
        rng = max(x[i] for x in pts) - min(x[i] for x in pts)
        ok = lay.z[i] > rng and all(v == 0 for k, v in enumerate(lay.z) if k != i)
        want = f"z = S_z e_{i}, S_z > {rng}"
    else:
        ok = tuple(lay.z) == tuple(int(k == lay.Z) for k in range(d))
        want = f"z = e_{lay.Z}"
    if not ok:
        return [refuted(name, "layout", "the signature direction does not stack the signature "
                        "above the content", expected=want, got=tuple(lay.z))]
    return [_ok(name, [f"{len(pts)} tokens, z = {tuple(lay.z)}"])]


def bounded_sphere_check(c, inputs, targets, d) -> list[CheckResult]:
    """General path: after phase L (the collapse SA left out) the ``M - N`` sphere
    leaders lie on ``|s| = r``, ``r > 0`` the reported radius, in the open negative
    orthant (:func:`proofcheck.constructions.afz.layers.sphere.negative_orthant_points`),
    every other token in the closed positive orthant (so each sphere leader attends to
    itself alone with ``A = I``: ``<s, z> <= 0 < r^2`` for every other token ``z``)."""
    name = ("bounded (general path): M - N sphere leaders on |s| = r > 0 in the open negative "
            "orthant after phase L, every other token >= 0")
    r = c.info["r"]
    last = max(bi for bi, b in enumerate(c.net.blocks, start=1) if b.phase.startswith("L"))
    toks = [(j, i, x) for j, s in enumerate(states(c, inputs, last, drop_last_sa=True))
            for i, x in enumerate(s)]
    neg = [(j, i, x) for j, i, x in toks if max(x) < 0]
    want = sum(len(y) for y in targets) - len(inputs)
    if not r > 0 or len(neg) != want:
        return [refuted(name, "sphere-leaders", "not M - N tokens in the open negative orthant "
                        "at a positive radius", block=last, expected=f"{want} tokens, r > 0",
                        got=f"{len(neg)} tokens, r = {r}")]
    bad = next(((j, i, x) for j, i, x in neg if sum(v * v for v in x) != r * r), None) or \
        next(((j, i, x) for j, i, x in toks if max(x) >= 0 and min(x) < 0), None)
    if bad is not None:
        j, i, x = bad
        return [refuted(name, "sphere-leaders", "a token neither on |s| = r in the open "
                        "negative orthant nor in the closed positive orthant", block=last,
                        sequence=j, token=i, expected=f"|s|^2 = {r * r} or >= 0", got=x)]
    return [_ok(name, [f"{want} sphere leaders at r = {r}"])]


def bounded_conclusions(c, inputs, targets, d) -> list[CheckResult]:
    """Every stated conclusion of the ``bounded`` construction on this dataset."""
    fns = [bounded_info_check, bounded_layout_check] + (
        [bounded_flag_check] if c.info["path"] == "flag" else
        [bounded_radix_check, bounded_sphere_check])
    out = []
    for fn in fns:
        out += guarded(f"bounded conclusion {fn.__name__}", fn, c, inputs, targets, d)
    return out
