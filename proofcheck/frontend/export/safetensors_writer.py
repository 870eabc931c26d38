"""safetensors export (issue 13, deliverable 1): the weights only, with the
architecture description (``proofcheck-export/1`` JSON) and the metadata in the
file header (``__metadata__``: string -> string), and the same description in
``PATH.json`` beside it.

Tensors with a zero dimension (FF width 0, rank-0 A or V) are omitted from the
file; the description's widths and ranks say which exist.
"""
from __future__ import annotations

import json
import os
from pathlib import Path


def write_safetensors(path, tensors: dict, description: dict) -> Path:
    """Write ``path`` (``.safetensors``) and ``path + '.json'`` atomically.
    ``tensors``: name -> numpy array (float64 or float32)."""
    import tempfile

    from safetensors.numpy import save_file

    from proofcheck.frontend.export.arch import require_one_unmasked_head
    require_one_unmasked_head(description, "the safetensors export")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {k: "" if v is None else str(v) for k, v in description.get("metadata", {}).items()}
    meta["architecture"] = json.dumps(description, separators=(",", ":"))
    data = {k: v for k, v in tensors.items() if v.size or v.ndim == 0}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".safetensors")
    os.close(fd)
    side = path.with_name(path.name + ".json")
    try:
        save_file(data, tmp, metadata=meta)
        os.chmod(tmp, 0o644)
        from proofcheck.frontend.io.files import atomic_write
        atomic_write(side, json.dumps(description, indent=1) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_safetensors(path):
    """``(tensors, description)`` of a file written by :func:`write_safetensors`;
    omitted zero-size tensors are restored from the description.  The description
    comes from the file's ``__metadata__``; a file saved again by a tool that dropped
    the metadata (``safetensors.numpy.save_file`` without ``metadata=``) is read with
    the side file ``PATH.json``.  Raises ``BadInput`` when the file is not a
    safetensors file, when neither description is there (the message says that the
    metadata was dropped), when the description is not JSON or not of the
    ``proofcheck-export/1`` shape (naming the JSON path), when a tensor's shape
    disagrees with it, when the file holds a tensor the description does not name (a
    side file of another export), or when the tensors are not all float32 or all
    float64."""
    import numpy as np
    from safetensors import SafetensorError, safe_open

    from proofcheck.kernel.errors import BadInput
    path = Path(path)
    try:
        with safe_open(str(path), framework="numpy") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except (SafetensorError, OSError, ValueError) as exc:
        raise BadInput(f"{path}: not a readable safetensors file ({exc})") from None
    desc = _description(path, meta)
    d = desc["d"]
    dtypes = {str(t.dtype) for t in tensors.values()}
    if not dtypes <= {"float32", "float64"} or len(dtypes) > 1:
        raise BadInput(f"{path}: tensors of dtype {sorted(dtypes)}; an export holds float32 "
                       "or float64 tensors, one dtype")
    dt = next(iter(tensors.values())).dtype if tensors else np.float64
    named = set()
    for i, b in enumerate(desc["blocks"]):
        w = b["ff"]["width"]
        shapes = {f"blocks.{i}.ff.eta": (), f"blocks.{i}.ff.U": (w, d),
                  f"blocks.{i}.ff.b": (w,), f"blocks.{i}.ff.W": (d, w),
                  f"blocks.{i}.sa.rho": ()}
        for nm in ("A", "V"):
            r = b["sa"][f"rank_{nm}"]
            shapes[f"blocks.{i}.sa.{nm}_lam"] = ()
            shapes[f"blocks.{i}.sa.{nm}_left"] = (r, d)
            shapes[f"blocks.{i}.sa.{nm}_right"] = (r, d)
        named.update(shapes)
        for k, s in shapes.items():
            t = tensors.setdefault(k, np.zeros(s, dtype=dt))
            if tuple(t.shape) != s:
                raise BadInput(f"{path}: tensor {k} has shape {tuple(t.shape)}, the "
                               f"architecture description says {s}")
    extra = sorted(set(tensors) - named)
    if extra:
        raise BadInput(f"{path}: {len(extra)} tensor(s) the architecture description does not "
                       f"name, first {extra[0]!r} (is the description another export's?)")
    return tensors, desc


def _count(v, where: str, minimum: int):
    """``v`` when it is an int (not a bool) >= ``minimum``, else BadInput at ``where``."""
    from proofcheck.kernel.errors import BadInput
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise BadInput(f"expected a whole number >= {minimum}, got {v!r}", where)
    return v


def _check_shape(desc, where: str) -> None:
    """The parts of a ``proofcheck-export/1`` description the reader uses: ``d``, ``L``
    (if present) = the number of ``blocks``, each with ``ff.width``, ``sa.rank_A``,
    ``sa.rank_V``.  BadInput naming the JSON path of the first bad entry."""
    from proofcheck.kernel.errors import BadInput
    if not isinstance(desc, dict):
        raise BadInput("not a proofcheck-export/1 description (a JSON object)", where)
    _count(desc.get("d"), f"{where} $.d", 1)
    blocks = desc.get("blocks")
    if not isinstance(blocks, list):
        raise BadInput("expected a list of blocks", f"{where} $.blocks")
    if "L" in desc and _count(desc["L"], f"{where} $.L", 0) != len(blocks):
        raise BadInput(f"L = {desc['L']} but {len(blocks)} blocks", f"{where} $.L")
    for i, b in enumerate(blocks):
        at = f"{where} $.blocks[{i}]"
        if not (isinstance(b, dict) and isinstance(b.get("ff"), dict)
                and isinstance(b.get("sa"), dict)):
            raise BadInput("expected an object with 'ff' and 'sa' objects", at)
        _count(b["ff"].get("width"), f"{at}.ff.width", 0)
        for nm in ("rank_A", "rank_V"):
            _count(b["sa"].get(nm), f"{at}.sa.{nm}", 0)


def _description(path: Path, meta: dict) -> dict:
    """The architecture description of the export at ``path``: from its metadata, else
    from ``PATH.json``; ``BadInput`` when neither holds one or it has the wrong shape."""
    from proofcheck.kernel.errors import BadInput
    side = path.with_name(path.name + ".json")
    if "architecture" in meta:
        text, where = meta["architecture"], f"{path} (metadata 'architecture')"
    elif side.is_file():
        try:
            text, where = side.read_text(encoding="utf-8"), str(side)
        except (OSError, ValueError) as exc:
            raise BadInput(f"{side}: the side file is unreadable ({exc})") from None
    else:
        raise BadInput(f"{path}: the safetensors metadata was dropped (no 'architecture' "
                       f"entry: the file was probably saved again without metadata=) and the "
                       f"side file {side.name} is missing; re-export, or put the export's "
                       f"{side.name} beside it")
    try:
        desc = json.loads(text)
    except ValueError as exc:
        raise BadInput(f"{where}: the architecture description is unreadable ({exc})") from None
    _check_shape(desc, where)
    return desc
