"""Strict JSON reading (docs/spec.md §3), the first step of every document the kernel reads: UTF-8 text
(a BOM accepted) of at most :data:`MAX_FILE_BYTES`, no duplicate key in any object, JSON integers
of at most ``MAX_STRING_LENGTH`` digits (longer than CPython's 4300-digit limit: converted by
:func:`~proofcheck.kernel.numbers.digits_to_int`, the process-wide limit untouched), nesting no
deeper than the parser's recursion.  The literals ``NaN``, ``Infinity``, ``-Infinity`` and numbers
beyond the double range parse as non-finite floats, which :mod:`proofcheck.kernel.reader` refuses
wherever they stand, with their JSON path (provenance included), as it checks every field.  Every
failure is ``BadInput`` (exit 2) naming the file, or the line and column."""
import hashlib
import json
from pathlib import Path

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.limits import collector_paused
from proofcheck.kernel.numbers import MAX_STRING_LENGTH, digits_to_int, int_to_digits
from proofcheck.kernel.verdicts import escape

#: largest JSON document read from a file (bytes)
MAX_FILE_BYTES = 512 * 1024 * 1024


def _no_duplicate_keys(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise BadInput(f"duplicate key {escape(k, 60)!r} in a JSON object")
            seen.add(k)
    return obj


def _parse_int(s: str) -> int:
    if len(s) > MAX_STRING_LENGTH:
        raise BadInput(f"a JSON integer has {len(s)} digits (limit {MAX_STRING_LENGTH})")
    return digits_to_int(s)


def loads_strict(text: str, where: str):
    """The JSON value of ``text`` (``where``: its source, for messages): objects as dicts,
    arrays as lists, integers as ``int``, other numbers as ``float``; ``BadInput`` for invalid
    JSON, a duplicate key, an integer of more than ``MAX_STRING_LENGTH`` digits or nesting
    too deep."""
    try:
        with collector_paused():  # an acyclic tree (limits.collector_paused)
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
    """Read and parse a JSON file strictly (:func:`loads_strict`); ``what`` names it in
    messages.  ``BadInput`` at the file: unreadable, over :data:`MAX_FILE_BYTES`, not UTF-8."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise BadInput(f"cannot read {what}: {e.strerror or e}", str(path)) from None
    return loads_bytes(data, what, str(path))


def loads_bytes(data: bytes, what: str, where: str):
    """The JSON value of a document's bytes as :func:`read_json` reads a file's (``where``:
    its source, for messages): ``BadInput`` over :data:`MAX_FILE_BYTES`, not UTF-8, or not
    strict JSON (:func:`loads_strict`)."""
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"{what} is larger than {MAX_FILE_BYTES} bytes", where)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadInput(f"{what} is not UTF-8 text ({e.reason} at byte {e.start})",
                       where) from None
    return loads_strict(text, where)


def canonical(obj) -> bytes:
    """The canonical JSON of ``obj`` (sorted keys, no spaces, ASCII): the bytes a digest is
    taken of.  An integer over CPython's 4300-digit limit is written by ``int_to_digits``."""
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    except ValueError:  # an integer over 4300 digits (json writes ints with int.__repr__)
        return _canonical_text(obj).encode()


def _canonical_text(x) -> str:
    """:func:`canonical`'s text, written value by value."""
    if isinstance(x, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_canonical_text(x[k])}" for k in sorted(x)) + "}"
    if isinstance(x, (list, tuple)):
        return "[" + ",".join(map(_canonical_text, x)) + "]"
    if type(x) is int:
        return int_to_digits(x)
    return json.dumps(x)


def sha256(obj) -> str:
    return hashlib.sha256(canonical(obj)).hexdigest()
