"""Export of constructed networks outside proofcheck and float audits (issue 13).

* :mod:`~proofcheck.frontend.export.arch` — tensors and the ``proofcheck-export/1`` description;
* :mod:`~proofcheck.frontend.export.torch_module` (+ the standalone source
  :mod:`~proofcheck.frontend.export.standalone_torch`), :mod:`~proofcheck.frontend.export.onnx_graph`,
  :mod:`~proofcheck.frontend.export.safetensors_writer` — the three formats;
* :mod:`~proofcheck.frontend.export.numpy_eval` and :mod:`~proofcheck.frontend.export.audit` — the
  float audit; :mod:`~proofcheck.frontend.export.rounding` — exact rounding to a float
  format and the exact check of the rounded network.

The network for a theorem and dataset is built by :mod:`proofcheck.frontend.runs.build`.

Everything here is an audit of a network the exact checker has judged: nothing
in this package changes a verdict of the exact checker.  The heavy libraries
(torch; onnx, onnxruntime, safetensors: extra ``export``) are imported lazily.
"""
