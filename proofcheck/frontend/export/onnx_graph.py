"""ONNX export (issue 13, deliverable 1), built with the ``onnx`` package alone.

Opset 17 (ONNX 1.12, 2022; supported by onnxruntime >= 1.12 and the common
converters).  Graph inputs: ``X`` ``(B, n, d)`` tokens and ``mask`` ``(B, n)``
bool (True = real token; padded keys are never attended to); output ``Y``
``(B, n, d)``.  Per block, FF then SA, with the same semantics as the PyTorch
module (:mod:`proofcheck.frontend.export.standalone_torch`): hardmax as
``Equal(S, ReduceMax(S))`` cast to float and divided by its row sum (exact
averaging of float ties), softmax as ``Softmax((S - max S) / tau)``.  A
multi-head layer adds one such term per head; a causal mask is the graph's own
``Trilu`` of an ``(n, n)`` all-ones matrix (from ``Shape(X)``) combined with the key
mask before the ``Where`` that precedes the max / softmax (docs/spec.md §1 "Extensions").

Isolation from the padding: a padded key gets weight 0, and its value is replaced by
0 (a second ``Where``, on the values ``x_l``) before the weighted sum, since
``0 * NaN`` and ``0 * inf`` are NaN: whatever the padded positions hold (NaN, inf,
1e300), the real tokens' outputs are those of the unpadded sequences (the outputs at
padded positions mean nothing).  The description and the metadata are stored in
``metadata_props``.
"""
from __future__ import annotations

import json
from pathlib import Path

from proofcheck.frontend.export.arch import heads_of

OPSET = 17


