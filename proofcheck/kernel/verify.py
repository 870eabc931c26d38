"""The trusted kernel of ``python -m proofcheck verify FILE`` (SPEC §3, §5).

Re-checks a certificate with no construction or search code (it imports nothing
from ``lemmas``): (1) the digest over the canonical JSON; (2) the embedded
dataset against the claimed SHA-256; (3) the claim itself, recomputed — exact
hardmax evaluation and set equality, or the softmax certificate at the stated
tau, or each lemma layer instance; the theorem's constants from the network;
(4) the stated verdict against the recomputed one.  Any mismatch is REFUTED or
ERROR with the reason, never VERIFIED.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.dataset import check_admissible, dataset_from_json, digest
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.serialize import (
    ff_from_json,
    network_from_json,
    sa_from_json,
    sha256,
)
from proofcheck.kernel.verdicts import Verdict

FORMAT = "proofcheck-certificate/1"


def _fail(v: Verdict, reason: str):
    return v, [reason]


def verify_certificate(cert) -> tuple[Verdict, list[str]]:
    """``(verdict, lines)`` for a parsed certificate.  Malformed content raises
    ``BadInput`` (exit 2)."""
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise BadInput(f"not a {FORMAT} certificate", "$.format")
    body = {k: v for k, v in cert.items() if k != "digest"}
    if sha256(body) != cert.get("digest"):
        return _fail(Verdict.ERROR, "digest mismatch: the certificate was altered after sealing")
    stated = cert.get("verdict")
    kind = cert.get("kind")
    if kind == "theorem":
        got, lines = _theorem(cert)
    elif kind == "lemma":
        got, lines = _lemma(cert)
    else:
        raise BadInput(f"unknown certificate kind {kind!r}", "$.kind")
    lines.append(f"re-checked verdict: {got.value}; stated: {stated}")
    if got.value != stated:
        v = Verdict.REFUTED if got != Verdict.ERROR else Verdict.ERROR
        return v, lines + [f"the certificate states {stated} but the re-check gives {got.value}"]
    return got, lines


def _theorem(cert):
    from proofcheck.kernel.checker import check_network
    from proofcheck.kernel.softmax_certifier import certify
    claim = cert.get("claim", {})
    ds = dataset_from_json(cert.get("dataset"), "$.dataset")
    check_admissible(ds)
    if digest(ds) != claim.get("dataset", {}).get("sha256"):
        return Verdict.ERROR, ["dataset SHA-256 differs from the claim: the dataset was changed"]
    net = network_from_json(cert.get("network"))
    if net.d != ds.d:
        return Verdict.ERROR, [f"network d = {net.d} but dataset d = {ds.d}"]
    lines = [f"dataset {ds.name}: N = {ds.N}, M = {ds.M}, d = {ds.d}; digest and SHA-256 match"]
    st = claim.get("statement")
    N, M = ds.N, ds.M
    budget = {"1.6": 2 * M + 2 * N + 1, "1.8": 2 * M + 3 * N}.get(st)
    if budget is None:
        raise BadInput(f"unknown theorem {st!r}", "$.claim.statement")
    stated = claim.get("constants", {})
    measured = {"N": N, "M": M, "d": ds.d, "L": net.L, "max_width": net.max_width,
                "P": net.n_params()}
    for k, v in stated.items():
        if measured.get(k) != v:
            return Verdict.REFUTED, lines + [f"claimed {k} = {v}, network has {measured.get(k)}"]
    if net.L > budget or net.max_width > 4:
        return Verdict.REFUTED, lines + [f"L = {net.L} (budget {budget}) or width "
                                         f"{net.max_width} > 4 violates Theorem {st}"]
    lines.append(f"L = {net.L} <= {budget}, width {net.max_width} <= 4, P = {net.n_params()}")
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    sem = cert.get("semantics", {})
    if sem.get("attention") == "hardmax" and st == "1.6":
        res = check_network(net, inputs, targets, None)
        if res.witness:
            lines.append("witness: " + res.witness.describe())
        return res.verdict, lines + [f"exact hardmax evaluation: {res.verdict.value}"]
    if sem.get("attention") == "softmax" and st == "1.8":
        tau = _num_field(sem.get("tau"), "$.semantics.tau")
        if tau <= 0:
            raise BadInput(f"tau must be positive (got {tau})", "$.semantics.tau")
        res = certify(net, inputs, targets, tau)
        if res.witness:
            lines.append("witness: " + res.witness.describe())
        lines.append(f"softmax certificate at tau = {tau}: {res.verdict.value}")
        stated_bounds = cert.get("bounds", [])
        got_bounds = [b.to_json() for b in res.bounds if b.max_eps is not None]
        if stated_bounds and stated_bounds != got_bounds:
            k = next((i for i, (a, b) in enumerate(zip(stated_bounds, got_bounds)) if a != b),
                     min(len(stated_bounds), len(got_bounds)))
            return Verdict.REFUTED, lines + [f"stated per-layer bound {k} differs from the "
                                             "re-computed one"]
        if stated_bounds:
            lines.append(f"{len(got_bounds)} per-layer softmax bounds re-computed and equal")
        return res.verdict, lines
    raise BadInput(f"semantics {sem} do not match statement {st}", "$.semantics")


def _num_field(v, path) -> Fraction:
    if not isinstance(v, str):
        raise BadInput("expected an exact rational string", path)
    try:
        return Fraction(v)
    except (ValueError, ZeroDivisionError):
        raise BadInput(f"not an exact rational: {v[:40]!r}", path) from None


# what each lemma's instances must be (kind, FF width); the kernel checks the
# stated layer maps the stated inputs to the stated outputs, has this shape, and
# (through proofcheck.kernel.lemma_checks) re-derives the lemma's conclusion
LEMMA_SHAPES = {"3.1": ("FF", 1), "3.2": ("FF", 3), "3.2p": ("FF", 4), "3.3": ("FF", 4),
                "4.1": ("SA", None), "4.2": ("SA", None), "4.3": ("SA", None)}


def _lemma_semantics(sem) -> dict:
    """``{"attention": "hardmax"}`` or ``{"attention": "softmax", "tau": Fraction > 0}``."""
    from proofcheck.kernel.numbers import parse_number
    if not isinstance(sem, dict) or sem.get("attention") not in ("hardmax", "softmax"):
        raise BadInput("semantics must be {'attention': 'hardmax'} or "
                       "{'attention': 'softmax', 'tau': '<rational>'}", "$.semantics")
    if sem["attention"] == "hardmax":
        return {"attention": "hardmax"}
    if not isinstance(sem.get("tau"), str):
        raise BadInput("softmax semantics need tau as an exact rational string", "$.semantics.tau")
    tau, _ = parse_number(sem["tau"], "$.semantics.tau", "tau")
    if tau <= 0:
        raise BadInput(f"tau must be positive (got {tau})", "$.semantics.tau")
    return {"attention": "softmax", "tau": tau}


def _lemma_tokens(obj, path, allow_none: bool):
    """Sequences of exact tokens (``None`` entries allowed in expected outputs)."""
    from proofcheck.kernel.numbers import parse_number
    if not isinstance(obj, list) or not all(isinstance(s, list) for s in obj):
        raise BadInput("expected a list of sequences (lists of tokens)", path)
    out = []
    for j, s in enumerate(obj):
        seq = []
        for i, t in enumerate(s):
            p = f"{path}[{j}][{i}]"
            if t is None and allow_none:
                seq.append(None)
                continue
            if not isinstance(t, list) or not t:
                raise BadInput("expected a token (a non-empty list of numbers)", p)
            if any(isinstance(x, float) for x in t):
                raise BadInput("expected exact rational strings, got a JSON float", p)
            seq.append(tuple(parse_number(x, f"{p}[{c}]")[0] for c, x in enumerate(t)))
        out.append(seq)
    return out


def _lemma(cert):
    """Re-check a lemma certificate: per instance (1) the form (kind, FF width),
    (2) the stated inputs -> stated outputs by exact evaluation (numbers, never
    spellings), (3) the statement's own re-derivation from the instance's ``data``
    (``proofcheck.kernel.lemma_checks``; "conclusion not re-derived" where no module
    exists), (4) the instance's stated verdict against the recomputed one."""
    from proofcheck.kernel.layercheck import check_layer
    from proofcheck.kernel.lemma_checks import checker
    from proofcheck.kernel.verdicts import combine
    insts = cert.get("instances")
    if not isinstance(insts, list) or not insts:
        raise BadInput("a lemma certificate needs a non-empty list of instances", "$.instances")
    claim = cert.get("claim")
    if not isinstance(claim, dict):
        raise BadInput("claim must be an object with a statement", "$.claim")
    st = claim.get("statement")
    if not isinstance(st, str) or st not in LEMMA_SHAPES:
        raise BadInput(f"no lemma certificate form for statement {st!r}", "$.claim.statement")
    sem = _lemma_semantics(cert.get("semantics"))
    check = checker(st)
    kind, width = LEMMA_SHAPES[st]
    if sem["attention"] == "softmax" and kind == "SA" and check is None:
        raise BadInput(f"Lemma {st} instances cannot be certified under softmax here (no "
                       "re-derivation module); state hardmax semantics", "$.semantics")
    verdicts, lines = [], []
    for k, i in enumerate(insts):
        p = f"$.instances[{k}]"
        if not isinstance(i, dict):
            raise BadInput("an instance must be an object", p)
        layer_json = i.get("layer")
        if i.get("kind") != kind or not isinstance(layer_json, dict) or (
                width is not None and len(layer_json.get("U") or []) != width):
            lines.append(f"instance {k} is not a Lemma {st} layer (expected {kind}"
                         + (f" of width {width})" if width else ")"))
            return Verdict.REFUTED, lines
        inputs = _lemma_tokens(i.get("inputs"), f"{p}.inputs", False)
        expected = _lemma_tokens(i.get("expected"), f"{p}.expected", True)
        if len(inputs) != len(expected) or any(len(a) != len(b) for a, b in zip(inputs, expected)):
            raise BadInput("inputs and expected outputs differ in shape", p)
        d = len(inputs[0][0]) if inputs and inputs[0] else 0
        if d == 0 or any(len(t) != d for s in inputs for t in s) or any(
                t is not None and len(t) != d for s in expected for t in s):
            raise BadInput("tokens must be non-empty and all of one dimension d", f"{p}.inputs")
        layer = (ff_from_json(layer_json, d, f"{p}.layer") if kind == "FF"
                 else sa_from_json(layer_json, d, f"{p}.layer"))
        name = i.get("name", f"instance {k}")
        parts = []
        if kind == "FF" or sem["attention"] == "hardmax":
            r = check_layer(str(name), layer, inputs, expected)
            parts.append(r.verdict)
            lines.append(f"[{r.verdict.value}] {r.name}: stated inputs -> stated outputs")
            if r.witness:
                lines.append("    witness: " + r.witness.describe())
        if check is None:
            if all(e is None or e == x for se, sx in zip(expected, inputs) for e, x in zip(se, sx)) \
                    and st != "4.3":
                parts.append(Verdict.REFUTED)
                lines.append(f"    instance {k} claims nothing moves: not an instance of Lemma {st}")
            lines.append(f"    Lemma {st}: conclusion not re-derived (no lemma_checks module); "
                         "only the stated inputs -> outputs were checked")
        else:
            if "data" not in i:
                raise BadInput(f"a Lemma {st} instance must carry the lemma's data", f"{p}.data")
            v2, l2, w2 = check(st, i["data"], layer, sem, p)
            parts.append(v2)
            lines.append(f"[{v2.value}] Lemma {st} conclusion re-derived from the instance's data")
            lines += ["    " + x for x in l2]
            if w2 is not None:
                lines.append("    witness: " + w2.describe())
        got = combine(parts)
        stated = i.get("verdict")
        if stated not in {v.value for v in Verdict}:
            raise BadInput(f"unknown instance verdict {stated!r}", f"{p}.verdict")
        if stated != got.value:
            lines.append(f"    instance {k} states {stated} but the re-check gives {got.value}")
            got = combine([got, Verdict.REFUTED])
        verdicts.append(got)
    return combine(verdicts), lines
