"""Export of constructed networks outside proofcheck and float audits (issue 13).

* :mod:`~proofcheck.export.arch` — tensors and the ``proofcheck-export/1`` description;
* :mod:`~proofcheck.export.torch_module` (+ the standalone source
  :mod:`~proofcheck.export.standalone_torch`), :mod:`~proofcheck.export.onnx_graph`,
  :mod:`~proofcheck.export.safetensors_writer` — the three formats;
* :mod:`~proofcheck.export.numpy_eval` and :mod:`~proofcheck.export.audit` — the
  float audit; :mod:`~proofcheck.export.rounding` — exact rounding to a float
  format and the exact check of the rounded network.

The network for a theorem and dataset is built by :mod:`proofcheck.runs.build`.

Everything here is an audit of a network the exact checker has judged: nothing
in this package changes a verdict of the exact checker.  The heavy libraries
(torch; onnx, onnxruntime, safetensors: extra ``export``) are imported lazily.
"""
