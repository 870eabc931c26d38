"""Reading datasets (docs/spec.md §3): ``proofcheck-dataset/1`` JSON objects and files
(read by the kernel's reader, then with messages that name the pair, token and
coordinate) and ``.npz`` files (arrays ``X_j``, ``Y_j``), then the
kernel's admissibility check.  For ``.npz`` files the error path
names the array and element (``X_0[1][0]``) for shape errors, and the equivalent
JSON path for admissibility errors.  The path ``-`` is standard input: a JSON
dataset, at most ``MAX_FILE_BYTES`` like a file (:func:`load_stdin`).
"""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from proofcheck.kernel.verdicts import plural
from proofcheck.kernel.dataset import FORMAT, Dataset, Pair, Token, check_admissible, check_name
from proofcheck.kernel.documents import read_json
from proofcheck.kernel.errors import BadInput, Inadmissible
from proofcheck.kernel.numbers import fmt_num, parse_number
from proofcheck.kernel.reader import key_path, read_dataset
from proofcheck.kernel.verdicts import escape


def type_name(v) -> str:
    if v is None:
        return "null"
    return {bool: "boolean", str: "string", int: "number", float: "number",
            list: "list", dict: "object"}.get(type(v), type(v).__name__)


def float_note(paths: list[str]) -> str:
    shown = ", ".join(paths[:5]) + (f" (and {len(paths) - 5} more)" if len(paths) > 5 else "")
    return ("JSON floats were read as the exact binary value of the double "
            f"(e.g. 0.1 -> 3602879701896397/36028797018963968) at: {shown}")


def _parse_sequence(seq, d: int, j: int, kind: str, path: str,
                    float_paths: list[str]) -> tuple[Token, ...]:
    if not isinstance(seq, list):
        raise BadInput(f"{kind} {j} is a {type_name(seq)}, expected a list of tokens", path)
    if not seq:
        raise Inadmissible(f"{kind} {j} is empty", path)
    out = []
    for t, tok in enumerate(seq):
        tpath = f"{path}[{t}]"
        if not isinstance(tok, list):
            raise BadInput(f"token {t} of {kind} {j} is a {type_name(tok)}, "
                           f"expected a list of {plural(d, 'number')}", tpath)
        if len(tok) != d:
            raise BadInput(f"token {t} of {kind} {j} has {plural(len(tok), 'coordinate')}, "
                           f"expected {d}", tpath)
        if all(type(v) is Fraction for v in tok):  # read already by the kernel's reader
            out.append(tuple(tok))
            continue
        out.append(tuple(_coordinate(v, f"{tpath}[{c}]", f"{kind} {j} token {t} coordinate {c}",
                                     float_paths) for c, v in enumerate(tok)))
    return tuple(out)


def _coordinate(v, path: str, what: str, float_paths: list[str]):
    """One coordinate through the one number parser; a JSON float's path is noted."""
    if type(v) is Fraction:  # read by the kernel's reader
        return v
    q, was_float = parse_number(v, path, what)
    if was_float:
        float_paths.append(path)
    return q


def dataset_from_json(obj, source: str = "<json>", root: str = "$") -> Dataset:
    """Build a ``Dataset`` from a parsed ``proofcheck-dataset/1`` JSON object.

    First the kernel's reader (:func:`proofcheck.kernel.reader.read_dataset`: every key,
    type and number, each number parsed once; the rules of the published schema
    ``proofcheck/schemas/proofcheck-dataset-1.schema.json``) before any arithmetic; then
    the shape.  Checks the shape only (not admissibility, except that empty sequences
    raise ``Inadmissible``).  Keys other than :data:`DATASET_KEYS` (top level) and
    :data:`PAIR_KEYS` (in a pair) are ``BadInput`` at their JSON path (``$.pair``,
    ``$.pairs[3].outputs``).  ``name`` defaults to the stem of ``source``.  ``root`` is
    the JSON path of ``obj`` in its document.  Raises ``BadInput`` / ``Inadmissible``
    with the JSON path; where the reader refuses a value, the message is the precise
    one of :func:`_build` (which names pair, token and coordinate) when it has one.
    """
    try:
        read = read_dataset(obj, root)
    except BadInput:
        _build(obj, source, root)  # only to word the error precisely; raises
        raise
    return _build(read, source, root)


