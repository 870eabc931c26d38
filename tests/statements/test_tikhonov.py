"""Statement ``tikhonov`` (docs/spec.md §2): exact ||theta*||^2 everywhere P is reported,
the authors' synthetic setting (J(theta*) = 0 exactly, the threshold next to the
published script's value), and the checks failing on mutated networks."""
from __future__ import annotations

import decimal
import json
from dataclasses import replace
from fractions import Fraction as F

import pytest
from conftest import NAMED
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.theorems import tikhonov
from proofcheck.constructions.afz.theorems.theorem_1_6 import verify as verify16
from proofcheck.frontend.io.certificate_writer import seal, theorem_certificate
from proofcheck.frontend.io.synthetic import MT19937, authors_setting, ff_of_mean, torch_rand
from mutate import with_parameter
from proofcheck.kernel.model import Block, Factored, Transformer
from proofcheck.kernel.numbers import format_q
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate
from proofcheck.kernel.numbers import approx as sig_digits, fmt_num
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel

# ---------------------------------------------------------------- decimal approximation

def _decimal_reference(q: F, digits: int) -> decimal.Decimal:
    """The same rounding (half away from zero) by the decimal module, from an
    80-digit quotient (exact enough: no tie is within 10^-80 here)."""
    x = decimal.Context(prec=80).divide(decimal.Decimal(q.numerator),
                                        decimal.Decimal(q.denominator))
    return decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_UP).create_decimal(x)


@given(st.integers(-10**30, 10**30), st.integers(1, 10**30), st.integers(1, 8))
@settings(max_examples=300, deadline=None)
def test_sig_digits_matches_decimal(p, q, digits):
    x = F(p, q)
    got = sig_digits(x, digits)
    ref = _decimal_reference(x, digits)
    assert decimal.Decimal(got) == ref
    if x != 0:  # digits significant digits at most, and relative error <= 5 * 10^-digits
        assert abs(F(decimal.Decimal(got)) - x) <= abs(x) * F(5, 10 ** digits)


def test_sig_digits_huge_and_tiny():
    big = F(10) ** 4000 * 7 / 3
    assert sig_digits(big) == "2.33333e+4000"
    assert sig_digits(1 / big) == "4.28571e-4001"
    assert sig_digits(F(999999999, 10**9), 6) == "1"
    assert sig_digits(F(1234565, 10), 6) == "123457"   # half away from zero
    assert sig_digits(F(-1, 3)) == "-0.333333"
    assert "(exact: " in fmt_num(big) and "4001-bit" not in fmt_num(big)
    with pytest.raises(ValueError):
        sig_digits(1, 0)


# ---------------------------------------------------------------- the authors' setting

@pytest.fixture(scope="module")
def small():
    return authors_setting(seed=3, N=4, d=3, n=6)


def test_generator_is_seeded_and_admissible():
    from proofcheck.kernel.dataset import check_admissible, digest
    a, b, c = authors_setting(5, N=3, d=4, n=7), authors_setting(5, N=3, d=4, n=7), \
        authors_setting(6, N=3, d=4, n=7)
    assert digest(a.dataset) == digest(b.dataset) != digest(c.dataset)
    check_admissible(a.dataset)
    assert all(len(p.inputs) == 7 and len(p.outputs) == 1 for p in a.dataset.pairs)
    assert all(0 <= x < 1 and (x * 2 ** 24).denominator == 1
               for p in a.dataset.pairs for t in p.inputs for x in t)
    full = authors_setting(0)
    assert (full.dataset.N, full.dataset.d, len(full.dataset.pairs[0].inputs),
            len(full.U), full.eta) == (10, 16, 100, 4, 1)


# ---------------------------------------------------------------- torch.rand, exactly

def test_mt19937_reference_outputs():
    """Matsumoto–Nishimura's reference: init_genrand(5489) starts 3499211612,
    581869302; init_genrand(0) (torch.manual_seed(0)) starts 2357136044."""
    g = MT19937(5489)
    assert [g.next_u32() for _ in range(2)] == [3499211612, 581869302]
    g0 = MT19937(0)
    assert g0.next_u32() == 2357136044
    g1 = MT19937(0)
    assert [g1.next_u32() for _ in range(700)][-1] == [g0.next_u32() for _ in range(699)][-1]
    with pytest.raises(ValueError):
        MT19937(-1)


