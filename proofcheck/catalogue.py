"""The statement catalogue (SPEC §2), read from ``data/catalogue.json`` — the ONE
place that maps catalogue ids to paper numbers (with a confirmed/assumed flag)
and to the implementing module."""
from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from importlib import resources

from proofcheck.kernel.errors import BadInput


@dataclass(frozen=True)
class Statement:
    id: str
    kind: str
    title: str
    paper: str
    flag: str
    module: str | None
    entry: str | None
    needs_d: int

    @property
    def implemented(self) -> bool:
        return self.module is not None

    def runner(self):
        """The callable ``run(dataset=None, seed=0) -> list[CheckResult]``."""
        return getattr(importlib.import_module(self.module), self.entry)


def load() -> list[Statement]:
    data = json.loads(resources.files("proofcheck").joinpath("data/catalogue.json").read_text())
    return [Statement(**s) for s in data["statements"]]


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
