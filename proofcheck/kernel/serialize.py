"""The exact JSON form of networks (docs/spec.md §3; written by :mod:`proofcheck.frontend.io.certificate_writer`)
and canonical digests: ``{"d", "blocks": [{"ff": {"eta", "U", "b", "W" (column k as row k)}, "sa":
{"rho", "A": {"lam", "left", "right"}, "V" (or "heads": [{"A", "V"}, ...]), "causal"}}]}``; exact
numbers only, every vector of length ``d`` (else ``BadInput`` with the JSON path)."""
from fractions import Fraction

from proofcheck.kernel.documents import canonical, sha256  # noqa: F401  (re-exported)
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.numbers import parse_exact


def vector(v, d: int, path: str) -> tuple:
    """A ``(d,)`` vector of exact numbers (of a network, or a lemma instance's data)."""
    if not isinstance(v, list) or len(v) != d:
        got = f"{len(v)} numbers" if isinstance(v, list) else type(v).__name__
        raise BadInput(f"expected a list of d = {d} numbers (the dimension stated), got {got}", path)
    if all(type(x) is Fraction for x in v):  # read already (proofcheck.kernel.reader)
        return tuple(v)
    return tuple(parse_exact(x, f"{path}[{i}]") for i, x in enumerate(v))


def _read_vectors(vs, d):
    """``vs`` as a tuple of tuples when it is a list of lists of ``d`` Fractions (read
    already by :mod:`proofcheck.kernel.reader`), else ``None`` (then each vector is read with
    its path)."""
    if type(vs) is not list:
        return None
    out = []
    for v in vs:
        if type(v) is not list or len(v) != d or not all(type(x) is Fraction for x in v):
            return None
        out.append(tuple(v))
    return tuple(out)


def _fac_from(o, d, path) -> Factored:
    if len(o["left"]) != len(o["right"]):
        raise BadInput("factors 'left' and 'right' must be lists of equal length", path)
    left, right, lam = _read_vectors(o["left"], d), _read_vectors(o["right"], d), o["lam"]
    if left is not None and right is not None and type(lam) is Fraction:
        return Factored(lam, left, right)
    return Factored(parse_exact(o["lam"], f"{path}.lam"),
                    *(tuple(vector(a, d, f"{path}.{k}[{r}]") for r, a in enumerate(o[k]))
                      for k in ("left", "right")))


def ff_from_json(o, d, path) -> FF:
    """The FF of a schema-validated JSON object whose vectors must have length ``d``."""
    if not len(o["U"]) == len(o["b"]) == len(o["W"]):
        raise BadInput("FF: U, b, W must be lists of the same width", path)
    U, W, b, eta = _read_vectors(o["U"], d), _read_vectors(o["W"], d), o["b"], o["eta"]
    if (U is not None and W is not None and type(eta) is Fraction
            and all(type(x) is Fraction for x in b)):
        return FF(eta, U, tuple(b), W, o.get("label", ""))
    return FF(parse_exact(o["eta"], f"{path}.eta"),
              tuple(vector(u, d, f"{path}.U[{k}]") for k, u in enumerate(o["U"])),
              tuple(parse_exact(x, f"{path}.b[{k}]") for k, x in enumerate(o["b"])),
              tuple(vector(w, d, f"{path}.W[{k}]") for k, w in enumerate(o["W"])),
              o.get("label", ""))


def sa_from_json(o, d, path) -> SA:
    """The SA of a schema-validated JSON object in dimension ``d``: one head as ``A``,
    ``V`` or several as ``heads``; ``causal`` (absent: no mask)."""
    heads = [(o, path)] if "heads" not in o else [
        (h, f"{path}.heads[{k}]") for k, h in enumerate(o["heads"])]
    return SA.multi(parse_exact(o["rho"], f"{path}.rho"),
                    [(_fac_from(h["A"], d, f"{p}.A"), _fac_from(h["V"], d, f"{p}.V"))
                     for h, p in heads], o.get("causal", False), o.get("label", ""))


def network_from_json(o, path="$.network") -> Transformer:
    """The ``Transformer`` of a schema-validated network object; ``BadInput`` with
    the JSON path of the first vector of another length than ``d``."""
    d = o["d"]
    return Transformer(d, [Block(ff_from_json(b["ff"], d, f"{path}.blocks[{i}].ff"),
                                 sa_from_json(b["sa"], d, f"{path}.blocks[{i}].sa"),
                                 b.get("phase", "")) for i, b in enumerate(o["blocks"])])
