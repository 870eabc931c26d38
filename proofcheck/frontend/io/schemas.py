"""The published JSON Schemas (``proofcheck/schemas/``, Draft 2020-12), for users and producers of
certificates and datasets (docs/spec.md §3): :func:`schema` loads one, :func:`schema_error` validates a
document with ``jsonschema`` and the project's two rules (``"integer"`` means a JSON integer,
never ``true`` or ``1.0``; the format ``proofcheck-number`` runs the kernel's number parser).

The trusted path never uses this module: ``verify`` and the kernel read with
:mod:`proofcheck.kernel.reader`, which tests/kernel/test_kernel_reader.py holds equal to these schemas
(the same documents accepted; the same refused, at the same JSON path)."""
import json
from functools import lru_cache
from importlib import resources

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import parse_number
from proofcheck.kernel.reader import key_path
from proofcheck.kernel.verdicts import escape

#: name -> (schema file in proofcheck/schemas, format string)
FORMATS = {
    "dataset": ("proofcheck-dataset-1.schema.json", "proofcheck-dataset/1"),
    "certificate": ("proofcheck-certificate-1.schema.json", "proofcheck-certificate/1"),
    "certificate-2": ("proofcheck-certificate-2.schema.json", "proofcheck-certificate/2"),
}


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """The published JSON Schema ``name`` (a key of :data:`FORMATS`)."""
    fname, _ = FORMATS[name]
    text = resources.files("proofcheck").joinpath("schemas", fname).read_text(encoding="utf-8")
    return json.loads(text)


def _number_format(value) -> bool:
    if isinstance(value, str):
        parse_number(value, "$")  # raises BadInput: the parser's own message
    return True


def _inline_refs(node, defs: dict, stack: tuple = ()):
    """``node`` with every non-recursive ``{"$ref": "#/$defs/X"}`` replaced by X and no
    ``pattern`` on number strings (the format checks the same grammar): it validates
    as the original, without ``jsonschema``'s dominant cost on large documents."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if len(node) == 1 and isinstance(ref, str) and ref.startswith("#/$defs/"):
            key = ref[len("#/$defs/"):]
            if key in stack or key not in defs:
                return node
            return _inline_refs(defs[key], defs, stack + (key,))
        out = {k: (v if k == "$defs" else _inline_refs(v, defs, stack)) for k, v in node.items()}
        if out.get("format") == "proofcheck-number":
            out.pop("pattern", None)
        return out
    if isinstance(node, list):
        return [_inline_refs(v, defs, stack) for v in node]
    return node


@lru_cache(maxsize=None)
def validator(name: str):
    """A ``jsonschema`` validator for schema ``name`` with the project's two rules."""
    import jsonschema
    from jsonschema import Draft202012Validator

    base = Draft202012Validator
    types = base.TYPE_CHECKER.redefine(
        "integer", lambda _checker, v: isinstance(v, int) and not isinstance(v, bool))
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("proofcheck-number", raises=BadInput)(_number_format)
    cls = jsonschema.validators.extend(base, type_checker=types)
    sch = schema(name)
    return cls(_inline_refs(sch, sch.get("$defs", {})), format_checker=checker)


def _leaf_cause(err):
    """The number parser's ``BadInput`` behind ``err`` or its alternatives, if any."""
    if isinstance(err.cause, BadInput):
        return err.cause
    for sub in err.context or ():
        c = _leaf_cause(sub)
        if c is not None:
            return c
    return None


def _required_keys(sch) -> set:
    """Keys named by ``required`` anywhere in a small ``not`` sub-schema."""
    if isinstance(sch, list):
        return set().union(*map(_required_keys, sch))
    if not isinstance(sch, dict):
        return set()
    return set(sch.get("required", ())).union(*map(_required_keys, sch.values()))


def _key_at_fault(err) -> str | None:
    """The key a violation of ``required``, ``additionalProperties`` or ``not`` (a key not
    allowed here) is about, as the kernel's reader names it."""
    obj = err.instance
    if not isinstance(obj, dict):
        return None
    if err.validator == "required":
        return next((k for k in err.validator_value if k not in obj), None)
    if err.validator == "additionalProperties":
        allowed = err.schema.get("properties", {})
        return next((k for k in obj if k not in allowed), None)
    if err.validator == "not":
        banned = _required_keys(err.validator_value)
        return next((k for k in obj if k in banned), None)
    return None


def json_path(err, root: str = "$") -> str:
    """The JSON path of a ``jsonschema`` error as the kernel's reader writes it: the value, or
    for a missing key or a key not allowed, the key (``$.network``, ``$.pairs[0].outputs``)."""
    path = root
    for elem in err.absolute_path:
        path = f"{path}[{elem}]" if isinstance(elem, int) else key_path(path, elem)
    key = _key_at_fault(err)
    return path if key is None else key_path(path, key)


def _first_item_first(err):
    """jsonschema's relevance of ``err``, except that of sibling list items in error the first
    one is preferred (jsonschema prefers the last), as the kernel's reader reports it."""
    from jsonschema.exceptions import relevance
    depth, path, *rest = relevance(err)
    return (depth, [-k if isinstance(k, int) else k for k in path], *rest)


def schema_error(obj, name: str, root: str = "$") -> BadInput | None:
    """The first violation of schema ``name`` by ``obj`` as a ``BadInput`` at its JSON path (under
    ``root``, :func:`json_path`), or ``None``: the number parser's message if it caused it, else
    jsonschema's, the error kept as ``.violation`` (``proofcheck.frontend.cli.schema_messages`` words it)."""
    from jsonschema.exceptions import best_match
    try:
        err = best_match(validator(name).iter_errors(obj), key=_first_item_first)
    except RecursionError:
        return BadInput("document is nested too deeply", root)
    if err is None:
        return None
    cause, fmt = _leaf_cause(err), FORMATS[name][1]
    text = cause.message if cause else escape(err.message, 300)
    e = BadInput(f"not a valid {fmt} document: {text}", json_path(err, root))
    e.violation = None if cause else err
    return e
