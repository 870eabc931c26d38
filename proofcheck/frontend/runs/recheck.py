"""The one verdict path (issue 20, item 9): every run's verdict is the trusted
kernel's verdict on the certificate the run writes (or would write), from
:func:`proofcheck.kernel.verify.verify_certificate` on the in-memory certificate.

Fail closed: a certificate the run itself wrote that the kernel finds malformed,
and any exception inside the kernel, is ERROR (never a weaker check's verdict).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict


@dataclass
class Recheck:
    """``verdict`` and ``lines`` of :func:`verify_certificate`, its
    :class:`~proofcheck.kernel.verify.Outcome` (``None`` when the kernel refused or
    failed) and its time."""

    verdict: Verdict
    lines: list[str] = field(default_factory=list)
    seconds: float = 0.0
    outcome: object = None
    scope: str | None = None  # what a pass established when there is no kernel outcome
    refuted: str | None = None  # what a REFUTED refutes when there is no kernel outcome

    def verdict_line(self) -> str:
        """The kernel's VERDICT line: what a pass established (its scope), what a REFUTED
        refutes; without a kernel outcome the verdict, with ``scope`` in parentheses for a
        pass and the scope and ``refuted`` for a REFUTED."""
        if self.outcome is not None:
            return self.outcome.verdict_line()
        if self.verdict is Verdict.REFUTED and self.refuted and self.scope:
            return f"VERDICT: {self.verdict.value} ({self.scope}: {self.refuted})"
        tail = f" ({self.scope})" if self.scope and self.verdict.passed else ""
        return f"VERDICT: {self.verdict.value}{tail}"

    @property
    def exit_code(self) -> int:
        return self.outcome.exit_code() if self.outcome is not None else self.verdict.exit_code


def recheck(cert: dict) -> Recheck:
    """Re-check ``cert`` (a sealed certificate dict) with the kernel, on its default
    route (the fast tier is loaded, so large certificates take the fast route, as
    ``verify`` does); progress on stderr while it runs (a line at least every few
    seconds, :func:`proofcheck.frontend.progress.phase`)."""
    import proofcheck.kernel.fast  # noqa: F401  (registers the fast route, as `verify` does)
    from proofcheck.kernel.verify import verify_certificate
    from proofcheck.frontend.progress import phase
    t0 = time.perf_counter()
    try:
        with phase("kernel re-check"):
            out = verify_certificate(cert)
    except BadInput as e:  # the run wrote a certificate the kernel cannot read
        return Recheck(Verdict.ERROR, [f"the kernel refuses the certificate this run wrote: {e}"],
                       time.perf_counter() - t0)
    except Exception as e:  # noqa: BLE001  (fail closed)
        return Recheck(Verdict.ERROR, [f"internal error in the kernel re-check: "
                                       f"{type(e).__name__}: {e}"], time.perf_counter() - t0)
    return Recheck(out.verdict, list(out.lines), time.perf_counter() - t0, out)


def witness_text(w) -> str:
    """``": <the witness> [<its code>]"`` for a VERDICT line ('' without a witness)."""
    if w is None:
        return ""
    return f": {w.describe()}" + (f" [{w.code}]" if w.code else "")