class _Graph:
    """The nodes and initialisers of the graph being built; node outputs are named
    ``<prefix>_<counter>`` in creation order (deterministic)."""

    def __init__(self, tensors: dict, dtype: str):
        import numpy as np
        from onnx import TensorProto
        self.np, self.tensors = np, tensors
        self.np_dt = np.float64 if dtype == "float64" else np.float32
        self.elem = TensorProto.DOUBLE if dtype == "float64" else TensorProto.FLOAT
        self.nodes, self.inits, self.counter = [], [], 0
        self.causal = None  # the (B, n, n) key mask l <= i, built when a layer needs it

    def const(self, name, arr):
        from onnx import numpy_helper
        self.inits.append(numpy_helper.from_array(self.np.asarray(arr, dtype=self.np_dt), name))
        return name

    def index(self, name, values):
        from onnx import numpy_helper
        self.inits.append(numpy_helper.from_array(self.np.array(values, dtype=self.np.int64),
                                                  name))

    def op(self, kind, inputs, prefix, **attrs):
        from onnx import helper
        self.counter += 1
        out = f"{prefix}_{self.counter}"
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def factored(self, x, p, nm, rank, h):
        """``lam x + (x right^T) left`` of the Factored matrix ``nm``: node names prefixed
        ``p``, tensors ``h`` (the head's tensor prefix, ``p + "sa."`` for one head)."""
        t = self.tensors
        y = self.op("Mul", [self.const(f"{h}{nm}_lam", t[f"{h}{nm}_lam"]), x], f"{p}{nm}lx")
        if rank:
            rt = self.const(f"{h}{nm}_right.T", t[f"{h}{nm}_right"].T)
            lf = self.const(f"{h}{nm}_left", t[f"{h}{nm}_left"])
            c = self.op("MatMul", [x, rt], f"{p}{nm}c")
            y = self.op("Add", [y, self.op("MatMul", [c, lf], f"{p}{nm}lr")], f"{p}{nm}x")
        return y

    def ff(self, x, p, width):
        t = self.tensors
        ex = self.op("Mul", [self.const(p + "ff.eta", t[p + "ff.eta"]), x], p + "ff_eta_x")
        if not width:
            return ex
        ut = self.const(p + "ff.U.T", t[p + "ff.U"].T)
        bb = self.const(p + "ff.b", t[p + "ff.b"])
        wt = self.const(p + "ff.W.T", t[p + "ff.W"].T)
        z = self.op("Add", [self.op("MatMul", [x, ut], p + "ff_Ux"), bb], p + "ff_pre")
        h = self.op("MatMul", [self.op("Relu", [z], p + "ff_relu"), wt], p + "ff_Wh")
        return self.op("Add", [ex, h], p + "ff_out")

    def sa(self, x, p, sa_desc, attention, tau_float, masks, neg_inf):
        """``rho x + sum_h V_h sum_l pi^h_il x_l``; one head keeps the node names it had
        before heads existed, head k of several is prefixed ``p + "h{k}."``."""
        rx = self.op("Mul", [self.const(p + "sa.rho", self.tensors[p + "sa.rho"]), x],
                     p + "sa_rho_x")
        if sa_desc["value_zero"]:
            return rx
        mask3, values = masks
        hs = heads_of({"sa": sa_desc})
        xv = self.op("Where", [values, x, "zero"], p + "values_masked")
        for k, (hp, rA, rV, zero) in enumerate(hs):
            q = p if len(hs) == 1 else f"{p}h{k}."
            if not zero:
                keys = self.causal_keys(mask3) if sa_desc.get("causal") else mask3
                v = self.head((x, xv), q, p + hp, (rA, rV), keys, attention, tau_float,
                              neg_inf)
                rx = self.op("Add", [rx, v], q + "sa_out")
        return rx

    def head(self, xs, p, h, ranks, keys, attention, tau_float, neg_inf):
        """``V_h sum_l pi^h_il x_l`` of one head over the allowed ``keys`` (bool);
        ``xs = (x, xv)``: the tokens, and the values with every padded token set to 0."""
        x, xv = xs
        ax = self.factored(x, p, "A", ranks[0], h)
        s = self.op("MatMul", [ax, self.op("Transpose", [x], p + "xT", perm=[0, 2, 1])],
                    p + "scores")
        s = self.op("Where", [keys, s, neg_inf], p + "scores_masked")
        m = self.op("ReduceMax", [s], p + "smax", axes=[-1], keepdims=1)
        if attention == "hardmax":
            c = self.op("Cast", [self.op("Equal", [s, m], p + "argmax")], p + "argmax_f",
                        to=self.elem)
            pi = self.op("Div", [c, self.op("ReduceSum", [c, "axis_last"], p + "ties",
                                            keepdims=1)], p + "pi")
        else:
            tau = self.const(p + "tau", self.np.array(tau_float))
            pi = self.op("Softmax", [self.op("Div", [self.op("Sub", [s, m], p + "sm"), tau],
                                             p + "st")], p + "pi", axis=-1)
        zc = self.op("MatMul", [pi, xv], p + "attended")
        return self.factored(zc, p, "V", ranks[1], h)

    def causal_keys(self, mask3):
        """The key mask ``mask[l] and l <= i`` ``(B, n, n)``: ``Trilu`` of an all-ones
        ``(n, n)`` matrix, ``n`` from ``Shape(X)`` (built once per graph)."""
        if self.causal is None:
            from onnx import TensorProto, helper
            n = self.op("Gather", [self.op("Shape", ["X"], "shape"), "axis_one"], "n")
            ones = self.op("ConstantOfShape", [self.op("Concat", [n, n], "nn", axis=0)], "ones",
                           value=helper.make_tensor("one", TensorProto.INT64, [1], [1]))
            low = self.op("Cast", [self.op("Trilu", [ones], "tril", upper=0)], "tril_b",
                          to=TensorProto.BOOL)
            self.causal = self.op("And", [mask3, low], "causal_mask")
        return self.causal


def build_model(tensors: dict, description: dict, dtype: str = "float64"):
    """The ``onnx.ModelProto``; ``tensors`` as from :func:`proofcheck.frontend.export.arch.arrays`
    (float64 or float32 arrays)."""
    from onnx import helper
    g = _Graph(tensors, dtype)
    g.index("axis_last", [-1])
    neg_inf = g.const("neg_inf", g.np.array(-g.np.inf))
    g.const("zero", g.np.array(0.0))
    mask3 = g.op("Unsqueeze", ["mask", "axis_one"], "mask3")
    values = g.op("Unsqueeze", ["mask", "axis_last"], "mask_values")  # (B, n, 1)
    g.index("axis_one", [1])
    x = "X"
    for i, b in enumerate(description["blocks"]):
        p = f"blocks.{i}."
        x = g.ff(x, p, b["ff"]["width"])
        x = g.sa(x, p, b["sa"], description["attention"], description.get("tau_float"),
                 (mask3, values), neg_inf)
    g.nodes.append(helper.make_node("Identity", [x], ["Y"]))
    return _model(g, description)


def _model(g: _Graph, description: dict):
    from onnx import TensorProto, helper
    d = description["d"]
    graph = helper.make_graph(
        g.nodes, "proofcheck_transformer",
        [helper.make_tensor_value_info("X", g.elem, ["B", "n", d]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, ["B", "n"])],
        [helper.make_tensor_value_info("Y", g.elem, ["B", "n", d])], initializer=g.inits)
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