#: the keys of a ``proofcheck-dataset/1`` object (docs/spec.md §3; ``source``: an optional
#: provenance text, as in the shipped digits sample) and of one pair
DATASET_KEYS = ("format", "name", "source", "d", "pairs")
PAIR_KEYS = ("input", "output")


def _refuse_unknown_keys(obj: dict, allowed: tuple[str, ...], path: str) -> None:
    """``BadInput`` at ``path.<key>`` for the first key of ``obj`` not in ``allowed``
    (a misspelt ``"pair"`` or ``"outputs"`` would otherwise be ignored silently)."""
    for key in obj:
        if key not in allowed:
            raise BadInput(f"unknown key '{escape(key, 40)}'; allowed keys: "
                           f"{', '.join(allowed)}", key_path(path, key))


def _build(obj, source: str, root: str) -> Dataset:
    if not isinstance(obj, dict):
        raise BadInput(f"top-level JSON value is a {type_name(obj)}, expected an object", root)
    _refuse_unknown_keys(obj, DATASET_KEYS, root)
    fmt = obj.get("format")
    if fmt != FORMAT:
        what = "missing" if "format" not in obj else f"{fmt!r}"
        raise BadInput(f"format is {what}, expected {FORMAT!r}", f"{root}.format")
    default_name = Path(source).stem if source and not source.startswith("<") else "dataset"
    name = obj.get("name", default_name)
    if not isinstance(name, str):
        raise BadInput(f"name is a {type_name(name)}, expected a string", f"{root}.name")
    check_name(name, root)
    d = obj.get("d")
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        got = fmt_num(d) if type(d) is int else escape(d, 40)
        raise BadInput(f"d must be a positive integer (got {got})", f"{root}.d")
    if d > 100_000:
        raise BadInput(f"d = {fmt_num(d)} is larger than "
                       "100000, which this tool accepts", f"{root}.d")
    pairs = obj.get("pairs")
    if not isinstance(pairs, list):
        raise BadInput(f"pairs is {'missing' if 'pairs' not in obj else 'a ' + type_name(pairs)}"
                       ", expected a non-empty list", f"{root}.pairs")
    if not pairs:
        raise BadInput("pairs is empty, expected at least one pair", f"{root}.pairs")
    float_paths: list[str] = []
    out = []
    for j, pair in enumerate(pairs):
        ppath = f"{root}.pairs[{j}]"
        if not isinstance(pair, dict):
            raise BadInput(f"pair {j} is a {type_name(pair)}, expected an object "
                           "with keys 'input' and 'output'", ppath)
        _refuse_unknown_keys(pair, PAIR_KEYS, ppath)
        for key in PAIR_KEYS:
            if key not in pair:
                raise BadInput(f"pair {j} has no key {key!r}", ppath)
        xs = _parse_sequence(pair["input"], d, j, "input", f"{ppath}.input", float_paths)
        ys = _parse_sequence(pair["output"], d, j, "output", f"{ppath}.output", float_paths)
        out.append(Pair(xs, ys))
    notes = (float_note(float_paths),) if float_paths else ()
    return Dataset(name=name, d=d, pairs=tuple(out), notes=notes)


def _load_json(path: Path) -> Dataset:
    obj = read_json(path, "file")
    if not isinstance(obj, dict):
        raise BadInput(f"top-level JSON value is a {type_name(obj)}, expected an object",
                       str(path))
    return dataset_from_json(obj, source=str(path))


_NPZ_KEY = re.compile(r"([XY])_(0|[1-9][0-9]*)")


