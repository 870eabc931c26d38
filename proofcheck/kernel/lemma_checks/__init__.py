"""Re-derivation of a lemma's conclusion from a certificate instance (SPEC §2, §3),
one module per statement family with ::

    check(statement, data, layer, semantics, path, d) -> (Verdict, lines, Witness | None)

``data``: the instance's raw JSON data (read by :mod:`.data`, vectors of dimension
``d``); ``layer``: its parsed FF/SA; ``semantics``: ``{"attention": "hardmax"}`` or
softmax with ``tau``; ``path``: its JSON path.  A module checks the hypotheses, the
layer's form and the conclusion, comparing numbers; malformed data is ``BadInput``.
"""
from __future__ import annotations

import importlib

from proofcheck.kernel.statements import LEMMA_FORMS

#: statement id -> module (relative to this package) that re-derives it
MODULES = {sid: form[2] for sid, form in LEMMA_FORMS.items()}


def checker(statement: str):
    """The ``check`` of ``statement`` (``None``: no module); a listed module that cannot
    be imported raises (ERROR, never a silent downgrade)."""
    name = MODULES.get(statement)
    return None if name is None else importlib.import_module(f"{__name__}.{name}").check
