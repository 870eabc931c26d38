"""The declaration of one statement (docs/spec.md §2): the one type that built-in statements
(:mod:`proofcheck.frontend.registry.builtin`) and plugins (:mod:`proofcheck.frontend.api`) declare.

A :class:`Statement` names everything about a statement in one place: its id, paper
number and flag, hypotheses, which datasets it admits, the routines ``lemma ID``
runs, the construction module and the kernel's re-derivation module, the
statements its proof uses, its default instances and the scope of its verdict.
Everything else is generated from these declarations: ``list``, ``lemma``
dispatch, the report's dependency graph and catalogue table, the README table.

Checks are named as strings — ``"function"`` (in the statement's ``module``) or
``"module:function"`` — for built-in statements, imported only when the statement
runs (so ``list`` loads no construction code), or given as callables (plugins).  Each is called ``check(dataset, seed, **instances)`` and
returns a list of :class:`~proofcheck.constructions.results.CheckResult`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

from proofcheck.frontend.registry.admissibility import ANY_DATASET, Admissibility
from proofcheck.frontend.registry.instances import InstanceSpec
from proofcheck.kernel.statements import normalise_id

#: flag -> how the paper number is known (docs/spec.md §2); printed by ``list`` and the reports
FLAGS = {
    "seed-numbered": "the number and the statement appear in a seed (one of the two source "
                     "notes, docs/spec.md §2)",
    "seed-step": "the number appears in a seed with a proof step, a derivation or a "
                 "paraphrase, not the statement; the statement's exact form is reconstructed",
    "spec-numbered": "the number was assigned by the project's design document, which "
                     "attributed it to figure captions of the authors' repository; no source "
                     "available here confirms it (the repository's figures and text number no "
                     "lemma); the wording is reconstructed (docs/spec.md §2)",
    "project": "a label of this project for an unnumbered step or a reconstructed "
               "statement; no paper number is claimed",
}

#: scope -> what a VERIFIED verdict of ``lemma ID`` establishes (docs/spec.md §5)
SCOPES = {
    "all-parameters": "for all parameters: symbolic proofs on the layer the routine "
                      "returns, with exact instances beside them",
    "dataset": "on this dataset: the network is built for the dataset and checked exactly "
               "on it",
    "instances": "on these instances only: exact (or certified) checks of the instances "
                 "listed; no general proof",
}


#: the one statement-name normaliser: the kernel's (NFKC, invisible characters dropped, white
#: space collapsed, case folded, a leading "Lemma"/"Theorem"/... dropped)
normalise = normalise_id


@dataclass(frozen=True)
class Statement:
    """One statement of the catalogue.

    * ``id``, ``kind`` (``"FF lemma"``, ``"theorem"``, ...), ``title``, ``paper`` (the
      source's number or ``"-"``), ``flag`` (one of :data:`FLAGS`);
    * ``module``: the construction module (it builds the statement's layer or network;
      for a statement with nothing to build, the module that holds its checks);
    * ``checks``: the routines ``lemma ID`` runs, in order (``"function"`` of
      ``module``, ``"module:function"``, or callables), each ``(dataset, seed,
      **instances) -> list[CheckResult]``; empty: planned, not implemented;
    * ``kernel_check``: the name of the kernel's module that re-derives the conclusion
      from a certificate instance (``proofcheck/kernel/lemma_checks/<name>.py``; it
      carries the construction's name), or ``None`` (instances re-checked only);
    * ``uses``: ids of the statements its proof uses (the report's dependency graph);
    * ``hypotheses``: in words, printed by ``lemma``;
    * ``admissible``: the datasets ``--dataset`` may give
      (:class:`~proofcheck.frontend.registry.admissibility.Admissibility`, or a callable
      ``(Dataset) -> None`` raising ``BadInput``);
    * ``instances``: default instances by keyword (``"dataset"`` is the dataset
      argument, replaced by ``--dataset``; others are passed as keywords), see
      :mod:`proofcheck.frontend.registry.instances`; empty: the routine's own built-in ones;
      ``own_instances``: in words, the instances the routines add to these on their
      own (``""``: none);
    * ``scope``: what a VERIFIED verdict establishes, one of :data:`SCOPES`;
    * ``readings``: the statement's readings when its source admits several, default
      first; ``aliases``: other names ``lemma`` accepts (``hat`` for 3.2);
    * ``source``: ``"proofcheck"`` or the plugin's distribution name;
    * ``tests``, ``doc``: the statement's test file and documentation page, paths relative
      to the repository root (``None``: none declared, as for most plugins).

    :meth:`where` gathers the four places a statement lives (``list --where ID``).
    """

    id: str
    kind: str
    title: str
    paper: str
    flag: str
    module: str | None = None
    checks: tuple = ()
    kernel_check: str | None = None
    uses: tuple[str, ...] = ()
    hypotheses: tuple[str, ...] = ()
    admissible: Admissibility | Callable = ANY_DATASET
    instances: dict[str, InstanceSpec | tuple] = field(default_factory=dict)
    own_instances: str = ""
    scope: str = "instances"
    readings: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    source: str = "proofcheck"
    tests: str | None = None
    doc: str | None = None

    def __post_init__(self):
        for name in ("checks", "uses", "hypotheses", "readings", "aliases"):
            object.__setattr__(self, name, tuple(getattr(self, name) or ()))
        object.__setattr__(self, "instances", dict(self.instances or {}))
        problems = self.problems()
        if problems:
            raise ValueError(f"statement {self.id!r}: " + "; ".join(problems))

    def problems(self) -> list[str]:
        """What is wrong with the declaration (empty when nothing is)."""
        out = []
        if not isinstance(self.id, str) or not self.id.strip():
            out.append("the id must be a non-empty string")
        if self.flag not in FLAGS:
            out.append(f"flag {self.flag!r} is not one of {', '.join(FLAGS)}")
        if self.scope not in SCOPES:
            out.append(f"scope {self.scope!r} is not one of {', '.join(SCOPES)}")
        for c in self.checks:
            if callable(c) or (isinstance(c, str) and c.count(":") == 1):
                continue
            if not isinstance(c, str) or ":" in c or self.module is None:
                out.append(f"check {c!r} is neither a callable, 'module:function', nor a "
                           "function of the statement's module")
        for k, spec in self.instances.items():
            specs = spec if isinstance(spec, tuple) else (spec,)
            if not specs or not all(isinstance(x, InstanceSpec) for x in specs):
                out.append(f"instance {k!r} is not an InstanceSpec (or a tuple of them)")
        if not (isinstance(self.admissible, Admissibility) or callable(self.admissible)):
            out.append("admissible must be an Admissibility or a callable")
        return out

    def where(self) -> dict[str, str | None]:
        """``{"construction", "kernel check", "tests", "doc"} -> place`` (``None``: none).

        For a built-in statement every place is a file path relative to the repository
        root: the construction module's file, the kernel module that re-derives the
        conclusion from a certificate (``proofcheck/kernel/lemma_checks/<name>.py`` for a
        lemma with a ``kernel_check``, ``proofcheck/kernel/theorem.py`` for a theorem),
        the test file and the doc page; a plugin's construction is its module's dotted
        name."""
        construction = self.module
        if construction is not None and self.source == "proofcheck":
            construction = construction.replace(".", "/") + ".py"
        kernel = (f"proofcheck/kernel/lemma_checks/{self.kernel_check}.py" if self.kernel_check
                  else "proofcheck/kernel/theorem.py" if self.kind == "theorem" else None)
        return {"construction": construction, "kernel check": kernel, "tests": self.tests,
                "doc": self.doc}

    @property
    def implemented(self) -> bool:
        return bool(self.checks)

    @property
    def names(self) -> tuple[str, ...]:
        """Every name ``lemma`` accepts for the statement: its id, then its aliases."""
        return (self.id,) + self.aliases

    def check_functions(self) -> list[Callable]:
        """The callables of :attr:`checks`, importing their modules.  Raises
        ``ImportError``/``AttributeError`` when a declared check does not exist."""
        out = []
        for c in self.checks:
            if callable(c):
                out.append(c)
                continue
            module, name = c.split(":") if ":" in c else (self.module, c)
            out.append(getattr(importlib.import_module(module), name))
        return out

    def check_admissible(self, dataset) -> None:
        """Raise ``BadInput``/``Inadmissible`` (exit 2) unless ``dataset`` is one this
        statement admits."""
        if isinstance(self.admissible, Admissibility):
            self.admissible.check(dataset, self.id)
        else:
            self.admissible(dataset)
