"""Export (torch, ONNX, safetensors), float audit and certified rounding (issue 13).

Round trips run on small datasets: the exported float64 model, loaded by torch /
onnxruntime / numpy, must agree with the exact evaluation (the targets: the exact
check VERIFIES these networks) wherever the float trajectory stays in the exact
regions — which the float64 audit confirms on the same data.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.options import ConstructionOptions, float_safe_hat, float_safe_snap, pow2_floor
from proofcheck.frontend.export.arch import arrays, describe, tensor_values
from proofcheck.frontend.export.audit import _ff_exits, _sa_exits, audit
from proofcheck.frontend.runs.build import build, metadata
from proofcheck.frontend.export.numpy_eval import NumpyNet, pad
from proofcheck.frontend.export.rounding import (
    FORMATS,
    FormatOverflow,
    certify_rounded,
    is_representable,
    round_network,
    round_q,
)
from proofcheck.frontend.io.examples import sample
from proofcheck.kernel.dataset import Dataset, Pair, digest
from proofcheck.kernel.model import FF, Transformer
from mutate import with_parameter
from proofcheck.kernel.verdicts import Verdict

F32, F64, BF16 = FORMATS["float32"], FORMATS["float64"], FORMATS["bfloat16"]


def _F(*xs):
    return tuple(Fraction(x) for x in xs)


SQUARE = Dataset("square", 2, (
    Pair((_F(2, 2), _F(0, 2), _F(0, 0), _F(2, 0)), (_F(1, 9),)),
    Pair((_F(2, 2), _F(0, 2), _F(0, 0), _F(2, 0), _F(1, 1)), (_F(1, -9), _F(3, 3))),
))


@pytest.fixture(scope="module")
def digits6():
    ds, _ = sample(limit=6)
    return build("1.6", ds, check=True)


@pytest.fixture(scope="module")
def digits6_safe():
    ds, _ = sample(limit=6)
    return build("1.6", ds, check=True, options=ConstructionOptions("float32"))


def _padded(b, dtype=np.float64):
    return pad([[[float(v) for v in x] for x in X] for X in b.inputs], dtype)


def _target_error(b, Y, mask):
    """Largest max-norm distance of an output token to the nearest target of its
    pair, and whether every target is reached within 1e-6."""
    worst, hit = 0.0, True
    for j, Ys in enumerate(b.targets):
        out = Y[j][mask[j]]
        T = np.array([[float(v) for v in y] for y in Ys])
        dist = np.max(np.abs(out[:, None, :] - T[None, :, :]), axis=-1)
        worst = max(worst, float(dist.min(axis=1).max()))
        hit &= bool(np.all(dist.min(axis=0) < 1e-6))
    return worst, hit


# ----------------------------------------------------------------- rounding
@settings(max_examples=150, deadline=None)
@given(st.fractions(), st.integers(-300, 300))
def test_round_float64_is_cpython_correct_rounding(q, e):
    q = q * Fraction(2) ** e
    try:
        ref = Fraction(q.numerator / q.denominator)  # CPython: correctly rounded
    except OverflowError:
        with pytest.raises(FormatOverflow):
            round_q(q, F64)
        return
    assert round_q(q, F64) == ref


@settings(max_examples=150, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_round_float32_matches_numpy_single_rounding(x):
    with np.errstate(over="ignore"):
        ref = np.float32(x)
    if not np.isfinite(ref):
        with pytest.raises(FormatOverflow):
            round_q(Fraction(x), F32)
        return
    assert round_q(Fraction(x), F32) == Fraction(float(ref))


def test_round_ties_subnormals_overflow():
    one = Fraction(1)
    assert round_q(one + Fraction(1, 2 ** 24), F32) == one                 # tie to even
    assert round_q(one + Fraction(3, 2 ** 24), F32) == one + Fraction(1, 2 ** 22)
    assert round_q(-(one + Fraction(3, 2 ** 24)), F32) == -(one + Fraction(1, 2 ** 22))
    assert round_q(F32.min_subnormal / 2, F32) == 0                        # tie to even: 0
    assert round_q(F32.min_subnormal * Fraction(3, 4), F32) == F32.min_subnormal
    assert round_q(F32.max_finite, F32) == F32.max_finite
    with pytest.raises(FormatOverflow):
        round_q(F32.max_finite + F32.max_finite / 2 ** 24, F32)             # halfway up: inf
    assert round_q(Fraction(1, 3), BF16) == Fraction(171, 512)
    assert is_representable(Fraction(3, 8), BF16) and not is_representable(Fraction(1, 3), F64)


def test_round_bfloat16_matches_torch():
    torch = pytest.importorskip("torch", reason="torch not installed (extra 'torch')")
    xs = np.random.default_rng(0).standard_normal(500).astype(np.float32) * 1e3
    ref = torch.from_numpy(xs).to(torch.bfloat16).float().numpy()
    for x, r in zip(xs, ref):
        assert round_q(Fraction(float(x)), BF16) == Fraction(float(r))


# ------------------------------------------------------------- options
def test_default_options_leave_the_network_unchanged():
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    ins = [list(p.inputs) for p in SQUARE.pairs]
    outs = [list(p.outputs) for p in SQUARE.pairs]
    a = construct(ins, outs, 2)
    b = construct(ins, outs, 2, options=ConstructionOptions())
    assert list(a.net.parameters()) == list(b.net.parameters())


def test_float_safe_pieces():
    assert pow2_floor(Fraction(3, 2)) == 1 and pow2_floor(Fraction(1, 3)) == Fraction(1, 4)
    c, dl = float_safe_snap(Fraction(2 ** 24 + 1), Fraction(4), "float32")
    assert is_representable(c, F32) and dl == 2 and abs(c - (2 ** 24 + 1)) <= dl / 2
    assert 2 * dl + abs(c - (2 ** 24 + 1)) <= 2 * 4
    with pytest.raises(ValueError, match="too coarse"):
        float_safe_snap(Fraction(2 ** 24 + 1), Fraction(3, 2), "float32")
    c, d1, d2 = float_safe_hat(Fraction(10, 3), Fraction(1, 2), "float32")
    assert d2 == 2 * d1 and abs(c - Fraction(10, 3)) <= d1 / 2 and d2 <= Fraction(1, 2)
    with pytest.raises(ValueError, match="too coarse"):
        float_safe_hat(Fraction(2 ** 30 + 1), Fraction(1, 2), "float32")


def test_float_safe_rejects_unrepresentable_targets():
    ds = Dataset("thirds", 2, (Pair((_F(0, 0), _F(1, 0)), (_F("1/3", 0),)),
                               Pair((_F(0, 1), _F(1, 1)), (_F(1, 1),))))
    with pytest.raises(ValueError, match="not a float32 value"):
        build("1.6", ds, check=False, options=ConstructionOptions("float32"))


# ------------------------------------------------------- certified rounding
def test_certified_rounding_default_refuted_float_safe_verified(digits6, digits6_safe):
    assert digits6.verdict is Verdict.VERIFIED and digits6_safe.verdict is Verdict.VERIFIED
    rc = certify_rounded(digits6.net, digits6.inputs, digits6.targets, F32, digits6.claims)
    assert rc.verdict is Verdict.REFUTED and rc.witness.sequence is not None
    assert rc.stats["changed"] > 0 and rc.departure is not None and rc.departure.block >= 1
    safe = certify_rounded(digits6_safe.net, digits6_safe.inputs, digits6_safe.targets, F32)
    assert safe.verdict is Verdict.VERIFIED
    assert safe.stats["changed"] == 0        # every weight already a float32 value
    # same budget as the default construction: blocks and parameters unchanged
    assert digits6_safe.net.L == digits6.net.L
    assert digits6_safe.net.n_params() == digits6.net.n_params()


def test_certified_rounding_can_fail_one_ulp(digits6_safe):
    """Mutation: one snap weight moved by one float32 ulp breaks exactness."""
    net = digits6_safe.net
    bi = net.L  # the last block: a snap
    w = net.blocks[bi - 1].ff.W[0][0]
    ulp = Fraction(2) ** (Fraction(abs(w)).numerator.bit_length()
                          - Fraction(abs(w)).denominator.bit_length() - 23)
    bad = with_parameter(net, bi, "FF", "W[0][0]", w + ulp)
    assert is_representable(w + ulp, F32)
    rc = certify_rounded(bad, digits6_safe.inputs, digits6_safe.targets, F32)
    assert rc.verdict is Verdict.REFUTED and rc.witness.got is not None


def test_certified_rounding_overflow_witness():
    net = Transformer(2, [])
    from proofcheck.constructions.layers import identity_sa
    from proofcheck.kernel.model import Block
    net.blocks.append(Block(FF(Fraction(1), U=(_F(0, 0),), b=(Fraction(1),),
                               W=(_F(10 ** 40, 0),)), identity_sa()))
    rc = certify_rounded(net, [[_F(1, 1)]], [[_F(1, 1)]], F32)
    assert rc.verdict is Verdict.REFUTED
    assert rc.witness.block == 1 and rc.witness.sublayer == "FF" and "overflows float32" in \
        rc.witness.reason
    assert round_network(net, F64)[1]["overflow"] == []


# ------------------------------------------------------------ exports
def test_arrays_are_nearest_rounding(digits6):
    arr = arrays(digits6.net, "float32")
    for name, (shape, vals) in tensor_values(digits6.net).items():
        a = arr[name]
        assert a.shape == shape and a.dtype == np.float32
        for x, v in zip(a.reshape(-1).tolist(), vals):
            assert Fraction(x) == round_q(v, F32)


def test_torch_round_trip(tmp_path, digits6):
    torch = pytest.importorskip("torch", reason="torch not installed (extra 'torch')")
    from proofcheck.frontend.export.torch_module import SOURCE_NAME, module_source, write_torch
    src = module_source()
    mods = {a.name for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)}
    assert not any(m.startswith("proofcheck") for m in mods), mods
    meta = metadata(digits6, "float64")
    out = write_torch(tmp_path / "net", arrays(digits6.net), describe(digits6.net, metadata=meta))
    X, mask = _padded(digits6)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "mask.npy", mask)
    # a fresh interpreter in which proofcheck cannot be imported at all
    code = (f"import sys; sys.modules['proofcheck'] = None; sys.path.insert(0, {str(out)!r})\n"
            "import numpy as np, torch, proofcheck_net\n"
            f"m, meta = proofcheck_net.load({str(out)!r})\n"
            f"X = torch.from_numpy(np.load({str(tmp_path / 'X.npy')!r}))\n"
            f"mk = torch.from_numpy(np.load({str(tmp_path / 'mask.npy')!r}))\n"
            f"np.save({str(tmp_path / 'Y.npy')!r}, m(X, mk).numpy())\n"
            "print(meta['dataset_sha256'], meta['certificate_digest'])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [digest(digits6.dataset), digits6.certificate["digest"]]
    assert (out / SOURCE_NAME).exists()
    Y = np.load(tmp_path / "Y.npy")
    err, hit = _target_error(digits6, Y, mask)
    a = audit(digits6.net, digits6.inputs, digits6.targets, "float64")
    assert a.exits_total == 0 and a.final["all_round"]   # float64 stays in the exact regions
    assert err <= max(a.max_dev * 4, 1e-9) and err < 1e-6 and hit
    # the in-process module agrees with the numpy evaluator
    sys.path.insert(0, str(out))
    try:
        import proofcheck_net
        m, _ = proofcheck_net.load(out)
        Yt = m(torch.from_numpy(X), torch.from_numpy(mask)).numpy()
    finally:
        sys.path.remove(str(out))
        sys.modules.pop("proofcheck_net", None)
    Yn = NumpyNet(arrays(digits6.net), describe(digits6.net)).forward(X, mask)
    assert np.max(np.abs(Yt - Yn)[mask]) <= 1e-6


def test_onnx_round_trip_and_metadata(tmp_path, digits6):
    pytest.importorskip("onnx", reason="onnx not installed (extra 'export')")
    pytest.importorskip("onnxruntime", reason="onnxruntime not installed (extra 'export')")
    import onnx

    from onnx_run import run_onnx
    from proofcheck.frontend.export.onnx_graph import OPSET, write_onnx
    meta = metadata(digits6, "float64")
    p = write_onnx(tmp_path / "net.onnx", arrays(digits6.net), describe(digits6.net, metadata=meta))
    m = onnx.load(str(p))
    props = {x.key: x.value for x in m.metadata_props}
    assert props["dataset_sha256"] == digest(digits6.dataset)
    assert props["certificate_digest"] == digits6.certificate["digest"]
    assert "round-half-to-even" in props["rounding"] and m.opset_import[0].version == OPSET
    X, mask = _padded(digits6)
    Y = run_onnx(p, X, mask)
    err, hit = _target_error(digits6, Y, mask)
    assert err < 1e-6 and hit


def _extra_padding(X, mask, k: int, value: float):
    """``X``/``mask`` with ``k`` more padded positions per sequence, every padded
    position (old and new) holding ``value``."""
    B, n, d = X.shape
    Xp = np.zeros((B, n + k, d), dtype=X.dtype)
    Xp[:, :n] = X
    mp = np.zeros((B, n + k), dtype=bool)
    mp[:, :n] = mask
    Xp[~mp] = value
    return Xp, mp


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e300])
def test_onnx_real_outputs_are_isolated_from_the_padding(tmp_path, value):
    """The bug report's case (pytorch#101967 class): the digits sample (40 sequences
    of 16 tokens, d = 6: 3,840 real output coordinates) padded by 3 positions that
    hold NaN, inf or 1e300.  A padded key has weight 0, and its value must not enter
    the weighted sum (0 * NaN = NaN): every real output equals, bit for bit, the
    output of the unpadded batch.  Also softmax (SQUARE at tau = 1/64, ragged
    sequences: padding already inside the batch)."""
    pytest.importorskip("onnxruntime", reason="onnxruntime not installed (extra 'export')")
    from onnx_run import run_onnx
    from proofcheck.frontend.export.onnx_graph import write_onnx
    ds, _ = sample()
    cases = [(build("1.6", ds, check=False), "hardmax", None),
             (build("1.8", SQUARE, tau=Fraction(1, 64), check=False), "softmax", Fraction(1, 64))]
    for k, (b, attention, tau) in enumerate(cases):
        desc = describe(b.net, attention, tau, metadata(b, "float64"))
        path = write_onnx(tmp_path / f"net{k}.onnx", arrays(b.net), desc)
        X, mask = _padded(b)
        Y = run_onnx(path, X, mask)
        Xp, mp = _extra_padding(X, mask, 3, value)
        Yp = run_onnx(path, Xp, mp)
        assert np.isfinite(Y[mask]).all()
        assert np.array_equal(Yp[mp], Y[mask]), (attention, value)
        if k == 0:
            assert Y[mask].size == 3840


def test_safetensors_round_trip(tmp_path, digits6):
    pytest.importorskip("safetensors", reason="safetensors not installed (extra 'export')")
    from proofcheck.frontend.export.safetensors_writer import read_safetensors, write_safetensors
    arr = arrays(digits6.net)
    desc = describe(digits6.net, metadata=metadata(digits6, "float64"))
    p = write_safetensors(tmp_path / "net.safetensors", arr, desc)
    t, d2 = read_safetensors(p)
    assert set(t) == set(arr) and all(np.array_equal(t[k], arr[k]) for k in arr)
    assert d2["metadata"]["dataset_sha256"] == digest(digits6.dataset)
    side = json.loads((tmp_path / "net.safetensors.json").read_text())
    assert side["blocks"] == d2["blocks"] and side["L"] == digits6.net.L
    X, mask = _padded(digits6)
    err, hit = _target_error(digits6, NumpyNet(t, d2).forward(X, mask), mask)
    assert err < 1e-6 and hit


def test_softmax_export_torch_matches_onnx(tmp_path):
    pytest.importorskip("onnxruntime", reason="onnxruntime not installed (extra 'export')")
    from onnx_run import run_onnx
    from proofcheck.frontend.export.onnx_graph import write_onnx
    b = build("1.8", SQUARE, tau=Fraction(1, 64), check=True)
    assert b.verdict is Verdict.VERIFIED_CERTIFIED
    desc = describe(b.net, "softmax", b.tau, metadata(b, "float64"))
    assert desc["attention"] == "softmax" and desc["tau"] == "1/64"
    X, mask = _padded(b)
    Y = run_onnx(write_onnx(tmp_path / "s.onnx", arrays(b.net), desc), X, mask)
    Yn = NumpyNet(arrays(b.net), desc).forward(X, mask)
    assert np.max(np.abs(Y - Yn)[mask]) < 1e-6
    err, hit = _target_error(b, Y, mask)
    assert err < 1e-6 and hit


# ---------------------------------------------------------------- audit
def test_audit_float_safe_is_exact_in_float32(digits6_safe):
    """Float-safe float32 weights, small integer data: every float32 operation is
    exact here, so the audit finds zero deviation and equal outputs."""
    a = audit(digits6_safe.net, digits6_safe.inputs, digits6_safe.targets, "float32")
    assert a.max_dev == 0 and a.exits_total == 0 and a.final["all_equal"]


def test_audit_default_float32_finds_the_exit(digits6):
    a = audit(digits6.net, digits6.inputs, digits6.targets, "float32")
    assert a.first_exit is not None and not a.final["all_round"]
    fe = a.first_exit
    assert 1 <= fe["block"] <= digits6.net.L and fe["sublayer"] in ("FF", "SA")
    rows = [r for r in a.layers if r.block == fe["block"] and r.sublayer == fe["sublayer"]]
    assert rows[0].exits >= 1 and len(a.layers) == 2 * digits6.net.L


def test_ff_exit_detector_can_fail():
    ff = FF(Fraction(1), U=(_F(1, 0),), b=(Fraction(-1),), W=(_F(1, 0),))
    ex = [_F(2, 0), _F(0, 0), _F(1, 0)]           # z = 1, -1, 0 (kink)
    E = np.array([[float(v) for v in x] for x in ex])
    got = []
    ok = _ff_exits(ff, np.array([[1.0], [-1.0], [5.0]]), E, ex, 2.0 ** -50,
                   lambda *a: got.append(a))
    assert ok == 0 and got == []                  # the kink row may go either way
    bad = _ff_exits(ff, np.array([[1.0], [0.5], [0.0]]), E, ex, 2.0 ** -50,
                    lambda *a: got.append(a))
    assert bad == 1 and got[0][:2] == (1, 0)


def test_sa_exit_detector_can_fail():
    from proofcheck.kernel.model import SA, Factored
    sa = SA(Fraction(0), Factored(Fraction(1)), Factored(Fraction(1)))
    ex = [_F(3, 0), _F(1, 0), _F(2, 0)]
    E = np.array([[float(v) for v in x] for x in ex])
    mask = np.ones((1, 3), dtype=bool)
    C = np.zeros((1, 3, 3), dtype=bool)
    C[0, :, 0] = True                             # every token attends to token 0
    got = []
    assert _sa_exits(sa, C, E, ex, mask, [(0, 3)], 2, 2.0 ** -50, lambda *a: got.append(a)) == 0
    C[0, 1] = [False, True, False]
    assert _sa_exits(sa, C, E, ex, mask, [(0, 3)], 2, 2.0 ** -50, lambda *a: got.append(a)) == 1
    assert got[0][0] == 1 and got[0][2] == [0] and got[0][3] == [1]


def test_audit_bfloat16(digits6):
    pytest.importorskip("torch", reason="torch not installed (extra 'torch')")
    a = audit(digits6.net, digits6.inputs, digits6.targets, "bfloat16")
    assert a.weights_rounded > 0 and len(a.layers) == 2 * digits6.net.L
    assert a.max_dev > 0


# ------------------------------------------------------------------ CLI
def test_cli_export_and_audit(tmp_path, capsys):
    from proofcheck.frontend.cli import main
    pytest.importorskip("safetensors", reason="safetensors not installed (extra 'export')")
    assert main(["export", "1.6", "--limit", "4", "--format", "safetensors", "--out",
                 str(tmp_path / "n.safetensors"), "--certificate", str(tmp_path / "c.json")]) == 0
    cert = json.loads((tmp_path / "c.json").read_text())
    side = json.loads((tmp_path / "n.safetensors.json").read_text())
    assert side["metadata"]["certificate_digest"] == cert["digest"]
    assert main(["audit", "1.6", "--limit", "4", "--dtype", "float32", "--rounding", "float32",
                 "--plot", str(tmp_path / "p.png")]) == 1          # rounded network REFUTED
    assert (tmp_path / "p.png").stat().st_size > 0
    assert main(["audit", "1.6", "--limit", "4", "--float-safe", "float32", "--rounding",
                 "float32", "--json", str(tmp_path / "a.json")]) == 0
    out = capsys.readouterr().out
    assert "VERDICT (rounded network, float32 weights): VERIFIED" in out
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["float_runs"][0]["dtype"] == "float32" and doc["float_runs"][0]["kind"] == "run"
    assert doc["rounding_certificate"]["dtype"] == "float32"


def test_cli_audit_prints_a_table_and_words_never_a_python_repr(tmp_path, capsys):
    """``audit`` printed the first failing pair as a Python dict and the rounded
    network's witnesses as ``Witness(...)`` reprs: now words with the witness code; with
    ``--json`` and no file, standard output is the JSON of the audit alone."""
    from proofcheck.frontend.cli import main
    capsys.readouterr()
    assert main(["audit", "1.6", "--rounding", "float32"]) == 1  # the digits sample: 40 pairs
    out = capsys.readouterr().out
    assert "{'" not in out and "Witness(" not in out and "Fraction(" not in out
    assert re.search(r"first failure: sequence \d+, token \d+, \S+ from the nearest target", out)
    assert re.search(r"  witness: .* \[output-not-target\]$", out, re.M)
    assert main(["audit", "1.6", "--limit", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)  # nothing but the JSON on stdout
    got = doc["float_runs"]  # the same document --json FILE writes
    assert doc["format"] == "proofcheck-audit/2" and doc["rounding_certificate"] is None
    assert [r["dtype"] for r in got] == ["float64"] and got[0]["final"]["pairs"] == 4
    assert {"block", "sublayer", "max_dev", "where", "region_exits"} <= set(got[0]["layers"][0])
    assert main(["audit", "1.6", "--limit", "4", "--json", "--rounding", "float32"]) == 2


def test_cli_missing_extra_exit_2(monkeypatch, tmp_path, capsys):
    from proofcheck.frontend.cli import main
    monkeypatch.setitem(sys.modules, "onnx", None)
    assert main(["export", "1.6", "--limit", "2", "--format", "onnx", "--out",
                 str(tmp_path / "x.onnx")]) == 2
    assert "proofcheck[export]" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()
    assert main(["export", "3.1", "--format", "onnx", "--out", str(tmp_path / "y.onnx")]) == 2
    assert main(["audit", "1.6", "--limit", "2", "--tau", "1/2"]) == 2
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "precious.txt").write_text("x")
    monkeypatch.delitem(sys.modules, "onnx")
    assert main(["export", "1.6", "--limit", "2", "--format", "torch", "--out", str(keep)]) in (2,)
    assert (keep / "precious.txt").read_text() == "x"


# ------------------------------------------------- fast audit (exact side once)
def _reference_deviations(net, inputs, dtype):
    """Per sub-layer ``max |float - exact|`` the slow way: the reference backend's
    exact state converted to Fractions after EVERY sub-layer, the numpy float
    network evaluated sub-layer by sub-layer."""
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.fast import get_backend
    be = get_backend("reference")
    st_ = be.load(inputs)
    dt = np.float64 if dtype == "float64" else np.float32
    ev = NumpyNet(arrays(net, dtype), describe(net), dt)
    X, mask = pad([[[float(v) for v in x] for x in s] for s in inputs], dt)
    out = []
    for i, blk in enumerate(net.blocks):
        for sub in ("FF", "SA"):
            if sub == "FF":
                X, _ = ev.ff(i, X)
                st_, _, _ = be.ff(blk.ff, st_)
            else:
                X, _, _ = ev.sa(i, X, mask)
                st_, _, _ = be.sa(blk.sa, st_, HARDMAX)
            E = np.array([[float(v) for v in r] for r in be.to_fractions(st_)])
            with np.errstate(all="ignore"):
                diff = np.abs(X[mask].astype(np.float64) - E)
            out.append(float(np.where(np.isnan(diff), np.inf, diff).max()))
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fast_audit_agrees_with_slow_reference(dtype, digits6):
    """The audit's compact exact trajectory (changed rows only, tag offsets,
    identity sub-layers skipped) gives the same per-sub-layer deviations as the
    reference backend converted in full after every sub-layer."""
    b = digits6
    a = audit(b.net, b.inputs, b.targets, dtype)
    assert [r.max_dev for r in a.layers] == _reference_deviations(b.net, b.inputs, dtype)


def test_audit_many_shares_one_exact_trajectory(digits6):
    both = __import__("proofcheck.frontend.export.audit", fromlist=["audit_many"]).audit_many(
        digits6.net, digits6.inputs, digits6.targets, ["float64", "float32"])
    for r in both:
        one = audit(digits6.net, digits6.inputs, digits6.targets, r.dtype)
        assert [(x.max_dev, x.where, x.exits) for x in r.layers] == \
            [(x.max_dev, x.where, x.exits) for x in one.layers]
        assert r.first_exit == one.first_exit and r.final == one.final


def test_region_checks_stop_after_the_first_exit(digits6):
    a = audit(digits6.net, digits6.inputs, digits6.targets, "float32")
    fe, cu = a.first_exit, a.checked_until
    assert fe is not None and (cu["block"], cu["sublayer"]) == (fe["block"], fe["sublayer"])
    k = next(i for i, r in enumerate(a.layers) if (r.block, r.sublayer) == (cu["block"],
                                                                             cu["sublayer"]))
    assert a.layers[k].exits >= 1 and all(r.exits == 0 for r in a.layers[k + 1:])
    assert a.exits_total == sum(r.exits for r in a.layers[:k + 1])


def test_sa_exit_detector_with_exact_argmax_can_fail():
    """With the exact backend's unique attended token (tag / gather) the filter
    is skipped; a float argmax set that differs is still an exit."""
    from proofcheck.kernel.model import SA, Factored
    sa = SA(Fraction(0), Factored(Fraction(1)), Factored(Fraction(1)))
    mask = np.ones((1, 3), dtype=bool)
    best = np.zeros((1, 3), dtype=np.int64)        # every token attends to token 0
    C = np.zeros((1, 3, 3), dtype=bool)
    C[0, :, 0] = True
    got = []
    E = np.zeros((3, 2))
    assert _sa_exits(sa, C, E, None, mask, [(0, 3)], 2, 2.0 ** -50,
                     lambda *a: got.append(a), best=best) == 0
    C[0, 2, 1] = True                               # a float tie {0, 1} for token 2
    assert _sa_exits(sa, C, E, None, mask, [(0, 3)], 2, 2.0 ** -50,
                     lambda *a: got.append(a), best=best) == 1
    assert got == [(2, 0, [0], [0, 1])]


def test_flint_to_float64_is_the_nearest_float_of_every_token(digits6):
    """``to_float64`` (tag offsets folded in, overflow to inf) against the
    Fractions of ``to_fractions`` after every sub-layer, and at 10^400."""
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.fast import get_backend
    b = digits6
    be = get_backend("flint")
    st_ = be.load(b.inputs)
    offsets_seen = 0
    for blk in b.net.blocks:
        st_, _, _ = be.ff(blk.ff, st_)
        st_, _, _ = be.sa(blk.sa, st_, HARDMAX)
        offsets_seen += st_.off is not None
        want = np.array([[float(v) for v in r] for r in be.to_fractions(st_)])
        assert np.array_equal(be.to_float64(st_), want)
    assert offsets_seen
    big = be.load([[(Fraction(10) ** 400, Fraction(-(10 ** 400)), Fraction(1, 3))]])
    assert be.to_float64(big).tolist() == [[np.inf, -np.inf, 1 / 3]]


def test_rounded_arrays_counts_like_round_network(digits6):
    from proofcheck.frontend.export.arch import rounded_arrays
    for name in ("float64", "float32", "bfloat16"):
        arr, stats = rounded_arrays(digits6.net, name)
        _, ref = round_network(digits6.net, FORMATS[name])
        assert (stats["total"], stats["changed"], stats["overflow"]) == \
            (ref["total"], ref["changed"], len(ref["overflow"]))
        assert all(np.array_equal(arr[k], v) for k, v in arrays(digits6.net, name).items())


def test_assign_state_is_strict():
    torch = pytest.importorskip("torch", reason="torch not installed (extra 'torch')")
    from proofcheck.frontend.export import standalone_torch as stt
    m = stt.FF(2, 1)
    stt.assign_state(m, {"eta": torch.tensor(2.0), "U": torch.ones(1, 2), "b": torch.zeros(1),
                         "W": torch.ones(2, 1)})
    assert float(m.eta) == 2.0 and m.U.dtype == torch.float64
    with pytest.raises(RuntimeError, match="missing"):
        stt.assign_state(m, {"eta": torch.tensor(2.0)})
    with pytest.raises(RuntimeError, match="shape"):
        stt.assign_state(m, {"eta": torch.tensor(2.0), "U": torch.ones(2, 2),
                             "b": torch.zeros(1), "W": torch.ones(2, 1)})


# ------------------------------------------- values the export format cannot hold
@pytest.mark.parametrize("fmt,tau,dtype", [("onnx", "1e-400", "float64"),
                                           ("onnx", "1e-50", "float32"),
                                           ("safetensors", "1e-400", "float64"),
                                           ("safetensors", "1e-50", "float32")])
def test_export_refuses_a_tau_that_rounds_to_zero(fmt, tau, dtype, tmp_path, capsys):
    """float(1e-400) = 0.0 would make every softmax output NaN: exit 2, nothing written."""
    pytest.importorskip("onnx" if fmt == "onnx" else "safetensors")
    from proofcheck.frontend.cli import main
    out = tmp_path / f"net.{fmt}"
    rc = main(["export", "1.8", "--limit", "2", "--tau", tau, "--dtype", dtype, "--format", fmt,
               "--out", str(out), "--certificate", str(tmp_path / "c.json")])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert f"cannot export to {dtype}: tau = " in err and "rounds to 0" in err
    assert "smallest normal" in err and "nothing written" in err
    assert sorted(tmp_path.iterdir()) == []


def test_check_representable_names_the_value():
    from proofcheck.frontend.export.arch import Unrepresentable, check_representable
    ds, _ = sample(limit=2)
    net = build("1.6", ds, check=False).net
    check_representable(net, Fraction(1, 64), "float32")      # exact zeros are fine
    big = with_parameter(net, 1, "FF", "b[0]", Fraction(2) ** 200)
    with pytest.raises(Unrepresentable, match="overflows in float32") as e:
        check_representable(big, None, "float32")
    assert e.value.name == "blocks.0.ff.b[0]"
    check_representable(big, None, "float64")
    sub = with_parameter(net, 1, "FF", "b[0]", Fraction(1, 2 ** 130))
    with pytest.raises(Unrepresentable, match="rounds to a subnormal in float32"):
        check_representable(sub, None, "float32")
    with pytest.raises(Unrepresentable, match="rounds to 0 in bfloat16") as e:
        check_representable(None, Fraction(1, 2 ** 200), "bfloat16")
    assert e.value.name == "tau"


def test_exported_tau_is_rounded_once_to_the_dtype():
    from proofcheck.frontend.export.rounding import to_float
    b = build("1.8", SQUARE, tau=Fraction(1, 3), check=False)
    for dtype in ("float64", "float32"):
        desc = describe(b.net, "softmax", b.tau, metadata(b, dtype))
        assert desc["tau_float"] == to_float(Fraction(1, 3), FORMATS[dtype])


# ------------------------------------------- safetensors whose metadata was dropped
def test_safetensors_saved_again_without_metadata(tmp_path, digits6):
    pytest.importorskip("safetensors", reason="safetensors not installed (extra 'export')")
    from safetensors.numpy import load_file, save_file

    from proofcheck.frontend.export.safetensors_writer import read_safetensors, write_safetensors
    from proofcheck.kernel.errors import BadInput
    arr = arrays(digits6.net)
    p = write_safetensors(tmp_path / "net.safetensors", arr,
                          describe(digits6.net, metadata=metadata(digits6, "float64")))
    again = tmp_path / "again.safetensors"
    save_file(load_file(str(p)), str(again))               # a round trip drops __metadata__
    with pytest.raises(BadInput, match="metadata was dropped") as e:
        read_safetensors(again)
    assert "again.safetensors.json" in str(e.value)
    (tmp_path / "again.safetensors.json").write_text((tmp_path / "net.safetensors.json")
                                                     .read_text())
    t, desc = read_safetensors(again)                     # the side JSON is read instead
    assert desc["L"] == digits6.net.L and all(np.array_equal(t[k], arr[k]) for k in arr)
    bad = dict(load_file(str(p)))
    bad["blocks.0.ff.U"] = bad["blocks.0.ff.U"][:, :1].copy()
    save_file(bad, str(again))
    with pytest.raises(BadInput, match="blocks.0.ff.U has shape"):
        read_safetensors(again)


def test_read_safetensors_refuses_what_is_not_this_export(tmp_path, digits6):
    """A file that is not safetensors, a side file of ANOTHER export (fewer blocks: the
    extra tensors were silently ignored before), a description of the wrong shape
    (KeyError before) and mixed dtypes are BadInput naming the file or JSON path."""
    pytest.importorskip("safetensors", reason="safetensors not installed (extra 'export')")
    from safetensors.numpy import load_file, save_file

    from proofcheck.frontend.export.safetensors_writer import read_safetensors, write_safetensors
    from proofcheck.kernel.errors import BadInput
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{not json")
    with pytest.raises(BadInput, match="not a readable safetensors file"):
        read_safetensors(junk)
    arr = arrays(digits6.net)
    p = write_safetensors(tmp_path / "net.safetensors", arr,
                          describe(digits6.net, metadata=metadata(digits6, "float64")))
    again = tmp_path / "again.safetensors"
    save_file(load_file(str(p)), str(again))                 # metadata dropped
    side = json.loads((tmp_path / "net.safetensors.json").read_text())
    short = {**side, "L": 1, "blocks": side["blocks"][:1]}    # another, shorter export's
    (tmp_path / "again.safetensors.json").write_text(json.dumps(short))
    with pytest.raises(BadInput, match="does not name, first 'blocks.1.") as e:
        read_safetensors(again)
    assert "again.safetensors" in str(e.value)
    broken = {**side, "blocks": [{"ff": {}, "sa": side["blocks"][0]["sa"]}] + side["blocks"][1:]}
    (tmp_path / "again.safetensors.json").write_text(json.dumps(broken))
    with pytest.raises(BadInput) as e:
        read_safetensors(again)
    assert e.value.path.endswith("$.blocks[0].ff.width")
    (tmp_path / "again.safetensors.json").write_text(json.dumps({**side, "L": side["L"] + 1}))
    with pytest.raises(BadInput) as e:
        read_safetensors(again)
    assert e.value.path.endswith("$.L")
    mixed = dict(load_file(str(p)))
    mixed["blocks.0.ff.eta"] = mixed["blocks.0.ff.eta"].astype(np.float32)
    save_file(mixed, str(again))
    (tmp_path / "again.safetensors.json").write_text(json.dumps(side))
    with pytest.raises(BadInput, match="one dtype"):
        read_safetensors(again)
