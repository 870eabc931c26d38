"""``verify``: re-check a certificate (docs/spec.md §3, §5) with no construction or search: the kernel's
reader (:mod:`.reader`: every field and number, before any arithmetic; malformed: ``BadInput``,
exit 2), the digest (ERROR on mismatch),
the claim re-derived (:mod:`.theorem`, :mod:`.lemma`), the stated verdict against the re-derived
one (REFUTED if they differ; ERROR if a stated failure holds).  Under the bounds of :mod:`.limits`
(RESOURCE-LIMIT, exit 4); an exception inside the kernel is ERROR, never a weaker check."""
import hashlib
from dataclasses import dataclass, field

from proofcheck.kernel import lemma, theorem
from proofcheck.kernel.dataset import digest
from proofcheck.kernel.documents import loads_bytes, read_json
from proofcheck.kernel.errors import BadInput, ResourceLimit
from proofcheck.kernel.limits import budget, collector_paused
from proofcheck.kernel.reader import CERTIFICATES, read_certificate
from proofcheck.kernel.serialize import canonical
from proofcheck.kernel.verdicts import Scope, Verdict, Witness, escape

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
    failure: Witness | None = None  # a REFUTED's first failing check (its code: the kind)
    rederived: Verdict | None = None  # the re-check's verdict, before the stated one counts

    def __iter__(self):
        return iter((self.verdict, self.lines))

    @property
    def conclusion_rederived(self) -> bool:
        return self.verdict.passed and self.scope is not None and self.scope.rederived

    def verdict_line(self) -> str:
        """``VERDICT: V (scope: what was established, or for a REFUTED what was refuted,
        the failing check and its witness code)``; the bare verdict without a scope."""
        if self.scope is not None and (self.verdict.passed or self.verdict is Verdict.REFUTED):
            return f"VERDICT: {self.verdict.value} ({self.scope.value}: {self.detail})"
        return f"VERDICT: {self.verdict.value}"

    def exit_code(self, require_conclusion: bool = False) -> int:
        short = require_conclusion and self.verdict.passed and not self.conclusion_rederived
        return (Verdict.INCONCLUSIVE if short else self.verdict).exit_code


def verify_file(path, dataset=None, route: str = "auto", shards=None) -> Outcome:
    """:func:`verify_certificate` of a file read strictly (``BadInput`` if unreadable)."""
    return verify_certificate(read_json(path, "certificate"), dataset=dataset, route=route,
                              shards=shards)


def verify_bytes(data: bytes, where: str = "certificate", route: str = "auto",
                 shards=None) -> Outcome:
    """:func:`verify_certificate` of a certificate's bytes (the text a file would hold, read
    as :func:`~proofcheck.kernel.documents.read_json` reads a file; ``where`` names it)."""
    return verify_certificate(loads_bytes(data, "certificate", where), route=route,
                              shards=shards)


def verify_certificate(cert, dataset=None, route: str = "auto", shards=None) -> Outcome:
    """The :class:`Outcome` of a parsed certificate (the kernel's in-memory API).
    ``dataset``: a :class:`~proofcheck.kernel.dataset.Dataset` it must be about;
    ``route``: ``"auto"`` (fast above a size, when the fast tier is loaded), ``"plain"``
    or ``"fast"``; ``shards``: ``job -> (spans, results)``, the pairs of a hardmax
    certificate evaluated in shards (:mod:`.shards`; ``None``: in this process).  Malformed
    content (fields and numbers: :mod:`.reader`; dimensions, another dataset, a plugin posing
    as a catalogue statement) raises ``BadInput`` with the JSON path."""
    with collector_paused():  # what a check builds is acyclic (limits.collector_paused)
        return _verify(cert, dataset, route, shards)


def _verify(cert, dataset, route: str, shards) -> Outcome:
    """:func:`verify_certificate`'s body."""
    if not isinstance(cert, dict):
        read_certificate(cert)  # raises: not an object
    body = {k: v for k, v in cert.items() if k != "digest"}
    try:
        raw, where = canonical(body), {"route": "plain", "facts": None}
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
                got, lines, where["route"], where["facts"] = theorem.check(doc, route, shards)
            else:
                got, lines = lemma.check(doc)
    except (BadInput, KeyboardInterrupt):
        raise
    except ResourceLimit as e:  # a bound of proofcheck.kernel.limits: nothing decided
        return Outcome(Verdict.RESOURCE_LIMIT, [f"resource limit: {e}"])
    except Exception as e:  # fail closed: an internal error is never a weaker check
        return Outcome(Verdict.ERROR, [f"internal error in the kernel: {type(e).__name__}: "
                                       f"{escape(e)}"])
    stated, facts = cert["verdict"], where["facts"]
    lines.append(f"re-checked verdict: {got.value}; stated: {stated}")
    out = Outcome(got, lines, route=where["route"], rederived=got)
    if got is Verdict.INCONCLUSIVE and stated != got.value:  # no witness: nothing refuted
        lines.append(f"the certificate states {stated}; the re-check cannot establish it: not "
                     "accepted")
    elif got.passed and not Verdict(stated).passed:  # no witness can exist: contradicts itself
        out.verdict = Verdict.ERROR
        lines.append(f"states {stated}; its content holds ({got.value})")
    elif got.value != stated and got not in (Verdict.ERROR, Verdict.RESOURCE_LIMIT):
        out.verdict = Verdict.REFUTED
        lines.append(f"the certificate states {stated} but the re-check gives {got.value}")
    if out.verdict is Verdict.REFUTED and facts is not None:
        out.failure = facts.failure
    if out.verdict.passed or out.verdict is Verdict.REFUTED:
        scope = _scope(cert, facts, out.verdict, out.failure)
        if scope is not None:
            out.scope, out.detail = scope
    return out


def _scope(cert, facts, verdict: Verdict, failure) -> tuple[Scope, str] | None:
    """What a passing re-check of ``cert`` established, and its extent; for a REFUTED
    theorem certificate what it refuted: construction X on this dataset (never the
    theorem), with the failing check and its witness code (docs/spec.md §5)."""
    claim = cert["claim"]
    if cert["kind"] == "theorem":
        pairs = f"{(n := len(cert['dataset']['pairs']))} pair{'s' * (n != 1)}"
        who = (f"construction {escape(facts.construction, 60)}" if facts.construction
               else "the certificate's network (no construction named)")
        ext = f", {facts.extensions}" if facts.extensions else ""
        if verdict is Verdict.REFUTED:
            if failure is None:
                return None
            return Scope.DATASET, (f"{who} does not witness Theorem {claim['statement']} on its "
                                   f"{pairs}{ext}: {failure.describe()} [{failure.code}]")
        if cert["semantics"]["attention"] == "hardmax":
            return Scope.DATASET, (f"{who} witnesses Theorem {claim['statement']} on its "
                                   f"{pairs}, exact hardmax evaluation{ext}; budget and "
                                   f"constants re-derived, {facts.constant}")
        return Scope.DATASET, (f"{who} witnesses Theorem {claim['statement']} on its {pairs}, "
                               f"softmax for every tau in (0, {escape(cert['semantics']['tau'], 60)}]"
                               f"{ext}; {facts.constant}")
    k = len(cert["instances"])
    if verdict is Verdict.REFUTED:  # the layer on a stated instance, not the statement
        return Scope.INSTANCES, (f"a stated layer of {escape(claim['statement'])} fails on its "
                                 f"instance (of {k} stated; witness above); the statement "
                                 "beyond them is not refuted")
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
