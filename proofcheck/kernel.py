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

from .dataset import check_admissible, dataset_from_json, digest
from .errors import BadInput
from .serialize import ff_from_json, network_from_json, sa_from_json, sha256
from .verdicts import Verdict

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
    from .certify import certify
    from .checker import check_network
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
        tau = Fraction(sem.get("tau", "0"))
        res = certify(net, inputs, targets, tau)
        if res.witness:
            lines.append("witness: " + res.witness.describe())
        return res.verdict, lines + [f"softmax certificate at tau = {tau}: {res.verdict.value}"]
    raise BadInput(f"semantics {sem} do not match statement {st}", "$.semantics")


def _lemma(cert):
    from .layercheck import check_layer
    insts = cert.get("instances")
    if not isinstance(insts, list) or not insts:
        raise BadInput("a lemma certificate needs a non-empty list of instances", "$.instances")
    worst, lines = Verdict.VERIFIED, []
    for k, i in enumerate(insts):
        p = f"$.instances[{k}]"
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
