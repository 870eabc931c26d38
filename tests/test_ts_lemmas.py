"""Takakura–Suzuki statements (lemmas/ts, SPEC §2 rows C.1, C.3, C.4, E.1, G.1, G.2):
each run gives its expected combined verdict, every check can fail with an exact
witness, and hypothesis searches C.1/E.1 instances for counterexamples."""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from flint import arb, ctx
from hypothesis import given, settings

from lemmas.ts import (
    bernstein_union,
    competitors,
    near_orthogonal,
    polarisation,
    score_lipschitz,
    softmax_concentration,
)
from lemmas.ts.search import strategy
from proofcheck.catalogue import find
from proofcheck.cli import main
from proofcheck.kernel import balls
from proofcheck.kernel.verdicts import Verdict, combine

FAST = settings(max_examples=40, deadline=None)

# statement -> (combined verdict, names of the checks refuted by design)
EXPECTED = {
    "C.1": (Verdict.VERIFIED, []),
    "C.3": (Verdict.VERIFIED, []),
    "C.4": (Verdict.REFUTED, ["C.4 seed's step 1 read with the entrywise norm"]),
    "E.1": (Verdict.REFUTED, ["E.1 reading B (window i-U..i+U"]),
    "G.1": (Verdict.REFUTED, ["G.1 seed's displayed form"]),
    "G.2": (Verdict.VERIFIED, []),
}


@pytest.fixture(scope="module")
def runs():
    return {sid: find(sid).runner()(None, 0) for sid in EXPECTED}


@pytest.mark.parametrize("sid", list(EXPECTED))
def test_combined_verdict_and_refuted_checks(sid, runs):
    res = runs[sid]
    want, refuted = EXPECTED[sid]
    assert combine(r.verdict for r in res) == want, [r.lines() for r in res]
    for r in res:
        if any(r.name.startswith(p) for p in refuted):
            assert r.verdict == Verdict.REFUTED and r.witness is not None
            assert r.witness.expected is not None and r.witness.got is not None
            assert any("REFUTED by design" in d for d in r.details)
        else:
            assert r.verdict == Verdict.VERIFIED, r.lines()
    assert sum(r.verdict == Verdict.REFUTED for r in res) == len(refuted)


@pytest.mark.parametrize("sid", list(EXPECTED))
def test_first_check_states_conventions_and_method(sid, runs):
    first = runs[sid][0]
    assert any(d.startswith("convention: ") for d in first.details)
    assert any(d.startswith("method: ") for d in first.details)
    assert all(any(d.startswith("method: ") for d in r.details) for r in runs[sid])


def test_cli_prints_and_exit_codes(capsys):
    assert main(["lemma", "G.1"]) == 1
    out = capsys.readouterr().out
    assert "convention:" in out and "witness:" in out and out.rstrip().endswith("VERDICT: REFUTED")
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for sid in EXPECTED:
        line = next(ln for ln in out.splitlines() if ln.startswith(sid + " "))
        assert "implemented" in line


# ------------------------------------------------------------------ balls
def test_balls_three_valued():
    assert balls.le(F(1, 3), F(1, 3)) is True
    assert balls.le(F(1, 2), F(1, 3)) is False
    with ctx.workprec(20):
        a = balls.exp_q(F(1, 3))
        b = a + arb(0, 1e-12)  # an overlapping ball around the same value
    assert balls.le(a, b) is None and balls.lt(a, b) is None
    assert balls.verdict(None) == Verdict.INCONCLUSIVE
    # decided only at higher precision: e^(1/3) vs a rational 2^-100 above it
    with ctx.workprec(400):
        lo = balls.interval(balls.exp_q(F(1, 3)))[1]
    t, bits = balls.decide(lambda: balls.lt(balls.exp_q(F(1, 3)), lo + F(1, 2 ** 100)))
    assert t is True and bits > 64


