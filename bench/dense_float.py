"""Baseline: a float64 numpy DENSE forward pass of a proofcheck network (hardmax).

Every layer is computed in full (identity sub-layers included), as a plain
implementation would: FF ``eta X + relu(X U^T + b) W^T``; SA with dense scores per
sequence, hardmax as the uniform average over the maximal scores.  A timing
baseline only — never used for a verdict.
"""
from __future__ import annotations

import numpy as np


def _fac(f, d):
    M = float(f.lam) * np.eye(d)
    for a, b in zip(f.left, f.right):
        M += np.outer([float(x) for x in a], [float(x) for x in b])
    return M


def compile_network(net):
    """Float arrays per block: (eta, U, b, W, rho, A, V)."""
    d = net.d
    out = []
    for blk in net.blocks:
        ff, sa = blk.ff, blk.sa
        U = np.array([[float(x) for x in u] for u in ff.U]).reshape(ff.width, d)
        b = np.array([float(x) for x in ff.b])
        W = np.array([[float(x) for x in w] for w in ff.W]).reshape(ff.width, d)
        out.append((float(ff.eta), U, b, W, float(sa.rho), _fac(sa.A, d), _fac(sa.V, d)))
    return out


def forward(layers, X, n):
    """``X``: ``(N, n, d)`` float64 tokens of N sequences of equal length n."""
    for eta, U, b, W, rho, A, V in layers:
        Z = np.maximum(X @ U.T + b, 0.0)
        X = eta * X + Z @ W
        S = np.einsum("jid,jld->jil", X @ A.T, X)          # s_il = <A x_i, x_l>
        mask = S == S.max(axis=2, keepdims=True)
        P = mask / mask.sum(axis=2, keepdims=True)
        X = rho * X + (P @ X) @ V.T
    return X
