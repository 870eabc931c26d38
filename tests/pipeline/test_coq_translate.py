"""The Coq route's Python side, without Coq: numbers transcribed by spelling only, shapes and
scope refused with their JSON path (exit 2), chunks covering every pair once, Coq missing is exit
2 (never a pass), and how ``verify --coq`` combines the two checkers' outcomes."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from proofcheck.frontend.cli import main
from proofcheck.frontend.cli.cmd_coq import combined
from proofcheck.frontend.coq import library, run, translate
from proofcheck.frontend.coq.numerals import literal
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Scope, Verdict
from proofcheck.kernel.verify import Outcome as KernelOutcome

ROOT = Path(__file__).resolve().parents[2]
CERTS = ROOT / "reports" / "certificates"


@pytest.mark.parametrize("value,coq", [
    (12, "12"), (-7, "(-7)"), ("-7", "(-7)"), ("+7", "7"), ("007", "007"),
    ("3/4", "(3/4)"), ("-3/4", "(-3/4)"), ("+3/6", "(3/6)"), ("0/5", "(0/5)"),
    ("0.125", "0.125"), ("-0.5", "(-0.5)"), (".5", "0.5"), ("-.5", "(-0.5)"), ("5.", "5"),
    ("1e-3", "1e-3"), ("1.5E+3", "1.5E+3"), ("5.e3", "5e3"), ("+2.50e-01", "2.50e-01"),
    # zero written without its sign: Coq reads no negative-zero literal, the value is 0
    ("-0", "0"), ("-00", "00"), ("-0.0", "0.0"), ("-.0", "0.0"), ("-0e5", "0e5"),
    ("-0/1", "(0/1)"), ("-00/3", "(00/3)"), ("-0.001", "(-0.001)"),
])
def test_spellings_transcribe_character_by_character(value, coq):
    assert literal(value, "$.x") == coq


@pytest.mark.parametrize("value", [1.5, True, None, [1], "1/0", "3/000", "1_0", " 1", "0x10",
                                   "nan", "1/2/3", "", ".", "1e", "--1", "1.5/2"])
def test_spellings_that_cannot_be_transcribed_are_bad_input(value):
    with pytest.raises(BadInput) as e:
        literal(value, "$.network.blocks[3].ff.eta")
    assert e.value.path == "$.network.blocks[3].ff.eta"


def _cert(name: str) -> dict:
    return json.loads((CERTS / name).read_text())


def test_a_vector_of_another_length_is_refused_with_its_path():
    cert = _cert("theorem-1.6-generated-7.json")
    cert["network"]["blocks"][2]["ff"]["W"][0].append("1")
    with pytest.raises(BadInput) as e:
        translate.translate(cert)
    assert e.value.path == "$.network.blocks[2].ff.W[0]"


def test_units_of_unequal_counts_are_refused():
    cert = _cert("theorem-1.6-generated-7.json")
    cert["network"]["blocks"][1]["ff"]["b"].pop()
    with pytest.raises(BadInput) as e:
        translate.translate(cert)
    assert e.value.path == "$.network.blocks[1].ff"


def test_softmax_certificates_are_outside_the_route(capsys):
    assert main(["coq", str(CERTS / "theorem-1.8-generated-7.json")]) == 2
    assert "$.claim.statement" in capsys.readouterr().err


def test_coq_missing_is_exit_2_never_a_pass(monkeypatch, capsys):
    monkeypatch.setattr(library.shutil, "which", lambda name: None)
    assert main(["coq", str(CERTS / "lemma-3.1.json")]) == 2
    assert main(["verify", "--coq", str(CERTS / "lemma-3.1.json")]) == 2
    assert library.INSTALL in capsys.readouterr().out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=60), st.integers(1, 5000),
       st.one_of(st.none(), st.integers(1, 7)))
def test_chunks_cover_every_pair_once_in_order(tokens, work, per):
    th = translate.Theorem(2, "", [{"input": [[0, 0]] * n} for n in tokens], 3)
    parts = run.chunks(th, work, per)
    assert parts[0][0] == 0 and parts[-1][1] == len(tokens)
    assert all(lo < hi for lo, hi in parts)
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    if per:
        assert all(hi - lo <= per for lo, hi in parts)


@dataclass
class _Coq:
    status: str
    detail: str = "Theorem 1.6 on 4 pairs"
    version: str = "8.16.1"

    @property
    def exit_code(self):
        return run.EXIT[self.status]


def _kernel(verdict):
    scope = (Scope.DATASET, "Theorem 1.6 on its 4 pairs") if verdict.passed else (None, "")
    return KernelOutcome(verdict, [], *scope)


@pytest.mark.parametrize("kernel,coq,code", [
    (Verdict.VERIFIED, "VERIFIED", 0),
    (Verdict.VERIFIED, "REFUTED", 4),          # the checkers disagree: ERROR
    (Verdict.VERIFIED, "RESOURCE-LIMIT", 4),
    (Verdict.VERIFIED, "ERROR", 4),
    (Verdict.REFUTED, "REFUTED", 1),
    (Verdict.REFUTED, "VERIFIED", 1),          # the kernel checks more than Coq's claim
])
def test_verify_coq_combines_both_checkers(kernel, coq, code):
    line, got = combined(_kernel(kernel), kernel.exit_code, _Coq(coq))
    assert got == code
    assert line.startswith("VERDICT: " + ("ERROR" if code == 4 and coq == "REFUTED" else
                                          coq if code == 4 else kernel.value))


def test_a_disagreement_through_the_command_line_is_exit_4(monkeypatch, capsys):
    """The kernel passes, Coq (stubbed) refutes: ERROR, exit 4 — never the kernel's pass."""
    monkeypatch.setattr(library, "coqc", lambda: "coqc")
    monkeypatch.setattr(run, "check", lambda *a, **k: run.Outcome(
        "REFUTED", "pair 0", {"code": "output-not-target", "pair": 0, "token": 0}, 1.0, [],
        "8.16.1"))
    assert main(["verify", "--coq", str(CERTS / "theorem-1.6-generated-7.json")]) == 4
    assert "coq witness [output-not-target]" in capsys.readouterr().out


