"""Datasets: exact in-memory form, loading, admissibility (SPEC §1 and §3).

In memory a dataset is ``Dataset(name, d, pairs, notes)`` where each
``Pair(inputs, outputs)`` holds tuples of tokens and a token is a tuple of ``d``
``Fraction``s.  ``X_j = pairs[j].inputs`` has shape (n_j, d), ``Y_j =
pairs[j].outputs`` has shape (m_j, d).

Errors: ``BadInput`` for malformed data (wrong shape or type, non-numeric or
non-finite numbers, unreadable file), ``Inadmissible`` for well-formed data that
violates a hypothesis of Theorems 1.6/1.8 (SPEC §1).  Both carry the JSON path of
the offending value (``$.pairs[0].input[1][0]``); for ``.npz`` files the path names
the array and element (``X_0[1][0]``) for shape errors, and the equivalent JSON
path for admissibility errors.

The canonical form (``dataset_to_json`` / ``canonical_bytes`` / ``digest``) contains
``format``, ``name``, ``d`` and ``pairs`` (numbers as exact ``"p/q"`` strings, order
as given); ``digest`` hashes only ``format``, ``d`` and ``pairs`` so that renaming a
file does not change it (the certificate records the name separately).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from proofcheck.kernel.errors import BadInput, Inadmissible
from proofcheck.kernel.numbers import bit_size, format_q, parse_number

FORMAT = "proofcheck-dataset/1"

Token = tuple[Fraction, ...]


@dataclass(frozen=True)
class Pair:
    """One sample: ``inputs`` X_j (n_j tokens) and target ``outputs`` Y_j (m_j tokens)."""

    inputs: tuple[Token, ...]
    outputs: tuple[Token, ...]


@dataclass(frozen=True)
class Dataset:
    """A dataset {(X_j, Y_j)}_{j<N} of rational tokens in Q^d (SPEC §1)."""

    name: str
    d: int
    pairs: tuple[Pair, ...]
    notes: tuple[str, ...] = ()

    @property
    def N(self) -> int:
        """Number of pairs."""
        return len(self.pairs)

    @property
    def M(self) -> int:
        """Total number of target tokens, sum_j m_j."""
        return sum(len(p.outputs) for p in self.pairs)

    @property
    def n_tokens(self) -> int:
        """Total number of input tokens, sum_j n_j."""
        return sum(len(p.inputs) for p in self.pairs)

    @property
    def max_bits(self) -> int:
        """Largest ``bit_size`` of any coordinate (inputs and outputs); 0 if none."""
        return max((bit_size(c) for p in self.pairs for seq in (p.inputs, p.outputs)
                    for tok in seq for c in tok), default=0)


# --------------------------------------------------------------------------- JSON

def _plural(k: int, word: str) -> str:
    return f"{k} {word}" + ("" if k == 1 else "s")


def _check_name(name: str, root: str = "$") -> None:
    """Names end up in file names and report titles: printable, UTF-8, <= 120 chars."""
    where = f"{root}.name"
    if len(name) > 120:
        raise BadInput(f"name is {len(name)} characters long, at most 120 allowed", where)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("name is not valid Unicode text (lone surrogate)", where) from None
    if any(not ch.isprintable() for ch in name):
        raise BadInput("name contains control characters (newline, NUL, ...)", where)


def _type_name(v) -> str:
    if v is None:
        return "null"
    return {bool: "boolean", str: "string", int: "number", float: "number",
            list: "list", dict: "object"}.get(type(v), type(v).__name__)


def _float_note(paths: list[str]) -> str:
    shown = ", ".join(paths[:5]) + (f" (and {len(paths) - 5} more)" if len(paths) > 5 else "")
    return ("JSON floats were read as the exact binary value of the double "
            f"(e.g. 0.1 -> 3602879701896397/36028797018963968) at: {shown}")


def _parse_sequence(seq, d: int, j: int, kind: str, path: str,
                    float_paths: list[str]) -> tuple[Token, ...]:
    if not isinstance(seq, list):
        raise BadInput(f"{kind} {j} is a {_type_name(seq)}, expected a list of tokens", path)
    if not seq:
        raise Inadmissible(f"{kind} {j} is empty", path)
    out = []
    for t, tok in enumerate(seq):
        tpath = f"{path}[{t}]"
        if not isinstance(tok, list):
            raise BadInput(f"token {t} of {kind} {j} is a {_type_name(tok)}, "
                           f"expected a list of {_plural(d, 'number')}", tpath)
        if len(tok) != d:
            raise BadInput(f"token {t} of {kind} {j} has {_plural(len(tok), 'coordinate')}, "
                           f"expected {d}", tpath)
        coords = []
        for c, v in enumerate(tok):
            cpath = f"{tpath}[{c}]"
            q, was_float = parse_number(v, cpath, f"{kind} {j} token {t} coordinate {c}")
            if was_float:
                float_paths.append(cpath)
            coords.append(q)
        out.append(tuple(coords))
    return tuple(out)


def dataset_from_json(obj, source: str = "<json>", root: str = "$", *,
                      schema_checked: bool = False) -> Dataset:
    """Build a ``Dataset`` from a parsed ``proofcheck-dataset/1`` JSON object.

    First validates ``obj`` against the published schema
    (``proofcheck/schemas/proofcheck-dataset-1.schema.json``, see
    :mod:`proofcheck.kernel.documents`) before any arithmetic; then reads the
    numbers with the one number parser.  Checks the shape only (not admissibility,
    except that empty sequences raise ``Inadmissible``).  Unknown extra top-level
    keys (``source``, ``description``, ...) and extra keys in pairs are ignored.
    ``name`` defaults to the stem of ``source``.  ``root`` is the JSON path of
    ``obj`` in its document (``"$.dataset"`` inside a certificate).  Raises
    ``BadInput`` / ``Inadmissible`` with the JSON path; where the schema rejects a
    value, the message is the precise one of the reader below (which names pair,
    token and coordinate), else the schema's.  ``schema_checked=True`` skips the
    validation for a dataset already validated as part of a stricter schema (the
    certificate's embedded dataset).
    """
    from proofcheck.kernel.documents import schema_error
    err = None if schema_checked else schema_error(obj, "dataset", root)
    if err is not None:
        _build(obj, source, root)  # only to word the error precisely; raises
        raise err
    return _build(obj, source, root)


def _build(obj, source: str, root: str) -> Dataset:
    if not isinstance(obj, dict):
        raise BadInput(f"top-level JSON value is a {_type_name(obj)}, expected an object", root)
    fmt = obj.get("format")
    if fmt != FORMAT:
        what = "missing" if "format" not in obj else f"{fmt!r}"
        raise BadInput(f"format is {what}, expected {FORMAT!r}", f"{root}.format")
    default_name = Path(source).stem if source and not source.startswith("<") else "dataset"
    name = obj.get("name", default_name)
    if not isinstance(name, str):
        raise BadInput(f"name is a {_type_name(name)}, expected a string", f"{root}.name")
    _check_name(name, root)
    d = obj.get("d")
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise BadInput(f"d must be a positive integer (got {str(d)[:40]!s})", f"{root}.d")
    if d > 100_000:
        raise BadInput(f"d = {str(d)[:20]}{'...' if len(str(d)) > 20 else ''} is larger than "
                       "100000, which this tool accepts", f"{root}.d")
    pairs = obj.get("pairs")
    if not isinstance(pairs, list):
        raise BadInput(f"pairs is {'missing' if 'pairs' not in obj else 'a ' + _type_name(pairs)}"
                       ", expected a non-empty list", f"{root}.pairs")
    if not pairs:
        raise BadInput("pairs is empty, expected at least one pair", f"{root}.pairs")
    float_paths: list[str] = []
    out = []
    for j, pair in enumerate(pairs):
        ppath = f"{root}.pairs[{j}]"
        if not isinstance(pair, dict):
            raise BadInput(f"pair {j} is a {_type_name(pair)}, expected an object "
                           "with keys 'input' and 'output'", ppath)
        for key in ("input", "output"):
            if key not in pair:
                raise BadInput(f"pair {j} has no key {key!r}", ppath)
        xs = _parse_sequence(pair["input"], d, j, "input", f"{ppath}.input", float_paths)
        ys = _parse_sequence(pair["output"], d, j, "output", f"{ppath}.output", float_paths)
        out.append(Pair(xs, ys))
    notes = (_float_note(float_paths),) if float_paths else ()
    return Dataset(name=name, d=d, pairs=tuple(out), notes=notes)


# ------------------------------------------------------------------ admissibility

def check_admissible(ds: Dataset) -> None:
    """Raise ``Inadmissible`` unless ``ds`` satisfies the hypotheses of SPEC §1.

    Order: d >= 2; then per pair j: X_j, Y_j non-empty, tokens of X_j pairwise
    distinct, tokens of Y_j pairwise distinct, m_j <= n_j; then X_j != X_k as sets.
    O(total tokens) expected time (hashing).  A token of the wrong length raises
    ``BadInput``.
    """
    if ds.d < 2:
        raise Inadmissible(f"d must be at least 2 (got {ds.d})", "$.d")
    first_with_set: dict[frozenset, int] = {}
    pending = []
    for j, pair in enumerate(ds.pairs):
        seqs = (("input", pair.inputs), ("output", pair.outputs))
        for kind, seq in seqs:
            if not seq:
                raise Inadmissible(f"{kind} {j} is empty", f"$.pairs[{j}].{kind}")
        for kind, seq in seqs:
            path = f"$.pairs[{j}].{kind}"
            seen: dict[Token, int] = {}
            for t, tok in enumerate(seq):
                if len(tok) != ds.d:
                    raise BadInput(f"token {t} of {kind} {j} has "
                                   f"{_plural(len(tok), 'coordinate')}, expected {ds.d}",
                                   f"{path}[{t}]")
                if tok in seen:
                    raise Inadmissible(f"repeated token in {kind} {j}: tokens {seen[tok]} "
                                       f"and {t} are equal", f"{path}[{t}]")
                seen[tok] = t
        m, n = len(pair.outputs), len(pair.inputs)
        if m > n:
            raise Inadmissible(f"output longer than input in pair {j} (m={m} > n={n})",
                               f"$.pairs[{j}]")
        pending.append(frozenset(pair.inputs))
    for j, s in enumerate(pending):
        k = first_with_set.setdefault(s, j)
        if k != j:
            raise Inadmissible(_equal_sets_message(ds, k, j), f"$.pairs[{j}].input")


def _equal_sets_message(ds: Dataset, k: int, j: int) -> str:
    """Why inputs k and j are rejected: the project's hypothesis (distinct as sets)
    strengthens the seed's "distinct", and why, with the witness."""
    a, b = ds.pairs[k].inputs, ds.pairs[j].inputs
    where = {tok: t for t, tok in enumerate(a)}
    perm = [where[tok] for tok in b]
    same_targets = set(ds.pairs[k].outputs) == set(ds.pairs[j].outputs)
    how = ("identical sequences" if perm == list(range(len(a))) else
           f"the same tokens in another order: input {j} lists input {k}'s tokens in the "
           f"order {', '.join(map(str, perm[:8]))}{', ...' if len(perm) > 8 else ''}")
    return (f"input sequences {k} and {j} are equal as sets ({how}). proofcheck requires "
            "inputs distinct as sets, a strengthening of the seed's 'input sequences are "
            "distinct': a transformer is permutation equivariant, so it maps both to the "
            "same set of outputs and cannot meet two different targets"
            + (" (here their targets are equal sets too: a duplicated pair)" if same_targets
               else f" (here outputs {k} and {j} differ as sets)"))


# --------------------------------------------------------------------- files

def _load_json(path: Path) -> Dataset:
    from proofcheck.kernel.documents import read_json
    obj = read_json(path, "file")
    if not isinstance(obj, dict):
        raise BadInput(f"top-level JSON value is a {_type_name(obj)}, expected an object",
                       str(path))
    return dataset_from_json(obj, source=str(path))


_NPZ_KEY = re.compile(r"([XY])_(0|[1-9][0-9]*)")


def _npz_sequence(arr, key: str, j: int, kind: str, d: int | None,
                  float_paths: list[str]) -> tuple[tuple[Token, ...], int]:
    if arr.ndim != 2:
        raise BadInput(f"array {key} has {_plural(arr.ndim, 'dimension')} (shape "
                       f"{tuple(arr.shape)}), expected 2 (shape (n, d))", key)
    rows, cols = arr.shape
    if d is not None and cols != d:
        raise BadInput(f"array {key} has {_plural(cols, 'column')}, expected d={d} "
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
        notes.append(_float_note(float_paths).replace("JSON floats", "Float array entries"))
    if ignored:
        notes.append("ignored npz arrays: " + ", ".join(sorted(ignored)))
    return Dataset(name=path.stem, d=d, pairs=tuple(pairs), notes=tuple(notes))


def load_dataset(path: str | Path, *, allow_pickle: bool = False,
                 admissible: bool = True) -> Dataset:
    """Load a ``.json`` (``proofcheck-dataset/1``) or ``.npz`` dataset and check it.

    ``.npz``: arrays ``X_j`` (n_j, d) and ``Y_j`` (m_j, d) for j = 0..N-1; integer
    arrays are exact, float arrays are read as exact binary values (with a note),
    string arrays (``<U``/``S``) are parsed like JSON strings.  Object arrays need
    pickle, which can run code from the file: they are refused unless
    ``allow_pickle=True``.  Raises ``BadInput`` or ``Inadmissible`` (after
    ``check_admissible``; ``admissible=False`` checks the shape only, for a caller
    that applies a statement's own rules).
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
    if admissible:
        check_admissible(ds)
    return ds


# ------------------------------------------------------------------ canonical form

def dataset_to_json(ds: Dataset) -> dict:
    """The ``proofcheck-dataset/1`` object of ``ds`` (numbers as ``format_q`` strings)."""
    def seq(s):
        return [[format_q(c) for c in tok] for tok in s]
    return {"format": FORMAT, "name": ds.name, "d": ds.d,
            "pairs": [{"input": seq(p.inputs), "output": seq(p.outputs)} for p in ds.pairs]}


def canonical_bytes(ds: Dataset) -> bytes:
    """Canonical JSON (sorted keys, no spaces, UTF-8) of ``format``, ``d`` and ``pairs``.

    The name is excluded so the digest identifies the data, not the file name.
    """
    obj = dataset_to_json(ds)
    del obj["name"]
    return json.dumps(obj, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def digest(ds: Dataset) -> str:
    """SHA-256 hex digest of ``canonical_bytes(ds)``."""
    return hashlib.sha256(canonical_bytes(ds)).hexdigest()
