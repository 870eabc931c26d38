"""Causal (masked) attention (SPEC §1 "Extensions"): the prefix obstruction
(statement ``causal-first-token``), the default construction run under the mask,
and a construction for the reading "the last m_j outputs"."""
