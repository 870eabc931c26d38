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
    """``verdict`` and ``lines`` of :func:`verify_certificate`, and its time."""

    verdict: Verdict
    lines: list[str] = field(default_factory=list)
    seconds: float = 0.0


def recheck(cert: dict) -> Recheck:
    """Re-check ``cert`` (a sealed certificate dict) with the kernel."""
    from proofcheck.kernel.verify import verify_certificate
    t0 = time.perf_counter()
    try:
        v, lines = verify_certificate(cert)
    except BadInput as e:  # the run wrote a certificate the kernel cannot read
        v, lines = Verdict.ERROR, [f"the kernel refuses the certificate this run wrote: {e}"]
    except Exception as e:  # noqa: BLE001  (fail closed)
        v, lines = Verdict.ERROR, [f"internal error in the kernel re-check: "
                                   f"{type(e).__name__}: {e}"]
    return Recheck(v, list(lines), time.perf_counter() - t0)
