"""Theorem 1.8's mpmath simulation is an audit: it reports why it could not compute
in a line of its own, never changes the verdict (the certificate's), costs at most
its budget (deterministically), and datasets without attention competitors certify
every tau with no simulation at all."""
from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest
from conftest import NAMED

import proofcheck.constructions.provers.simulate as simulate_mod
from proofcheck.constructions.afz.theorems.theorem_1_8 import verify
from proofcheck.frontend.cli import main
from proofcheck.kernel.verdicts import Verdict, combine

ONE_TOKEN = {"format": "proofcheck-dataset/1", "name": "one-token", "d": 2,
             "pairs": [{"input": [["1", "2"]], "output": [["3", "-4"]]}]}


@pytest.mark.parametrize("extra", [[], ["--tau", "1/2"]])
def test_one_pair_of_one_token_is_certified_for_every_tau(extra, tmp_path, capsys):
    f = tmp_path / "one.json"
    f.write_text(json.dumps(ONE_TOKEN))
    rc = main(["theorem", "1.8", "--dataset", str(f), "--out", str(tmp_path / "r"), *extra])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "VERDICT: VERIFIED-CERTIFIED" in out and "ERROR" not in out
    assert "tau_num not computed: the certificate already covers every tau > 0" in out
    assert "None" not in out
    rep = json.loads((tmp_path / "r" / "theorem-1.8-one-token.json").read_text())
    assert rep["verdict"] == "VERIFIED-CERTIFIED" and rep["tau_free"] is True


def test_a_disagreeing_simulation_does_not_change_the_verdict(monkeypatch):
    def wrong(net, inputs, targets, tau, dps=60):
        return simulate_mod.Simulation(tau, dps, mpmath.mpf(1), mpmath.mpf(1))
    monkeypatch.setattr(simulate_mod, "simulate", wrong)
    sc = verify(NAMED["square-builtin"])
    assert combine(r.verdict for r in sc.results) is Verdict.VERIFIED_CERTIFIED
    assert sc.simulation.agrees is False and sc.tau_num is None
    lines = sc.simulation.lines(sc.tau_cert)
    assert any("DISAGREES" in x and "the verdict is the certificate's" in x for x in lines)
    assert all("simulation" not in r.name for r in sc.results)  # no check of its own


def test_a_simulation_that_cannot_compute_says_why(monkeypatch):
    def broken(net, inputs, targets, tau, dps=60):
        raise ArithmeticError("precision exhausted")
    monkeypatch.setattr(simulate_mod, "simulate", broken)
    sc = verify(NAMED["square-builtin"])
    assert combine(r.verdict for r in sc.results) is Verdict.VERIFIED_CERTIFIED
    assert sc.simulation.note == ("simulation could not compute: ArithmeticError: precision "
                                  "exhausted")
    assert sc.simulation.agrees is None and sc.tau_num is None


