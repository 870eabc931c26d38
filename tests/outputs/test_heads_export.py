"""Export of multi-head and causally masked networks (docs/spec.md §1 "Extensions"): the
ONNX graph (heads and the mask as its own ops) run in onnxruntime and the numpy
evaluator against the exact outputs, the float audit per head; single-head
exports unchanged byte for byte; PyTorch and safetensors refuse the extensions."""
from __future__ import annotations

import hashlib
import json
from fractions import Fraction

import numpy as np
import pytest
from conftest import CASES
from test_heads import e, ref_run

from proofcheck.frontend.export.arch import arrays, describe
from proofcheck.frontend.export.audit import audit
from proofcheck.frontend.export.numpy_eval import NumpyNet, pad
from proofcheck.kernel.evaluate import run
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer

F = Fraction
onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def net_with_ties(causal=True) -> Transformer:
    """Two blocks, d = 2: a masked two-head layer (rank-one max head, lam I head with
    ties on the integer grid) then a masked one-head layer; FF with a kink."""
    up = Factored(F(0), (e(1, 0),), (e(1, 1),))
    gram = Factored(F(1))
    h1 = (up, Factored(F(1, 2)))
    h2 = (gram, Factored(F(0), (e(0, 1),), (e(1, 0),)))
    sa1 = SA.multi(F(1), [h1, h2], causal=causal, label="two heads")
    sa2 = SA(F(0), Factored(F(0), (e(0, 1),), (e(0, 1),)), Factored(F(1)), causal=causal)
    ff = FF(F(1), (e(1, -1),), (F(1),), (e(0, 1),), label="kink")
    return Transformer(2, [Block(FF(F(1)), sa1), Block(ff, sa2)])


INPUTS = [[e(1, 0), e(-1, 0), e(0, 2), e(2, 1)], [e(1, 1), e(1, -1)], [e(0, 0), e(2, 2), e(-2, 1)]]


def exact(net):
    return [np.array([[float(x) for x in t] for t in s]) for s in run(net, INPUTS)]


def onnx_outputs(net, tmp_path, dtype="float64"):
    from onnx_run import run_onnx
    from proofcheck.frontend.export.onnx_graph import write_onnx
    path = write_onnx(tmp_path / "m.onnx", arrays(net, dtype), describe(net), dtype)
    X, mask = pad([np.array([[float(x) for x in t] for t in s]) for s in INPUTS],
                  np.float64 if dtype == "float64" else np.float32)
    return run_onnx(path, X, mask), mask, path


@pytest.mark.parametrize("causal", [True, False])
def test_onnx_matches_the_exact_outputs(causal, tmp_path):
    net = net_with_ties(causal)
    assert run(net, INPUTS) == ref_run(net, INPUTS)
    Y, mask, path = onnx_outputs(net, tmp_path)
    for j, want in enumerate(exact(net)):
        assert np.array_equal(Y[j, :len(want)], want)  # dyadic data: float64 is exact here
    ops = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert ("Trilu" in ops) is causal


def test_the_mask_changes_the_onnx_outputs(tmp_path):
    a, _, _ = onnx_outputs(net_with_ties(True), tmp_path)
    b, _, _ = onnx_outputs(net_with_ties(False), tmp_path)
    assert not np.array_equal(a, b)


def test_numpy_evaluator_matches_onnx(tmp_path):
    net = net_with_ties()
    Y, mask, _ = onnx_outputs(net, tmp_path)
    X, _ = pad([np.array([[float(x) for x in t] for t in s]) for s in INPUTS], np.float64)
    assert np.array_equal(NumpyNet(arrays(net), describe(net)).forward(X, mask)[mask], Y[mask])


def test_audit_of_a_masked_multi_head_network_is_exact_in_float64():
    net = net_with_ties()
    targets = [list(dict.fromkeys(o)) for o in run(net, INPUTS)]
    res = audit(net, INPUTS, targets, "float64")
    assert res.exits_total == 0 and res.first_exit is None
    assert res.final["all_equal"] is True


