"""Per-statement re-derivation of a lemma's conclusion from a certificate instance
(SPEC §2, §3): one module per statement family, each with ::

    check(statement, data, layer, semantics, path, d) -> (Verdict, lines, Witness | None)

``data``: the instance's raw JSON ``data`` (read with :mod:`.data`, the one
reader: exact numbers through the one parser, every vector of dimension ``d``);
``layer``: the parsed FF/SA of the instance; ``semantics``: ``{"attention":
"hardmax"}`` or ``{"attention": "softmax", "tau": Fraction}``; ``path``: the
instance's JSON path.  A module checks the hypotheses on ``data``, the layer's
form (kind, width, eta, rho, A and V as the lemma states) and the conclusion,
comparing numbers, never spellings; malformed data raises ``BadInput``.
:mod:`.profile` is the exact piecewise-linear profile of an FF along a direction
(shared with the sympy proofs of ``proofcheck.symbolic``).
"""
from __future__ import annotations

import importlib

from proofcheck.kernel.statements import LEMMA_FORMS

#: statement id -> module (relative to this package) that re-derives it
MODULES = {sid: form[2] for sid, form in LEMMA_FORMS.items()}


def checker(statement: str):
    """The ``check`` function of ``statement`` (``None`` when it has no module here).
    A listed module that cannot be imported raises: the check is then ERROR, never
    a silent downgrade to a weaker one."""
    name = MODULES.get(statement)
    return None if name is None else importlib.import_module(f"{__name__}.{name}").check
