"""The network to export or audit: constructed for Theorem 1.6 or 1.8 exactly as
``python -m proofcheck theorem`` does (``lemmas.afz.theorems.theorem_1_6.construct``; for
1.8 with ``lemmas.afz.theorems.theorem_1_8.SCALES``), optionally checked by the trusted
checker so that the export can carry the certificate digest (issue 13).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction


@dataclass
class Built:
    """``statement`` "1.6" or "1.8"; ``net``/``claims`` from the construction;
    ``attention`` "hardmax" or "softmax" with ``tau``; ``verdict`` of the exact
    check (None when not run); ``certificate`` the sealed certificate dict (None
    when not run) whose ``digest`` the exports record."""

    statement: str
    dataset: object
    net: object
    claims: list
    attention: str
    tau: Fraction | None
    verdict: object = None
    certificate: dict | None = None
    info: dict = field(default_factory=dict)

    @property
    def inputs(self):
        return [list(p.inputs) for p in self.dataset.pairs]

    @property
    def targets(self):
        return [list(p.outputs) for p in self.dataset.pairs]


def build(statement: str, dataset, tau=None, check: bool = True, progress=None,
          options=None) -> Built:
    """Construct (and with ``check`` verify) the network of ``statement`` on the
    admissible ``dataset``.  1.6: hardmax, exact check of every claim, exact
    interpolation and the constants.  1.8: softmax at ``tau`` (a positive
    Fraction; required unless ``check``, in which case the certified search of
    ``theorem 1.8`` gives tau_cert); the certificate is the softmax certifier's.
    ``options``: :class:`lemmas.afz.theorems.options.ConstructionOptions` (None: today's
    construction).  Raises ``ValueError`` for a statement other than 1.6/1.8, a
    missing tau, or options the data cannot satisfy."""
    from lemmas.afz.theorems import theorem_1_6, theorem_1_8
    inputs = [list(p.inputs) for p in dataset.pairs]
    targets = [list(p.outputs) for p in dataset.pairs]
    if statement == "1.6":
        c = theorem_1_6.construct(inputs, targets, dataset.d, options=options)
        b = Built("1.6", dataset, c.net, c.claims, "hardmax", None, info=c.info)
        b.info["options"] = options
        if check:
            from proofcheck.io.certificate_writer import theorem_certificate
            from proofcheck.kernel.checker import check_network
            from proofcheck.kernel.verdicts import combine
            nc = check_network(c.net, inputs, targets, c.claims, progress=progress)
            checks, consts = theorem_1_6.constant_checks(c.net, dataset.d, dataset.N,
                                                         dataset.M, c.info["R"])
            b.verdict = combine(r.verdict for r in nc.results + checks)
            b.certificate = theorem_certificate("1.6", dataset, c.net, b.verdict,
                                                constants=consts)
        return b
    if statement != "1.8":
        raise ValueError(f"{statement} is not a theorem; theorems: 1.6, 1.8")
    if tau is None and not check:
        raise ValueError("theorem 1.8 without a check needs --tau")
    if tau is None:
        if options is not None and options.float_format is not None:
            raise ValueError("theorem 1.8 with --float-safe needs --tau")
        sc = theorem_1_8.verify(dataset, simulate_num=False)
        c, tau = sc.construction, sc.tau_cert
        if tau is None:
            b = Built("1.8", dataset, c.net, c.claims, "softmax", None, sc.certificate.verdict,
                      info=c.info)
            return b
        cert = sc.certificate
    else:
        from proofcheck.kernel.softmax_certifier import certify
        c = theorem_1_6.construct(inputs, targets, dataset.d, **theorem_1_8.SCALES,
                                  options=options)
        cert = certify(c.net, inputs, targets, Fraction(tau)) if check else None
    b = Built("1.8", dataset, c.net, c.claims, "softmax", Fraction(tau), info=c.info)
    b.info["options"] = options
    if cert is not None:
        from proofcheck.io.certificate_writer import theorem_certificate
        b.verdict = cert.verdict
        b.certificate = theorem_certificate(
            "1.8", dataset, c.net, cert.verdict, tau=Fraction(tau),
            bounds=[x.to_json() for x in cert.bounds if x.max_eps is not None])
    return b


def metadata(b: Built, dtype: str) -> dict:
    """The metadata every exported file carries (strings and numbers only)."""
    from proofcheck import __version__
    from proofcheck.export.rounding import ROUNDING_NOTE
    from proofcheck.kernel.dataset import digest
    return {
        "producer": f"proofcheck {__version__}",
        "statement": f"Theorem {b.statement} (Alcalde-Fantuzzi-Zuazua, exact sequence "
                     "interpolation)",
        "dataset_name": b.dataset.name,
        "dataset_sha256": digest(b.dataset),
        "certificate_digest": (b.certificate or {}).get("digest"),
        "exact_verdict": None if b.verdict is None else b.verdict.value,
        "attention": b.attention,
        "tau": None if b.tau is None else str(b.tau),
        "dtype": dtype,
        "rounding": ROUNDING_NOTE.format(fmt=dtype),
        "construction_options": str(b.info.get("options")),
        "note": "the exact verdict is about the exact rational network; the exported float "
                "weights are its nearest-rounding (see `proofcheck audit` for what floating "
                "point does to it)",
    }
