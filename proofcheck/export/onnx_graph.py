"""ONNX export (issue 13, deliverable 1), built with the ``onnx`` package alone.

Opset 17 (ONNX 1.12, 2022; supported by onnxruntime >= 1.12 and the common
converters).  Graph inputs: ``X`` ``(B, n, d)`` tokens and ``mask`` ``(B, n)``
bool (True = real token; padded keys are never attended to); output ``Y``
``(B, n, d)``.  Per block, FF then SA, with the same semantics as the PyTorch
module (:mod:`proofcheck.export.standalone_torch`): hardmax as
``Equal(S, ReduceMax(S))`` cast to float and divided by its row sum (exact
averaging of float ties), softmax as ``Softmax((S - max S) / tau)``.  A
multi-head layer adds one such term per head; a causal mask is the graph's own
``Trilu`` of an ``(n, n)`` all-ones matrix (from ``Shape(X)``) combined with the key
mask before the ``Where`` that precedes the max / softmax (SPEC §1 "Extensions").  The
description and the metadata are stored in ``metadata_props``.
"""
from __future__ import annotations

import json
from pathlib import Path

from proofcheck.export.arch import heads_of

OPSET = 17


def build_model(tensors: dict, description: dict, dtype: str = "float64"):
    """The ``onnx.ModelProto``; ``tensors`` as from :func:`proofcheck.export.arch.arrays`
    (float64 or float32 arrays)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    np_dt = np.float64 if dtype == "float64" else np.float32
    elem = TensorProto.DOUBLE if dtype == "float64" else TensorProto.FLOAT
    d = description["d"]
    nodes, inits = [], []
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np_dt), name))
        return name

    def op(kind, inputs, prefix, **attrs):
        out = fresh(prefix)
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    inits.append(numpy_helper.from_array(np.array([-1], dtype=np.int64), "axis_last"))
    neg_inf = const("neg_inf", np.array(-np.inf))
    mask3 = op("Unsqueeze", ["mask", "axis_one"], "mask3")
    inits.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "axis_one"))

    def factored(x, p, nm, rank, t):  # p: node names' prefix, t: the head's tensor prefix
        lam = const(f"{t}{nm}_lam", tensors[f"{t}{nm}_lam"])
        y = op("Mul", [lam, x], f"{p}{nm}lx")
        if rank:
            rt = const(f"{t}{nm}_right.T", tensors[f"{t}{nm}_right"].T)
            lf = const(f"{t}{nm}_left", tensors[f"{t}{nm}_left"])
            c = op("MatMul", [x, rt], f"{p}{nm}c")
            y = op("Add", [y, op("MatMul", [c, lf], f"{p}{nm}lr")], f"{p}{nm}x")
        return y

    causal = []  # the (B, n, n) key mask with l <= i, built once when a layer needs it

    def causal_keys():
        if not causal:  # Trilu of an (n, n) all-ones matrix, from X's own shape
            n = op("Gather", [op("Shape", ["X"], "shape"), "axis_one"], "n")
            sq = op("Concat", [n, n], "nn", axis=0)
            ones = op("ConstantOfShape", [sq], "ones", value=helper.make_tensor(
                "one", TensorProto.INT64, [1], [1]))
            low = op("Cast", [op("Trilu", [ones], "tril", upper=0)], "tril_b", to=TensorProto.BOOL)
            causal.append(op("And", [mask3, low], "causal_mask"))
        return causal[0]

    def head(x, p, t, b, rA, rV):
        """``V_h sum_l pi^h_il x_l`` of one head (``p``: node prefix, ``t``: tensor prefix)."""
        ax = factored(x, p, "A", rA, t)
        s = op("MatMul", [ax, op("Transpose", [x], p + "xT", perm=[0, 2, 1])], p + "scores")
        keys = causal_keys() if b["sa"].get("causal") else mask3
        s = op("Where", [keys, s, neg_inf], p + "scores_masked")
        m = op("ReduceMax", [s], p + "smax", axes=[-1], keepdims=1)
        if description["attention"] == "hardmax":
            c = op("Cast", [op("Equal", [s, m], p + "argmax")], p + "argmax_f", to=elem)
            pi = op("Div", [c, op("ReduceSum", [c, "axis_last"], p + "ties", keepdims=1)],
                    p + "pi")
        else:
            tau = const(p + "tau", np.array(description["tau_float"]))
            pi = op("Softmax", [op("Div", [op("Sub", [s, m], p + "sm"), tau], p + "st")],
                    p + "pi", axis=-1)
        zc = op("MatMul", [pi, x], p + "attended")
        return factored(zc, p, "V", rV, t)

    x = "X"
    for i, b in enumerate(description["blocks"]):
        p = f"blocks.{i}."
        # FF
        eta = const(p + "ff.eta", tensors[p + "ff.eta"])
        ex = op("Mul", [eta, x], p + "ff_eta_x")
        if b["ff"]["width"]:
            ut = const(p + "ff.U.T", tensors[p + "ff.U"].T)
            bb = const(p + "ff.b", tensors[p + "ff.b"])
            wt = const(p + "ff.W.T", tensors[p + "ff.W"].T)
            z = op("Add", [op("MatMul", [x, ut], p + "ff_Ux"), bb], p + "ff_pre")
            h = op("MatMul", [op("Relu", [z], p + "ff_relu"), wt], p + "ff_Wh")
            x = op("Add", [ex, h], p + "ff_out")
        else:
            x = ex
        # SA
        rho = const(p + "sa.rho", tensors[p + "sa.rho"])
        rx = op("Mul", [rho, x], p + "sa_rho_x")
        if b["sa"]["value_zero"]:
            x = rx
            continue
        hs = heads_of(b)
        for k, (hp, rA, rV, zero) in enumerate(hs):
            q = p if len(hs) == 1 else f"{p}h{k}."  # node names of one head: as before
            if not zero:
                rx = op("Add", [rx, head(x, q, p + hp, b, rA, rV)], q + "sa_out")
        x = rx
    nodes.append(helper.make_node("Identity", [x], ["Y"]))
    graph = helper.make_graph(
        nodes, "proofcheck_transformer",
        [helper.make_tensor_value_info("X", elem, ["B", "n", d]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, ["B", "n"])],
        [helper.make_tensor_value_info("Y", elem, ["B", "n", d])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="proofcheck",
                              doc_string="Alcalde-Fantuzzi-Zuazua transformer constructed and "
                                         "checked by proofcheck; see metadata_props")
    model.ir_version = 8
    meta = {k: "" if v is None else str(v) for k, v in description.get("metadata", {}).items()}
    meta["architecture"] = json.dumps({k: v for k, v in description.items() if k != "blocks"},
                                      separators=(",", ":"))
    helper.set_model_props(model, meta)
    return model


def write_onnx(path, tensors: dict, description: dict, dtype: str = "float64") -> Path:
    """Build, check (``onnx.checker``) and write the model atomically."""
    import os
    import tempfile

    import onnx
    model = build_model(tensors, description, dtype)
    onnx.checker.check_model(model)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".onnx")
    os.close(fd)
    try:
        onnx.save(model, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def run_onnx(path, X, mask):
    """Run the exported graph with onnxruntime (CPU): ``X`` ``(B, n, d)``, ``mask``
    ``(B, n)`` bool.  Returns ``Y``."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    return sess.run(["Y"], {"X": X, "mask": mask})[0]