# ------------------------------------------------------------------ C.1
@FAST
@given(strategy(softmax_concentration.gen_theta))
def test_c1_sharp_and_seed_form_hold(theta):
    assert softmax_concentration.check_instance(theta)[0] is True
    assert softmax_concentration.check_instance(theta, softmax_concentration.weak_bound)[0] is True


def test_c1_tight_instance_is_equality_and_wrong_constant_refuted():
    t, info = softmax_concentration.check_instance((F(0), F(-1), F(-1)))
    assert t is True and info["tight"]
    # without the tie rule the two sides are the same number: undecided, never a pass
    t2, _ = softmax_concentration.check_instance((F(0), F(-1), F(-1)), tie_rule=False)
    assert t2 is None
    r = softmax_concentration.numeric(0, 20, lambda n, x: (n - 1) * x, "missing factor 2")
    assert r.verdict == Verdict.REFUTED
    lo_got, hi_exp = r.witness.got[0], r.witness.expected[1]
    assert lo_got > hi_exp  # printed enclosures are disjoint


def test_c1_undecidable_is_inconclusive():
    t, _ = softmax_concentration.check_instance((F(0), F(-2)), lambda n, x: 2 * x / (1 + x),
                                                tie_rule=False)
    assert t is None and balls.verdict(t) == Verdict.INCONCLUSIVE


# ------------------------------------------------------------------ E.1
@FAST
@given(strategy(competitors.gen_at_most_U))
def test_e1_at_most_U_competitors_holds(inst):
    assert competitors.check_instance(inst)[0] is True


@FAST
@given(strategy(competitors.gen_window))
def test_e1_window_corrected_bound_holds_and_tight_windows_fail(inst):
    U, chi, s, j = inst
    assert len(s) == 2 * U + 1 and j == U
    assert competitors.check_instance(inst, factor=4)[0] is True
    # the tight window with the same U and a gap above ln(2U) refutes the factor 2
    g = F(U + 1)
    tight = (U, g * U ** 2, (F(0),) * U + (g,) + (F(0),) * U, U)
    assert competitors.check_instance(tight)[0] is False


def test_e1_witness_is_exact_and_certified():
    r = competitors.window_refuted(0)
    assert r.verdict == Verdict.REFUTED and r.witness.token == 1
    U, chi, s, j = competitors.window_witness(0)
    assert (U, chi, s) == (1, F(2), (F(0), F(2), F(0)))
    exp_, got = r.witness.expected, r.witness.got
    assert exp_[1] < got[0]
    # independent enclosures: lhs = 4x/(1+2x), rhs = 2x with x = e^-2
    with ctx.workprec(100):
        x = balls.exp_q(F(-2))
        assert balls.lt(2 * x, 4 * x / (1 + 2 * x)) is True
        assert balls.le(got[0], 4 * x / (1 + 2 * x)) is True
        assert balls.le(2 * x, exp_[1]) is True
    with pytest.raises(ValueError):
        competitors.check_instance((2, F(8), (F(2), F(1)), 0))  # gap 1 < chi/U^2 = 2


# ------------------------------------------------------------------ C.3
def test_c3_dimension_and_certificate():
    assert near_orthogonal.dimension(1000, F(1, 2)) == 166  # 24 ln 1000 = 165.78...
    assert near_orthogonal.dimension(2, F(1, 2)) == math.ceil(24 * math.log(2))
    assert near_orthogonal.welch_min_dimension(50, F(1, 10)) == 34
    r = near_orthogonal.construct(120, F(1, 2), seed=5)
    assert r.verdict == Verdict.VERIFIED


@pytest.mark.parametrize("N,D,eps", [(40, 30, F(1, 2)), (30, 6, F(1, 3))])
def test_c3_numpy_and_flint_gram_agree(N, D, eps):
    V = near_orthogonal.draw(N, D, 7)
    G1, G2 = near_orthogonal.gram(V), near_orthogonal.gram(V, "flint")
    assert [[int(x) for x in row] for row in G1] == G2
    assert near_orthogonal.certify(V, eps) == near_orthogonal.certify(V, eps, "flint")


