"""The four phase propositions of the Theorem 1.6 construction (docs/spec.md §2, §4):
separation, leaders, collapse, interpolation.  Each runs the construction on an
instance, checks every claim of its blocks exactly, then checks the phase's own
conclusion on the network it built (the outputs of its last block, and the
layers it returned):

* separation: the sequences' token sets pairwise disjoint, every coordinate
  >= 1, ``<u, .>`` injective on all tokens, so each sequence has a unique top and
  the tops of different sequences differ; R <= N - 1;
* leaders: each leader where the construction says (region P at ``t_j 1`` above
  every coordinate of its sequence, sphere leaders on ``|s| = r`` in the open
  negative orthant, non-leaders positive), at the construction's documented
  defaults (docs/constructions/default.md, "L — leaders":
  ``t_j = floor(beta) + 1 + j``, ``r = 32``: :data:`STATED_LEADERS`), and the hypotheses
  of Lemmas 4.2 and
  4.3 hold: with ``A = I`` every non-leader's unique argmax is its region-P
  leader, every leader's is itself;
* collapse: every row exactly at ``kappa_l e_1`` of its own leader l, kappas
  pairwise distinct and off the targets' first coordinates, ``k`` the least
  ``(1, c, ..., c^(d-1))`` that does it within the stated bound (searched again
  here; the registry runs the collapse module's symbolic proof and search
  checks beside it);
* interpolation: every snap's plateau (read from its layer) holds its kappa and
  its support no other kappa or target first coordinate; outputs = targets.

A construction that raises on an admissible instance is REFUTED with that
instance as witness (the constructive claim fails there).

Entry points (the registry names them, one per statement id): ``run_separation``,
``run_leaders``, ``run_collapse``, ``run_interpolation``; each ``(dataset=None,
seed=0) -> list[CheckResult]``; ``dataset``: one dataset, or the list of default
instances the registry declares (:func:`phase_sets`).
"""
from __future__ import annotations

from fractions import Fraction
from math import floor

from proofcheck.constructions.afz.instances import scoped
from proofcheck.constructions.afz.phases.collapse import least_k
from proofcheck.constructions.afz.theorems.phase_spans import phase_spans_check
from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
from proofcheck.constructions.claim_check import check_network
from proofcheck.constructions.claims import Fixed
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block, Transformer, dot
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness

