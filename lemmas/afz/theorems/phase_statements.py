"""The four phase propositions of the Theorem 1.6 construction (SPEC §2, §4):
separation, leaders, collapse, interpolation.  Each runs the construction on an
instance, checks every claim of its blocks exactly, then checks the phase's
post-condition on the exact state."""
from __future__ import annotations

from fractions import Fraction

from lemmas.afz.theorems.theorem_1_6 import construct
from proofcheck.kernel.checker import check_network
from proofcheck.kernel.claims import Fixed
from proofcheck.kernel.model import Block, Transformer, dot, identity_sa
from lemmas.afz.instances import scoped
from proofcheck.kernel.verdicts import CheckResult, Verdict, Witness


def _instance(ds):
    return ds, [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


def _prefix(c, last_block, drop_last_sa=False):
    blocks = list(c.net.blocks[:last_block])
    claims = list(c.claims[:last_block])
    if drop_last_sa:
        blocks[-1] = Block(blocks[-1].ff, identity_sa(), blocks[-1].phase)
        claims[-1] = (claims[-1][0], Fixed())
    return Transformer(c.net.d, blocks), claims


def _run_prefix(name, ds, upto, drop_last_sa, post):
    ds, inputs, targets = _instance(ds)
    c = construct(inputs, targets, ds.d)
    last = upto(c)
    net, claims = _prefix(c, last, drop_last_sa)
    nc = check_network(net, inputs, None, claims)
    out = [r for r in nc.results]
    if nc.verdict != Verdict.VERIFIED:
        return out or [CheckResult(name, nc.verdict, witness=nc.witness)]
    out.append(post(c, nc.outputs, ds))
    return out


def run_separation(dataset, seed: int = 0):
    """After blocks 1..R+1 the sequences are pairwise disjoint, R <= N - 1, every
    coordinate is >= 1."""
    def post(c, outs, ds):
        R = c.info["R"]
        seen = {}
        for j, s in enumerate(outs):
            for i, x in enumerate(s):
                if x in seen and seen[x][0] != j:
                    return CheckResult("separation: sequences pairwise disjoint", Verdict.REFUTED,
                                       witness=Witness(f"shares a point with sequence {seen[x][0]}",
                                                       sequence=j, token=i, got=x))
                seen.setdefault(x, (j, i))
                if min(x) < 1:
                    return CheckResult("separation: coordinates >= 1", Verdict.REFUTED,
                                       witness=Witness("coordinate below 1", sequence=j, token=i,
                                                       got=x))
        ok = R <= ds.N - 1
        return CheckResult("separation: sequences pairwise disjoint after R + 1 blocks, R <= N - 1",
                           Verdict.VERIFIED if ok else Verdict.REFUTED,
                           [f"N = {ds.N}, R = {R} probe rounds, "
                            f"{c.info['classes_after_first_tag']} classes after the first tag",
                            f"u = {tuple(str(x) for x in c.info['u'])}",
                            f"tag factors lambda = {[str(x) for x in c.info['lambdas']]}"])
    return scoped("separation", lambda ds: _run_prefix(
        "separation", ds, lambda c: c.phases["S"][1], False, post), dataset)


def run_leaders(dataset, seed: int = 0):
    """After the leader FFs: leader 1 of sequence j at ``t_j 1`` above every other
    coordinate of the sequence, the others on the sphere ``|s| = r`` in the open
    negative orthant, non-leaders in the positive orthant."""
    def post(c, outs, ds):
        r2 = c.info["r"] ** 2
        lrows = c.info["leader_rows"]
        row = 0
        for j, s in enumerate(outs):
            lr = [i - row for i in lrows[j]]
            P = s[lr[0]]
            others = [x for i, x in enumerate(s) if i not in lr]
            bad = None
            if len(set(P)) != 1 or any(max(x) >= P[0] for x in others):
                bad = (lr[0], "region-P leader is not t 1 above every coordinate")
            for i in lr[1:]:
                x = s[i]
                if sum(v * v for v in x) != r2 or max(x) >= 0:
                    bad = (i, "sphere leader not on |s| = r in the open negative orthant")
            for i, x in enumerate(s):
                if i not in lr and min(x) <= 0:
                    bad = (i, "non-leader not in the positive orthant")
            if bad:
                return CheckResult("leaders placed", Verdict.REFUTED,
                                   witness=Witness(bad[1], sequence=j, token=bad[0], got=s[bad[0]]))
            row += len(s)
        return CheckResult("leaders: region P (t_j 1) and sphere leaders placed, non-leaders positive",
                           Verdict.VERIFIED, [f"M = {ds.M} leaders, r = {c.info['r']}, "
                                              f"beta = {c.info['beta']}, t_j from {c.info['t'][0]}"])
    return scoped("leaders", lambda ds: _run_prefix(
        "leaders", ds, lambda c: c.phases["L"][1], True, post), dataset)


def run_collapse(dataset, seed: int = 0):
    """After the collapse SA sequence j is exactly ``{kappa_l e_1 : l in leaders(j)}``,
    ``m_j`` distinct points, kappas distinct across all sequences."""
    def post(c, outs, ds):
        kap = iter(c.info["kappas"])
        d = ds.d
        for j, s in enumerate(outs):
            want = {(next(kap),) + (Fraction(0),) * (d - 1) for _ in range(len(ds.pairs[j].outputs))}
            if set(s) != want:
                bad = next((i for i, x in enumerate(s) if x not in want), None)
                return CheckResult("collapse", Verdict.REFUTED, witness=Witness(
                    "sequence is not its leaders' images on the line", sequence=j, token=bad,
                    got=s[bad] if bad is not None else None))
        ok = len(set(c.info["kappas"])) == ds.M
        return CheckResult("collapse: every sequence = {kappa_l e_1}, m_j distinct points",
                           Verdict.VERIFIED if ok else Verdict.REFUTED,
                           [f"k = {tuple(str(x) for x in c.info['k'])}, {ds.M} distinct kappas"])
    return scoped("collapse", lambda ds: _run_prefix(
        "collapse", ds, lambda c: c.phases["C"][1], False, post), dataset)


def run_interpolation(dataset, seed: int = 0):
    """After the M snaps every output set equals its target set."""
    def check(ds):
        ds, inputs, targets = _instance(ds)
        c = construct(inputs, targets, ds.d)
        nc = check_network(c.net, inputs, targets, c.claims)
        nc.results[-1].details.append(f"{ds.M} snaps, smallest half-width delta = "
                                      f"{min(c.info['snap_deltas'])}")
        return nc.results
    return scoped("interpolation", check, dataset)


__all__ = ["run_separation", "run_leaders", "run_collapse", "run_interpolation", "dot"]