def _npz_sequence(arr, key: str, j: int, kind: str, d: int | None,
                  float_paths: list[str]) -> tuple[tuple[Token, ...], int]:
    import numpy as np

    if arr.ndim != 2:
        raise BadInput(f"array {key} has {plural(arr.ndim, 'dimension')} (shape "
                       f"{tuple(arr.shape)}), expected 2 (shape (n, d))", key)
    rows, cols = arr.shape
    if d is not None and cols != d:
        raise BadInput(f"array {key} has {plural(cols, 'column')}, expected d={d} "
                       "(from X_0)", key)
    if cols < 1:
        raise BadInput(f"array {key} has 0 columns, expected d >= 1", key)
    if rows == 0:
        raise Inadmissible(f"{kind} {j} is empty", key)
    kindch = arr.dtype.kind
    if kindch not in "iufUSO":
        raise BadInput(f"array {key} has dtype {arr.dtype}, expected integers, floats "
                       "or strings", key)
    toks = []
    for t in range(rows):
        coords = []
        for c in range(cols):
            v = arr[t, c]
            if kindch == "S":
                v = bytes(v).decode("ascii", "replace")
            elif kindch == "U":
                v = str(v)
            elif kindch in "iu":
                v = int(v)
            elif kindch == "f" and not np.isfinite(v):
                v = float(v)  # printed as nan, not np.float64(nan)
            coords.append(_coordinate(v, f"{key}[{t}][{c}]",
                                      f"{kind} {j} token {t} coordinate {c}", float_paths))
        toks.append(tuple(coords))
    return tuple(toks), cols


def _is_npy(path: Path) -> bool:
    """Whether ``path`` starts with the ``.npy`` magic string (a single array)."""
    try:
        with open(path, "rb") as f:
            return f.read(6) == b"\x93NUMPY"
    except OSError:
        return False


def _load_npz(path: Path, allow_pickle: bool) -> Dataset:
    import zipfile

    import numpy as np

    if not zipfile.is_zipfile(path) and not _is_npy(path):
        raise BadInput("not a valid .npz file (not a zip archive of .npy arrays X_0, Y_0, "
                       "...)", str(path))
    try:
        npz = np.load(path, allow_pickle=allow_pickle)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise BadInput(f"cannot read npz file: {e}", str(path)) from None
    if not hasattr(npz, "files"):
        raise BadInput("file is a single .npy array, expected an .npz archive "
                       "with arrays X_0, Y_0, X_1, Y_1, ...", str(path))
    with npz:
        keys = list(npz.files)
        ignored = [k for k in keys if not _NPZ_KEY.fullmatch(k)]
        xs = {int(m.group(2)) for k in keys if (m := _NPZ_KEY.fullmatch(k)) and m.group(1) == "X"}
        ys = {int(m.group(2)) for k in keys if (m := _NPZ_KEY.fullmatch(k)) and m.group(1) == "Y"}
        if not xs and not ys:
            raise BadInput("no arrays X_0, Y_0, X_1, Y_1, ... found (arrays: "
                           f"{', '.join(keys) or 'none'})", str(path))
        N = max(xs | ys) + 1
        for j in range(N):
            if j not in xs:
                raise BadInput(f"array X_{j} is missing (arrays must be X_0..X_{N - 1}, "
                               f"Y_0..Y_{N - 1})", str(path))
            if j not in ys:
                raise BadInput(f"array Y_{j} is missing (X_{j} has no target)", str(path))
        float_paths: list[str] = []
        pairs = []
        d = None
        for j in range(N):
            try:
                x_arr, y_arr = npz[f"X_{j}"], npz[f"Y_{j}"]
            except ValueError as e:
                raise BadInput(f"cannot read arrays X_{j}/Y_{j}: {e} (object arrays need "
                               "allow_pickle=True; prefer a unicode string array)",
                               str(path)) from None
            xt, d = _npz_sequence(x_arr, f"X_{j}", j, "input", d, float_paths)
            yt, _ = _npz_sequence(y_arr, f"Y_{j}", j, "output", d, float_paths)
            pairs.append(Pair(xt, yt))
    notes = []
    if float_paths:
        notes.append(float_note(float_paths).replace("JSON floats", "Float array entries"))
    if ignored:
        notes.append("ignored npz arrays: " + ", ".join(sorted(ignored)))
    return Dataset(name=path.stem, d=d, pairs=tuple(pairs), notes=tuple(notes))


