"""Coq Interval proves the stated exp bounds of a softmax certificate
(proofcheck/constructions/provers/exp_bounds.py, ``verify --prove-exp``): every bound of the committed 1.8
certificates is proved; a stated max_eps below (n - 1) e^(-min_gap/tau) is not (the
check is INCONCLUSIVE naming that bound, never VERIFIED); Coq missing is exit 2 with the
install command.  The tests that run coqc skip where coqc or the Interval library is
absent."""
from __future__ import annotations

import json
from fractions import Fraction as F
from pathlib import Path

import pytest

from proofcheck.constructions.provers import exp_bounds
from proofcheck.frontend.cli import main
from proofcheck.kernel.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[2]
CERT2 = ROOT / "reports" / "certificates" / "theorem-1.8-generated-7.json"
CERT1 = ROOT / "tests" / "data" / "theorem-1.8-format1.json"
MISSING = exp_bounds.coq_missing()
needs_coq = pytest.mark.skipif(MISSING is not None, reason=f"Coq Interval absent: {MISSING}")


def _load(path):
    return json.loads(Path(path).read_text())


def test_the_stated_bounds_are_read_as_the_kernel_reads_them():
    """Both formats: the three SA sub-layers with a competitor, n - 1 = 3, tau = 5/2, the
    values exactly as stated."""
    for path in (CERT1, CERT2):
        cert = _load(path)
        tau, bounds = exp_bounds.stated_exp_bounds(cert)
        assert tau == F(5, 2) and [b.block for b in bounds] == [1, 2, 10]
        assert {b.competitors for b in bounds} == {3}
        layers = cert["bounds"] if isinstance(cert["bounds"], list) else cert["bounds"]["layers"]
        sa = [h for h in layers if h["sublayer"] == "SA" and h["min_gap"] is not None]
        assert [(b.gap, b.eps) for b in bounds] == [(F(h["min_gap"]), F(h["max_eps"]))
                                                    for h in sa]


def test_the_coq_file_states_each_bound_with_the_certificates_numbers():
    tau, bounds = exp_bounds.stated_exp_bounds(_load(CERT2))
    src, at = exp_bounds.coq_source(tau, bounds)
    assert src.count("Lemma b_") == 3 and sorted(at.values()) == [0, 1, 2]
    assert ("Lemma b_0 : Rmin 1 (IZR (3) * exp (- ((IZR (8320)) / (IZR (5) / IZR (2))))) <= "
            f"(IZR (3) / IZR ({2 ** 256})).") in src
    assert src.count("interval with (i_prec 128) | interval with (i_prec 1024)") == 3


def test_a_non_softmax_certificate_is_bad_input(capsys):
    assert main(["verify", "--prove-exp", str(ROOT / "reports/certificates/lemma-3.2.json")]) == 2
    assert "--prove-exp needs a softmax certificate" in capsys.readouterr().err


def test_coq_missing_is_exit_2_with_the_install_command(monkeypatch, capsys):
    monkeypatch.setattr(exp_bounds.shutil, "which", lambda name: None)
    assert main(["verify", "--prove-exp", str(CERT2)]) == 2
    err = capsys.readouterr().err
    assert "coqc is not installed" in err and "apt-get install coq libcoq-interval" in err


@needs_coq
def test_verify_prove_exp_proves_every_bound(capsys):
    assert main(["verify", "--prove-exp", str(CERT2)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(x.startswith("exp bounds: Coq Interval proved 3 of 3 (") for x in out)
    assert out[-1].startswith("VERDICT: VERIFIED-CERTIFIED")


@needs_coq
def test_format_1_bounds_are_proved_on_the_standard_reals_only():
    """Also ``Print Assumptions``: the classical axioms of Coq's reals and the primitive
    63-bit integers (with their specifications), nothing of Interval's own."""
    r = exp_bounds.prove(_load(CERT1), assumptions=True)
    assert (r.verdict, r.proved, r.total, r.witness) == (Verdict.VERIFIED, 3, 3, None)
    assert "ClassicalDedekindReals.sig_forall_dec" in r.axioms and "Uint63.add_spec" in r.axioms
    assert all(a.startswith(exp_bounds.ALLOWED_AXIOMS) for a in r.axioms)


def test_axioms_are_read_from_print_assumptions():
    out = ("Axioms:\nUint63.tail0_spec\n  : forall x : PrimInt63.int,\n    (0 < x)%Z\n"
           "ClassicalDedekindReals.sig_not_dec : forall P : Prop, {~ ~ P} + {~ P}\n"
           "Interval.bad_axiom : False\n")
    got = exp_bounds.axioms(out)
    assert got == {"Uint63.tail0_spec", "ClassicalDedekindReals.sig_not_dec",
                   "Interval.bad_axiom"}
    assert [a for a in got if not a.startswith(exp_bounds.ALLOWED_AXIOMS)] == [
        "Interval.bad_axiom"]
    assert exp_bounds.axioms("Closed under the global context\n") == frozenset()


@needs_coq
def test_a_bound_below_the_true_value_is_not_proved():
    """max_eps of block 10 lowered by 10^-20 (its slack over 3 e^(-gap/tau) is 5.7 10^-22
    below that): Coq proves blocks 1 and 2 and stops at block 10."""
    cert = _load(CERT2)
    layer = next(h for h in cert["bounds"]["layers"] if h["block"] == 10 and h["sublayer"] == "SA")
    layer["max_eps"] = str(F(layer["max_eps"]) - F(1, 10 ** 20))
    r = exp_bounds.prove(cert)
    assert (r.verdict, r.proved, r.total) == (Verdict.INCONCLUSIVE, 2, 3)
    assert (r.witness.code, r.witness.block, r.witness.sublayer) == ("exp-bound-not-proved", 10,
                                                                     "SA")
    assert r.witness.got == F(layer["max_eps"])


def test_a_failed_proof_makes_verify_inconclusive(monkeypatch, capsys):
    """The command line's side of a failed proof (the proof itself is the test above):
    exit 3, the VERDICT line INCONCLUSIVE with the kernel's verdict beside it."""
    monkeypatch.setattr(exp_bounds, "coq_missing", lambda: None)
    failed = exp_bounds._failed([exp_bounds.ExpBound(2, None, "$.bounds.layers[3]", 3, F(1),
                                                     F(0))], 0, 0.5, "injected", 0)
    monkeypatch.setattr(exp_bounds, "prove", lambda cert: failed)
    assert main(["verify", "--prove-exp", str(CERT2)]) == 3
    out = capsys.readouterr().out.splitlines()
    assert "exp bounds: Coq Interval proved 0 of 1 (0.5 s)" in out
    assert out[-1].startswith("VERDICT: INCONCLUSIVE (the kernel: VERIFIED-CERTIFIED; ")
    assert "exp-bound-not-proved" not in out[-1] and "block 2, sub-layer SA" in out[-1]
