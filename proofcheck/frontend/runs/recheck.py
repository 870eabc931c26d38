"""The one verdict path (issue 20, item 9): every run's verdict is the trusted
kernel's verdict on the certificate the run writes (or would write), from
:func:`proofcheck.kernel.verify.verify_certificate` on the in-memory certificate.

Fail closed: a certificate the run itself wrote that the kernel finds malformed,
and any exception inside the kernel, is ERROR (never a weaker check's verdict).
"""
from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
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
    cpu: float | None = None  # CPU seconds of the re-check (its own process's when forked)
    waited: float | None = None  # wall seconds the run waited for a forked re-check

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


def recheck(cert: dict | bytes, shards=None, quiet: bool = False) -> Recheck:
    """Re-check ``cert`` with the kernel, on its default route (the fast tier is loaded, so
    large certificates take the fast route, as ``verify`` does): the bytes of a certificate
    file (:func:`~proofcheck.frontend.io.certificate_writer.certificate_bytes`, read back by the
    kernel's own reader, as ``verify FILE`` reads them) or a sealed certificate dict.
    ``shards``: the pairs evaluated in shards (:func:`proofcheck.frontend.runs.distributed.kernel_shards`).
    Progress on stderr while it runs (a line at least every few seconds,
    :func:`proofcheck.frontend.progress.phase`; none with ``quiet``)."""
    import proofcheck.kernel.fast  # noqa: F401  (registers the fast route, as `verify` does)
    from proofcheck.kernel.documents import loads_bytes
    from proofcheck.kernel.verify import verify_certificate
    from proofcheck.frontend.progress import phase
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        with phase("kernel re-check", quiet=quiet):
            doc = (loads_bytes(cert, "certificate", "the run's certificate")
                   if isinstance(cert, bytes) else cert)
            out = (verify_certificate(doc) if shards is None else
                   verify_certificate(doc, shards=shards))
    except BadInput as e:  # the run wrote a certificate the kernel cannot read
        return Recheck(Verdict.ERROR, [f"the kernel refuses the certificate this run wrote: {e}"],
                       time.perf_counter() - t0)
    except Exception as e:  # noqa: BLE001  (fail closed)
        return Recheck(Verdict.ERROR, [f"internal error in the kernel re-check: "
                                       f"{type(e).__name__}: {e}"], time.perf_counter() - t0)
    return Recheck(out.verdict, list(out.lines), time.perf_counter() - t0, out,
                   cpu=time.process_time() - c0)


#: a certificate of at least this many bytes is re-checked in a forked process; a smaller
#: one takes well under a second in the run's own process (a fork would cost about as much)
FORK_BYTES = 1 << 20


class Pending:
    """The kernel's re-check of a certificate's bytes, started by :func:`start`: in a
    process forked for it (it runs beside the caller's own work on another core) when
    ``fork`` and the certificate has :data:`FORK_BYTES` or more, else (or where the platform
    cannot fork, or shards run it) when :meth:`result` is called."""

    def __init__(self, data: bytes, shards=None, fork: bool = True):
        self.data, self.shards, self.pid, self.fd = data, shards, None, None
        if fork and shards is None and hasattr(os, "fork") and len(data) >= FORK_BYTES:
            self._fork()

    def _fork(self) -> None:
        import proofcheck.kernel.fast  # noqa: F401  (imported before the fork, not in the child)
        import proofcheck.kernel.verify  # noqa: F401
        r, w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:  # the child: the kernel on the bytes, its Recheck down the pipe
            os.close(r)
            code = 1
            try:
                gc.freeze()  # the inherited objects: never traversed (nor their pages copied)
                payload = pickle.dumps(recheck(self.data, quiet=True))
                with os.fdopen(w, "wb") as f:
                    f.write(payload)
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        self.pid, self.fd = pid, r

    def result(self) -> Recheck:
        """The re-check's :class:`Recheck` (waiting for the forked process, progress on
        stderr while it runs); a process that ends without one is ERROR."""
        if self.pid is None:
            return recheck(self.data, self.shards)
        from proofcheck.frontend.progress import phase
        t0 = time.perf_counter()
        with phase("kernel re-check"):
            with os.fdopen(self.fd, "rb") as f:
                payload = f.read()
            _, status = os.waitpid(self.pid, 0)
        self.pid = None
        try:
            rc = pickle.loads(payload) if payload else None
        except Exception:  # noqa: BLE001  (a truncated answer: fail closed)
            rc = None
        if not isinstance(rc, Recheck) or os.waitstatus_to_exitcode(status) != 0:
            why = os.waitstatus_to_exitcode(status)
            return Recheck(Verdict.ERROR, [
                "the kernel's re-check process ended without a verdict ("
                + (f"signal {-why}" if why < 0 else f"exit status {why}") + ")"],
                time.perf_counter() - t0)
        rc.waited = time.perf_counter() - t0
        return rc

    def cancel(self) -> None:
        """End a forked re-check that is no longer wanted (the run stopped early)."""
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            os.close(self.fd)
            self.pid = None


def start(data: bytes, shards=None, fork: bool = True) -> Pending:
    """Start the kernel's re-check of a certificate's bytes (:class:`Pending`)."""
    return Pending(data, shards, fork)


def witness_text(w) -> str:
    """``": <the witness> [<its code>]"`` for a VERDICT line ('' without a witness)."""
    if w is None:
        return ""
    return f": {w.describe()}" + (f" [{w.code}]" if w.code else "")
