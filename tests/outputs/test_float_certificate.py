"""The rounding certificate of ``audit --float-safe DTYPE`` (issue 29, item 5): exact
expected values on a small network, each condition failing with its place when a
weight, an input or a tie set is changed, the exact boundary of the partial-sum bound,
a cross-check against a numpy float32 evaluation, and the audit's JSON (the float run
labelled as a run)."""
from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.frontend.export.float_certificate import certify, valuation
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer

X2 = [[(F(1), F(2)), (F(3), F(4))]]


def small_net(b=F(-2), u0=F(1), v_lam=F(1), d=2):
    """Block 1: FF x + e_1 relu(x_1 + x_2 + b); SA with A = 0 (one tie set: the whole
    sequence), V = v_lam I, rho = 0."""
    ff = FF(F(1), U=((u0, F(1)),), b=(b,), W=((F(1), F(0)),))
    sa = SA(F(0), Factored(F(0)), Factored(v_lam))
    return Transformer(d, [Block(ff, sa)])


def test_exact_values_on_a_small_network():
    """Token (3, 4): pre-activation terms 3, 4, -2: sum |terms| = 9 (the largest); after
    the FF the tokens are (2, 2), (8, 4); the tie set is both tokens (size 2) and the mean
    (5, 3) has terms 1, 4 and 1, 2 on the grid 2^0."""
    cert = certify(small_net(), X2, "float32")
    assert cert.verdict == "HOLDS" and cert.failure is None
    assert cert.largest_sum == 9 and cert.largest_ratio == 9 and cert.grid_exponent == 0
    assert cert.largest_sum_at == {"block": 1, "sublayer": "FF", "node": "pre-activation",
                                   "sequence": 0, "token": 1, "unit": 0}
    assert cert.tie_sizes == {2: 2}
    j = cert.to_json()
    assert j["largest_sum_abs_terms"] == "9" and j["largest_sum_abs_terms_bits"] == "3.17"
    assert j["verdict"] == "HOLDS" and j["dtype"] == "float32" and j["precision_bits"] == 24


def test_the_bound_is_exact_at_2_to_the_24():
    """Token (3, 4) with b = -(2^24 - 7): sum |terms| = 2^24 exactly, allowed; one more
    and the first failure is that sum, with its place and exact value."""
    ok = certify(small_net(b=-F(2 ** 24 - 7)), X2, "float32")
    assert ok.verdict == "HOLDS" and ok.largest_sum == 2 ** 24
    bad = certify(small_net(b=-F(2 ** 24 - 6)), X2, "float32")
    assert bad.verdict == "FAILS"
    f = bad.failure
    assert (f["code"], f["block"], f["sublayer"], f["node"], f["sequence"], f["token"],
            f["unit"], f["sum_abs_terms"], f["grid_exponent"]) == (
        "partial-sum-bound", 1, "FF", "pre-activation", 0, 1, 0, str(2 ** 24 + 1), 0)


def test_a_weight_off_the_format_fails_with_its_parameter():
    cert = certify(small_net(u0=F(1, 3)), X2, "float32")
    f = cert.failure
    assert cert.verdict == "FAILS" and (f["code"], f["block"], f["sublayer"], f["parameter"]) == (
        "weight-not-representable", 1, "FF", "U[0][0]")
    # 2^24 + 1 is an integer but not a float32 value
    assert certify(small_net(b=F(2 ** 24 + 1)), X2, "float32").failure["parameter"] == "b[0]"
    assert certify(small_net(b=F(2 ** 24 + 1)), X2, "float64").verdict == "HOLDS"


def test_an_input_off_the_format_fails_with_its_place():
    X = [[(F(1), F(2)), (F(3), F(1, 10))]]
    f = certify(small_net(), X, "float32").failure
    assert (f["code"], f["sequence"], f["token"], f["coordinate"]) == (
        "input-not-representable", 0, 1, 1)


def test_a_tie_set_of_three_fails_with_its_token():
    X = [[(F(1), F(2)), (F(3), F(4)), (F(5), F(6))]]
    cert = certify(small_net(), X, "float32")
    f = cert.failure
    assert (f["code"], f["block"], f["sublayer"], f["sequence"], f["token"], f["tie_set"]) == (
        "tie-not-power-of-two", 1, "SA", 0, 0, [0, 1, 2])


def test_a_grid_below_the_smallest_normal_fails():
    """V = 2^-126 I is a normal float32, but the mean's terms then sit on 2^-126 times a
    grid 2^-1 (the tie of two): below the smallest normal."""
    X = [[(F(1), F(2)), (F(3), F(4))]]
    cert = certify(small_net(v_lam=F(1, 2 ** 126)), [[(F(1), F(3)), (F(3), F(4))]], "float32")
    assert cert.verdict == "FAILS" and cert.failure["code"] == "grid-below-normal"
    assert certify(small_net(v_lam=F(1, 2 ** 100)), X, "float32").verdict == "HOLDS"