def test_torch_rand_first_values_after_manual_seed_0():
    """torch.manual_seed(0); torch.rand(6) prints 0.4963 0.7682 0.0885 0.1320 0.3074
    0.6341; the exact values are k/2^24."""
    v = torch_rand(MT19937(0), 6)
    assert [round(float(x), 4) for x in v] == [0.4963, 0.7682, 0.0885, 0.1320, 0.3074, 0.6341]
    assert v[0] == F(8325804, 2 ** 24) and all((x * 2 ** 24).denominator == 1 for x in v)


@pytest.mark.parametrize("seed,sizes", [(0, {}), (7, {"N": 3, "d": 4, "n": 5})])
def test_draw_equals_torch_bit_for_bit(seed, sizes):
    torch = pytest.importorskip("torch", reason="comparing with real torch.rand needs the "
                                "optional extra 'torch'")
    s = authors_setting(seed, **sizes)
    N, d, n = s.dataset.N, s.dataset.d, len(s.dataset.pairs[0].inputs)
    torch.manual_seed(seed)
    X, W, U, b = (torch.rand(N, n, d), torch.rand(4, d), torch.rand(d, 4), torch.rand(4))
    assert [[list(t) for t in p.inputs] for p in s.dataset.pairs] == \
        [[[F(v) for v in t] for t in Xj] for Xj in X.tolist()]
    assert [list(w) for w in s.W] == [[F(v) for v in r] for r in W.tolist()]
    assert [list(u) for u in s.U] == [[F(v) for v in c] for c in U.T.tolist()]
    assert list(s.b) == [F(v) for v in b.tolist()]


def test_seed0_three_numbers():
    """The authors' seed-0 draw: correct threshold ≈ 62.5316, the committed script's
    value ≈ 5402.77 (86.4 times), and the recorded figure line contains the former."""
    res = tikhonov.authors_checks(authors_setting(0))
    assert [r.verdict for r in res] == [Verdict.VERIFIED] * 4, [r.lines() for r in res]
    th, sc = res[2].data["theta_sq_norm"], res[2].data["script_value"]
    assert sig_digits(th) == "62.5316" and sig_digits(sc) == "5402.77"
    assert sig_digits(sc / th, 3) == "86.4"
    lo, hi = res[3].data["figure_exponent"]
    assert F(625316177, 10 ** 7) <= th <= F(625316306, 10 ** 7)  # the printed interval
    assert lo < hi and hi - lo < F(1, 10 ** 7)


def test_figure_check_fails_for_a_line_elsewhere():
    """The figure check can fail: a line at the committed script's height (y ≈ 119.27)
    is REFUTED (it does not show the correct threshold)."""
    s = authors_setting(0)
    res = tikhonov.authors_checks(s)
    th, sc = res[2].data["theta_sq_norm"], res[2].data["script_value"]
    moved = {**tikhonov.FIGURE_1A, "line_y": F("119.27")}
    r = tikhonov.figure_check(th, sc, moved)
    assert r.verdict == Verdict.REFUTED
    assert tikhonov.figure_check(th, sc).verdict == Verdict.VERIFIED
    # and a figure drawn at the script's value is not mistaken for the correct one
    assert tikhonov.figure_check(sc, th, moved).verdict == Verdict.REFUTED


def test_authors_setting_verifies_with_exact_norms(small):
    res = tikhonov.authors_checks(small)
    assert [r.verdict for r in res] == [Verdict.VERIFIED] * 3, [r.lines() for r in res]
    data = res[2].data
    d = small.dataset.d
    sqX = sum(x * x for p in small.dataset.pairs for t in p.inputs for x in t)
    sqU = sum(x * x for u in small.U for x in u)
    sqW = sum(x * x for w in small.W for x in w)
    sqb = sum(x * x for x in small.b)
    # the threshold: ||V||_F^2 = d (V = I) + eta^2 + drawn parameters; rho = q = k = 0
    assert data["theta_sq_norm"] == d + 1 + sqU + sqW + sqb
    # the published script's value: ||X V||^2 = ||X||^2 instead of ||V||_F^2
    assert data["script_value"] == sqX + 1 + sqU + sqW + sqb
    # the stored-scalar convention: V = 1*I is one scalar; identity FF eta, identity SA rho
    assert data["stored_scalar_sq_norm"] == 1 + 1 + 1 + 1 + sqU + sqW + sqb
    assert data["stored_scalar_sq_norm"] == tikhonov.authors_network(small).sq_norm()


