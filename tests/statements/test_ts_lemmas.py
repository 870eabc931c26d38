"""Takakura–Suzuki statements (proofcheck/constructions/ts, docs/spec.md §2 rows C.1, C.3, C.4, E.1, G.1, G.2):
the default (faithful) readings verify and print each variant as a note with its
witness, every variant reading is refuted with an exact witness, every check can
fail, and hypothesis searches C.1/E.1 instances for counterexamples."""
from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from flint import arb, ctx
from hypothesis import given, settings

from proofcheck.constructions.ts import (
    bernstein_union,
    competitors,
    near_orthogonal,
    polarisation,
    readings,
    score_lipschitz,
    softmax_concentration,
)
from proofcheck.constructions.afz.theorems import softmax_collapse as softmax_collapse_mod
from proofcheck.constructions.ts.search import strategy
from proofcheck.frontend.registry import find, load
from proofcheck.frontend.runs.lemma import run_checks
from proofcheck.frontend.cli import main
from proofcheck.constructions.ts import balls
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, combine

FAST = settings(max_examples=40, deadline=None)

# statement -> variant readings and the name prefix of the check each variant refutes
VARIANTS = {
    "C.4": {"entrywise": "C.4 seed's step 1 read with the entrywise norm"},
    "E.1": {"window": "E.1 reading B (window i-U..i+U"},
    "G.1": {"literal": "G.1 seed's displayed form"},
}
# statements with readings outside the Takakura-Suzuki set
OTHER_VARIANTS = {"1.8-collapse": {"general"}}
IDS = ["C.1", "C.3", "C.4", "E.1", "G.1", "G.2"]
MODULES = {"C.4": score_lipschitz, "E.1": competitors, "G.1": polarisation,
           "1.8-collapse": softmax_collapse_mod}


@pytest.fixture(scope="module")
def runs():
    return {sid: run_checks(find(sid), None, 0) for sid in IDS}


@pytest.mark.parametrize("sid", IDS)
def test_default_reading_verifies_and_prints_each_variant_as_a_note(sid, runs):
    res = runs[sid]
    assert combine(r.verdict for r in res) == Verdict.VERIFIED, [r.lines() for r in res]
    assert all(r.verdict == Verdict.VERIFIED and r.witness is None for r in res)
    notes = [r for r in res if " note: variant reading " in r.name]
    assert sorted(n.name.split("'")[1] for n in notes) == sorted(VARIANTS.get(sid, {}))
    for n in notes:  # the note carries the variant's witness with exact values
        wit = [d for d in n.details if d.startswith("witness of the variant: ")]
        assert len(wit) == 1 and "expected" in wit[0] and "got" in wit[0]


@pytest.mark.parametrize("sid,reading", [(s, r) for s, v in VARIANTS.items() for r in v])
def test_variant_reading_is_refuted_with_its_witness(sid, reading):
    res = run_checks(find(sid), None, 0, reading=reading)
    assert combine(r.verdict for r in res) == Verdict.REFUTED
    refuted = [r for r in res if r.verdict == Verdict.REFUTED]
    assert len(refuted) == 1 and refuted[0].name.startswith(VARIANTS[sid][reading])
    w = refuted[0].witness
    assert w is not None and w.expected is not None and w.got is not None
    assert all(r.verdict == Verdict.VERIFIED for r in res if r is not refuted[0])


@pytest.mark.parametrize("sid", list(MODULES))
def test_readings_agree_with_the_catalogue(sid):
    mod, st = MODULES[sid], find(sid)
    assert tuple(mod.READINGS) == st.readings and len(st.readings) >= 2
    assert tuple({**VARIANTS, **OTHER_VARIANTS}[sid]) == st.readings[1:]
    with pytest.raises(ValueError, match="unknown reading"):
        mod.run(None, 0, reading="no-such-reading")
    assert all(not s.readings for s in load() if s.id not in MODULES)


def test_note_fails_closed_when_the_variant_is_not_refuted():
    ok = CheckResult("variant", Verdict.VERIFIED, ["method: x"])
    assert readings.note("X", "v", "desc", ok).verdict == Verdict.ERROR
    und = CheckResult("variant", Verdict.INCONCLUSIVE, [])
    assert readings.note("X", "v", "desc", und).verdict == Verdict.INCONCLUSIVE
    no_wit = CheckResult("variant", Verdict.REFUTED, [])
    assert readings.note("X", "v", "desc", no_wit).verdict == Verdict.ERROR


@pytest.mark.parametrize("sid", IDS)
def test_first_check_states_conventions_and_method(sid, runs):
    first = runs[sid][0]
    assert any(d.startswith("convention: ") for d in first.details)
    assert any(d.startswith("method: ") for d in first.details)
    assert all(any(d.startswith("method: ") or d.startswith("variant check: ")
                   for d in r.details) for r in runs[sid])


