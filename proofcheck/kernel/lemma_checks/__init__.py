"""Re-derivation of a lemma's conclusion from a certificate instance (docs/spec.md §2, §3), one module per
statement family (:data:`proofcheck.kernel.statements.LEMMA_FORMS`) with ::

    check(statement, data, layer, semantics, path, d) -> (Verdict, lines, Witness | None)

``data``: the instance's raw JSON data, read by the ONE reader here (``vector`` is the networks',
:mod:`..serialize`: every number an exact string or a JSON integer, one rule, through the one
parser; floats, booleans, null, wrong shapes and missing keys are ``BadInput`` with the JSON path;
vectors of dimension ``d``); ``layer``: its parsed FF/SA; ``semantics``: ``{"attention":
"hardmax"}`` or softmax with ``tau``; ``path``: its JSON path.  A module checks the hypotheses,
the layer's form and the conclusion, comparing numbers."""
import importlib

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import parse_exact  # noqa: F401 (the lemma checks' parser)
from proofcheck.kernel.serialize import vector
from proofcheck.kernel.statements import LEMMA_FORMS


def checker(statement: str):
    """The ``check`` of ``statement``'s module (``None``: none); a listed module that
    cannot be imported raises (ERROR, never a silent downgrade)."""
    name = LEMMA_FORMS[statement][2] if statement in LEMMA_FORMS else None
    return None if name is None else importlib.import_module(f"{__name__}.{name}").check


def points(v, d: int, path: str) -> list:
    """A non-empty list of ``(d,)`` vectors."""
    if not isinstance(v, list) or not v:
        raise BadInput("expected a non-empty list of points", path)
    return [vector(x, d, f"{path}[{i}]") for i, x in enumerate(v)]


def get(data, key: str, path: str):
    """``data[key]``, or ``BadInput`` naming the missing key."""
    if not isinstance(data, dict):
        raise BadInput("the lemma's data must be an object", path)
    if key not in data:
        raise BadInput(f"the lemma's data lacks {key!r}", f"{path}.{key}")
    return data[key]
