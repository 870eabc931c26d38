"""The pipeline layer (proofcheck/frontend/runs/): one verdict path — ``theorem`` and ``lemma``
print the kernel's verdict on the certificate the run writes; a kernel that refutes
or fails makes the run REFUTED or ERROR even when the run's own checks passed; both
theorems share one path (report, certificate, time line)."""
from __future__ import annotations

import json

import pytest
from conftest import NAMED

from proofcheck.frontend.cli import main
from proofcheck.kernel.verdicts import Verdict
from proofcheck.frontend.registry import find
from proofcheck.frontend.runs import recheck as recheck_module
from proofcheck.frontend.runs.lemma import run_lemma
from proofcheck.frontend.runs.theorem import TheoremOptions, run_theorem


def _kernel_says(monkeypatch, verdict=None, raises=None):
    import proofcheck.kernel.verify as kv
    calls = []

    def fake(cert, dataset=None, route="auto"):
        calls.append(cert["claim"]["statement"])
        if raises is not None:
            raise raises
        return kv.Outcome(verdict, ["(kernel stand-in)"])
    monkeypatch.setattr(kv, "verify_certificate", fake)
    return calls


@pytest.mark.parametrize("argv", [["theorem", "1.6", "--no-report"], ["lemma", "3.2"]])
def test_the_printed_verdict_is_the_kernels(monkeypatch, argv):
    calls = _kernel_says(monkeypatch, Verdict.REFUTED)
    assert main(argv) == Verdict.REFUTED.exit_code
    assert calls  # the certificate the run wrote was re-checked


@pytest.mark.parametrize("argv", [["theorem", "1.6", "--no-report"], ["lemma", "4.1"]])
def test_an_error_inside_the_kernel_is_error(monkeypatch, argv):
    _kernel_says(monkeypatch, raises=RuntimeError("broken kernel"))
    assert main(argv) == Verdict.ERROR.exit_code


def test_a_malformed_own_certificate_is_error(monkeypatch):
    from proofcheck.kernel.errors import BadInput
    _kernel_says(monkeypatch, raises=BadInput("no such field", "$.x"))
    assert recheck_module.recheck({"claim": {"statement": "1.6"}}).verdict == Verdict.ERROR


@pytest.mark.parametrize("theorem", ["1.6", "1.8"])
def test_theorem_run_certificate_and_recheck(theorem):
    run = run_theorem(theorem, NAMED["square-builtin"], opts=TheoremOptions(simulate=False))
    assert run.certificate["claim"]["statement"] == theorem
    assert run.verdict == run.recheck.verdict and run.verdict.passed
    assert run.run_verdict.passed
    assert {"certificate", "kernel re-check"} <= set(run.seconds)


def test_theorem_report_carries_the_kernel_verdict(tmp_path):
    assert main(["theorem", "1.6", "--out", str(tmp_path), "--certificate",
                 str(tmp_path / "c.json")]) == 0
    rep = json.loads(next(tmp_path.glob("theorem-1.6-*.json")).read_text())
    assert rep["kernel_recheck"]["verdict"] == rep["verdict"] == "VERIFIED"
    assert json.loads((tmp_path / "c.json").read_text())["verdict"] == "VERIFIED"


def test_the_verdict_line_is_the_kernels_with_its_scope(capsys):
    """theorem and lemma end with the kernel's VERDICT line: what the pass established
    (its scope), in the kernel's words."""
    from proofcheck.kernel.verdicts import Scope
    assert main(["theorem", "1.6", "--no-report", "--example", "digits-sample",
                 "--limit", "2"]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith(f"VERDICT: VERIFIED ({Scope.DATASET.value}: construction default "
                           "witnesses Theorem 1.6 on its 2 ")
    run = run_lemma(find("3.1"))
    assert run.recheck.outcome.scope == Scope.EVERY_TOKEN
    assert main(["lemma", "3.1"]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last == run.recheck.verdict_line()


def test_lemma_without_certificate_combines_its_checks():
    run = run_lemma(find("G.1"))
    assert run.certificate is None and run.recheck is None
    assert run.verdict == Verdict.VERIFIED


def test_lemma_certificate_states_only_its_instances():
    """The certificate carries the exact instances and their verdict; the symbolic
    results stay beside it (and still count in the run's verdict)."""
    from proofcheck.constructions.afz.instances import lemma_instances
    from proofcheck.frontend.runs.instances import defaults
    run = run_lemma(find("3.2"))
    # one exact instance per default instance (built-in, seeded d = 2..5, edge datasets)
    n = len(lemma_instances(defaults(find("3.2"), 0)["dataset"], 0))
    assert len(run.certificate["instances"]) == len(run.certified) == n > 1
    assert len(run.results) > len(run.certified)
    assert run.recheck.verdict == Verdict.VERIFIED == run.verdict


def test_a_theta_norm_too_long_for_the_kernel_is_not_stated():
    """An exact ||theta*||^2 longer than the kernel's number parser reads (R ~ N
    networks reach ~270,000 digits) is left out of the certificate's constants, so the
    certificate stays one `verify` reads; a short one is stated."""
    from fractions import Fraction

    from proofcheck.frontend.io.certificate_writer import theorem_certificate
    from proofcheck.constructions.layers import identity_sa
    from proofcheck.kernel.model import FF, Block, Transformer
    from proofcheck.kernel.numbers import MAX_STRING_LENGTH
    ds = NAMED["square-builtin"]
    for big, stated in ((10 ** (MAX_STRING_LENGTH // 2 + 10), False), (7, True)):
        ff = FF(Fraction(1), U=((Fraction(0), Fraction(0)),), b=(Fraction(0),),
                W=((Fraction(big), Fraction(0)),))
        net = Transformer(2, [Block(ff, identity_sa())])
        cert = theorem_certificate("1.6", ds, net, Verdict.VERIFIED, constants={"N": ds.N})
        assert ("theta_sq_norm" in cert["claim"]["constants"]) == stated


def test_the_time_line_says_which_phases_overlap():
    """The re-check runs beside the exact check: the time line says so (its phases do not add
    up to end to end), and nothing is said when no phases overlap."""
    from proofcheck.frontend.reporting.summary import time_line
    text = time_line({"construct phase S": 1.0, "construct total": 2.0, "exact check": 5.0,
                      "kernel re-check": 6.0, "end to end": 9.0})
    first, second = text.split("\n")
    assert first.startswith("time: construct phase S 1.00 s") and first.endswith("end to end 9.00 s")
    assert "parts of construct total" in second and "overlap" in second
    sharded = time_line({"exact check": 5.0, "kernel re-check": 6.0}, sharded=True)
    assert "after the exact check" in sharded and "overlap" not in sharded
    assert time_line({"construct total": 2.0, "end to end": 3.0}) == (
        "time: construct total 2.00 s, end to end 3.00 s")