def test_authors_setting_backends_agree(small):
    net = tikhonov.authors_network(small)
    ins = [list(p.inputs) for p in small.dataset.pairs]
    tg = [list(p.outputs) for p in small.dataset.pairs]
    for be in ("flint", "fraction"):
        r, J = tikhonov.loss_check("J", net, ins, tg, backend=be)
        assert r.verdict == Verdict.VERIFIED and J == 0


def test_mutated_ff_weight_gives_positive_loss_and_witness(small):
    net = tikhonov.authors_network(small)
    bad = with_parameter(net, 2, "FF", "W[1][0]", small.W[0][1] + 1)
    res = tikhonov.authors_checks(small, net=bad)
    r = res[1]
    assert r.verdict == Verdict.REFUTED
    w = r.witness
    assert (w.sequence, w.token) == (0, 0)
    # exact expected J: every output of sequence j is FF'(mean X_j) with the mutated W
    W2 = tuple(tuple(x + (1 if (k, i) == (0, 1) else 0) for i, x in enumerate(col))
               for k, col in enumerate(small.W))
    outs = [ff_of_mean(p.inputs, small.U, small.b, W2, small.eta) for p in small.dataset.pairs]
    J = sum(sum((a - b) ** 2 for a, b in zip(o, p.outputs[0]))
            for o, p in zip(outs, small.dataset.pairs)) / small.dataset.N
    assert r.data["J"] == J > 0
    assert w.got == outs[0]


def _signed(setting):
    """The same draw with b = -U m_0 (m_0 the mean of sequence 0), so every
    pre-activation has mean 0 over sequence 0 and changes sign there; targets
    recomputed as FF of the mean."""
    from proofcheck.kernel.dataset import Pair
    X0 = setting.dataset.pairs[0].inputs
    m0 = [sum(x[c] for x in X0) / len(X0) for c in range(len(X0[0]))]
    b = tuple(-sum(a * c for a, c in zip(u, m0)) for u in setting.U)
    pairs = tuple(Pair(p.inputs, (ff_of_mean(p.inputs, setting.U, b, setting.W, setting.eta),))
                  for p in setting.dataset.pairs)
    return replace(setting, b=b, dataset=replace(setting.dataset, pairs=pairs))


def test_block_order_matters_once_relu_bends(small):
    """One project block (FF then SA) outputs mean(FF(x)).  On the authors' draw
    every pre-activation U x + b is >= 0 (all draws in [0, 1)), ReLU is linear on
    the data and mean(FF(x)) = FF(mean x); with signed U it bends and only the
    two-block form (SA then FF, the authors' order) interpolates."""
    def one_block(st_):
        net = tikhonov.authors_network(st_)
        return Transformer(net.d, [Block(net.blocks[1].ff, net.blocks[0].sa)])
    for st_, one_ok in ((small, True), (_signed(small), False)):
        ins = [list(p.inputs) for p in st_.dataset.pairs]
        tg = [list(p.outputs) for p in st_.dataset.pairs]
        two, J2 = tikhonov.loss_check("J", tikhonov.authors_network(st_), ins, tg)
        one, J1 = tikhonov.loss_check("J", one_block(st_), ins, tg)
        assert two.verdict == Verdict.VERIFIED and J2 == 0
        assert (one.verdict == Verdict.VERIFIED) == one_ok and (J1 == 0) == one_ok
        if not one_ok:
            assert one.witness.sequence is not None and one.witness.got is not None


def test_nonzero_attention_is_not_the_authors_setting(small):
    net = tikhonov.authors_network(small)
    sa = replace(net.blocks[0].sa, A=Factored(F(1)))
    bad = Transformer(net.d, [replace(net.blocks[0], sa=sa), net.blocks[1]])
    with pytest.raises(ValueError, match="Q = K = 0"):
        tikhonov.authors_parameters(bad)
    assert tikhonov.authors_checks(small, net=bad)[2].verdict == Verdict.ERROR


