"""The network to export or audit: constructed for Theorem 1.6 or 1.8 exactly as
``python -m proofcheck theorem`` does (``proofcheck.constructions.afz.theorems.theorem_1_6.construct``; for
1.8 with ``proofcheck.constructions.afz.theorems.theorem_1_8.SCALES``), optionally checked by the trusted
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


def build(statement: str, dataset, tau=None, check: bool = True, options=None,
          construction: str = "default") -> Built:
    """Construct (and with ``check`` verify) the network of ``statement`` on the
    admissible ``dataset``.  With ``check`` the run is :func:`proofcheck.frontend.runs.theorem.
    run_theorem` (1.6: hardmax, exact check of every claim, exact interpolation and the
    constants; 1.8: softmax at ``tau``, or the certified search of ``theorem 1.8``
    when ``tau`` is None), and the verdict is the kernel's re-check of its
    certificate.  ``options``: :class:`proofcheck.constructions.afz.options.ConstructionOptions`
    (None: today's construction); ``construction``: a name of
    :data:`proofcheck.constructions.afz.theorems.constructions.CONSTRUCTIONS` (``KeyError`` if it does not
    serve the statement).  Raises ``ValueError`` for a statement other than
    1.6/1.8, a missing tau, or options the data cannot satisfy."""
    if statement not in ("1.6", "1.8"):
        raise ValueError(f"{statement} is not a theorem; theorems: 1.6, 1.8")
    if statement == "1.8" and tau is None and (not check or (
            options is not None and options.float_format is not None)):
        raise ValueError("theorem 1.8 " + ("with --float-safe" if check else "without a check")
                         + " needs --tau")
    from proofcheck.constructions.afz.theorems.constructions import get
    spec = get(construction, statement)
    attention = "hardmax" if statement == "1.6" else "softmax"
    if not check:
        c = _construct(spec, statement, dataset, options)
        b = Built(statement, dataset, c.net, c.claims, attention,
                  None if tau is None else Fraction(tau), info=c.info)
        b.info.update(options=options, construction=construction)
        return b
    from proofcheck.frontend.runs.theorem import TheoremOptions, run_theorem
    run = run_theorem(statement, dataset, opts=TheoremOptions(
        tau=None if tau is None else Fraction(tau), simulate=False, options=options,
        construction=construction))
    c = run.check.construction
    if statement == "1.8":
        tau = run.check.tau_cert if tau is None else Fraction(tau)
    b = Built(statement, dataset, c.net, c.claims, attention, tau, verdict=run.verdict,
              certificate=run.certificate if tau is not None or statement == "1.6" else None,
              info=c.info)
    b.info.update(options=options, construction=construction)
    return b


def _construct(spec, statement: str, dataset, options):
    from proofcheck.constructions.afz.theorems import theorem_1_8
    inputs = [list(p.inputs) for p in dataset.pairs]
    targets = [list(p.outputs) for p in dataset.pairs]
    scales = theorem_1_8.SCALES if statement == "1.8" else {}
    return spec.build(inputs, targets, dataset.d, **scales,
                      **({"options": options} if options is not None else {}))


def metadata(b: Built, dtype: str) -> dict:
    """The metadata every exported file carries (strings and numbers only)."""
    from proofcheck import __version__
    from proofcheck.frontend.export.rounding import ROUNDING_NOTE
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
        "construction": b.info.get("construction", "default"),
        "construction_options": str(b.info.get("options")),
        "note": "the exact verdict is about the exact rational network; the exported float "
                "weights are its nearest-rounding (see `proofcheck audit` for what floating "
                "point does to it)",
    }
