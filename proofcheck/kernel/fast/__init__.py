"""The fast tier of the kernel: exact evaluations that give the same values as
the plain tier (:mod:`proofcheck.kernel.evaluate`) through shortcuts, each stated
with the lemma that justifies it in its docstring and checked against the plain
route by the tests (hypothesis and the handed cases).  It may import the plain
kernel, never the reverse (an import-linter contract); importing it registers the
fast route with :func:`proofcheck.kernel.theorem.register`.

* :mod:`.flint` — the flint backend: identity skips, rank-one FF layers per linear
  piece, lazy per-sequence tag offsets, rank-one and ``lam I`` hardmax attention;
* :mod:`.heads` — multi-head and causally masked SA (prefix extremes for rank-one
  heads under the mask);
* :mod:`.softmax` — the hardmax trajectory of a softmax certificate from the flint
  backend's evaluation (per-sequence extremes, rank-one FF pieces);
* :mod:`.selection` — exact maxima and minima over sequences and tokens among the
  candidates of a float64 pre-filter with a rigorous bound (the SA records).
"""
from __future__ import annotations

from proofcheck.kernel.evaluate import PlainBackend
from proofcheck.kernel.fast.flint import FlintBackend
from proofcheck.kernel.fast.softmax import fast_trajectory
from proofcheck.kernel.theorem import register

register("flint", FlintBackend, ("proofcheck.kernel.fast.flint",))
register("softmax", fast_trajectory, ("proofcheck.kernel.fast.flint", "proofcheck.kernel.fast.softmax",
                                      "proofcheck.kernel.fast.selection"))


def get_backend(name: str):
    """An evaluator by name: ``flint`` (fast, the default of construction runs) or
    ``plain`` (also ``fraction``/``reference``: the definitions read literally).
    Raises ``ValueError`` for another name."""
    if name in ("flint", "exact", "fast"):
        return FlintBackend()
    if name in ("plain", "fraction", "reference"):
        return PlainBackend()
    raise ValueError(f"unknown backend {name!r} (use 'flint' or 'plain')")
