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
        got, lines = _theta_sq_norm(cert, *_theorem(cert))
    elif kind == "lemma":
        got, lines = _lemma(cert)
    else:
        raise BadInput(f"unknown certificate kind {kind!r}", "$.kind")
    lines.append(f"re-checked verdict: {got.value}; stated: {stated}")
    if got.value != stated:
        v = Verdict.REFUTED if got != Verdict.ERROR else Verdict.ERROR
        return v, lines + [f"the certificate states {stated} but the re-check gives {got.value}"]
    return got, lines


def _theta_sq_norm(cert, got, lines):
    """The claimed ``||theta*||^2`` (``claim.constants.theta_sq_norm``, exact
    ``"p/q"``; SPEC §2, tikhonov) against ``sq_norm()`` of the certified network;
    a mismatch turns a passing re-check into REFUTED."""
    from proofcheck.kernel.numbers import format_q
    claimed = cert.get("claim", {}).get("constants", {}).get("theta_sq_norm")
    if claimed is None:
        return got, lines
    have = format_q(network_from_json(cert.get("network")).sq_norm())
    if claimed != have:
        lines = lines + [f"claimed theta_sq_norm = {claimed}, network has {have}"]
        return (Verdict.REFUTED if got.passed else got), lines
    return got, lines + ["||theta*||^2 (theta_sq_norm) equals sq_norm() of the network"]


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
    # theta_sq_norm is compared after the evaluation (_theta_sq_norm), so that a
    # tampered parameter still yields the evaluation's witness first
    stated = {k: v for k, v in claim.get("constants", {}).items() if k != "theta_sq_norm"}
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
# stated layer maps the stated inputs to the stated outputs AND has this shape
LEMMA_SHAPES = {"3.1": ("FF", 1), "3.2": ("FF", 3), "3.2p": ("FF", 4), "3.3": ("FF", 4),
                "4.1": ("SA", None), "4.2": ("SA", None), "4.3": ("SA", None)}


def _lemma(cert):
    from proofcheck.kernel.layercheck import check_layer
    insts = cert.get("instances")
    if not isinstance(insts, list) or not insts:
        raise BadInput("a lemma certificate needs a non-empty list of instances", "$.instances")
    st = cert.get("claim", {}).get("statement")
    if st not in LEMMA_SHAPES:
        raise BadInput(f"no lemma certificate form for statement {st!r}", "$.claim.statement")
    worst, lines = Verdict.VERIFIED, []
    for k, i in enumerate(insts):
        p = f"$.instances[{k}]"
        kind, width = LEMMA_SHAPES[st]
        if i.get("kind") != kind or (width is not None and len(i.get("layer", {}).get("U", [])) != width):
            return Verdict.REFUTED, lines + [f"instance {k} is not a Lemma {st} layer "
                                             f"(expected {kind}" + (f" of width {width})" if width else ")")]
        if all(e is None or tuple(e) == tuple(x) for se, sx in zip(i.get("expected", []), i.get("inputs", []))
               for e, x in zip(se, sx)) and st not in ("4.3",):
            return Verdict.REFUTED, lines + [f"instance {k} claims nothing moves: not an instance "
                                             f"of Lemma {st}"]
        try:
            inputs = [[tuple(Fraction(x) for x in t) for t in s] for s in i["inputs"]]
            expected = [[None if t is None else tuple(Fraction(x) for x in t) for t in s]
                        for s in i["expected"]]
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
            raise BadInput(f"malformed instance ({e})", p) from None
        d = len(inputs[0][0]) if inputs and inputs[0] else 0
        layer = (ff_from_json(i["layer"], d, f"{p}.layer") if i.get("kind") == "FF"
                 else sa_from_json(i["layer"], d, f"{p}.layer"))
        r = check_layer(i.get("name", f"instance {k}"), layer, inputs, expected)
        lines.append(f"[{r.verdict.value}] {r.name}")
        if r.witness:
            lines.append("    witness: " + r.witness.describe())
        if r.verdict != Verdict.VERIFIED:
            worst = r.verdict if worst == Verdict.VERIFIED else worst
    return worst, lines
