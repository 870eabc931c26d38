"""Certificates of multi-head and causally masked networks (docs/spec.md §1 "Extensions",
§3): the JSON form, the schema, the kernel's checks per head, forgeries refuted
with their witness; networks without the extensions are unchanged byte for byte."""
from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from fractions import Fraction

import pytest
from conftest import CASES
from hypothesis import given, settings

from proofcheck.constructions.causal import with_mask
from proofcheck.frontend.io.certificate_writer import network_to_json, sa_to_json, seal, theorem_certificate
from proofcheck.kernel.dataset import Dataset, Pair
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.evaluate import run
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.serialize import canonical, network_from_json
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate
from test_heads import networks

F = Fraction


def e(*xs):
    return tuple(F(x) for x in xs)


def two_head_net(causal=True) -> Transformer:
    """d = 2; head 1: A = e1 e1^T (attend to the largest first coordinate), V = I/2;
    head 2: A = e2 (e1+e2)^T, V = e2 e2^T; rho = 1."""
    h1 = (Factored(F(0), (e(1, 0),), (e(1, 0),)), Factored(F(1, 2)))
    h2 = (Factored(F(0), (e(0, 1),), (e(1, 1),)), Factored(F(0), (e(0, 1),), (e(0, 1),)))
    sa = SA.multi(F(1), [h1, h2], causal=causal, label="two heads")
    ff = FF(F(1), (e(1, 1),), (F(-3),), (e(1, 0),), label="kink")
    return Transformer(2, [Block(ff, sa, "test"), Block(FF(F(1)), SA.multi(F(1), [h2, h1]))])


INPUTS = [[e(1, 0), e(3, 1), e(2, 2)], [e(2, 1), e(1, 3)], [e(0, 1), e(1, 1), e(-1, 2)]]


def dataset_of(net) -> Dataset:
    """The dataset whose targets are ``net``'s exact outputs (each pair's set)."""
    outs = run(net, INPUTS)
    pairs = tuple(Pair(tuple(x), tuple(dict.fromkeys(y))) for x, y in zip(INPUTS, outs))
    return Dataset("two-heads", 2, pairs)


@pytest.fixture(scope="module")
def cert():
    net = two_head_net()
    return theorem_certificate("1.6", dataset_of(net), net, Verdict.VERIFIED)


def reseal(c, mutate):
    c = copy.deepcopy(c)
    c.pop("digest")
    mutate(c)
    return seal(c)


def test_outputs_distinct_and_the_mask_matters():
    net = two_head_net()
    assert all(len(set(o)) == len(o) for o in run(net, INPUTS))
    assert run(net, INPUTS) != run(with_mask(net, False), INPUTS)


def test_json_form_of_heads_and_mask(cert):
    sa = cert["network"]["blocks"][0]["sa"]
    assert set(sa) == {"rho", "heads", "causal", "label"} and sa["causal"] is True
    assert len(sa["heads"]) == 2 and set(sa["heads"][0]) == {"A", "V"}
    assert "causal" not in cert["network"]["blocks"][1]["sa"]
    one = sa_to_json(SA(F(0), Factored(F(1)), Factored(F(1))))
    assert list(one) == ["rho", "A", "V", "label"]


@settings(max_examples=40, deadline=None)
@given(networks())
def test_round_trip(case):
    net, _ = case
    assert network_from_json(json.loads(json.dumps(network_to_json(net)))) == net


def test_multi_head_masked_certificate_verifies(cert):
    for route in ("plain", "fast"):
        out = verify_certificate(cert, route=route)
        assert out.verdict is Verdict.VERIFIED, out.lines
    assert "causal mask on 1 of 2 SA layers" in out.detail
    assert any(line.startswith("network: causal mask on 1 of 2") for line in out.lines)


@pytest.mark.parametrize("mutate", [
    lambda c: c["network"]["blocks"][0]["sa"]["heads"][1]["V"].update(lam="1/3"),
    lambda c: c["network"]["blocks"][0]["sa"]["heads"][0]["A"]["left"][0].__setitem__(1, "1"),
    lambda c: c["network"]["blocks"][0]["sa"].__setitem__("causal", False),
    lambda c: c["network"]["blocks"][1]["sa"].__setitem__("causal", True),
], ids=["head-2-V", "head-1-A", "mask-off", "mask-on"])
def test_forged_head_or_mask_is_refuted_with_a_witness(cert, mutate):
    for route in ("plain", "fast"):
        out = verify_certificate(reseal(cert, mutate), route=route)
        assert out.verdict is Verdict.REFUTED
        assert any(line.startswith("witness: ") and "sequence" in line for line in out.lines)


