"""Running an exported ONNX graph in the tests (onnxruntime, CPU, no graph optimisation)."""
from __future__ import annotations


def run_onnx(path, X, mask):
    """Run the exported graph with onnxruntime (CPU): ``X`` ``(B, n, d)``, ``mask``
    ``(B, n)`` bool.  Returns ``Y``."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    return sess.run(["Y"], {"X": X, "mask": mask})[0]
