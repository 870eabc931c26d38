"""Independence of L and P from the input lengths n_j (docs/spec.md §4 budget; issue 10,
deliverable 5): adding tokens to the sequences (same N, same targets) changes L
and P only through the number R <= N - 1 of separation rounds."""
from __future__ import annotations

from conftest import NAMED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.length_sweep import add_tokens, invariants, measure, sweep
from proofcheck.constructions.afz.theorems.theorem_1_6 import construct, param_formula
from proofcheck.frontend.io.examples import sample
from proofcheck.frontend.io.generate import random_dataset
from proofcheck.kernel.dataset import check_admissible
import pytest
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel


def _built(ds):
    c = construct([list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs], ds.d)
    return c.net, c.info["R"]


def test_add_tokens_keeps_targets_and_admissibility():
    base = NAMED["lattice-builtin"]
    for shared in (False, True):
        ds = add_tokens(base, 7, seed=1, shared=shared)
        check_admissible(ds)
        assert ds.N == base.N and [p.outputs for p in ds.pairs] == [p.outputs for p in base.pairs]
        assert all(len(p.inputs) == len(q.inputs) + 7 and p.inputs[:len(q.inputs)] == q.inputs
                   for p, q in zip(ds.pairs, base.pairs))
        added = [set(p.inputs[len(q.inputs):]) for p, q in zip(ds.pairs, base.pairs)]
        if shared:
            assert all(a == added[0] for a in added)
        else:
            assert all(not (a & b) for i, a in enumerate(added) for b in added[i + 1:])


def test_digits_sweep_l_and_p_move_only_with_r():
    base, _ = sample(limit=4)
    rows = sweep(base, [0, 8, 40], seed=2, progress=lambda s: None)
    inv = invariants(rows)
    assert inv["all_verified"] and inv["L_equals_formula"] and inv["P_equals_formula"]
    assert inv["R_at_most_N_minus_1"]
    M, d = base.M, base.d
    assert inv["L_minus_R_values"] == [2 * M + 1]
    assert inv["P_minus_R_term_values"] == [(16 * d + 16) * M + 6 * d + 5]
    # fresh tokens (no shared point) keep R, hence L and P, exactly as in the base
    fresh = [r for r in rows if r["mode"] == "fresh"]
    assert len({(r["R"], r["L"], r["P"]) for r in fresh}) == 1
    assert fresh[-1]["n_max"] == fresh[0]["n_max"] + 40


@given(seed=st.integers(0, 10**6), k=st.integers(1, 12), shared=st.booleans(),
       N=st.integers(2, 5), d=st.integers(2, 4))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_l_minus_r_and_p_minus_r_term_do_not_depend_on_lengths(seed, k, shared, N, d):
    base = random_dataset(seed, d=d, N=N, max_n=4, style="mixed")
    longer = add_tokens(base, k, seed=seed, shared=shared)
    (n0, R0), (n1, R1) = _built(base), _built(longer)
    for net, R, ds in ((n0, R0, base), (n1, R1, longer)):
        assert R <= ds.N - 1
        assert net.L == 2 * ds.M + R + 1
        assert net.n_params() == param_formula(ds.d, ds.M, R)
    assert n1.L - R1 == n0.L - R0
    assert n1.n_params() - (10 * d + 8) * R1 == n0.n_params() - (10 * d + 8) * R0


def test_measure_verifies_exactly_on_longer_sequences():
    ds = add_tokens(NAMED["tie-heavy"], 25, seed=4)
    r = measure(ds)
    assert r["verdict"] == "VERIFIED" and r["n_max"] == 29
    assert (r["L"], r["P"]) == (r["L_formula"], r["P_formula"])


# ------------------------------------------------- the statement's checks (shared table)
SID = "length-independence"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