#: the ``--dataset`` path that names standard input
STDIN = "-"


def load_stdin(stream=None) -> Dataset:
    """The JSON dataset (``proofcheck-dataset/1``) on standard input (``stream``: a
    text stream with a binary ``buffer``, default ``sys.stdin``), read to its end, at
    most :data:`~proofcheck.kernel.documents.MAX_FILE_BYTES` bytes, then read as a
    file is; its ``name`` defaults to ``dataset``.  Raises ``BadInput`` (where:
    ``<stdin>``) for a terminal (nothing was piped in: it would wait for typing), no
    or empty input, more bytes than the bound, a zip (``.npz``) archive, and every
    error of a JSON dataset file."""
    import sys

    from proofcheck.kernel.documents import MAX_FILE_BYTES, loads_strict
    stream = sys.stdin if stream is None else stream
    where = "<stdin>"
    if stream is None or _is_terminal(stream):
        raise BadInput("--dataset - reads a JSON dataset from standard input, which is "
                       "a terminal here (or closed): pipe or redirect one into it, e.g. "
                       "`--dataset - < my.json`", where)
    try:
        data = getattr(stream, "buffer", stream).read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot read standard input: {getattr(e, 'strerror', None) or e}",
                       where) from None
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"standard input is larger than {MAX_FILE_BYTES} bytes", where)
    if data.startswith(b"PK\x03\x04"):
        raise BadInput("standard input holds a zip archive (.npz?): --dataset - reads a "
                       "JSON dataset; give an .npz dataset as a file", where)
    if not data.strip():
        raise BadInput("standard input is empty: expected a JSON dataset "
                       "(proofcheck-dataset/1)", where)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadInput(f"standard input is not UTF-8 text ({e.reason} at byte {e.start})",
                       where) from None
    obj = loads_strict(text, where)
    if not isinstance(obj, dict):
        raise BadInput(f"top-level JSON value is a {type_name(obj)}, expected an object", where)
    return dataset_from_json(obj, source=where)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def load_dataset(path: str | Path, *, allow_pickle: bool = False,
                 admissible: bool = True, ordered: bool = False) -> Dataset:
    """Load a ``.json`` (``proofcheck-dataset/1``) or ``.npz`` dataset, or with ``path``
    ``-`` a JSON dataset from standard input (:func:`load_stdin`), and check it
    (``ordered``: input sequences compared as tuples, the causal-mask hypothesis).

    ``.npz``: arrays ``X_j`` (n_j, d) and ``Y_j`` (m_j, d) for j = 0..N-1; integer
    arrays are exact, float arrays are read as exact binary values (with a note),
    string arrays (``<U``/``S``) are parsed like JSON strings.  Object arrays need
    pickle, which can run code from the file: they are refused unless
    ``allow_pickle=True``.  Raises ``BadInput`` or ``Inadmissible`` (after
    ``check_admissible``; ``admissible=False`` checks the shape only, for a caller
    that applies a statement's own rules).
    """
    if str(path) == STDIN:
        ds = load_stdin()
        if admissible:
            check_admissible(ds, ordered)
        return ds
    path = Path(path)
    suffix = path.suffix.lower()
    if path.is_dir():
        raise BadInput("is a directory, expected a .json or .npz dataset file", str(path))
    if suffix == ".json":
        ds = _load_json(path)
    elif suffix == ".npz":
        if not path.exists():
            raise BadInput("cannot read file: No such file or directory", str(path))
        ds = _load_npz(path, allow_pickle)
    else:
        raise BadInput(f"unsupported file type {path.suffix or '(none)'!r}, expected "
                       ".json or .npz", str(path))
    if admissible:
        check_admissible(ds, ordered)
    return ds
