"""Theorem 1.8's mpmath simulation is an audit: it reports why it could not compute
in a line of its own, never changes the verdict (the certificate's), costs at most
its budget (deterministically), and datasets without attention competitors certify
every tau with no simulation at all."""
from __future__ import annotations

import json

import mpmath
import pytest
from conftest import NAMED

import proofcheck.simulate as simulate_mod
from lemmas.afz.theorems.theorem_1_8 import verify
from proofcheck.cli import main
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


def test_pass_cost_counts_tokens_and_attention_pairs():
    from lemmas.afz.theorems.theorem_1_6 import construct
    from lemmas.afz.theorems.theorem_1_8 import SCALES
    ds = NAMED["square-builtin"]
    inputs = [list(p.inputs) for p in ds.pairs]
    net = construct(inputs, [list(p.outputs) for p in ds.pairs], ds.d, **SCALES).net
    assert simulate_mod.pass_cost(net, inputs, 40) == net.L * (4 + 5 + 16 + 25)
    assert simulate_mod.pass_cost(net, inputs, 81) == 3 * net.L * (4 + 5 + 16 + 25)


def test_cli_simulation_options(capsys):
    assert main(["theorem", "1.8", "--simulation-budget", "-1", "--no-report"]) == 2
    assert main(["theorem", "1.6", "--simulation-budget", "10", "--no-report"]) == 2
    assert main(["theorem", "1.6", "--no-simulation", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "--simulation-budget must be at least 0" in err and "apply to theorem 1.8 only" in err
