"""The statement catalogue (SPEC §2), read from ``data/catalogue.json`` — the ONE
place that maps catalogue ids to paper numbers (with a flag saying how the number
is known, :data:`FLAGS`), to the implementing module, and to the statement's
readings when its source admits several (the first one is the default)."""
from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from importlib import resources

from proofcheck.kernel.errors import BadInput

# flag -> what it means (SPEC §2); printed by ``list`` and the reports' legend
FLAGS = {
    "seed-numbered": "the number and the statement appear in a seed (the sources in "
                     "shared/seeds)",
    "caption-numbered": "the number is known from a figure caption of the authors' "
                        "repository; the wording is reconstructed",
    "project": "a label of this project for an unnumbered step or a reconstructed "
               "statement; no paper number is claimed",
}


@dataclass(frozen=True)
class Statement:
    """One catalogue row.  ``readings``: the statement's readings, default first
    (empty when the source admits only one)."""

    id: str
    kind: str
    title: str
    paper: str
    flag: str
    module: str | None
    entry: str | None
    needs_d: int
    # where the statement comes from: "proofcheck" or a plugin's distribution name
    source: str = "proofcheck"
    hypotheses: tuple = ()
    readings: tuple[str, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "readings", tuple(self.readings or ()))

    @property
    def implemented(self) -> bool:
        return self.module is not None

    def runner(self):
        """The callable ``run(dataset=None, seed=0) -> list[CheckResult]``."""
        return getattr(importlib.import_module(self.module), self.entry)


def load(plugins: bool = True) -> list[Statement]:
    """The catalogue: the built-in statements of ``data/catalogue.json``, then (with
    ``plugins``) those of installed plugins (``proofcheck.statements`` entry points,
    see :mod:`proofcheck.api`)."""
    data = json.loads(resources.files("proofcheck").joinpath("data/catalogue.json").read_text())
    out = [Statement(**s) for s in data["statements"]]
    if plugins:
        from proofcheck.registry.plugins import discover
        for spec, dist in discover({s.id.lower() for s in out}):
            out.append(Statement(id=spec.id, kind=spec.kind, title=spec.title, paper=spec.paper,
                                 flag=spec.flag, module=spec.run.__module__,
                                 entry=spec.run.__qualname__, needs_d=spec.needs_d,
                                 source=dist, hypotheses=tuple(spec.hypotheses)))
    return out


_ALIASES = {"theorem-1.6": "1.6", "theorem-1.8": "1.8", "hardmax": "1.6", "softmax": "1.8",
            "translation": "3.1", "hat": "3.2", "plateau": "3.2p", "snap": "3.3",
            "clustering": "4.1", "corner": "4.2", "sphere": "4.3"}


def find(sid: str) -> Statement:
    """Statement by id (case-insensitive; names such as ``hat`` also work).
    Raises ``BadInput`` listing the known ids."""
    key = _ALIASES.get(sid.lower(), sid)
    for s in load():
        if s.id.lower() == key.lower():
            return s
    raise BadInput(f"unknown statement {sid!r}; known ids: " + ", ".join(s.id for s in load()))
