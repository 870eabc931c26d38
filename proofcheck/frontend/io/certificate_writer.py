"""Writing certificates (``proofcheck-certificate/2``, docs/spec.md §3).

A certificate is self-contained: the claim (statement, dataset name and SHA-256),
the dataset itself, the exact network (or, for a lemma, its layer instances), the
semantics (hardmax, or softmax with tau), per-layer bounds for softmax, the
verdict, provenance and a SHA-256 digest over the canonical JSON of everything
else.  ``proofcheck.kernel`` re-checks it without any construction code.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from proofcheck.frontend.io.files import atomic_write
from proofcheck.frontend.io.provenance import provenance
from proofcheck.kernel.dataset import dataset_to_json, digest
from proofcheck.kernel.model import FF, SA, Factored, Transformer
from proofcheck.kernel.numbers import MAX_STRING_LENGTH, format_q
from proofcheck.kernel.serialize import sha256

FORMAT = "proofcheck-certificate/2"

#: the theorem constants a certificate states; the kernel re-derives each of them
#: (proofcheck.kernel.theorem) — R, L_construction and P_formula by the named
#: construction's own block formula and parameter count
STATED_CONSTANTS = ("N", "M", "d", "R", "L", "L_construction", "max_width", "P", "P_formula",
                    "P_bound", "param_constant", "theta_sq_norm")


# ------------------------------------------------ the exact JSON form of a network

def _q(x) -> str:
    return format_q(Fraction(x))


def _fac(f: Factored) -> dict:
    return {"lam": _q(f.lam), "left": [[_q(x) for x in a] for a in f.left],
            "right": [[_q(x) for x in b] for b in f.right]}


def ff_to_json(ff: FF) -> dict:
    return {"eta": _q(ff.eta), "U": [[_q(x) for x in u] for u in ff.U],
            "b": [_q(x) for x in ff.b], "W": [[_q(x) for x in w] for w in ff.W],
            "label": ff.label}


def sa_to_json(sa: SA) -> dict:
    """One head as ``A``, ``V``; H > 1 heads as ``heads``; ``causal`` only when masked."""
    o = {"rho": _q(sa.rho)}
    if sa.H == 1:
        o.update(A=_fac(sa.A), V=_fac(sa.V))
    else:
        o["heads"] = [{"A": _fac(A), "V": _fac(V)} for A, V in sa.heads]
    if sa.causal:
        o["causal"] = True
    return {**o, "label": sa.label}


def network_to_json(net: Transformer) -> dict:
    return {"d": net.d, "blocks": [{"ff": ff_to_json(b.ff), "sa": sa_to_json(b.sa),
                                    "phase": b.phase} for b in net.blocks]}


def seal(cert: dict) -> dict:
    """Add the digest (SHA-256 of the canonical JSON without ``digest``)."""
    body = {k: v for k, v in cert.items() if k != "digest"}
    return {**body, "digest": sha256(body)}


def theorem_certificate(statement: str, dataset, net, verdict, tau=None, bounds=None,
                        constants=None, construction: str | None = None) -> dict:
    """Certificate of a theorem run: ``net`` on ``dataset`` (hardmax, or softmax at
    ``tau`` when given, with ``bounds`` the certifier's stated bounds: a
    ``Certificate`` of :mod:`proofcheck.constructions.afz.softmax_certifier` or its ``hints_json()``).
    ``construction``: the name of the construction that built ``net``, recorded as
    ``claim.construction`` (default: ``constants["construction"]``; docs/spec.md §5)."""
    sem = {"attention": "hardmax"} if tau is None else {"attention": "softmax",
                                                         "tau": format_q(tau)}
    if construction is None and constants:
        construction = constants.get("construction")
    claim = {"statement": statement, "d": dataset.d,
             "dataset": {"name": dataset.name, "sha256": digest(dataset)}}
    if construction is not None:
        claim["construction"] = construction
    if constants:
        claim["constants"] = {k: (constants[k] if isinstance(constants[k], int)
                                  else format_q(constants[k]))
                              for k in STATED_CONSTANTS if k in constants}
        theta = format_q(net.sq_norm())  # ||theta*||^2, docs/spec.md §2
        if len(theta) <= MAX_STRING_LENGTH:  # a longer exact string is beyond what verify reads
            claim["constants"]["theta_sq_norm"] = theta
    cert = {"format": FORMAT, "kind": "theorem", "claim": claim, "semantics": sem,
            "dataset": dataset_to_json(dataset), "network": network_to_json(net),
            "verdict": verdict.value, "provenance": provenance()}
    if tau is not None and bounds is not None:
        cert["bounds"] = bounds.hints_json() if hasattr(bounds, "hints_json") else bounds
    return seal(cert)


def lemma_certificate(statement: str, results, verdict, source: str | None = None,
                      text: str | None = None, hypotheses=()) -> dict | None:
    """Certificate of the exact layer instances of a lemma run, or ``None`` when
    the statement has none (symbolic / numeric checks only).  ``source``: the
    distribution name of a plugin's statement (recorded as ``claim.source``, with
    the statement's ``text`` and ``hypotheses`` and the scope the kernel re-checks:
    its instances)."""
    inst = []
    for r in results:
        i = getattr(r, "instance", None)
        if i is None:
            continue
        layer, inputs, expected = i
        kind = "FF" if hasattr(layer, "eta") else "SA"
        q = lambda t: None if t is None else [format_q(x) for x in t]  # noqa: E731
        d = next((len(t) for s in inputs for t in s), 0)
        inst.append({"name": r.name, "kind": kind, "d": d,
                     "layer": ff_to_json(layer) if kind == "FF" else sa_to_json(layer),
                     "inputs": [[q(x) for x in s] for s in inputs],
                     "expected": [[q(x) for x in s] for s in expected],
                     "verdict": r.verdict.value,
                     **({"data": _data_json(r.data)} if r.data is not None else {})})
    if not inst:
        return None
    claim = {"statement": statement}
    if source is not None:  # a plugin's statement (docs/howto/plugins.md)
        claim.update(source=f"plugin:{source}", text=text or statement,
                     hypotheses=list(hypotheses), scope="instances")
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
