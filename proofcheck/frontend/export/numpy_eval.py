"""numpy evaluation of an exported network in float64 or float32 (issue 13,
deliverable 2), sub-layer by sub-layer, with the by-products the audit needs
(FF pre-activations, hardmax argmax sets).

Same semantics as the PyTorch module and the ONNX graph
(:mod:`proofcheck.frontend.export.arch`): every operation is carried out in the working
dtype (numpy matmul of that dtype); hardmax ties are exact equalities of the
computed scores.  Tokens are padded to ``(B, n_max, d)`` with a key mask.
"""
from __future__ import annotations

import numpy as np

from proofcheck.frontend.export.arch import heads_of


def pad(sequences, dtype):
    """``(X, mask, index)`` from a list of ``(n_j, d)`` float arrays: ``X``
    ``(B, n_max, d)`` zero-padded, ``mask`` ``(B, n_max)`` bool, ``index`` the
    ``(j, t)`` pairs of the real tokens in row-major order (global row order)."""
    B = len(sequences)
    n = max(len(s) for s in sequences)
    d = len(sequences[0][0])
    X = np.zeros((B, n, d), dtype=dtype)
    mask = np.zeros((B, n), dtype=bool)
    for j, s in enumerate(sequences):
        X[j, :len(s)] = np.asarray(s, dtype=dtype)
        mask[j, :len(s)] = True
    return X, mask


class NumpyNet:
    """Evaluator of the tensors (``name -> array``) and description of an export."""

    def __init__(self, tensors: dict, description: dict, dtype=np.float64):
        self.t = {k: np.asarray(v, dtype=dtype) for k, v in tensors.items()}
        self.desc = description
        self.dtype = dtype
        self.L = description["L"]
        tau = description.get("tau_float")
        self.tau = None if tau is None else dtype(tau)

    def ff(self, i: int, X):
        """Block ``i`` (0-based) FF: ``(Y, Z)``, ``Z`` = pre-activations
        ``(B, n, width)`` (None for width 0)."""
        p = f"blocks.{i}.ff."
        eta = self.t[p + "eta"]
        with np.errstate(all="ignore"):
            Y = eta * X
            if self.desc["blocks"][i]["ff"]["width"] == 0:
                return Y, None
            Z = X @ self.t[p + "U"].T + self.t[p + "b"]
            Y = Y + np.maximum(Z, 0) @ self.t[p + "W"].T
        return Y, Z

    def _fac(self, p, nm, X):
        lam, left, right = (self.t[f"{p}{nm}_lam"], self.t[f"{p}{nm}_left"],
                            self.t[f"{p}{nm}_right"])
        Y = lam * X
        if left.shape[0]:
            Y = Y + (X @ right.T) @ left
        return Y

    def sa(self, i: int, X, mask):
        """Block ``i`` SA: ``(Y, C, S)`` with ``C`` the float argmax sets
        ``(B, n, n)`` bool and ``S`` the float scores (None when V = 0); for a
        multi-head layer ``C`` and ``S`` are lists, one per head (None for a head
        whose V = 0).  A causal layer masks the keys ``l > i`` before the max."""
        b = self.desc["blocks"][i]
        p = f"blocks.{i}."
        rho = self.t[p + "sa.rho"]
        if b["sa"]["value_zero"]:
            return rho * X, None, None
        keys = mask[:, None, :]
        if b["sa"].get("causal"):
            keys = keys & np.tril(np.ones((X.shape[1],) * 2, dtype=bool))
        with np.errstate(all="ignore"):
            Y, Cs, Ss = rho * X, [], []
        for hp, _, _, zero in heads_of(b):
            C = S = None
            if not zero:
                C, S, V = self._head(p + hp, X, keys)
                with np.errstate(all="ignore"):
                    Y = Y + V
            Cs.append(C)
            Ss.append(S)
        return (Y, Cs[0], Ss[0]) if len(Cs) == 1 else (Y, Cs, Ss)

    def _head(self, p, X, keys):
        """``(C, S, V_h sum_l pi_il x_l)`` of one head (``p``: its tensor prefix)."""
        with np.errstate(all="ignore"):
            S = self._fac(p, "A", X) @ np.swapaxes(X, -1, -2)
            S = np.where(keys, S, self.dtype(-np.inf))
            m = S.max(axis=-1, keepdims=True)
            C = S == m
            if self.desc["attention"] == "hardmax":
                c = C.astype(self.dtype)
                pi = c / c.sum(axis=-1, keepdims=True)
            else:
                e = np.exp((S - m) / self.tau)
                pi = e / e.sum(axis=-1, keepdims=True)
            return C, S, self._fac(p, "V", pi @ X)

    def forward(self, X, mask):
        for i in range(self.L):
            X, _ = self.ff(i, X)
            X, _, _ = self.sa(i, X, mask)
        return X
