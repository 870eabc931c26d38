"""The statement registry (docs/spec.md §2): the built-in declarations
(:mod:`proofcheck.frontend.registry.builtin`) and those of installed plugins
(:mod:`proofcheck.frontend.registry.plugins`), as :class:`Statement` objects.

Everything that lists statements reads them here: ``list``, ``lemma`` (through
:func:`find`), the reports' catalogue table and dependency graph
(:func:`dependency_edges`), the README table (:func:`markdown_table`).
"""
from __future__ import annotations

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import escape
from proofcheck.frontend.registry.admissibility import (
    ANY_DATASET,
    NO_DATASET,
    THEOREM,
    Admissibility,
)
from proofcheck.frontend.registry.instances import InstanceSpec
from proofcheck.frontend.registry.statement import FLAGS, SCOPES, Statement, normalise

__all__ = ["Statement", "Admissibility", "InstanceSpec", "FLAGS", "SCOPES", "ANY_DATASET",
           "NO_DATASET", "THEOREM", "load", "find", "dependency_edges", "markdown_table",
           "markdown_cell",
           "normalise"]


def load(plugins: bool = True) -> list[Statement]:
    """The catalogue: the built-in statements, then (with ``plugins``) those of
    installed plugins (entry-point group ``proofcheck.statements``)."""
    from proofcheck.frontend.registry.builtin import STATEMENTS
    out = list(STATEMENTS)
    if plugins:
        from proofcheck.frontend.registry.plugins import discover
        out += discover(out)
    return out


def find(sid: str, statements: list[Statement] | None = None) -> Statement:
    """The statement called ``sid``: its id or an alias (``hat`` for 3.2), compared
    after :func:`normalise` (case, Unicode form and surrounding space do not matter).
    Raises ``BadInput`` (exit 2) listing the known ids."""
    cat = load() if statements is None else statements
    key = normalise(sid)
    for st in cat:
        if key in {normalise(n) for n in st.names}:
            return st
    shown = repr(escape(sid, 60))  # escaped and cut: an id is user input
    raise BadInput(f"unknown statement {shown}; known ids: " + ", ".join(s.id for s in cat))


def dependency_edges(statements: list[Statement]) -> list[tuple[str, str]]:
    """``(a, b)`` for every declared "the proof of b uses a" between implemented
    statements of ``statements``, in declaration order."""
    ids = {s.id for s in statements if s.implemented}
    return [(a, s.id) for s in statements if s.id in ids for a in s.uses if a in ids]


def markdown_cell(text: str) -> str:
    """Text as a literal Markdown table cell."""
    return (text.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")
            .replace("<", "&lt;").replace(">", "&gt;"))


def markdown_table(statements: list[Statement]) -> str:
    """The catalogue as a Markdown table (the README's "Statements" section): id,
    kind, statement, paper number and flag, the construction module, what the kernel
    re-checks in a certificate (its re-derivation module for a lemma's instances, the
    whole claim for a theorem; ``-``: no certificate), what the proof uses, what
    ``--dataset`` admits, the scope, links to its test file and doc page."""
    lines = ["| id | kind | statement | paper no. (flag) | construction | kernel check | "
             "uses | `--dataset` | scope | tested, documented |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in statements:
        adm = s.admissible.describe() if isinstance(s.admissible, Admissibility) else \
            "the statement's own rule"
        kernel = (f"`lemma_checks/{s.kernel_check}`" if s.kernel_check else
                  "theorem certificate" if s.kind == "theorem" else "-")
        lines.append(f"| {s.id} | {s.kind} | {markdown_cell(s.title)} | {s.paper} ({s.flag}) | "
                     f"`{s.module or '-'}` | {kernel} | {', '.join(s.uses) or '-'} | "
                     f"{markdown_cell(adm)} | {s.scope} | {_links(s)} |")
    return "\n".join(lines) + "\n"


def _links(statement: Statement) -> str:
    """Markdown links to a statement's test file and doc page (``-`` when it has neither)."""
    links = [f"[{label}]({path})" for label, path in (("tests", statement.tests),
                                                      ("doc", statement.doc)) if path]
    return ", ".join(links) or "-"