def bad_path(c) -> str:
    with pytest.raises(BadInput) as ex:
        verify_certificate(c)
    return ex.value.path


def test_schema_and_dimensions_per_head(cert):
    sa = lambda c: c["network"]["blocks"][0]["sa"]  # noqa: E731
    both = reseal(cert, lambda c: sa(c).update(A=sa(c)["heads"][0]["A"]))
    assert bad_path(both).startswith("$.network.blocks[0].sa")
    nov = reseal(cert, lambda c: sa(c)["heads"][1].pop("V"))
    assert bad_path(nov).startswith("$.network.blocks[0].sa")
    notbool = reseal(cert, lambda c: sa(c).update(causal="yes"))
    assert bad_path(notbool) == "$.network.blocks[0].sa.causal"
    short = reseal(cert, lambda c: sa(c)["heads"][1]["A"]["left"][0].pop())
    assert bad_path(short) == "$.network.blocks[0].sa.heads[1].A.left[0]"


def test_low_rank_checked_per_head(cert):
    def rotation(c):  # head 2's A = e1 e2^T - e2 e1^T: c I + rank one for no real c
        c["network"]["blocks"][0]["sa"]["heads"][1]["A"] = {
            "lam": "0", "left": [["1", "0"], ["0", "1"]], "right": [["0", "1"], ["-1", "0"]]}
    out = verify_certificate(reseal(cert, rotation))
    assert out.verdict is Verdict.REFUTED
    assert any("block 1 SA head 2: A - c I has rank >= 2 > 1" in line for line in out.lines)


def test_masked_layer_is_not_a_lemma_41_layer(tmp_path):
    path = tmp_path / "l.json"
    subprocess.run([sys.executable, "-m", "proofcheck", "lemma", "4.1", "--certificate",
                    str(path)], check=True, capture_output=True)
    c = json.loads(path.read_text())
    assert verify_certificate(c).verdict is Verdict.VERIFIED
    forged = reseal(c, lambda c: c["instances"][0]["layer"].__setitem__("causal", True))
    out = verify_certificate(forged)
    assert out.verdict is Verdict.REFUTED
    assert any("one head and no mask" in line for line in out.lines)


# ---------------------------------------------- unchanged byte for byte (no extensions)

#: SHA-256 of the canonical JSON (without provenance and digest) of the certificates
#: these commands wrote before heads and masks existed (the claim's fields added since, which
#: name the construction and its block formula, are left out: :data:`ADDED_TO_THE_CLAIM`)
GOLDEN = {
    ("theorem", "1.6", "nested-chain"):
        "49e54865334c0251d3676f19f041fbb5f0cc1b9cf4be5d8c38164dc4ec3cce17",
    ("theorem", "1.8", "nested-chain"):
        "9d9f83d4c6cc6219397776aa74fd20151783f8beaa91b7552f865d0790b98933",
    ("lemma", "4.1", None): "37ee239a9d57141a9c701ad1cdcfd3b7c32232f646c8d84a48677a51e07a8593",
}


#: fields a theorem claim gained after the golden certificates: the construction it names and
#: the block formula's value (docs/spec.md §3); nothing else changed
ADDED_TO_THE_CLAIM = {"construction": (), "L_construction": ("constants",)}


@pytest.mark.parametrize("key", list(GOLDEN), ids=lambda k: "-".join(x for x in k if x))
def test_certificates_without_extensions_unchanged_byte_for_byte(key, tmp_path):
    kind, st, case = key
    path = tmp_path / "c.json"
    cmd = [sys.executable, "-m", "proofcheck", kind, st, "--certificate", str(path)]
    if case:
        cmd += ["--dataset", str(CASES / f"{case}.json"), "--no-report"]
    if st == "1.8":
        cmd.append("--no-simulation")
    subprocess.run(cmd, check=True, capture_output=True)
    c = json.loads(path.read_text())
    body = {k: v for k, v in c.items() if k not in ("provenance", "digest")}
    if kind == "theorem":
        for field, where in ADDED_TO_THE_CLAIM.items():
            node = body["claim"]
            for k in where:
                node = node[k]
            node.pop(field)
    assert hashlib.sha256(canonical(body)).hexdigest() == GOLDEN[key]


def test_witness_json_names_the_head_only_when_set():
    from proofcheck.kernel.verdicts import Witness
    from proofcheck.frontend.reporting.run_report import _witness_json
    assert "head" not in _witness_json(Witness("r", block=1, sublayer="SA"))
    w = Witness("r", block=1, sublayer="SA", sequence=0, token=2, head=2)
    assert _witness_json(w)["head"] == 2
    assert "block 1, sub-layer SA, head 2, sequence 0, token 2" in w.describe()