@given(st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), min_size=1, max_size=5,
                unique=True),
       st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), min_size=1, max_size=5,
                unique=True))
@settings(max_examples=100, deadline=None)
def test_squared_hausdorff(a, b):
    A = [tuple(F(x) for x in t) for t in a]
    B = [tuple(F(x) for x in t) for t in b]
    h = tikhonov.squared_hausdorff(A, B)
    assert h == tikhonov.squared_hausdorff(B, A) >= 0
    assert (h == 0) == (set(A) == set(B))


# ---------------------------------------------------------------- ||theta*||^2 next to P

def test_construction_checks_on_named_dataset():
    ds = NAMED["lattice-builtin"]
    [r] = tikhonov.construction_checks(ds)
    tc = verify16(ds)
    assert r.verdict == Verdict.VERIFIED and r.data["J"] == 0
    assert r.data["theta_sq_norm"] == tc.construction.net.sq_norm()


def test_certificate_carries_theta_sq_norm_and_verify_rechecks_it():
    ds = NAMED["tie-heavy"]
    tc = verify16(ds)
    net = tc.construction.net
    cert = theorem_certificate("1.6", ds, net, Verdict.VERIFIED, constants=tc.constants)
    assert cert["claim"]["constants"]["theta_sq_norm"] == format_q(net.sq_norm())
    assert verify_certificate(cert).verdict == Verdict.VERIFIED
    bad = json.loads(json.dumps(cert))
    bad["claim"]["constants"]["theta_sq_norm"] = format_q(net.sq_norm() + F(1, 10**9))
    v, lines = verify_certificate(seal(bad))
    assert v == Verdict.REFUTED and any("theta_sq_norm" in s for s in lines)


def test_run_reports_show_theta(tmp_path):
    from proofcheck.frontend.reporting.run_report import theorem_report, write_theorem_report
    ds = NAMED["tie-heavy"]
    tc = verify16(ds)
    rep = theorem_report("1.6", ds, tc, Verdict.VERIFIED)
    assert F(rep["theta_sq_norm"]["exact"]) == tc.construction.net.sq_norm()
    assert rep["theta_sq_norm"]["approx"] == sig_digits(tc.construction.net.sq_norm())
    md, _ = write_theorem_report(tmp_path, rep)
    # the asterisk escaped: two in one table row must not read as emphasis
    assert "‖θ\\*‖²" in md.read_text() and rep["theta_sq_norm"]["approx"] in md.read_text()


def test_theorem_cli_prints_theta(capsys, tmp_path):
    from proofcheck.frontend.cli import main
    f = tmp_path / "d.json"
    from proofcheck.kernel.dataset import dataset_to_json
    f.write_text(json.dumps(dataset_to_json(NAMED["tie-heavy"])))
    assert main(["theorem", "1.6", "--dataset", str(f), "--no-report"]) == 0
    out = capsys.readouterr().out
    q = verify16(NAMED["tie-heavy"]).construction.net.sq_norm()
    assert f"||theta*||^2 = {fmt_num(q)}" in out


# ---------------------------------------------------------------- the experiment (torch)