def test_the_budget_bounds_the_passes_deterministically():
    ds = NAMED["square-builtin"]
    full = verify(ds)
    assert full.simulation.agrees is True and full.tau_num is not None
    per_pass = full.simulation.work // len(full.simulation.curve)
    small = verify(ds, sim_budget=3 * per_pass + per_pass // 2)
    assert len(small.simulation.curve) == 3 and small.simulation.work == 3 * per_pass
    assert [t for t, _ in small.simulation.curve] == [t for t, _ in full.simulation.curve[:3]]
    assert "stopped at its budget" in small.simulation.note
    assert small.tau_cert <= small.tau_num <= full.tau_num          # a lower bound
    none = verify(ds, sim_budget=per_pass - 1)
    assert none.simulation.curve == [] and none.tau_num is None
    assert none.simulation.note.startswith("simulation not run: one forward pass costs")
    off = verify(ds, sim_budget=0)
    assert off.simulation.note == "tau_num not computed: simulation budget 0 (--simulation-budget)"
    for sc in (small, none, off):
        assert combine(r.verdict for r in sc.results) is Verdict.VERIFIED_CERTIFIED


def test_pass_cost_counts_the_multiply_adds_of_a_pass():
    """Per non-identity FF of width w: T (d + 2wd); per non-identity SA: 2 T d^2 +
    sum n_j^2 (2d + EXP_UNITS) + T d; identity sub-layers are free (the pass skips them);
    times ceil(dps / 40).  The cost grows with d like the pass: the same tokens in
    d = 40 cost far more than in d = 2 (a count without d did not)."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES
    ds = NAMED["square-builtin"]
    inputs = [list(p.inputs) for p in ds.pairs]
    net = construct(inputs, [list(p.outputs) for p in ds.pairs], ds.d, **SCALES).net
    T, pairs, d = 9, 16 + 25, 2
    want = sum((0 if b.ff.is_identity else T * (d + 2 * b.ff.width * d))
               + (0 if b.sa.is_identity else 2 * T * d * d + pairs * (2 * d + 4) + T * d)
               for b in net.blocks)
    assert any(b.sa.is_identity for b in net.blocks) and want > 0
    assert simulate_mod.pass_cost(net, inputs, 40) == want
    assert simulate_mod.pass_cost(net, inputs, 81) == 3 * want
    wide = [[tuple(F(k + i * j) for k in range(40)) for i in range(2)] for j in range(1, 3)]
    tg = [[X[0]] for X in wide]
    wnet = construct(wide, tg, 40, **SCALES).net
    narrow = [[x[:2] for x in X] for X in wide]
    nnet = construct(narrow, [[X[0]] for X in narrow], 2, **SCALES).net
    ratio = simulate_mod.pass_cost(wnet, wide, 40) / simulate_mod.pass_cost(nnet, narrow, 40)
    assert ratio > 20  # the old count (tokens and pairs, no d) gave about L_wide / L_narrow


def test_cli_simulation_options(capsys):
    assert main(["theorem", "1.8", "--simulation-budget", "-1", "--no-report"]) == 2
    assert main(["theorem", "1.6", "--simulation-budget", "10", "--no-report"]) == 2
    assert main(["theorem", "1.6", "--no-simulation", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "--simulation-budget must be at least 0" in err and "apply to theorem 1.8 only" in err


@pytest.mark.parametrize("exc", [TypeError("unsupported operand"), RecursionError("too deep"),
                                 MemoryError()])
def test_no_failure_inside_the_simulation_changes_the_verdict_or_exit_code(monkeypatch, capsys,
                                                                            exc):
    """Before, only ArithmeticError / ValueError were caught: a TypeError in a pass was exit
    4 (internal error) for a VERIFIED-CERTIFIED dataset."""
    def broken(net, inputs, targets, tau, dps=60):
        raise exc
    monkeypatch.setattr(simulate_mod, "simulate", broken)
    sc = verify(NAMED["square-builtin"])
    assert combine(r.verdict for r in sc.results) is Verdict.VERIFIED_CERTIFIED
    assert sc.simulation.note.startswith(f"simulation could not compute: {type(exc).__name__}")
    assert main(["theorem", "1.8", "--limit", "2", "--no-report"]) == 0
    assert "simulation could not compute" in capsys.readouterr().out


def test_the_default_budget_covers_one_pass_on_the_shipped_sample(monkeypatch):
    """A default ``theorem 1.8`` never showed tau_num: one pass on the shipped digits
    sample costs 6,904,320 units (56 digits), the budget was 5,000,000.  The pass cost
    as the search computes it (its digits from the network's largest rational) fits in
    SIM_BUDGET; with the passes replaced by a stub, the default audit runs and shows
    tau_num (a lower bound at its budget)."""
    from proofcheck.constructions.afz.theorems.theorem_1_8 import simulation_audit
    from proofcheck.frontend.io.examples import sample
    from proofcheck.frontend.runs.build import build
    ds, _ = sample()
    b = build("1.8", ds, tau=1, check=False)  # the network does not depend on tau
    dps = max(40, int(0.61 * b.net.max_bits()) + 30)
    cost = simulate_mod.pass_cost(b.net, b.inputs, dps)
    assert 0 < cost <= simulate_mod.SIM_BUDGET  # 6,904,320 when measured
    monkeypatch.setattr(simulate_mod, "simulate", lambda net, i, t, tau, dps=60:
                        simulate_mod.Simulation(F(tau), dps, mpmath.mpf(0), mpmath.mpf(0)))
    audit = simulation_audit(b.net, b.inputs, b.targets, F(16777216), tau_free=False)
    assert audit.budget == simulate_mod.SIM_BUDGET and len(audit.curve) >= 1
    assert audit.tau_num == F(16777216) and "stopped at its budget" in audit.note


def test_an_error_below_the_precision_floor_is_not_printed_as_a_measurement():
    """At 40 digits an error of 1e-45 (coordinates of size 1) is rounding noise: the line
    names the floor, not the number; an error above the floor is printed as measured."""
    import mpmath

    from proofcheck.constructions.provers.simulate import SimulationAudit
    audit = SimulationAudit(curve=[(1, mpmath.mpf("1e-45"))], error_at_cert=mpmath.mpf("1e-45"),
                            tol=mpmath.mpf("1e-20"), dps=40, magnitude=1)
    line = audit.lines(F(1, 8))[0]
    assert "precision floor 1.0e-40" in line and "1.0e-45" not in line
    audit.error_at_cert = mpmath.mpf("1e-30")
    assert "outputs within 1.0e-30 of" in audit.lines(F(1, 8))[0]
