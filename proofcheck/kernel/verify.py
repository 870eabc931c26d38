"""``verify``: re-check a certificate (SPEC §3, §5) with no construction or search: the kernel's
reader (:mod:`.reader`: every field and number, before any arithmetic; malformed: ``BadInput``,
exit 2), the digest (ERROR on mismatch),
the claim re-derived (:mod:`.theorem`, :mod:`.lemma`), the stated verdict against the re-derived
one (REFUTED if they differ; ERROR if a stated failure holds).  Under the bounds of :mod:`.limits`
(RESOURCE-LIMIT, exit 4); an exception inside the kernel is ERROR, never a weaker check."""
import hashlib
from dataclasses import dataclass, field

from proofcheck.kernel import lemma, theorem
from proofcheck.kernel.dataset import digest
from proofcheck.kernel.documents import read_json
from proofcheck.kernel.errors import BadInput, ResourceLimit
from proofcheck.kernel.limits import budget
from proofcheck.kernel.reader import CERTIFICATES, read_certificate
from proofcheck.kernel.serialize import canonical
from proofcheck.kernel.verdicts import Scope, Verdict, escape

#: the formats this kernel reads
READS = tuple(CERTIFICATES)


@dataclass
class Outcome:
    """What :func:`verify_certificate` established: ``verdict``, ``lines``, ``scope`` and
    ``detail`` (what a pass established), ``route``; ``verdict_line()`` is the VERDICT line every
    command prints, ``exit_code(require_conclusion)`` its exit code (3 for a pass whose conclusion
    was not re-derived, when required).  Unpacks as ``verdict, lines``."""

    verdict: Verdict
    lines: list[str] = field(default_factory=list)
    scope: Scope | None = None
    detail: str = ""
    route: str = "plain"

    def __iter__(self):
        return iter((self.verdict, self.lines))

    @property
    def conclusion_rederived(self) -> bool:
        return self.verdict.passed and self.scope is not None and self.scope.rederived

    def verdict_line(self) -> str:
        if self.verdict.passed and self.scope is not None:
            return f"VERDICT: {self.verdict.value} ({self.scope.value}: {self.detail})"
        return f"VERDICT: {self.verdict.value}"

    def exit_code(self, require_conclusion: bool = False) -> int:
        short = require_conclusion and self.verdict.passed and not self.conclusion_rederived
        return (Verdict.INCONCLUSIVE if short else self.verdict).exit_code


def verify_file(path, dataset=None, route: str = "auto") -> Outcome:
    """:func:`verify_certificate` of a file read strictly (``BadInput`` if unreadable)."""
    return verify_certificate(read_json(path, "certificate"), dataset=dataset, route=route)


def verify_certificate(cert, dataset=None, route: str = "auto") -> Outcome:
    """The :class:`Outcome` of a parsed certificate (the kernel's in-memory API).
    ``dataset``: a :class:`~proofcheck.kernel.dataset.Dataset` it must be about;
    ``route``: ``"auto"`` (fast above a size, when the fast tier is loaded), ``"plain"``
    or ``"fast"``.  Malformed content (fields and numbers: :mod:`.reader`; dimensions,
    another dataset, a plugin posing as a catalogue statement) raises ``BadInput`` with
    the JSON path."""
    if not isinstance(cert, dict):
        read_certificate(cert)  # raises: not an object
    body = {k: v for k, v in cert.items() if k != "digest"}
    try:
        raw, where = canonical(body), {"route": "plain"}
    except (TypeError, ValueError):  # not JSON: the reader names the value
        read_certificate(cert)
        raise
    try:
        with budget(len(raw)):
            doc = read_certificate(cert)  # in the budget: parsing charges exponents, long digits
            if dataset is not None:
                _same_dataset(doc, dataset)
            if hashlib.sha256(raw).hexdigest() != doc["digest"]:
                return Outcome(Verdict.ERROR, ["digest mismatch: altered after sealing"])
            if doc["kind"] == "theorem":
                got, lines, where["route"] = theorem.check(doc, route)
            else:
                got, lines = lemma.check(doc)
    except (BadInput, KeyboardInterrupt):
        raise
    except ResourceLimit as e:  # a bound of proofcheck.kernel.limits: nothing decided
        return Outcome(Verdict.RESOURCE_LIMIT, [f"resource limit: {e}"])
    except Exception as e:  # fail closed: an internal error is never a weaker check
        return Outcome(Verdict.ERROR, [f"internal error in the kernel: {type(e).__name__}: "
                                       f"{escape(e)}"])
    stated = cert["verdict"]
    lines.append(f"re-checked verdict: {got.value}; stated: {stated}")
    if got is Verdict.INCONCLUSIVE and stated != got.value:  # no witness: nothing refuted
        return Outcome(got, lines + [f"the certificate states {stated}; the re-check cannot "
                                     "establish it: not accepted"], route=where["route"])
    if got.passed and not Verdict(stated).passed:  # no witness can exist: contradicts itself
        return Outcome(Verdict.ERROR, lines + [f"states {stated}; its content holds ({got.value})"],
                       route=where["route"])
    if got.value != stated and got not in (Verdict.ERROR, Verdict.RESOURCE_LIMIT):
        return Outcome(Verdict.REFUTED, lines + [f"the certificate states {stated} but the "
                                                 f"re-check gives {got.value}"], route=where["route"])
    return Outcome(got, lines, *_scope(cert), route=where["route"])


def _scope(cert) -> tuple[Scope, str]:
    """What a passing re-check of ``cert`` established, and its extent."""
    claim = cert["claim"]
    if cert["kind"] == "theorem":
        pairs = f"{(n := len(cert['dataset']['pairs']))} pair{'s' * (n != 1)}"
        mask = f", {m}" if (m := theorem.extensions(cert)) else ""
        if cert["semantics"]["attention"] == "hardmax":
            return Scope.DATASET, (f"Theorem {claim['statement']} on its {pairs}, exact "
                                   f"hardmax evaluation{mask}; budget and constants re-derived")
        return Scope.DATASET, (f"Theorem {claim['statement']} on its {pairs}, softmax for "
                               f"every tau in (0, {escape(cert['semantics']['tau'], 60)}]{mask}")
    k = len(cert["instances"])
    if "source" in claim:
        return Scope.INSTANCES, (f"{k} stated map{'s' * (k != 1)} of {escape(claim['statement'])}"
                                 "; the statement itself is not re-derived")
    return Scope.EVERY_TOKEN, (f"the conclusion of Lemma {claim['statement']} re-derived on "
                               f"{k} stated layer{'s' * (k != 1)}")


def _same_dataset(cert, ds) -> None:
    if cert["kind"] != "theorem":
        raise BadInput("--dataset given, but a lemma certificate is not about a dataset",
                       "$.kind")
    want = cert["claim"]["dataset"]["sha256"]
    got = digest(ds)
    if got != want:
        raise BadInput(f"the given dataset '{escape(ds.name)}' is not the certificate's "
                       f"dataset '{escape(cert['claim']['dataset']['name'])}': its SHA-256 is {got}, the "
                       f"certificate claims {want}", "$.claim.dataset.sha256")
