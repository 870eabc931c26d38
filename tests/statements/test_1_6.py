"""Theorem 1.6 end to end: property test over random admissible datasets, the
named datasets, both backends, and regression tests of the constants."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from strategies import admissible_datasets

from proofcheck.constructions.afz.theorems.theorem_1_6 import PARAM_CONSTANT, param_formula, verify
from proofcheck.constructions.claim_check import check_network
from proofcheck.kernel.verdicts import Verdict
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel


def _assert_constants(tc, ds):
    c = tc.constants
    R = c["R"]
    assert c["L"] == 2 * ds.M + R + 1
    assert R <= ds.N - 1
    assert c["L"] <= 2 * ds.M + 2 * ds.N + 1
    assert c["max_width"] <= 4
    assert c["P"] == param_formula(ds.d, ds.M, R)
    assert c["P"] <= (26 * ds.d + 24) * ds.M <= PARAM_CONSTANT * ds.d * ds.M


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(admissible_datasets(min_d=2, max_d=6, max_N=8, max_n=6))
def test_random_admissible_datasets_verify(ds):
    tc = verify(ds)
    assert tc.network_check.verdict == Verdict.VERIFIED, tc.network_check.witness
    assert all(r.verdict == Verdict.VERIFIED for r in tc.results)
    _assert_constants(tc, ds)


def test_named_datasets_verify_on_both_backends(named):
    name, ds = named
    tc = verify(ds)
    assert tc.network_check.verdict == Verdict.VERIFIED
    _assert_constants(tc, ds)
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    ref = check_network(tc.construction.net, inputs, targets, tc.construction.claims,
                        backend="fraction")
    assert ref.verdict == Verdict.VERIFIED
    assert ref.outputs == tc.network_check.outputs


def test_separation_rounds_reach_n_minus_1():
    """A dataset whose sequences all share their top in every positive direction
    needs N - 1 probe rounds; the budget still holds."""
    from conftest import NAMED
    ds = NAMED["common-top"]
    tc = verify(ds)
    assert tc.constants["R"] == ds.N - 1
    assert tc.constants["L"] == 2 * ds.M + ds.N  # = 2M + R + 1
    _assert_constants(tc, ds)


def test_parameter_formula_exact_values():
    # (16d+16)M + (10d+8)R + 6d + 5, computed by hand for two configurations
    assert param_formula(2, 3, 1) == 48 * 3 + 28 + 17 == 189
    assert param_formula(6, 40, 0) == 112 * 40 + 41 == 4521


def test_multiplicities_reported(named):
    _, ds = named
    tc = verify(ds)
    nc = tc.network_check
    for p, mult in zip(ds.pairs, nc.multiplicities):
        assert set(mult) == set(p.outputs)
        assert sum(mult.values()) == len(p.inputs)
        assert min(mult.values()) >= 1


@pytest.mark.parametrize("task,limit", [("label", 25), ("inpaint", 8)])
def test_digits_examples_verify(task, limit):
    pytest.importorskip("sklearn")
    from proofcheck.frontend.io.examples import digits
    ds, info = digits(limit=limit, task=task)
    tc = verify(ds)
    assert tc.network_check.verdict == Verdict.VERIFIED
    _assert_constants(tc, ds)


def test_shipped_sample_verifies():
    from proofcheck.frontend.io.examples import sample
    ds, _ = sample()
    tc = verify(ds)
    assert tc.network_check.verdict == Verdict.VERIFIED
    _assert_constants(tc, ds)


# ------------------------------------------------- the statement's checks (shared table)
SID = "1.6"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
