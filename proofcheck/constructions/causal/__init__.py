"""Causal (masked) attention (docs/spec.md §1 "Extensions"): the prefix obstruction
(statement ``causal-first-token``), the default construction run under the mask,
and a construction for the reading "the last m_j outputs"."""
from dataclasses import replace

from proofcheck.kernel.model import Transformer


def with_mask(net: Transformer, causal: bool = True) -> Transformer:
    """A copy of ``net`` whose every SA layer has the causal mask ``causal`` (parameters shared)."""
    return Transformer(net.d, [replace(b, sa=replace(b.sa, causal=causal)) for b in net.blocks])