def test_readme_and_ci_install_the_same_coq_packages():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert f"apt-get install {' '.join(library.PACKAGES)}`" in readme
    assert f"--no-install-recommends {' '.join(library.PACKAGES)} " in ci
    assert ci.index("apt-get install") < ci.index("python -m pytest")


def test_coq_measurement_table_is_the_results_file():
    from bench.coq import RESULTS, render_readme
    block = render_readme(json.loads(RESULTS.read_text()))
    assert block in (ROOT / "docs" / "measurements" / "coq.md").read_text()


def test_a_json_integer_of_any_length_is_written_digit_for_digit():
    """Past CPython's 4,300-digit str() limit, by the kernel's digit routine."""
    assert literal(10 ** 5000, "$.x") == "1" + "0" * 5000
    assert literal(-(10 ** 5000) - 7, "$.x") == "(-1" + "0" * 4999 + "7)"


def _sealed_copy(name: str, **changes) -> dict:
    from proofcheck.frontend.io.certificate_writer import seal
    cert = json.loads((CERTS / name).read_text())
    cert.update(changes)
    return seal(cert)


def test_an_unsealed_certificate_is_error_and_a_stated_refutation_is_not_this_routes():
    cert = _sealed_copy("theorem-1.6-generated-7.json")
    assert run.unsealed(cert) is None
    cert["network"]["blocks"][0]["phase"] = "X"  # altered after sealing
    assert "digest mismatch" in run.unsealed(cert)
    with pytest.raises(BadInput) as e:
        run.unsealed(_sealed_copy("theorem-1.6-generated-7.json", verdict="REFUTED"))
    assert e.value.path == "$.verdict"


def test_a_lemma_instance_stating_no_expected_output_is_refused():
    """As the kernel refuses it: every expected output null leaves nothing to check."""
    cert = json.loads((CERTS / "lemma-4.1.json").read_text())
    inst = cert["instances"][0]
    inst["expected"] = [[None] * len(s) for s in inst["expected"]]
    with pytest.raises(BadInput) as e:
        translate.translate(cert)
    assert e.value.path == "$.instances[0].expected"


@pytest.mark.parametrize("option", [["--jobs", "0"], ["--jobs", "-1"], ["--timeout", "0"],
                                    ["--chunk-pairs", "-3"]])
def test_coq_options_below_one_are_usage_errors(option, monkeypatch):
    monkeypatch.setattr(run, "check", lambda *a, **k: pytest.fail("Coq must not run"))
    assert main(["coq", *option, str(CERTS / "theorem-1.6-generated-7.json")]) == 2