def test_c3_too_small_dimension_fails_with_exact_pair():
    r = near_orthogonal.construct(50, F(1, 10), seed=0, D=8, max_draws=3)
    assert r.verdict == Verdict.REFUTED
    i, j = r.witness.sequence, r.witness.token
    V = near_orthogonal.draw(50, 8, 2)  # the last draw (seed 0 + 3 - 1)
    g = sum(V[i][k] * V[j][k] for k in range(8))
    assert r.witness.got == F(g, 8) and abs(r.witness.got) > F(1, 10)
    # above the Welch bound a failed draw is not a refutation
    r2 = near_orthogonal.construct(50, F(1, 2), seed=0, D=20, max_draws=2)
    assert r2.verdict == Verdict.INCONCLUSIVE


# ------------------------------------------------------------------ C.4
def test_c4_tight_and_wrong_constant():
    inst = score_lipschitz.tight_instance(0)
    K, Xb, Q, v, B, r = inst
    s = score_lipschitz.scores(K, Xb, Q, v)
    assert all(abs(x) == r * B ** 2 * 3 ** 3 for x in s) and abs(s[0]) == 324
    res = score_lipschitz.check_random(0, 10, lambda i: i[5] * i[4] ** 2 * len(i[0][0]) ** 2,
                                       "r B^2 D^2 (one D missing)")
    assert res.verdict == Verdict.REFUTED and res.witness.got > res.witness.expected
    st = score_lipschitz.step1_entrywise(0)
    assert (st.witness.expected, st.witness.got) == (F(12), F(324))


# ------------------------------------------------------------------ G.1
def test_g1_witness_exact_and_identity_sides():
    r = polarisation.absolute_value_reading(3)
    x, y, z = polarisation.absolute_value_witness(3)
    lhs, rhs = polarisation.sides(x, y, z)
    assert lhs == rhs and rhs < 0
    assert (r.witness.expected, r.witness.got) == (abs(lhs), rhs)
    # with <x - z, x + z - 2y> >= 0 the displayed form holds on that instance
    ok = polarisation.absolute_value_reading(3, witness=(z, y, x))
    assert ok.verdict == Verdict.VERIFIED


# ------------------------------------------------------------------ G.2
def test_g2_exact_laws_and_wrong_bound():
    law = bernstein_union.three_point(F(2), F(1, 2))
    assert bernstein_union.moments(law) == (0, F(2), F(2))
    two = bernstein_union.two_point(F(3), F(1))
    assert bernstein_union.tail(two, 5, F(3)) == sum(
        p for v, p in bernstein_union.sum_law(two, 5).items() if v >= 3)
    inst = (1, 1, F(1), F(2), F(2), bernstein_union.three_point(F(2), F(1)))
    t, info = bernstein_union.check_instance(inst)
    assert t is True and info["p"] == F(1, 2)

    def wrong(n, N, R, r, s):
        return N * balls.exp_q(-100 * s ** 2 / (2 * (8 * n * R ** 2 + 4 * R ** 2 / (3 * r) * s)))
    res = bernstein_union.seed_tail(0, 20, wrong, "exponent x100, no factor 2")
    assert res.verdict == Verdict.REFUTED
    assert res.witness.got > res.witness.expected[1]


# ------------------------------------------------------------------ search fallback
def test_search_without_hypothesis_is_seeded_and_finds_counterexamples():
    from lemmas.ts.search import search
    chk = softmax_concentration.check_instance
    a = search(softmax_concentration.gen_theta, chk, 5, 15, use_hypothesis=False)
    b = search(softmax_concentration.gen_theta, chk, 5, 15, use_hypothesis=False)
    assert a.t is True and a.checked == b.checked == 15 and "seeded random" in a.method
    bad = search(competitors.gen_window, competitors.check_instance, 0, 60, use_hypothesis=False)
    assert bad.t is False and bad.info["m"] == 2 * bad.info["U"]
