"""bfloat16 evaluation for the float audit (:mod:`proofcheck.frontend.export.audit`) with the
standalone PyTorch layers (:mod:`proofcheck.frontend.export.standalone_torch`); needs the
``torch`` extra.  Same interface as the audit's numpy evaluator: ``prepare``, ``ff``,
``sa``, ``np64``, ``close``."""
from __future__ import annotations

import numpy as np


class TorchAdapter:
    """bfloat16 evaluation with the standalone PyTorch layers; returns numpy float64."""

    def __init__(self, tensors, desc):
        import torch

        from proofcheck.frontend.export import standalone_torch as st
        self.torch = torch
        self.model = st.ProofcheckTransformer(desc, torch.bfloat16)
        st.assign_state(self.model, {k: torch.from_numpy(np.asarray(v, dtype=np.float32).copy())
                                     .to(torch.bfloat16) for k, v in tensors.items()})
        self.blocks = list(self.model.blocks)
        # one intra-op thread: bfloat16 batched matmuls on tiny (n, n) blocks are
        # orders of magnitude slower with several OpenMP threads on a busy machine
        self._threads = torch.get_num_threads()
        torch.set_num_threads(1)

    def close(self):
        self.torch.set_num_threads(self._threads)

    def prepare(self, X, mask):
        t = self.torch
        return t.from_numpy(X.astype(np.float32)).to(t.bfloat16), t.from_numpy(mask)

    def ff(self, i, X):
        """The module's ``FF.forward`` with the pre-activation computed once
        (the same operations in the same order)."""
        f = self.blocks[i].ff
        with self.torch.no_grad():
            out = f.eta * X
            if not f.width:
                return out, None
            Z = f.preactivation(X)
            return out + self.torch.relu(Z) @ f.W.T, Z

    def sa(self, i, X, mask):
        a = self.blocks[i].sa
        with self.torch.no_grad():
            if a.value_zero:
                return a(X, mask), None, None
            S = a.scores(X, mask)
            return a(X, mask), S == S.amax(dim=-1, keepdim=True), S

    def np64(self, x):
        if x is None:
            return None
        if x.dtype == self.torch.bool:
            return x.numpy()
        return x.float().numpy().astype(np.float64)