def test_softmax_fails_and_a_wrong_reference_is_an_error():
    assert certify(small_net(), X2, "float32", attention="softmax").failure["code"] == "softmax"
    wrong = [(F(5), F(3)), (F(5), F(4))]
    cert = certify(small_net(), X2, "float32", exact_final=wrong)
    assert cert.verdict == "ERROR" and cert.failure["code"] == "cross-check"


def test_valuation():
    assert [valuation(F(x)) for x in (12, F(3, 8), -1)] == [2, -3, 0]
    assert valuation(F(1, 3)) is None and valuation(F(0)) > 10 ** 6


def _numpy_float32(net, inputs):
    from proofcheck.frontend.export.arch import describe, rounded_arrays
    from proofcheck.frontend.export.numpy_eval import NumpyNet, pad
    tensors, _ = rounded_arrays(net, "float32")
    ev = NumpyNet(tensors, describe(net), np.float32)
    X, mask = pad([[[float(v) for v in x] for x in s] for s in inputs], np.float32)
    return ev.forward(X, mask), mask


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-2 ** 11, 2 ** 11), st.integers(-2 ** 11, 2 ** 11)),
                min_size=2, max_size=2, unique=True),
       st.integers(-2 ** 12, 2 ** 12), st.integers(-8, 8), st.sampled_from([1, 2, 4, -1]))
def test_holds_implies_numpy_float32_equals_the_exact_outputs(toks, b, u0, v):
    """Where the certificate HOLDS, numpy's float32 evaluation (one summation order)
    equals the exact outputs bit for bit (a cross-check of the lemma's use)."""
    from proofcheck.kernel.evaluate import run
    net = small_net(b=F(b), u0=F(u0), v_lam=F(v))
    inputs = [[(F(x), F(y)) for x, y in toks]]
    cert = certify(net, inputs, "float32")
    exact = run(net, inputs)[0]
    if cert.verdict == "HOLDS":
        out, mask = _numpy_float32(net, inputs)
        assert [tuple(F(float(v)) for v in row) for row in out[0][mask[0]]] == \
            [tuple(r) for r in exact]


@pytest.fixture(scope="module")
def audit_json(tmp_path_factory):
    from proofcheck.frontend.cli import main
    out = tmp_path_factory.mktemp("audit") / "a.json"
    assert main(["audit", "1.6", "--limit", "6", "--construction", "bounded",
                 "--float-safe", "float32", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_audit_writes_the_certificate_and_labels_the_float_run(audit_json, capsys):
    cert = audit_json["rounding_certificate"]
    assert cert["verdict"] == "HOLDS" and cert["dtype"] == "float32"
    assert cert["first_failure"] is None and int(cert["largest_sum_abs_terms"]) < 2 ** 24
    assert set(map(int, cert["tie_set_sizes"])) <= {1, 2, 4, 8, 16}
    runs = audit_json["float_runs"]
    assert runs and all(r["kind"] == "run" and "not a verdict" in r["what"] for r in runs)


def test_audit_default_construction_certificate_fails_with_its_place(tmp_path):
    """The default network's first tag (A = u u^T, u = (17^5, ..., 1)) has sums of
    |terms| above 2^24: the certificate fails there, at block 1's SA."""
    from proofcheck.frontend.cli import main
    out = tmp_path / "a.json"
    assert main(["audit", "1.6", "--limit", "6", "--float-safe", "float32",
                 "--json", str(out)]) == 0
    cert = json.loads(out.read_text())["rounding_certificate"]
    f = cert["first_failure"]
    assert cert["verdict"] == "FAILS" and (f["code"], f["block"], f["sublayer"]) == (
        "partial-sum-bound", 1, "SA")


def test_the_first_failure_is_in_trajectory_order():
    """A sum that breaks the bound in block 1 is reported before a weight off the
    format in block 2."""
    first = small_net(b=-F(2 ** 24 - 6))
    later = small_net(u0=F(1, 3))
    net = Transformer(2, first.blocks + later.blocks)
    f = certify(net, X2, "float32").failure
    assert (f["block"], f["code"]) == (1, "partial-sum-bound")
    net = Transformer(2, small_net().blocks + later.blocks)
    f = certify(net, X2, "float32").failure
    assert (f["block"], f["sublayer"], f["code"]) == (2, "FF", "weight-not-representable")