def test_audit_finds_a_head_exit():
    """Head 2 scores ``x_i1 (x_l1 + x_l2)``: keys (1/3, 7/3) and (2/3, 2) tie exactly
    (8/3), not in float32 — under the mask token 1 sees both: an exit in head 2."""
    sum_ = Factored(F(0), (e(1, 1),), (e(1, 0),))
    sa = SA.multi(F(0), [(Factored(F(0)), Factored(F(1))), (sum_, Factored(F(1)))], causal=True)
    net = Transformer(2, [Block(FF(F(1)), sa)])
    ins = [[(F(1, 3), F(7, 3)), (F(2, 3), F(2))]]
    targets = [list(dict.fromkeys(o)) for o in run(net, ins)]
    assert audit(net, ins, targets, "float64").exits_total == 0
    res = audit(net, ins, targets, "float32")
    ex = res.first_exit
    assert res.exits_total == 1 and ex["head"] == 2 and (ex["sequence"], ex["token"]) == (0, 1)
    assert ex["exact"] == [0, 1]


def test_sa_exit_detector_reads_the_mask():
    """A = I on (1,0), (3,0), (2,0): masked argmax sets {0}, {1}, {1}; a float set that
    attends to token 1 from token 0 (the unmasked answer) is an exit."""
    from proofcheck.frontend.export.audit import _sa_exits
    sa = SA(F(0), Factored(F(1)), Factored(F(1)), causal=True)
    ex = [e(1, 0), e(3, 0), e(2, 0)]
    E = np.array([[float(v) for v in x] for x in ex])
    mask = np.ones((1, 3), dtype=bool)
    C = np.zeros((1, 3, 3), dtype=bool)
    C[0, 0, 0] = C[0, 1, 1] = C[0, 2, 1] = True
    got = []
    assert _sa_exits(sa, C, E, ex, mask, [(0, 3)], 2, 2.0 ** -50, lambda *a: got.append(a)) == 0
    C[0, 0] = [False, True, False]
    assert _sa_exits(sa, C, E, ex, mask, [(0, 3)], 2, 2.0 ** -50, lambda *a: got.append(a)) == 1
    assert got[0][0] == 0 and got[0][3] == [1]


def test_single_head_onnx_unchanged_byte_for_byte():
    """SHA-256 of the serialized single-head graphs of the default construction (float64,
    float32; hardmax on nested-chain, softmax at 1/8 on square-and-centre): heads and masks
    left them as they were; they changed once since, when padded keys were masked out of the
    value sum (``Where`` on the values; test_export.py, padding isolation), and the graph
    description (``desc_want``) did not change then."""
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.frontend.export.onnx_graph import build_model
    from proofcheck.frontend.io.datasets import load_dataset
    want = {"nested-chain-float64": "75530d0dc3abc3d2117351eeece47a2f05e083712f72a34759f203b12f9acaee",
            "nested-chain-float32": "67499449d444278435b2ec012723418c6366f3636a9967626a4a22c39a9a3695",
            "square-and-centre-float64":
                "db532d15df9b69d98f0fbb9908420fb2e4e7ad8aa0dbd471e54b20a98a03f19b",
            "square-and-centre-float32":
                "8a2db307e79e4af197a4e02920f68ada4a2d8620808d8f1cc873ce39aa35d93c"}
    desc_want = {"nested-chain": "b0cf1cff2513d6adc6dcc4820c9de1d92055d637aea6fd5c18e63ae4e42a8691",
                 "square-and-centre":
                     "302fdad98a4ff6d1065f0d4421dbf73f5ac7289d37bfaea5c33fe7e359ec9bef"}
    for case, att in (("nested-chain", "hardmax"), ("square-and-centre", "softmax")):
        ds = load_dataset(CASES / f"{case}.json")
        ins, tg = [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]
        net = get("default", "1.6").build(ins, tg, ds.d).net
        desc = describe(net, att, None if att == "hardmax" else "1/8")
        assert hashlib.sha256(json.dumps(desc, sort_keys=True).encode()).hexdigest() == \
            desc_want[case]
        for dt in ("float64", "float32"):
            m = build_model(arrays(net, dt), desc, dt)
            assert hashlib.sha256(m.SerializeToString()).hexdigest() == want[f"{case}-{dt}"]


def test_torch_and_safetensors_refuse_the_extensions(tmp_path):
    from proofcheck.frontend.export.safetensors_writer import write_safetensors
    net = net_with_ties()
    with pytest.raises(ValueError, match="one unmasked head"):
        write_safetensors(tmp_path / "m.safetensors", arrays(net), describe(net))
    with pytest.raises(ValueError, match="one unmasked head"):
        audit(net, INPUTS, [list(dict.fromkeys(o)) for o in run(net, INPUTS)], "bfloat16")
