"""Standalone PyTorch module of a transformer exported by proofcheck.

This file is copied verbatim next to the exported state dict and imports ONLY
torch and the standard library (never proofcheck).  Usage::

    import proofcheck_net
    model, meta = proofcheck_net.load("export-dir")          # float64 by default
    Y = model(X, mask)     # X: (B, n, d) tokens, mask: (B, n) bool, True = real token

Semantics (the transformer of Alcalde-Fantuzzi-Zuazua as proofcheck builds it).
Block order FF then SA: the PROJECT's order.  The authors' public code runs SA then
FF in each block (``x = rho*x + attn(x); x = eta*x + ff(x)``), so an exported network
of L blocks is L + 1 blocks in their convention: an identity SA (rho = 1, V = 0)
before block 1's FF, each block's SA followed by the next block's FF, and an
identity FF (eta = 1, width 0) after block L's SA.
FF(x) = eta x + W relu(U x + b) token-wise; SA(X)_i = rho x_i + V sum_l pi_il x_l
with scores s_il = <A x_i, x_l>, A = A_lam I + A_left^T A_right (V likewise).
Hardmax: C_i = {l : s_il == max_k s_ik} compared on the computed float scores,
pi_il = 1/|C_i| on C_i (exact averaging of float ties).  Softmax at temperature
tau: pi = softmax((s - max s) / tau).  A layer whose V is zero is rho x (its
attention is not evaluated).  Padded tokens (mask False) are never attended to, and
their values are set to 0 before the weighted sum (0 * NaN is NaN): whatever the
padded positions hold, the real tokens' outputs are those of the unpadded sequences.
"""
import json
import os

import torch
from torch import nn


class FF(nn.Module):
    """Token-wise FF layer ``x -> eta x + W relu(U x + b)``; U: (width, d), W: (d, width)."""

    def __init__(self, d, width, dtype=torch.float64):
        super().__init__()
        self.width = width
        self.eta = nn.Parameter(torch.zeros((), dtype=dtype), requires_grad=False)
        self.U = nn.Parameter(torch.zeros((width, d), dtype=dtype), requires_grad=False)
        self.b = nn.Parameter(torch.zeros((width,), dtype=dtype), requires_grad=False)
        self.W = nn.Parameter(torch.zeros((d, width), dtype=dtype), requires_grad=False)

    def preactivation(self, x):
        """``U x + b`` per token: (B, n, width)."""
        return x @ self.U.T + self.b

    def forward(self, x):
        out = self.eta * x
        if self.width:
            out = out + torch.relu(self.preactivation(x)) @ self.W.T
        return out


class SA(nn.Module):
    """Self-attention layer ``SA(X)_i = rho x_i + V sum_l pi_il x_l``."""

    def __init__(self, d, rank_A, rank_V, value_zero, attention, tau, dtype=torch.float64):
        super().__init__()
        self.value_zero = value_zero
        self.attention = attention
        self.tau = tau
        z = lambda *s: nn.Parameter(torch.zeros(s, dtype=dtype), requires_grad=False)  # noqa: E731
        self.rho = z()
        self.A_lam, self.A_left, self.A_right = z(), z(rank_A, d), z(rank_A, d)
        self.V_lam, self.V_left, self.V_right = z(), z(rank_V, d), z(rank_V, d)

    @staticmethod
    def _apply(lam, left, right, x):
        out = lam * x
        if left.shape[0]:
            out = out + (x @ right.T) @ left
        return out

    def scores(self, x, mask):
        """``s_il = <A x_i, x_l>``: (B, n, n); padded keys get -inf."""
        s = self._apply(self.A_lam, self.A_left, self.A_right, x) @ x.transpose(-1, -2)
        if mask is not None:
            s = s.masked_fill(~mask[:, None, :], float("-inf"))
        return s

    def weights(self, x, mask):
        """Attention weights ``pi``: (B, n, n)."""
        s = self.scores(x, mask)
        m = s.amax(dim=-1, keepdim=True)
        if self.attention == "hardmax":
            c = (s == m).to(x.dtype)
            return c / c.sum(dim=-1, keepdim=True)
        e = torch.exp((s - m) / self.tau)
        return e / e.sum(dim=-1, keepdim=True)

    def forward(self, x, mask=None):
        if self.value_zero:
            return self.rho * x
        xv = x if mask is None else x.masked_fill(~mask[..., None], 0)
        z = self.weights(x, mask) @ xv
        return self.rho * x + self._apply(self.V_lam, self.V_left, self.V_right, z)


class ProofcheckTransformer(nn.Module):
    """The exported transformer: ``blocks[i]`` = (FF, SA), FF first."""

    def __init__(self, description, dtype=torch.float64):
        super().__init__()
        self.description = description
        d = description["d"]
        att = description["attention"]
        tau = description.get("tau_float")
        self.blocks = nn.ModuleList()
        for b in description["blocks"]:
            blk = nn.Module()
            blk.ff = FF(d, b["ff"]["width"], dtype)
            blk.sa = SA(d, b["sa"]["rank_A"], b["sa"]["rank_V"], b["sa"]["value_zero"], att,
                        tau, dtype)
            self.blocks.append(blk)

    def sublayers(self):
        """Yield ``(block index (1-based), "FF"|"SA", layer)`` in evaluation order."""
        for i, blk in enumerate(self.blocks, start=1):
            yield i, "FF", blk.ff
            yield i, "SA", blk.sa

    def forward(self, x, mask=None):
        for _, kind, layer in self.sublayers():
            x = layer(x) if kind == "FF" else layer(x, mask)
        return x


def assign_state(model, state_dict):
    """``model.load_state_dict(state_dict, strict=True)`` without its per-module
    prefix scan, which is quadratic in the number of blocks (minutes for the
    7,648 sub-layers of full digits).  Raises ``RuntimeError`` on missing or
    unexpected keys and on a shape mismatch; values are cast to each
    parameter's dtype."""
    params = dict(model.named_parameters())
    missing, unexpected = set(params) - set(state_dict), set(state_dict) - set(params)
    if missing or unexpected:
        raise RuntimeError(f"state dict mismatch: missing {sorted(missing)[:5]}, "
                           f"unexpected {sorted(unexpected)[:5]}")
    for k, v in state_dict.items():
        p = params[k]
        if tuple(p.shape) != tuple(v.shape):
            raise RuntimeError(f"{k}: shape {tuple(v.shape)}, expected {tuple(p.shape)}")
        p.data = v.to(p.dtype)


def load(directory, dtype=torch.float64):
    """``(model, metadata)`` from an export directory (``architecture.json`` and
    ``state_dict.pt``); the stored values are cast to ``dtype``."""
    with open(os.path.join(directory, "architecture.json"), encoding="utf-8") as f:
        desc = json.load(f)
    model = ProofcheckTransformer(desc, dtype)
    sd = torch.load(os.path.join(directory, "state_dict.pt"), weights_only=True)
    assign_state(model, sd)
    return model.eval(), desc.get("metadata", {})
