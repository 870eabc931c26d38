"""The public API for adding a statement to proofcheck (a plugin).

A plugin is an installed package that declares, in its ``pyproject.toml``::

    [project.entry-points."proofcheck.statements"]
    clamp = "my_package.clamp:STATEMENT"

where ``STATEMENT`` is a :class:`StatementSpec`.  ``python -m proofcheck list``
then shows it, ``python -m proofcheck lemma ID`` runs it, and ``--certificate``
writes a certificate of its exact layer instances that ``verify`` re-checks.
See docs/plugins.md for a walk-through and for what the kernel re-checks.

Everything a plugin needs is re-exported here; names not listed in ``__all__``
are not part of the stable API.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from proofcheck.kernel.dataset import Dataset
from proofcheck.kernel.layercheck import check_layer, evaluate_layer
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer, vec
from proofcheck.kernel.verdicts import CheckResult, Verdict, Witness

__all__ = ["StatementSpec", "FF", "SA", "Factored", "Block", "Transformer", "vec",
           "CheckResult", "Verdict", "Witness", "check_layer", "evaluate_layer", "Dataset",
           "FLAGS"]

# the catalogue's paper-number flags (SPEC §2)
FLAGS = ("seed-numbered", "caption-numbered", "project")


@dataclass(frozen=True)
class StatementSpec:
    """A statement contributed by a plugin.

    * ``id``: the catalogue id (must not clash with a built-in id), e.g. ``"x.clamp"``;
    * ``title``, ``kind`` (e.g. ``"FF lemma"``), ``paper`` (the source's number or ``"-"``),
      ``flag``: one of :data:`FLAGS` (a plugin's own statement is ``"project"``);
    * ``hypotheses``: the statement's hypotheses in words, printed by ``lemma``;
    * ``run(dataset, seed) -> list[CheckResult]``: builds exact (or sympy-symbolic)
      layers from :class:`FF`/:class:`SA` and checks the claims; results made by
      :func:`check_layer` become certificate instances;
    * ``needs_d``: the smallest token dimension the statement needs.
    """

    id: str
    title: str
    kind: str
    paper: str
    flag: str
    run: Callable
    hypotheses: tuple[str, ...] = field(default_factory=tuple)
    needs_d: int = 1
