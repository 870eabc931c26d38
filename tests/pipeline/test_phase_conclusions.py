"""The phase statements' own conclusions (proofcheck/constructions/afz/theorems/phase_statements.py): they
hold on random admissible datasets (hypothesis, d = 2..5, small coordinates for
ties), on the edge datasets, and each fails with a witness on a wrong state."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings

from strategies import admissible_datasets

from proofcheck.constructions.afz.edges import edge_datasets
from proofcheck.constructions.afz.theorems import phase_statements as S
from proofcheck.kernel.dataset import check_admissible
from proofcheck.kernel.verdicts import Verdict


def _all_checks(ds):
    return (S._run_prefix("separation", ds, lambda c: c.phases["S"][1], False,
                          S.separation_conclusion)
            + S._run_prefix("leaders", ds, lambda c: c.phases["L"][1], True, S.leaders_conclusion)
            + S._collapse_check(ds))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(admissible_datasets(min_d=2, max_d=5, max_N=6, max_n=5))
def test_phase_conclusions_hold_on_random_admissible_datasets(ds):
    res = _all_checks(ds) + S.run_interpolation(ds)
    bad = [(r.name, r.witness.describe() if r.witness else None) for r in res
           if r.verdict != Verdict.VERIFIED]
    assert not bad, bad


@pytest.mark.parametrize("ds", edge_datasets(), ids=lambda d: d.name)
def test_edge_datasets_are_admissible_and_verified(ds):
    check_admissible(ds)
    assert all(r.verdict == Verdict.VERIFIED for r in _all_checks(ds))


def _built(ds):
    c, failed = S.built("t", ds)
    assert failed is None
    return c


def test_separation_conclusion_refutes_a_shared_token_and_a_tie():
    ds = edge_datasets()[0]
    c = _built(ds)
    x = (F(5), F(5))
    r = S.separation_conclusion(c, [[x, (F(6), F(1))], [x]], ds)
    assert r.verdict == Verdict.REFUTED and (r.witness.sequence, r.witness.token) == (1, 0)
    u = c.info["u"]
    a, b = (F(1) + u[1], F(1)), (F(1), F(1) + u[0])  # <u, a> = <u, b>
    r = S.separation_conclusion(c, [[a], [b]], ds)
    assert r.verdict == Verdict.REFUTED and r.witness.got == sum(x * y for x, y in zip(u, a))


def _outputs(c, ds, last, drop_last_sa):
    from proofcheck.constructions.claim_check import check_network
    net, claims = S._prefix(c, last, drop_last_sa)
    return check_network(net, [list(p.inputs) for p in ds.pairs], None, claims).outputs


def test_leaders_conclusion_refutes_a_token_above_its_region_p_leader():
    ds = edge_datasets()[1]
    c = _built(ds)
    outs = _outputs(c, ds, c.phases["L"][1], True)
    assert S.leaders_conclusion(c, outs, ds).verdict == Verdict.VERIFIED
    j = next(j for j, s in enumerate(outs) if len(s) > len(c.info["leader_rows"][j]))
    lo = sum(len(s) for s in outs[:j])
    i = next(i for i in range(len(outs[j])) if lo + i not in c.info["leader_rows"][j])
    t = c.info["t"][j]
    bad = [list(s) for s in outs]
    bad[j][i] = (t + F(1, 3),) + (F(1),) * (ds.d - 1)  # a coordinate above t_j: 4.2 fails
    r = S.leaders_conclusion(c, bad, ds)
    assert r.verdict == Verdict.REFUTED and r.witness.sequence == j


def test_least_k_is_the_plain_search_and_the_collapse_refutes_another_k():
    pts = [(F(0), F(1)), (F(1, 2), F(1, 2))]
    assert S.least_k(pts, {F(2)}, 2) == ((F(1), F(4)), 4)
    ds = edge_datasets()[3]
    c = _built(ds)
    outs = _outputs(c, ds, c.phases["C"][1], False)
    flat = [x for s in _outputs(c, ds, c.phases["L"][1], True) for x in s]
    positions = {i: flat[i] for lr in c.info["leader_rows"] for i in lr}
    assert S.collapse_conclusion(c, outs, ds, positions).verdict == Verdict.VERIFIED
    c.info["k"] = tuple(2 * x for x in c.info["k"])
    r = S.collapse_conclusion(c, outs, ds, positions)
    assert r.verdict == Verdict.REFUTED and "least" in r.witness.reason


def test_snap_plateau_check_refutes_a_support_holding_another_value():
    ds = edge_datasets()[2]
    c = _built(ds)
    assert S.snap_plateaus_check(c, ds).verdict == Verdict.VERIFIED
    kap = c.info["kappas"]
    other = next(v for v in kap[1:] if v != kap[0])
    from proofcheck.constructions.afz.layers.snap import snap_ff
    from proofcheck.kernel.model import Block
    blk = c.phases["I"][0]
    wide = abs(other - kap[0])
    old = c.net.blocks[blk - 1]
    c.net.blocks[blk - 1] = Block(snap_ff(0, ds.d, kap[0], wide, ds.pairs[0].outputs[0]),
                                  old.sa, old.phase)
    r = S.snap_plateaus_check(c, ds)
    assert r.verdict == Verdict.REFUTED and r.witness.block == blk


def test_phase_spans_check_refutes_a_misplaced_span():
    ds = edge_datasets()[1]
    c = _built(ds)
    assert S.phase_spans_check(c).verdict == Verdict.VERIFIED
    c.phases["I"] = (c.phases["I"][0] - 1, c.phases["I"][1])
    assert S.phase_spans_check(c).verdict == Verdict.REFUTED