def test_experiment_without_torch_exits_2_naming_the_extra(monkeypatch, tmp_path, capsys):
    import sys

    from proofcheck.frontend.cli import main
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    assert main(["experiment", "tikhonov", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "PyTorch" in err and "'torch'" in err and "proofcheck[torch]" in err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("argv,frag", [
    (["experiment", "nope"], "unknown experiment"),
    (["experiment", "tikhonov", "--eps", "1e-3,-1"], "must be positive"),
    (["experiment", "tikhonov", "--eps", "abc"], "--eps"),
    (["experiment", "tikhonov", "--steps", "0"], "--steps"),
])
def test_experiment_usage_errors(argv, frag, tmp_path, capsys):
    from proofcheck.frontend.cli import main
    assert main(argv + ["--out", str(tmp_path / "o")]) == 2
    assert frag in capsys.readouterr().err


def test_summary_flags_runs_above_the_exact_line():
    from proofcheck.frontend.experiments.tikhonov import EpsRun, Experiment, summary
    ex = Experiment(0, 10, 0.01, F(50), F(4000), 0.0, 1000.0, runs=[
        EpsRun(1e-3, 0.01, 0.04, 30.0, 0.04, 0.0),      # 0.04 < 1e-3 * 50
        EpsRun(1e-2, 0.7, 1.0, 30.0, 1.0, 0.0),          # 1.0 > 1e-2 * 50: above
        EpsRun(1e-1, 2.0, 4.0, 20.0, 4.0, 0.0)])
    js = summary(ex)
    assert js["leaves_linear_regime"]["above_exact_line_at_eps"] == [1e-2]
    assert js["leaves_linear_regime"]["above_script_line_at_eps"] == []
    assert js["leaves_linear_regime"]["largest_eps_above_exact_line"] == 1e-2
    assert js["leaves_linear_regime"]["flat_intervals"] == []
    assert js["theta_sq_norm"]["exact"] == "50" and js["script_value"]["ratio_to_threshold"] == "80"
    assert [round(s["slope"], 6) for s in js["slopes"]] == [1.39794, 0.60206]


def test_experiment_runs_and_writes_both_thresholds(tmp_path, capsys):
    pytest.importorskip("torch", reason="the experiment needs the optional extra 'torch'")
    from proofcheck.frontend.cli import main
    out = tmp_path / "exp"
    assert main(["experiment", "tikhonov", "--out", str(out), "--eps", "1e-2,1e-1",
                 "--steps", "15", "--seed", "1"]) == 0
    js = json.loads((out / "tikhonov-experiment.json").read_text())
    s = authors_setting(1)
    net = tikhonov.authors_network(s)
    th, _ = tikhonov.authors_sq_norm(net)
    sc, _ = tikhonov.script_sq_norm(net, [list(p.inputs) for p in s.dataset.pairs])
    assert F(js["theta_sq_norm"]["exact"]) == th and F(js["script_value"]["exact"]) == sc
    # the torch model is the authors' architecture: at theta* it interpolates (float64)
    assert js["J_at_theta_star_float64"] < 1e-20
    assert [r["eps"] for r in js["runs"]] == [1e-2, 1e-1]
    for r in js["runs"]:
        assert r["objective"] == pytest.approx(r["J"] + r["eps"] * r["theta_sq"], rel=1e-12)
        assert r["line_exact"] == pytest.approx(r["eps"] * float(th), rel=1e-12)
    assert (out / "tikhonov-experiment.png").stat().st_size > 1000
    md = (out / "tikhonov-experiment.md").read_text()
    assert js["theta_sq_norm"]["approx"] in md and js["script_value"]["approx"] in md


def test_norms_check_refutes_a_network_that_is_not_the_draw(small):
    """The ||theta*||^2 line compares the values read off the network with those of the
    draw itself: a network whose FF weight differs from the draw is REFUTED there, with
    both pairs (threshold, script value) as the witness."""
    net = tikhonov.authors_network(small)
    bad = with_parameter(net, 2, "FF", "W[1][0]", small.W[0][1] + 1)
    r = tikhonov.authors_checks(small, net=bad)[2]
    th, sc = tikhonov.drawn_sq_norms(small)
    assert r.verdict == Verdict.REFUTED
    shift = (small.W[0][1] + 1) ** 2 - small.W[0][1] ** 2
    assert r.witness.expected == (th, sc) and r.witness.got == (th + shift, sc + shift)
    assert tikhonov.authors_checks(small)[2].verdict == Verdict.VERIFIED


@pytest.mark.parametrize("seed", [-1, 2 ** 64])
def test_a_seed_torch_would_not_take_alike_is_exit_2(seed, capsys):
    from proofcheck.kernel.errors import BadInput
    with pytest.raises(ValueError, match="0 <= seed < 2"):
        authors_setting(seed)
    from proofcheck.frontend.registry import find
    from proofcheck.frontend.runs.lemma import run_checks
    with pytest.raises(BadInput) as e:
        run_checks(find("tikhonov"), None, seed)
    assert e.value.path == "--seed"
    from proofcheck.frontend.cli import main
    assert main(["lemma", "tikhonov", "--seed", "-1"]) == 2
    assert "(at --seed)" in capsys.readouterr().err


# ------------------------------------------------- the statement's checks (shared table)
SID = "tikhonov"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
