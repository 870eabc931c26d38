"""Certificates: round trip through the trusted kernel, one tamper test per
field kind, CLI exit codes, and the committed reports' certificates."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from conftest import NAMED, certificate_16

from proofcheck.constructions.afz.layers import hat
from proofcheck.constructions.afz.theorems.theorem_1_8 import verify as verify18
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.certificate_writer import (
    lemma_certificate,
    seal,
    theorem_certificate,
)
from proofcheck.kernel.dataset import dataset_to_json, digest
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cert16():
    return certificate_16("common-top")


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
    assert verify_certificate(json.loads(json.dumps(cert16))).verdict == Verdict.VERIFIED
    assert verify_certificate(json.loads(json.dumps(cert18))).verdict == Verdict.VERIFIED_CERTIFIED
    assert verify_certificate(json.loads(json.dumps(cert_lemma))).verdict == Verdict.VERIFIED


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
        c["claim"]["constants"].pop("theta_sq_norm", None)  # else the norm catches it first
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
        from proofcheck.frontend.io.datasets import dataset_from_json
        c["claim"]["dataset"]["sha256"] = digest(dataset_from_json(c["dataset"]))
    v, lines = verify_certificate(_edit(cert16, target_and_hash))
    assert v == Verdict.REFUTED and any("not a target" in ln or "not hit" in ln for ln in lines)


def test_tampered_tau_is_not_accepted(cert18):
    """A larger stated tau whose bounds no longer follow: the re-check cannot establish the
    stated VERIFIED-CERTIFIED and has no witness against it: INCONCLUSIVE (exit 3), never a
    pass and never a refutation without a witness (docs/spec.md §5)."""
    out = verify_certificate(_edit(cert18, lambda c: c["semantics"].update(tau="1000000")))
    assert out.verdict == Verdict.INCONCLUSIVE and out.exit_code() == 3


def test_tampered_verdict_contradicts_the_content(cert16):
    """A stated failure (REFUTED, INCONCLUSIVE, ERROR) on a network that meets its claim:
    no witness exists, the certificate contradicts itself, ERROR; a stated pass of the
    other kind (VERIFIED-CERTIFIED for a hardmax certificate) stays REFUTED."""
    for stated in ("REFUTED", "INCONCLUSIVE", "ERROR"):
        v, _ = verify_certificate(_edit(cert16, lambda c: c.update(verdict=stated)))
        assert v == Verdict.ERROR, stated
    v, _ = verify_certificate(_edit(cert16, lambda c: c.update(verdict="VERIFIED-CERTIFIED")))
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
    capsys.readouterr()
    assert main(["verify", str(good), "--dataset", str(other)]) == 2  # issue 14: exit 2
    err = capsys.readouterr().err
    assert "not the certificate's dataset" in err and "$.claim.dataset.sha256" in err


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
    assert not verify_certificate(seal(forged)).verdict.passed
    assert not verify_certificate(forged).verdict.passed  # unsealed: digest mismatch


@pytest.fixture(scope="module")
def cert18_square():
    ds = NAMED["square-builtin"]
    sc = verify18(ds, simulate_num=False)
    return theorem_certificate("1.8", ds, sc.construction.net, Verdict.VERIFIED_CERTIFIED,
                               tau=sc.tau_cert, bounds=sc.certificate, constants=sc.constants)


def _first_sa(c):
    return next(b for b in c["bounds"]["layers"] if b["sublayer"] == "SA" and b["min_gap"])


def test_a_bound_that_does_not_follow_is_not_verified(cert18_square):
    """A stated gap above the derived one, or an eps or radius below it, is not
    implied by the previous bounds: the re-check is INCONCLUSIVE (the stated
    VERIFIED-CERTIFIED is not accepted), naming the block and the bound."""
    assert verify_certificate(cert18_square).verdict == Verdict.VERIFIED_CERTIFIED
    for key, value in (("min_gap", "1000"), ("max_eps", "0")):
        bad = _edit(cert18_square, lambda c: _first_sa(c).update({key: value}))
        v, lines = verify_certificate(bad)
        assert v == Verdict.INCONCLUSIVE and any("does not follow" in ln for ln in lines)


def test_a_certificate_with_looser_bounds_verifies():
    """Stated bounds are checked as inequalities (hints, not search): a certificate
    written with, at every layer, a gap 1/1024 below, eps and radii 1/1024 above
    what follows from the previous (already loosened) bounds verifies; so does
    the tight one.  The loose chain is built by the kernel's own pass, one layer
    at a time."""
    from flint import fmpq

    from fractions import Fraction as Fr

    from proofcheck.kernel.evaluate import q
    from proofcheck.kernel.softmax import check_bounds, plain_trajectory
    ds = NAMED["square-builtin"]
    sc = verify18(ds, simulate_num=False)
    net, inputs = sc.construction.net, [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    traj = plain_trajectory(net, inputs)
    F = sc.certificate.floor_bits
    n = len(traj.records)
    slack = Fr(1, 1024)
    loose = []

    def derived(k, h):  # the bounds of record k that follow from loose + h
        return check_bounds(traj, sc.tau_cert, F, targets, loose + [h] + [None] * (n - k - 1)
                            ).bounds[k]
    for k, rec in enumerate(traj.records):
        h = derived(k, None)
        if h["sublayer"] == "SA" and h["min_gap"] is not None:
            h = {"min_gap": h["min_gap"] * q(1 - slack), "max_eps": None, "radius": None}
            h["max_eps"] = min(fmpq(1), derived(k, h)["max_eps"] * q(1 + slack))
            h = dict(h, block=rec.block, sublayer="SA")
        h["radius"] = [x * q(1 + slack) for x in derived(k, dict(h, radius=None))["radius"]]
        loose.append(h)
    cert = theorem_certificate("1.8", ds, net, Verdict.VERIFIED_CERTIFIED, tau=sc.tau_cert,
                               bounds=sc.certificate, constants=sc.constants)
    tight = copy.deepcopy(cert["bounds"])

    def write(c):
        c["bounds"] = {"exp_floor_bits": F, "layers": [
            {k: (v if k in ("block", "sublayer") else None if v is None else
                 [str(x) for x in v] if k == "radius" else str(v)) for k, v in h.items()
             if k != "straddles"}
            for h in loose]}
    lc = _edit(cert, write)
    assert lc["bounds"] != tight
    for c in (cert, lc):
        v, lines = verify_certificate(c, route="plain")
        assert v == Verdict.VERIFIED_CERTIFIED, lines


@pytest.mark.parametrize("tau", ["abc", "0", "-1", None])
def test_bad_tau_is_bad_input(cert18, tau):
    with pytest.raises(BadInput):
        verify_certificate(_edit(cert18, lambda c: c["semantics"].update(tau=tau)))


def test_lemma_certificate_must_be_an_instance_of_its_statement(cert_lemma):
    def zero_layer(c):
        i = c["instances"][0]
        i["layer"]["W"] = [["0"] * len(w) for w in i["layer"]["W"]]
        i["expected"] = i["inputs"]
    assert verify_certificate(_edit(cert_lemma, zero_layer)).verdict == Verdict.REFUTED
    v, _ = verify_certificate(_edit(cert_lemma, lambda c: c["claim"].update(statement="3.3")))
    assert v == Verdict.REFUTED  # a width-3 hat is not a Lemma 3.3 snap


# ------------------------------------------------- theorem constants in the kernel
# (issue "Check what is built", item 4, theorem part): the kernel itself checks L
# against the statement's budget, width <= 4, P <= 38 d M and every stated constant.

@pytest.fixture(scope="module")
def cert_square():
    return certificate_16("square-builtin")  # d = 2, M = 3: 38 d M = 228


def _identity_sa_block(c):
    return next(k for k, b in enumerate(c["network"]["blocks"])
                if b["sa"]["rho"] == "1" and b["sa"]["V"]["lam"] == "0" and not b["sa"]["V"]["left"])


def test_inflated_P_is_refuted(cert_square):
    """1000 zero rank-one factors added to an identity SA: the network computes the
    same function, P = 189 + 4000 > 38 d M = 228, the stated P updated and re-sealed."""
    assert verify_certificate(cert_square).verdict == Verdict.VERIFIED
    consts = cert_square["claim"]["constants"]
    assert (consts["P"], consts["P_bound"], consts["R"]) == (189, 228, 1)

    def inflate(c):
        sa = c["network"]["blocks"][_identity_sa_block(c)]["sa"]
        sa["V"]["left"] += [["0", "0"]] * 1000
        sa["V"]["right"] += [["0", "0"]] * 1000
        c["claim"]["constants"]["P"] = 4189
        for k in ("R", "P_formula"):  # no formula stated: the bound alone must catch it
            c["claim"]["constants"].pop(k)
    v, lines = verify_certificate(_edit(cert_square, inflate))
    assert v == Verdict.REFUTED
    assert any("P = 4189" in ln and "C d M = 228 (C = 38" in ln for ln in lines), lines


def test_inflated_P_with_formula_stated_is_refuted(cert_square):
    def inflate(c):  # a few factors: P stays below 38 d M, but not equal to the formula
        sa = c["network"]["blocks"][_identity_sa_block(c)]["sa"]
        sa["V"]["left"] += [["0", "0"]] * 3
        sa["V"]["right"] += [["0", "0"]] * 3
        c["claim"]["constants"]["P"] = 201
    v, lines = verify_certificate(_edit(cert_square, inflate))
    assert v == Verdict.REFUTED
    assert any("P = 201 but (16d+16)M + (10d+8)R + 6d + 5 = 189" in ln for ln in lines), lines


@pytest.mark.parametrize("key, value, fragment", [
    ("P_formula", 190, "claimed P_formula = 190"),
    ("R", 0, "claimed R = 0, but L - (2M + 1) = 1"),
    ("R", "1/2", "not an integer"),
    ("param_constant", 40, "claimed param_constant = 40, but construction default's proved "
                           "constant = 38"),
    ("P_bound", 229, "claimed P_bound = 229"),
    ("L", "11/1", "claimed L = 11"),
    ("theta_sq_norm", "1", "claimed theta_sq_norm = 1"),
])
def test_wrong_stated_constant_is_refuted(cert_square, key, value, fragment):
    v, lines = verify_certificate(_edit(cert_square, lambda c: c["claim"]["constants"]
                                        .__setitem__(key, value)))
    assert v == Verdict.REFUTED
    assert any(fragment in ln for ln in lines), lines


def test_parameter_bound_uses_the_kernels_constant_not_the_certificates(cert_square):
    """Issue 29 item 3: P <= C d M with the constant the kernel holds for the named
    construction (default: 38).  A certificate stating another C (the least that covers
    P, or 100,000), re-sealed, is REFUTED with code param-constant and never "constants
    re-derived"; with no construction named a stated C is arithmetic on this dataset only
    (the VERDICT line makes no O(d M) claim); C = 0 is bad input."""
    from proofcheck.frontend.cli.common import outcome_line
    P, d, M = (int(cert_square["claim"]["constants"][k]) for k in ("P", "d", "M"))

    def state(C, named=True):
        def f(c):
            c["claim"]["constants"].update(param_constant=C, P_bound=C * d * M)
            if not named:
                c["claim"].pop("construction")
                for k in ("R", "P_formula", "L_construction"):
                    c["claim"]["constants"].pop(k, None)
        return f
    out = verify_certificate(cert_square)
    assert out.verdict == Verdict.VERIFIED and "P <= 38 d M" in out.detail
    for C in (-(-P // (d * M)), 100_000):
        out = verify_certificate(_edit(cert_square, state(C)))
        assert out.verdict == Verdict.REFUTED and out.failure.code == "param-constant"
        assert "constants re-derived" not in outcome_line(out)
        assert "construction default does not witness Theorem 1.6" in out.detail
    out = verify_certificate(_edit(cert_square, state(100_000, named=False)))
    assert out.verdict == Verdict.VERIFIED
    assert "no O(d M) claim" in out.detail and "P <= 38 d M" not in out.detail
    assert any("C = 100000 (stated; no construction the kernel knows" in ln for ln in out.lines)
    out = verify_certificate(_edit(cert_square, state(-(-P // (d * M)) - 1, named=False)))
    assert out.verdict == Verdict.REFUTED and out.failure.code == "param-bound"
    with pytest.raises(BadInput):
        verify_certificate(_edit(cert_square, state(0)))


def test_constants_are_compared_as_numbers(cert_square):
    from proofcheck.kernel.numbers import format_q
    from proofcheck.kernel.serialize import network_from_json
    net = network_from_json(cert_square["network"])
    sq = net.sq_norm()
    assert sq == sum(x * x for *_, x in net.parameters()) and sq > 0

    def respell(c):
        k = c["claim"]["constants"]
        k.update(P=str(k["P"]), L=f"{k['L']}/1", d="+2", N="0.2e1",
                 theta_sq_norm=f"{2 * sq.numerator}/{2 * sq.denominator}")
    v, lines = verify_certificate(_edit(cert_square, respell))
    assert v == Verdict.VERIFIED, lines
    assert any("theta_sq_norm" in ln for ln in lines)
    good = _edit(cert_square, lambda c: c["claim"]["constants"].update(theta_sq_norm=format_q(sq)))
    assert verify_certificate(good).verdict == Verdict.VERIFIED


def test_block_budget_and_width_are_checked_by_the_kernel(cert_square):
    ident = {"ff": {"eta": "1", "U": [], "b": [], "W": []},
             "sa": {"rho": "1", "A": {"lam": "0", "left": [], "right": []},
                    "V": {"lam": "0", "left": [], "right": []}}}

    def pad(c):  # identity blocks keep the function; 2M + 2N + 1 = 11 for this dataset
        c["network"]["blocks"] += [copy.deepcopy(ident) for _ in range(4)]
        c["claim"]["constants"] = {}
    v, lines = verify_certificate(_edit(cert_square, pad))
    assert v == Verdict.REFUTED
    assert any("L = 12 blocks exceeds the budget 2M + 2N + 1 = 11" in ln for ln in lines), lines

    def widen(c):  # a fifth ReLU unit with W = 0 keeps the function
        ff = c["network"]["blocks"][-1]["ff"]
        ff["U"].append(["0", "0"])
        ff["b"].append("0")
        ff["W"].append(["0", "0"])
        c["claim"]["constants"] = {}
    v, lines = verify_certificate(_edit(cert_square, widen))
    assert v == Verdict.REFUTED and any("width 5 > 4" in ln for ln in lines), lines


def test_semantics_must_fit_the_statement(cert16, cert18):
    with pytest.raises(BadInput) as e:
        verify_certificate(_edit(cert16, lambda c: c.update(
            semantics={"attention": "softmax", "tau": "1"})))
    assert e.value.path == "$.semantics.attention"
    with pytest.raises(BadInput) as e:
        verify_certificate(_edit(cert18, lambda c: c.update(semantics={"attention": "hardmax"})))
    assert e.value.path in ("$.semantics.attention", "$.bounds")
    with pytest.raises(BadInput) as e:  # hardmax has no temperature
        verify_certificate(_edit(cert16, lambda c: c["semantics"].update(tau="1")))
    assert e.value.path == "$.semantics.tau" and "'tau'" in e.value.message


def test_bounds_are_compared_as_numbers(cert18_square):
    def respell(c):  # the same numbers, other spellings: 1/1024 -> 3/3072
        for b in c["bounds"]["layers"]:
            b["radius"] = [f"{3 * int(n)}/{3 * int(q or 1)}" for n, _, q in
                           (x.partition("/") for x in b["radius"])]
    assert _edit(cert18_square, respell)["bounds"] != cert18_square["bounds"]
    v, lines = verify_certificate(_edit(cert18_square, respell))
    assert v == Verdict.VERIFIED_CERTIFIED, lines
    with pytest.raises(BadInput) as e:  # a bound for another sub-layer than its place
        verify_certificate(_edit(cert18_square, lambda c: c["bounds"]["layers"].pop(0)))
    assert e.value.path.startswith("$.bounds")


def test_format_1_certificates_still_verify():
    """proofcheck-certificate/1 files (per-layer bounds of the SA layers only, no
    floor) are read: their bounds become hints, the radii are derived."""
    for name in ("theorem-1.8-format1", "theorem-1.6-format1", "lemma-4.1-format1"):
        c = json.loads((ROOT / "tests" / "data" / f"{name}.json").read_text())
        assert c["format"] == "proofcheck-certificate/1"
        for route in ("plain", "fast", "auto"):
            assert verify_certificate(c, route=route).verdict.passed, (name, route)


def test_cli_verify_dataset_option(cert16, cert_lemma, tmp_path, capsys):
    """Issue 14: --dataset names the certificate's dataset (exit as the verdict), a
    different one (exit 2 with both SHA-256), or is refused for a lemma certificate."""
    good = tmp_path / "good.json"
    good.write_text(json.dumps(cert16))
    same = tmp_path / "same.json"
    same.write_text(json.dumps(dataset_to_json(NAMED["common-top"])))
    assert main(["verify", str(good), "--dataset", str(same)]) == 0
    lem = tmp_path / "lemma.json"
    lem.write_text(json.dumps(cert_lemma))
    capsys.readouterr()
    assert main(["verify", str(lem), "--dataset", str(same)]) == 2
    assert "lemma certificate is not about a dataset" in capsys.readouterr().err
    assert main(["verify", str(good), "--dataset", str(tmp_path / "missing.json")]) == 2
    assert "cannot read file" in capsys.readouterr().err
