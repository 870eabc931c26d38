"""Per-statement re-derivation of a lemma's conclusion from a certificate instance
(issue "Check what is built", item 4; SPEC §2, §3).

A lemma certificate instance is ``{"name", "kind": "FF"|"SA", "layer", "inputs",
"expected", "verdict", "data"}``; ``data`` holds the lemma's own data as exact
rational strings (3.2: S, p, q; 3.2p: S, p, q, delta1, delta2; 3.3: line, kappa,
delta, target; 4.1: u; 4.2: box and t; 4.3: sphere radius and points; ...).

One module per statement family, each with the same small interface::

    def check(statement: str, data: dict, layer, semantics: dict, path: str, d: int)
        -> tuple[Verdict, list[str], Witness | None]

It checks the hypotheses on ``data``, the form of ``layer`` (kind, width, eta, rho,
ranks of A and V as the lemma states) and the conclusion, comparing numbers (never
spellings).  Malformed data raises ``BadInput`` with the JSON path.  The modules
import only from ``proofcheck.kernel``.

Arguments as ``verify`` passes them: ``data`` is the instance's raw JSON ``data``
object (read it with :mod:`.data`: exact strings through the one number parser);
``layer`` the parsed ``FF``/``SA`` (its kind already checked against the statement);
``semantics`` is ``{"attention": "hardmax"}`` or ``{"attention": "softmax", "tau":
Fraction}`` (tau > 0, parsed); ``path`` the instance's JSON path
(``$.instances[k]``); ``d`` the instance's dimension: every vector of ``data``
must have it (``BadInput`` otherwise).  Under softmax, ``verify`` evaluates the stated outputs only
for FF layers; an SA check must certify its conclusion at tau itself (or return
REFUTED / INCONCLUSIVE).  The returned witness, if any, is printed by ``verify``.

``verify`` also (a) evaluates the layer on the instance's ``inputs`` against its
``expected`` outputs (numbers, by both backends), (b) recomputes the instance's
verdict as the worst of (a) and ``check`` and compares it with the stated
``verdict`` of the instance.  A statement without a module here keeps only (a) and
its line says "conclusion not re-derived".

``profile`` holds the exact piecewise-linear profile of an FF along a direction
(shared with the sympy proofs of ``proofcheck.symbolic``); ``data`` the strict
readers.
"""
from __future__ import annotations

import importlib

from proofcheck.kernel.statements import LEMMA_FORMS

# statement id -> module (relative to this package) that re-derives it
MODULES = {sid: form[2] for sid, form in LEMMA_FORMS.items()}


def checker(statement: str):
    """The ``check`` function for ``statement``, or ``None`` when the statement has
    no module here.  A module that exists in the table but cannot be imported
    raises (the caller's check is then ERROR: never a silent downgrade to a
    weaker check)."""
    name = MODULES.get(statement)
    if name is None:
        return None
    return importlib.import_module(f"{__name__}.{name}").check
