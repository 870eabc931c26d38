"""Strict JSON reading (UTF-8, BOM accepted; no duplicate keys, integers over ``MAX_STRING_LENGTH``
digits, files over ``MAX_FILE_BYTES`` or nesting too deep) and validation against the published
schemas of ``proofcheck/schemas/`` (SPEC §3) with ``jsonschema`` (Draft 2020-12) BEFORE any
arithmetic: ``"integer"`` means a JSON integer, the format ``proofcheck-number`` runs the one
number parser.  Every failure is ``BadInput`` (exit 2) with the file or JSON path."""
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import MAX_STRING_LENGTH, digits_to_int, parse_number

#: name -> (schema file in proofcheck/schemas, format string)
FORMATS = {
    "dataset": ("proofcheck-dataset-1.schema.json", "proofcheck-dataset/1"),
    "certificate": ("proofcheck-certificate-1.schema.json", "proofcheck-certificate/1"),
    "certificate-2": ("proofcheck-certificate-2.schema.json", "proofcheck-certificate/2"),
}

#: largest JSON document read from a file (bytes)
MAX_FILE_BYTES = 512 * 1024 * 1024


def _no_duplicate_keys(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise BadInput(f"duplicate key {k!r} in a JSON object")
        seen.add(k)
    return dict(pairs)


def _parse_int(s: str) -> int:
    if len(s) > MAX_STRING_LENGTH:
        raise BadInput(f"a JSON integer has {len(s)} digits (limit {MAX_STRING_LENGTH})")
    return digits_to_int(s)


def loads_strict(text: str, where: str):
    """Parse JSON ``text`` (``where``: its source); floats stay floats (a schema decides
    where they are allowed)."""
    try:
        return json.loads(text, parse_int=_parse_int, object_pairs_hook=_no_duplicate_keys)
    except BadInput as e:
        raise BadInput(e.message, where) from None
    except json.JSONDecodeError as e:
        raise BadInput(f"invalid JSON: {e.msg} at line {e.lineno} column {e.colno}",
                       where) from None
    except RecursionError:
        raise BadInput("invalid JSON: nested too deeply", where) from None
    except ValueError as e:
        raise BadInput(f"invalid JSON: {e}", where) from None


def read_json(path: str | Path, what: str = "file"):
    """Read and parse a JSON file strictly; ``what`` names it in messages."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise BadInput(f"cannot read {what}: {e.strerror or e}", str(path)) from None
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"{what} is larger than {MAX_FILE_BYTES} bytes", str(path))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadInput(f"{what} is not UTF-8 text ({e.reason} at byte {e.start})",
                       str(path)) from None
    return loads_strict(text, str(path))


def _number_format(value) -> bool:
    if isinstance(value, str):
        parse_number(value, "$")  # raises BadInput: the parser's own message
    return True


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """The published JSON Schema ``name`` (a key of :data:`FORMATS`)."""
    fname, _ = FORMATS[name]
    text = resources.files("proofcheck").joinpath("schemas", fname).read_text(encoding="utf-8")
    return json.loads(text)


def _inline_refs(node, defs: dict, stack: tuple = ()):
    """``node`` with every non-recursive ``{"$ref": "#/$defs/X"}`` replaced by X and no
    ``pattern`` on number strings (the format checks the same grammar): it validates
    as the original, without ``jsonschema``'s dominant cost on large certificates."""
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


def schema_error(obj, name: str, root: str = "$") -> BadInput | None:
    """The first violation of schema ``name`` by ``obj`` as a ``BadInput`` at its JSON path (under
    ``root``), or ``None``: the number parser's message if it caused it, else jsonschema's, the
    error kept as ``.violation`` (worded for people by ``proofcheck.cli.schema_messages``)."""
    from jsonschema.exceptions import best_match
    try:
        err = best_match(validator(name).iter_errors(obj))
    except RecursionError:
        return BadInput("document is nested too deeply", root)
    if err is None:
        return None
    cause, fmt, at = _leaf_cause(err), FORMATS[name][1], err.json_path
    e = BadInput(f"not a valid {fmt} document: {cause.message if cause else err.message[:300]}",
                 root + at[1:] if at.startswith("$") else root)
    e.violation = None if cause else err
    return e


def validate(obj, name: str, root: str = "$") -> None:
    """Raise the ``BadInput`` of :func:`schema_error` if ``obj`` does not conform."""
    err = schema_error(obj, name, root)
    if err is not None:
        raise err
