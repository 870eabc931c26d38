"""Writing certificates (``proofcheck-certificate/1``, SPEC §3).

A certificate is self-contained: the claim (statement, dataset name and SHA-256),
the dataset itself, the exact network (or, for a lemma, its layer instances), the
semantics (hardmax, or softmax with tau), per-layer bounds for softmax, the
verdict, provenance and a SHA-256 digest over the canonical JSON of everything
else.  ``proofcheck.kernel`` re-checks it without any construction code.
"""
from __future__ import annotations

import json
from pathlib import Path

from proofcheck.io.files import atomic_write
from proofcheck.io.provenance import provenance
from proofcheck.kernel.dataset import dataset_to_json, digest
from proofcheck.kernel.numbers import MAX_STRING_LENGTH, format_q
from proofcheck.kernel.serialize import ff_to_json, network_to_json, sa_to_json, sha256

FORMAT = "proofcheck-certificate/1"

#: the theorem constants a certificate states; the kernel re-derives each of them
#: (proofcheck.kernel.verify) — R and P_formula state the parameter formula
STATED_CONSTANTS = ("N", "M", "d", "R", "L", "max_width", "P", "P_formula", "P_bound",
                    "param_constant", "theta_sq_norm")


def seal(cert: dict) -> dict:
    """Add the digest (SHA-256 of the canonical JSON without ``digest``)."""
    body = {k: v for k, v in cert.items() if k != "digest"}
    return {**body, "digest": sha256(body)}


def theorem_certificate(statement: str, dataset, net, verdict, tau=None, bounds=None,
                        constants=None) -> dict:
    """Certificate of a theorem run: ``net`` on ``dataset`` (hardmax, or softmax
    at ``tau`` when given)."""
    sem = {"attention": "hardmax"} if tau is None else {"attention": "softmax",
                                                         "tau": format_q(tau)}
    claim = {"statement": statement, "dataset": {"name": dataset.name, "sha256": digest(dataset)}}
    if constants:
        claim["constants"] = {k: (constants[k] if isinstance(constants[k], int)
                                  else format_q(constants[k]))
                              for k in STATED_CONSTANTS if k in constants}
        theta = format_q(net.sq_norm())  # ||theta*||^2, SPEC §2
        if len(theta) <= MAX_STRING_LENGTH:  # a longer exact string is beyond what verify reads
            claim["constants"]["theta_sq_norm"] = theta
    cert = {"format": FORMAT, "kind": "theorem", "claim": claim, "semantics": sem,
            "dataset": dataset_to_json(dataset), "network": network_to_json(net),
            "bounds": bounds or [], "verdict": verdict.value, "provenance": provenance()}
    return seal(cert)


def lemma_certificate(statement: str, results, verdict, source: str | None = None) -> dict | None:
    """Certificate of the exact layer instances of a lemma run, or ``None`` when
    the statement has none (symbolic / numeric checks only).  ``source``: the
    distribution name of a plugin's statement (recorded as ``claim.source``)."""
    inst = []
    for r in results:
        i = getattr(r, "instance", None)
        if i is None:
            continue
        layer, inputs, expected = i
        kind = "FF" if hasattr(layer, "eta") else "SA"
        q = lambda t: None if t is None else [format_q(x) for x in t]  # noqa: E731
        inst.append({"name": r.name, "kind": kind,
                     "layer": ff_to_json(layer) if kind == "FF" else sa_to_json(layer),
                     "inputs": [[q(x) for x in s] for s in inputs],
                     "expected": [[q(x) for x in s] for s in expected],
                     "verdict": r.verdict.value,
                     **({"data": _data_json(r.data)} if r.data is not None else {})})
    if not inst:
        return None
    claim = {"statement": statement}
    if source is not None:  # a plugin's statement (docs/plugins.md)
        claim["source"] = f"plugin:{source}"
    cert = {"format": FORMAT, "kind": "lemma", "claim": claim,
            "semantics": {"attention": "hardmax"}, "instances": inst,
            "verdict": verdict.value, "provenance": provenance()}
    return seal(cert)


def _data_json(v):
    """A lemma's data as JSON: rationals as exact strings, nested lists/dicts kept."""
    if isinstance(v, dict):
        return {str(k): _data_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_data_json(x) for x in v]
    if isinstance(v, (bool, str)) or v is None:
        return v
    return format_q(v)


def write_certificate(path, cert: dict) -> Path:
    path = Path(path)
    atomic_write(path, json.dumps(cert, indent=1) + "\n")
    return path
