"""Reading dataset files (SPEC §3): ``.json`` (``proofcheck-dataset/1``, parsed by the
kernel's :func:`~proofcheck.kernel.dataset.dataset_from_json`) and ``.npz`` (arrays
``X_j``, ``Y_j``), then the admissibility check.  For ``.npz`` files the error path
names the array and element (``X_0[1][0]``) for shape errors, and the equivalent
JSON path for admissibility errors.
"""
from __future__ import annotations

import re
from pathlib import Path

from proofcheck.kernel.dataset import (
    Dataset,
    Pair,
    Token,
    float_note,
    plural,
    type_name,
    check_admissible,
    dataset_from_json,
)
from proofcheck.kernel.documents import read_json
from proofcheck.kernel.errors import BadInput, Inadmissible
from proofcheck.kernel.numbers import parse_number


def _load_json(path: Path) -> Dataset:
    obj = read_json(path, "file")
    if not isinstance(obj, dict):
        raise BadInput(f"top-level JSON value is a {type_name(obj)}, expected an object",
                       str(path))
    return dataset_from_json(obj, source=str(path))


_NPZ_KEY = re.compile(r"([XY])_(0|[1-9][0-9]*)")


def _npz_sequence(arr, key: str, j: int, kind: str, d: int | None,
                  float_paths: list[str]) -> tuple[tuple[Token, ...], int]:
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
            cpath = f"{key}[{t}][{c}]"
            q, was_float = parse_number(v, cpath, f"{kind} {j} token {t} coordinate {c}")
            if was_float:
                float_paths.append(cpath)
            coords.append(q)
        toks.append(tuple(coords))
    return tuple(toks), cols


def _load_npz(path: Path, allow_pickle: bool) -> Dataset:
    import zipfile

    import numpy as np

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


def load_dataset(path: str | Path, *, allow_pickle: bool = False) -> Dataset:
    """Load a ``.json`` (``proofcheck-dataset/1``) or ``.npz`` dataset and check it.

    ``.npz``: arrays ``X_j`` (n_j, d) and ``Y_j`` (m_j, d) for j = 0..N-1; integer
    arrays are exact, float arrays are read as exact binary values (with a note),
    string arrays (``<U``/``S``) are parsed like JSON strings.  Object arrays need
    pickle, which can run code from the file: they are refused unless
    ``allow_pickle=True``.  Raises ``BadInput`` or ``Inadmissible`` (after
    ``check_admissible``).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        ds = _load_json(path)
    elif suffix == ".npz":
        if not path.exists():
            raise BadInput("cannot read file: No such file or directory", str(path))
        ds = _load_npz(path, allow_pickle)
    else:
        raise BadInput(f"unsupported file type {path.suffix or '(none)'!r}, expected "
                       ".json or .npz", str(path))
    check_admissible(ds)
    return ds