def test_cli_readings_and_exit_codes(capsys):
    assert main(["lemma", "G.1"]) == 0
    out = capsys.readouterr().out
    assert "reading: identity (default)" in out and "witness of the variant:" in out
    from proofcheck.kernel.verdicts import Scope
    assert out.rstrip().endswith(f"VERDICT: VERIFIED (1 check {Scope.ALL_PARAMETERS.value}; "
                                 "no certificate)")
    assert main(["lemma", "G.1", "--reading", "literal"]) == 1
    out = capsys.readouterr().out
    assert "reading: literal (variant)" in out and "witness:" in out
    last = out.rstrip().splitlines()[-1]  # the scope of a REFUTED: the parameters it names
    assert last.startswith("VERDICT: REFUTED (on the instance or parameters the check names")
    assert main(["lemma", "G.1", "--reading", "window"]) == 2
    err = capsys.readouterr().err
    assert "unknown reading 'window' of G.1" in err and "identity (default), literal" in err
    assert main(["lemma", "C.1", "--reading", "identity"]) == 2
    assert "C.1 has no readings" in capsys.readouterr().err
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for sid in IDS:
        line = next(ln for ln in out.splitlines() if ln.startswith(sid + " "))
        assert "implemented" in line
    assert "E.1: at-most-U (default), window" in out


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


def test_c3_union_bound_proved_for_c4_and_refuted_below():
    ok = near_orthogonal.union_bound(4)
    assert ok.verdict == Verdict.VERIFIED
    steps = [d for d in ok.details if "proved: " in d or "(assumed, not proved): " in d]
    assert len(steps) == 9 and not any(d.startswith("NOT ") for d in steps)
    # Hoeffding's inequality is substituted into, not proved
    assert sum(d.startswith("substituted into Hoeffding's inequality") for d in steps) == 1
    assert near_orthogonal.union_bound(F(9, 2)).verdict == Verdict.VERIFIED  # any C >= 4
    bad = near_orthogonal.union_bound(3)
    assert bad.verdict == Verdict.REFUTED and "N = 3, eps = 1/2, D = 14" in bad.witness.reason
    assert near_orthogonal.dimension(3, F(1, 2), 3) == 14  # ceil(12 ln 3) = ceil(13.18...)
    lo, hi = bad.witness.got
    assert 1 <= lo <= hi
    with ctx.workprec(100):  # independent: 3 * 2 * e^(-14/8) >= 1
        assert balls.le(1, 6 * balls.exp_q(F(-14, 8))) is True
    # just below 4 the union bound fails only at a larger N
    assert near_orthogonal.union_bound(F(39, 10)).verdict == Verdict.REFUTED


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


def test_c4_why_D_names_the_step_and_fails_off_the_extremal_instance():
    r = score_lipschitz.why_D(0)
    assert r.verdict == Verdict.VERIFIED
    assert any("||Q||_op = 6 = 3 * 2" in d for d in r.details)
    K, Xb, Q, v, B, r_ = score_lipschitz.tight_instance(0)
    Q2 = (tuple(F(0) for _ in Q[0]),) + Q[1:]  # a zero row: ||Q||_op still D B, product drops
    Q3 = tuple((F(1),) + row[1:] for row in Q)  # one entry below B in every row
    res = score_lipschitz.why_D(0, (K, Xb, Q3, v, B, r_))
    assert res.verdict == Verdict.REFUTED and "||Q||_op" in res.witness.reason
    assert (res.witness.expected, res.witness.got) == (F(6), F(5))
    res2 = score_lipschitz.why_D(0, (K, Xb, Q2, v, B, r_))
    assert res2.verdict == Verdict.REFUTED and res2.witness.got < res2.witness.expected


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
    from proofcheck.constructions.ts.search import search
    chk = softmax_concentration.check_instance
    a = search(softmax_concentration.gen_theta, chk, 5, 15, use_hypothesis=False)
    b = search(softmax_concentration.gen_theta, chk, 5, 15, use_hypothesis=False)
    assert a.t is True and a.checked == b.checked == 15 and "seeded random" in a.method
    bad = search(competitors.gen_window, competitors.check_instance, 0, 60, use_hypothesis=False)
    assert bad.t is False and bad.info["m"] == 2 * bad.info["U"]


def test_seeded_searches_leave_no_hypothesis_folder(tmp_path):
    """The bug report: ``lemma C.1``, ``C.4``, ``E.1``, ``G.2`` run in a fresh working
    directory (a subprocess) leave nothing there, no ``.hypothesis/`` (hypothesis caches
    the constants of local modules in its storage folder even with ``database=None``);
    the storage folder of the calling process is set back afterwards."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    code = ("import sys\nfrom hypothesis import configuration\nfrom proofcheck.frontend.cli import main\n"
            "codes = [main(['lemma', s]) for s in ('C.1', 'C.4', 'E.1', 'G.2')]\n"
            "left = getattr(configuration, '__hypothesis_home_directory')\n"
            "print('CODES', codes, 'STORAGE', left)\n")
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines()[-1] == "CODES [0, 0, 0, 0] STORAGE None"
    assert sorted(p.name for p in tmp_path.iterdir()) == []
