"""Certificates: round trip through the trusted kernel, one tamper test per
field kind, CLI exit codes, and the committed reports' certificates."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from conftest import NAMED

from lemmas.afz import hat
from lemmas.afz.theorem_1_6 import verify as verify16
from lemmas.afz.theorem_1_8 import verify as verify18
from proofcheck.cli import main
from proofcheck.io.certificate_writer import (
    lemma_certificate,
    seal,
    theorem_certificate,
)
from proofcheck.kernel.dataset import dataset_to_json, digest
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cert16():
    ds = NAMED["common-top"]
    tc = verify16(ds)
    return theorem_certificate("1.6", ds, tc.construction.net, Verdict.VERIFIED,
                               constants=tc.constants)


@pytest.fixture(scope="module")
def cert18():
    ds = NAMED["tie-heavy"]
    sc = verify18(ds, simulate_num=False)
    return theorem_certificate("1.8", ds, sc.construction.net, Verdict.VERIFIED_CERTIFIED,
                               tau=sc.tau_cert, constants=sc.constants)


@pytest.fixture(scope="module")
def cert_lemma():
    res = hat.run()
    return lemma_certificate("3.2", res, Verdict.VERIFIED)


def test_round_trip(cert16, cert18, cert_lemma):
    assert verify_certificate(json.loads(json.dumps(cert16)))[0] == Verdict.VERIFIED
    assert verify_certificate(json.loads(json.dumps(cert18)))[0] == Verdict.VERIFIED_CERTIFIED
    assert verify_certificate(json.loads(json.dumps(cert_lemma)))[0] == Verdict.VERIFIED


def _edit(cert, fn, reseal=True):
    c = copy.deepcopy(cert)
    fn(c)
    return seal(c) if reseal else c


def _first_moving_param(c):
    blk = c["network"]["blocks"][1]
    blk["ff"]["b"][0] = str(int(blk["ff"]["b"][0].split("/")[0]) + 3) if "/" not in blk["ff"]["b"][0] \
        else blk["ff"]["b"][0] + "1"


def test_tamper_without_resealing_is_error(cert16):
    bad = _edit(cert16, lambda c: c["network"]["blocks"][0]["sa"].update(rho="2"), reseal=False)
    v, lines = verify_certificate(bad)
    assert v == Verdict.ERROR and any("digest" in ln for ln in lines)


def test_tampered_parameter_is_refuted(cert16):
    def f(c):
        c["network"]["blocks"][-1]["ff"]["W"][0][0] = "12345"  # the last snap
    v, lines = verify_certificate(_edit(cert16, f))
    assert v == Verdict.REFUTED
    assert any("witness" in ln for ln in lines)


def test_tampered_dataset_is_detected(cert16):
    def target(c):
        c["dataset"]["pairs"][0]["output"][0][0] = "999"
    v, lines = verify_certificate(_edit(cert16, target))
    assert v == Verdict.ERROR and any("SHA-256" in ln for ln in lines)

    def target_and_hash(c):  # a consistent forgery: new dataset, new hash
        target(c)
        from proofcheck.kernel.dataset import dataset_from_json
        c["claim"]["dataset"]["sha256"] = digest(dataset_from_json(c["dataset"]))
    v, lines = verify_certificate(_edit(cert16, target_and_hash))
    assert v == Verdict.REFUTED and any("not a target" in ln or "not hit" in ln for ln in lines)


def test_tampered_tau_is_refuted(cert18):
    v, lines = verify_certificate(_edit(cert18, lambda c: c["semantics"].update(tau="1000000")))
    assert v == Verdict.REFUTED
    assert any("INCONCLUSIVE" in ln for ln in lines)


def test_tampered_verdict_is_refuted(cert16):
    v, _ = verify_certificate(_edit(cert16, lambda c: c.update(verdict="REFUTED")))
    assert v == Verdict.REFUTED


def test_tampered_constants_are_refuted(cert16):
    v, lines = verify_certificate(_edit(cert16, lambda c: c["claim"]["constants"].update(L=3)))
    assert v == Verdict.REFUTED and any("claimed L" in ln for ln in lines)


def test_tampered_lemma_instance_is_refuted(cert_lemma):
    def f(c):
        c["instances"][0]["expected"][0][0][0] = "77"
    v, lines = verify_certificate(_edit(cert_lemma, f))
    assert v == Verdict.REFUTED


@pytest.mark.parametrize("mutate", [
    lambda c: c["network"]["blocks"][0]["ff"].update(eta=1.0),      # a float, not "p/q"
    lambda c: c["network"]["blocks"][0]["ff"]["U"].append(["1"]),    # ragged
    lambda c: c.update(format="something-else"),
    lambda c: c.update(kind="poem"),
])
def test_malformed_certificate_is_bad_input(cert16, mutate):
    with pytest.raises(BadInput):
        verify_certificate(_edit(cert16, mutate))


def test_cli_verify_exit_codes(cert16, tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(cert16))
    assert main(["verify", str(good)]) == 0
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(_edit(cert16, lambda c: c["network"]["blocks"][-1]["ff"]["W"][0]
                                       .__setitem__(0, "12345"))))
    assert main(["verify", str(forged)]) == 1
    unsealed = tmp_path / "unsealed.json"
    unsealed.write_text(json.dumps(_edit(cert16, lambda c: c.update(verdict="VERIFIED-CERTIFIED"),
                                         reseal=False)))
    assert main(["verify", str(unsealed)]) == 4
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert main(["verify", str(junk)]) == 2
    other = tmp_path / "other.json"
    other.write_text(json.dumps(dataset_to_json(NAMED["tie-heavy"])))
    assert main(["verify", str(good), "--dataset", str(other)]) == 4
    capsys.readouterr()


def test_cli_writes_certificates(tmp_path, capsys):
    f = tmp_path / "t.json"
    assert main(["theorem", "1.6", "--no-report", "--certificate", str(f)]) == 0
    assert main(["verify", str(f)]) == 0
    g = tmp_path / "l.json"
    assert main(["lemma", "4.2", "--certificate", str(g)]) == 0
    assert main(["verify", str(g)]) == 0
    assert main(["lemma", "G.1", "--certificate", str(tmp_path / "x.json")]) == 2
    capsys.readouterr()


COMMITTED = sorted((ROOT / "reports" / "certificates").glob("*.json"))


@pytest.mark.skipif(not COMMITTED, reason="no committed certificates")
@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_committed_certificates_verify_and_tampering_is_caught(path):
    cert = json.loads(path.read_text())
    from proofcheck.kernel.lemma_checks import checker
    if cert.get("kind") == "lemma" and checker(cert["claim"]["statement"]) and any(
            "data" not in i for i in cert["instances"]):
        pytest.skip("written before lemma certificates carried the lemma's data: "
                    "regenerated with the reports (`python -m proofcheck report`)")
    v, _ = verify_certificate(cert)
    assert v.passed
    forged = copy.deepcopy(cert)
    forged["verdict"] = "REFUTED"
    assert not verify_certificate(seal(forged))[0].passed
    assert not verify_certificate(forged)[0].passed  # unsealed: digest mismatch


def test_tampered_bounds_are_refuted():
    ds = NAMED["square-builtin"]
    sc = verify18(ds, simulate_num=False)
    bounds = [b.to_json() for b in sc.certificate.bounds if b.max_eps is not None]
    cert = theorem_certificate("1.8", ds, sc.construction.net, Verdict.VERIFIED_CERTIFIED,
                               tau=sc.tau_cert, bounds=bounds, constants=sc.constants)
    assert verify_certificate(cert)[0] == Verdict.VERIFIED_CERTIFIED
    bad = _edit(cert, lambda c: c["bounds"][0].update(min_gap="1000"))
    v, lines = verify_certificate(bad)
    assert v == Verdict.REFUTED and any("bound 0" in ln for ln in lines)


@pytest.mark.parametrize("tau", ["abc", "0", "-1", None])
def test_bad_tau_is_bad_input(cert18, tau):
    with pytest.raises(BadInput):
        verify_certificate(_edit(cert18, lambda c: c["semantics"].update(tau=tau)))


def test_lemma_certificate_must_be_an_instance_of_its_statement(cert_lemma):
    def zero_layer(c):
        i = c["instances"][0]
        i["layer"]["W"] = [["0"] * len(w) for w in i["layer"]["W"]]
        i["expected"] = i["inputs"]
    assert verify_certificate(_edit(cert_lemma, zero_layer))[0] == Verdict.REFUTED
    v, _ = verify_certificate(_edit(cert_lemma, lambda c: c["claim"].update(statement="3.3")))
    assert v == Verdict.REFUTED  # a width-3 hat is not a Lemma 3.3 snap
