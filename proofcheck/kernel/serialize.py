"""Reading the exact JSON form of networks, and canonical digests (SPEC §3
certificates; written by :mod:`proofcheck.io.certificate_writer`).

Numbers are ``"p/q"`` strings; a network is ``{"d": d, "blocks": [{"ff": {...},
"sa": {...}}]}`` with FF ``{"eta", "U": (width, d), "b": (width,), "W": (width, d)
(column k of W as row k)}`` and SA ``{"rho", "A": {"lam", "left", "right"}, "V": ...}``.
Parsing is strict: every number must be exact (a JSON integer or a number string,
read by the one number parser :func:`proofcheck.kernel.numbers.parse_exact`; never
a float or a boolean), shapes must match ``d``; errors raise ``BadInput`` with the
JSON path.
"""
from __future__ import annotations

import hashlib
import json
from fractions import Fraction

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.numbers import parse_exact


def canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def sha256(obj) -> str:
    return hashlib.sha256(canonical(obj)).hexdigest()


def _num(v, path) -> Fraction:
    return parse_exact(v, path)


def _vec(v, d, path):
    if not isinstance(v, list) or len(v) != d:
        got = f"{len(v)} numbers" if isinstance(v, list) else type(v).__name__
        raise BadInput(f"expected a list of d = {d} numbers, got {got}", path)
    return tuple(_num(x, f"{path}[{i}]") for i, x in enumerate(v))


def _get(obj, key, path):
    if not isinstance(obj, dict) or key not in obj:
        raise BadInput(f"missing key {key!r}", path)
    return obj[key]


def _fac_from(obj, d, path) -> Factored:
    left, right = _get(obj, "left", path), _get(obj, "right", path)
    if not isinstance(left, list) or not isinstance(right, list) or len(left) != len(right):
        raise BadInput("factors 'left' and 'right' must be lists of equal length", path)
    return Factored(_num(_get(obj, "lam", path), f"{path}.lam"),
                    tuple(_vec(a, d, f"{path}.left[{r}]") for r, a in enumerate(left)),
                    tuple(_vec(b, d, f"{path}.right[{r}]") for r, b in enumerate(right)))


def ff_from_json(o, d, path) -> FF:
    U, b, W = _get(o, "U", path), _get(o, "b", path), _get(o, "W", path)
    if not all(isinstance(x, list) for x in (U, b, W)) or not len(U) == len(b) == len(W):
        raise BadInput("FF: U, b, W must be lists of the same width", path)
    return FF(_num(_get(o, "eta", path), f"{path}.eta"),
              tuple(_vec(u, d, f"{path}.U[{k}]") for k, u in enumerate(U)),
              tuple(_num(x, f"{path}.b[{k}]") for k, x in enumerate(b)),
              tuple(_vec(w, d, f"{path}.W[{k}]") for k, w in enumerate(W)), _label(o, "label"))


def sa_from_json(o, d, path) -> SA:
    return SA(_num(_get(o, "rho", path), f"{path}.rho"), _fac_from(_get(o, "A", path), d, f"{path}.A"),
              _fac_from(_get(o, "V", path), d, f"{path}.V"), _label(o, "label"))


def network_from_json(o, path="$.network") -> Transformer:
    """The ``Transformer`` of a network JSON object (see the module docstring).
    Raises ``BadInput`` with the JSON path of the first malformed value."""
    d = _get(o, "d", path)
    if not isinstance(d, int) or isinstance(d, bool) or d < 1:
        raise BadInput("d must be a positive integer", f"{path}.d")
    blocks = _get(o, "blocks", path)
    if not isinstance(blocks, list):
        raise BadInput("blocks must be a list", f"{path}.blocks")
    return Transformer(d, [Block(ff_from_json(_get(b, "ff", f"{path}.blocks[{i}]"), d,
                                              f"{path}.blocks[{i}].ff"),
                                 sa_from_json(_get(b, "sa", f"{path}.blocks[{i}]"), d,
                                              f"{path}.blocks[{i}].sa"), _label(b, "phase"))
                           for i, b in enumerate(blocks)])


def _label(o, key) -> str:
    v = o.get(key, "") if isinstance(o, dict) else ""
    return v if isinstance(v, str) else str(v)