def _instance(ds):
    return ds, [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


def phase_sets(dataset) -> list:
    """The instances of a phase statement: ``[dataset]`` for the user's dataset;
    for the default instances the registry declares (a list: seeded datasets in
    d = 2..5 of every generator style) those followed by the edge datasets of
    :mod:`proofcheck.constructions.afz.edges` (ties, equal neighbours on both sides, negative
    coordinates, tightest margins, every separation round); the edge datasets
    alone for ``None``."""
    from proofcheck.constructions.afz.edges import edge_datasets
    if dataset is not None and not isinstance(dataset, (list, tuple)):
        return [dataset]
    return list(dataset or ()) + edge_datasets()


def _phase_scoped(name, check, dataset):
    return scoped(name, check, phase_sets(dataset))


def built(name, ds):
    """``(construction, None)``, or ``(None, REFUTED result)`` when the
    construction raises on this admissible instance."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construction_failure
    ds, inputs, targets = _instance(ds)
    try:
        return construct(inputs, targets, ds.d), None
    except Exception as exc:  # noqa: BLE001  (any failure on an admissible input refutes)
        return None, construction_failure(name, ds, exc)


def _prefix(c, last_block, drop_last_sa=False):
    blocks = list(c.net.blocks[:last_block])
    claims = list(c.claims[:last_block])
    if drop_last_sa:
        blocks[-1] = Block(blocks[-1].ff, identity_sa(), blocks[-1].phase)
        claims[-1] = (claims[-1][0], Fixed())
    return Transformer(c.net.d, blocks), claims


def _run_prefix(name, ds, upto, drop_last_sa, post):
    c, failed = built(name, ds)
    if failed:
        return [failed]
    ds, inputs, targets = _instance(ds)
    net, claims = _prefix(c, upto(c), drop_last_sa)
    nc = check_network(net, inputs, None, claims)
    out = [r for r in nc.results] + [phase_spans_check(c)]
    if nc.verdict != Verdict.VERIFIED:
        return out or [CheckResult(name, nc.verdict, witness=nc.witness)]
    res = post(c, nc.outputs, ds)
    return out + (res if isinstance(res, list) else [res])


def _refuted(name, text, **where):
    return CheckResult(name, Verdict.REFUTED, witness=Witness(text, **where))


# --------------------------------------------------------------------------- separation

def separation_conclusion(c, outs, ds) -> CheckResult:
    """u a positive integer direction, disjoint token sets, coordinates >= 1,
    ``<u, .>`` injective on all tokens (unique tops, distinct across sequences),
    R <= N - 1; on ``outs``."""
    name = "separation: sequences pairwise disjoint, <u, .> injective, unique distinct tops"
    u, R = c.info["u"], c.info["R"]
    if not all(Fraction(x).denominator == 1 and x > 0 for x in u):
        return _refuted(name, "u is not a positive integer direction", expected="u > 0, integer",
                        got=tuple(str(x) for x in u))
    seen, proj = {}, {}
    for j, s in enumerate(outs):
        for i, x in enumerate(s):
            if x in seen and seen[x][0] != j:
                return _refuted(name, f"shares a point with sequence {seen[x][0]}", sequence=j,
                                token=i, got=x)
            seen.setdefault(x, (j, i))
            if min(x) < 1:
                return _refuted(name, "coordinate below 1", sequence=j, token=i, got=x)
            p = dot(u, x)
            if p in proj and proj[p] != x:
                return _refuted(name, f"<u, x> ties with the token {proj[p]}", sequence=j,
                                token=i, expected="distinct projections", got=p)
            proj[p] = x
    tops = [max(s, key=lambda x: dot(u, x)) for s in outs]
    dup = next((j for j, t in enumerate(tops) if tops.index(t) != j), None)
    if dup is not None:
        return _refuted(name, f"top shared with sequence {tops.index(tops[dup])}", sequence=dup,
                        got=tops[dup])
    if R > ds.N - 1:
        return _refuted(name, "more separation rounds than N - 1", expected=ds.N - 1, got=R)
    return CheckResult(name + ", R <= N - 1", Verdict.VERIFIED,
                       [f"N = {ds.N}, R = {R} probe rounds, "
                        f"{c.info['classes_after_first_tag']} classes after the first tag",
                        f"u = {tuple(str(x) for x in u)}",
                        f"tag factors lambda = {[str(x) for x in c.info['lambdas']]}"])


TAG_CANDIDATES = (1, 2, 3, 5, 8, 13)  # phase S tries these tag factors first (then its fallback)


def _probe_margin(blk, b, u, state):
    """None, or the witness that block ``b``'s probe hat (read along u) is not
    centred on a projection of ``state`` within half the distance to the nearest
    other projection."""
    from proofcheck.kernel.lemma_checks.profile import Profile
    k = sorted(Profile.along(blk.ff, u).kinks())
    centre, half = (k[0] + k[-1]) / 2, (k[-1] - k[0]) / 2
    proj = {dot(u, x) for s in state for x in s}
    others = [abs(p - centre) for p in proj if p != centre]
    if centre in proj and (not others or half <= min(others) / 2):
        return None
    w = Witness("the probe hat is not centred on a projection within half the distance to "
                "the nearest other", block=b, sublayer="FF",
                expected=f"centre a projection, half-width <= {min(others, default=0) / 2}",
                got=(centre, half), code="probe-margin")
    return w


def _tag_rule(blk, b, u, state):
    """None, or the witness that block ``b``'s tag factor lambda (read from its
    layer) is not a positive integer with every smaller candidate of
    :data:`TAG_CANDIDATES` breaking injectivity: the values ``<u, x> + lam <u, T>``
    must be distinct over the distinct pairs (point x, its sequence's top T)."""
    lam = blk.sa.V.lam
    pairs = {(x, max(s, key=lambda z: dot(u, z))) for s in state for x in s}

    def injective(lm):
        return len({dot(u, x) + lm * dot(u, t) for x, t in pairs}) == len(pairs)
    smaller = [k for k in TAG_CANDIDATES if k < lam and injective(k)]
    if Fraction(lam).denominator == 1 and lam >= 1 and not smaller:
        return None
    w = Witness("the tag factor is not the smallest candidate keeping <u, .> injective",
                block=b, sublayer="SA", expected=smaller[:1] or "a positive integer", got=lam,
                code="tag-rule")
    return w


def phase_s_rules_check(c, ds) -> list[CheckResult]:
    """Phase S's stated choices on its layers, block by block: every round's probe
    hat (blocks 2..R+1, along u) centred on a token's projection, its support within
    half the distance to the nearest other projection (``nearest``: the smallest
    distance, ``d2`` half of it, so the hat moves one point); every tag factor the
    smallest candidate keeping ``<u, .>`` injective (``tag``)."""
    from proofcheck.kernel.layercheck import evaluate_layer
    u = tuple(c.info["u"])
    state = [list(p.inputs) for p in ds.pairs]
    found = {"probe": None, "tag": None}
    for b in range(1, c.phases["S"][1] + 1):
        blk = c.net.blocks[b - 1]
        if b >= 2 and found["probe"] is None:
            found["probe"] = _probe_margin(blk, b, u, state)
        state = evaluate_layer(blk.ff, state)
        if found["tag"] is None:
            found["tag"] = _tag_rule(blk, b, u, state)
        state = evaluate_layer(blk.sa, state)
    names = {"probe": "separation: every probe hat within half the distance to the nearest "
                      "other projection",
             "tag": "separation: every tag factor the smallest candidate keeping <u, .> injective"}
    return [CheckResult(names[k], Verdict.VERIFIED if w is None else Verdict.REFUTED,
                        [f"{c.phases['S'][1]} blocks"] if w is None else [], w)
            for k, w in found.items()]


def run_separation(dataset=None, seed: int = 0):
    """``lemma separation``: blocks 1..R+1, :func:`separation_conclusion` and
    :func:`phase_s_rules_check`."""
    def post(c, outs, ds):
        return [separation_conclusion(c, outs, ds)] + phase_s_rules_check(c, ds)
    return _phase_scoped("separation", lambda ds: _run_prefix(
        "separation", ds, lambda c: c.phases["S"][1], False, post), dataset)


# --------------------------------------------------------------------------- leaders

def _argmax(x, s):
    """Indices of the tokens z of ``s`` maximising ``<x, z>`` (hardmax with A = I)."""
    sc = [dot(x, z) for z in s]
    top = max(sc)
    return [i for i, v in enumerate(sc) if v == top]


# the default construction's documented leader scales (docs/constructions/default.md,
# "L — leaders": t_j = floor(beta) + margin + spacing j with margin = spacing = 1, sphere
# radius r = 32);
# other scales are other constructions (Theorem 1.8's, docs/statements/1.8.md), not this one
STATED_LEADERS = {"r": Fraction(32), "margin": Fraction(1), "spacing": Fraction(1)}


def stated_leaders_check(c, ds) -> CheckResult | None:
    """The leader scales the default construction used are the documented ones:
    the region-P values ``t_j`` and the sphere radius ``r`` it reports (which
    :func:`leaders_conclusion` checks against the leaders' rows) equal
    ``floor(beta) + 1 + j`` and 32.  None when they do; else REFUTED naming the
    sequence (``expected``: the stated value)."""
    name = "leaders: the stated scales (t_j = floor(beta) + 1 + j, r = 32)"
    st, beta = STATED_LEADERS, c.info["beta"]
    if c.info["r"] != st["r"]:
        return _refuted(name, "sphere radius is not the stated r", expected=st["r"],
                        got=c.info["r"], code="leader-radius")
    for j, tj in enumerate(c.info["t"]):
        want = Fraction(floor(beta)) + st["margin"] + st["spacing"] * j
        if tj != want:
            return _refuted(name, "region-P value t_j is not floor(beta) + 1 + j", sequence=j,
                            expected=want, got=tj, code="leader-t")
    return None


def leaders_conclusion(c, outs, ds) -> CheckResult:
    """Leaders where the construction says, at the stated scales
    (:func:`stated_leaders_check`), and the hypotheses of Lemmas 4.2/4.3 on
    ``outs`` (the tokens after the leader moves)."""
    name = "leaders: region P at t_j 1, sphere leaders, non-leaders positive; 4.2/4.3 hypotheses"
    r2, t, beta, d = c.info["r"] ** 2, c.info["t"], c.info["beta"], ds.d
    stated = stated_leaders_check(c, ds)
    if stated is not None:
        return stated
    row = 0
    for j, s in enumerate(outs):
        lr = [i - row for i in c.info["leader_rows"][j]]
        row += len(s)
        if len(lr) != len(ds.pairs[j].outputs):
            return _refuted(name, "number of leaders differs from m_j", sequence=j,
                            expected=len(ds.pairs[j].outputs), got=len(lr))
        P = s[lr[0]]
        if P != (t[j],) * d or not t[j] > beta or \
                any(max(x) >= t[j] for i, x in enumerate(s) if i != lr[0]):
            return _refuted(name, "region-P leader is not t_j 1 above every coordinate (t_j > beta)",
                            sequence=j, token=lr[0], expected=f"t_j = {t[j]} > beta = {beta}", got=P)
        for i, x in enumerate(s):
            sphere, leader = i in lr[1:], i in lr
            if sphere and (sum(v * v for v in x) != r2 or max(x) >= 0):
                return _refuted(name, "sphere leader not on |s| = r in the open negative orthant",
                                sequence=j, token=i, got=x)
            if not leader and min(x) <= 0:
                return _refuted(name, "non-leader not in the positive orthant", sequence=j,
                                token=i, got=x)
            want = [i] if leader else [lr[0]]
            got = _argmax(x, s)
            if got != want:
                return _refuted(name, "with A = I the token does not attend uniquely to "
                                + ("itself (Lemma 4.3)" if leader else "its region-P leader (Lemma 4.2)"),
                                sequence=j, token=i, expected=want, got=got)
    return CheckResult(name, Verdict.VERIFIED, [f"M = {ds.M} leaders, r = {c.info['r']}, "
                                                f"beta = {beta}, t_j from {t[0]}"])


def run_leaders(dataset=None, seed: int = 0):
    """``lemma leaders``: the leader FFs (without the collapse SA) and
    :func:`leaders_conclusion`."""
    return _phase_scoped("leaders", lambda ds: _run_prefix(
        "leaders", ds, lambda c: c.phases["L"][1], True, leaders_conclusion), dataset)


# --------------------------------------------------------------------------- collapse

def collapse_conclusion(c, outs, ds, positions) -> CheckResult:
    """Every row at ``kappa_l e_1`` of its own leader; kappas ``<k, leader>``,
    distinct, off the targets' first coordinates; ``k`` the least one."""
    name = "collapse: every row -> kappa of its own leader, kappas distinct and free, k least"
    d, k, kappas = ds.d, tuple(c.info["k"]), list(c.info["kappas"])
    order = [r for lr in c.info["leader_rows"] for r in lr]
    forbidden = {y[0] for p in ds.pairs for y in p.outputs}
    pts = [positions[r] for r in order]
    want_k, bound = least_k(pts, forbidden, d)
    if want_k != k:
        return _refuted(name, f"k is not the least (1, c, ...) within the bound {bound}",
                        expected=want_k, got=k)
    kap_of = {r: dot(k, positions[r]) for r in order}
    if [kap_of[r] for r in order] != kappas or len(set(kappas)) != len(kappas) \
            or set(kappas) & forbidden:
        return _refuted(name, "kappas are not <k, leader>, distinct and off the targets' first "
                        "coordinates", expected=[str(kap_of[r]) for r in order],
                        got=[str(x) for x in kappas])
    row = 0
    zero = (Fraction(0),) * (d - 1)
    for j, s in enumerate(outs):
        lr = c.info["leader_rows"][j]
        for i, x in enumerate(s):
            g = row + i
            want = (kap_of[g if g in lr else lr[0]],) + zero
            if x != want:
                return _refuted(name, "row is not at its leader's kappa e_1", sequence=j, token=i,
                                expected=want, got=x)
        row += len(s)
    return CheckResult(name, Verdict.VERIFIED,
                       [f"k = {tuple(str(x) for x in k)} (least within the bound {bound}), "
                        f"{ds.M} distinct kappas"])


def _collapse_check(ds):
    def post(c, outs, ds):
        ds_, inputs, _ = _instance(ds)
        net, claims = _prefix(c, c.phases["L"][1], True)
        before = check_network(net, inputs, None, claims).outputs
        flat = [x for s in before for x in s]
        positions = {r: flat[r] for lr in c.info["leader_rows"] for r in lr}
        return collapse_conclusion(c, outs, ds, positions)
    return _run_prefix("collapse", ds, lambda c: c.phases["C"][1], False, post)


def run_collapse(dataset=None, seed: int = 0):
    """``lemma collapse`` (phase C): on the phase instances, the network up to the
    collapse and :func:`collapse_conclusion`.  The registry declares the collapse
    module's own checks (:func:`proofcheck.constructions.afz.phases.collapse.run`: symbolic proof,
    layer instances, the k search at its bound, its rejections and a sweep against
    :func:`~proofcheck.constructions.afz.phases.collapse.least_k`) next to this one, so ``lemma
    collapse`` runs both."""
    return _phase_scoped("collapse", _collapse_check, dataset)


# --------------------------------------------------------------------------- interpolation

def snap_plateaus_check(c, ds) -> CheckResult:
    """Every snap's plateau, read from its layer (kinks along e_1), holds its
    kappa, and its support holds no other kappa or target first coordinate."""
    from proofcheck.kernel.lemma_checks.profile import Profile
    name = "interpolation: every snap's plateau holds exactly its kappa"
    kappas = list(c.info["kappas"])
    values = set(kappas) | {y[0] for p in ds.pairs for y in p.outputs}
    e1 = tuple(Fraction(int(i == 0)) for i in range(ds.d))
    first = c.phases["I"][0]
    for l, kap in enumerate(kappas):
        blk = first + l
        kinks = sorted(Profile.along(c.net.blocks[blk - 1].ff, e1).kinks())
        if len(kinks) != 4 or not kinks[1] <= kap <= kinks[2]:
            return _refuted(name, "the snap's plateau does not hold its kappa", block=blk,
                            sublayer="FF", expected=kap, got=kinks)
        other = next((v for v in sorted(values) if v != kap and kinks[0] < v < kinks[3]), None)
        if other is not None:
            return _refuted(name, "another kappa or target coordinate inside the snap's support",
                            block=blk, sublayer="FF", expected=f"outside ({kinks[0]}, {kinks[3]})",
                            got=other)
    return CheckResult(name, Verdict.VERIFIED, [f"{len(kappas)} snaps, smallest half-width delta = "
                                                f"{min(c.info['snap_deltas'])}"])


def snap_delta_check(c, ds) -> CheckResult:
    """The stated half-width rule of phase I (:mod:`proofcheck.constructions.afz.phases.interpolation`):
    snap l is centred on kappa_l with ``delta_l`` exactly 1/4 of the distance to the
    nearest other kappa or target first coordinate, read from its layer."""
    from proofcheck.constructions.afz.theorems.conclusions import snap_rule_check
    kappas = list(c.info["kappas"])
    first = c.phases["I"][0]
    return snap_rule_check("interpolation: every snap's half-width is 1/4 of the nearest gap",
                           c.net, range(first, first + len(kappas)), kappas,
                           {y[0] for p in ds.pairs for y in p.outputs})


def run_interpolation(dataset=None, seed: int = 0):
    """``lemma interpolation``: the whole network (every output set equals its
    target set) and :func:`snap_plateaus_check`."""
    def check(ds):
        c, failed = built("interpolation", ds)
        if failed:
            return [failed]
        ds, inputs, targets = _instance(ds)
        nc = check_network(c.net, inputs, targets, c.claims)
        return nc.results + [phase_spans_check(c), snap_plateaus_check(c, ds),
                             snap_delta_check(c, ds)]
    return _phase_scoped("interpolation", check, dataset)


__all__ = ["run_separation", "run_leaders", "run_collapse", "run_interpolation", "dot"]
