"""Progress feedback for long phases (never part of a result), on stderr: a tqdm bar on
a terminal; off a terminal (stderr redirected to a file or a pipe) one plain line at
most every ``interval`` seconds and a final line, so logs do not fill with
carriage-return updates; nothing at all when ``quiet``.

A phase that runs longer than ``delay`` seconds shows a line (or a refreshed bar) at
least every :data:`HEARTBEAT` seconds even when it has no steps to count or one step
takes long (the kernel's re-check, reading a large dataset): a timer thread writes
the line (:func:`phase`).
"""
from __future__ import annotations

import sys
import threading
import time

#: the longest silence (seconds) of a phase that runs: every phase that can take more
#: than a couple of seconds prints a line at least this often (at most 5 s, as promised)
HEARTBEAT = 4.0

#: seconds a phase (:func:`phase`) runs before its first line
PHASE_DELAY = 2.0

#: held while a line is written (the timer threads of two open phases share the stream)
_WRITE = threading.Lock()


class Progress:
    """``Progress(total, desc, unit)``; call ``update(k, postfix=None)`` and ``close()``
    (or use as a context manager).  Writes to ``stream`` (default stderr); never
    raises on a closed stream (progress is feedback, not output).  A timer thread
    also writes the line (refreshes the bar) when ``interval`` seconds (with
    ``interval`` 0, a line at every update: :data:`HEARTBEAT`) passed without one,
    from ``delay`` seconds on, until ``close``; ``plain``: lines on a terminal too (no
    bar; a phase without steps)."""

    def __init__(self, total: int | None, desc: str, unit: str = "it", stream=None,
                 interval: float = HEARTBEAT, delay: float = 2.0, quiet: bool = False,
                 plain: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.desc, self.unit = total, desc, unit
        self.n, self.interval, self.quiet = 0, interval, quiet
        self.beat = interval if interval > 0 else HEARTBEAT
        self.start = self.last = time.monotonic()
        self.delay, self.post = delay, ""
        self.bar, self.lines = None, 0
        self._lock, self._stop, self._timer = threading.Lock(), threading.Event(), None
        try:
            tty = self.stream.isatty()
        except (AttributeError, ValueError, OSError):
            tty = False
        if tty and not quiet and not plain:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=desc, unit=unit, delay=delay, file=self.stream,
                            leave=False)
        if not quiet:
            self._timer = threading.Thread(target=self._beat, name=f"progress: {desc}",
                                           daemon=True)
            self._timer.start()

    def update(self, k: int = 1, postfix: str | None = None) -> None:
        self.n += k
        if postfix is not None:
            self.post = postfix
        if self.bar is not None:
            if postfix is not None:
                self.bar.set_postfix_str(postfix, refresh=False)
            self.bar.update(k)
            return
        self._maybe_line()

    def _maybe_line(self, every: float | None = None) -> None:
        """A line (a refreshed bar) when ``every`` seconds (default ``interval``)
        passed since the last one and ``delay`` since the start."""
        with self._lock:
            now = time.monotonic()
            every = self.interval if every is None else every
            if (self.quiet or self._stop.is_set() or now - self.last < every
                    or now - self.start < self.delay):
                return
            self.last = now
            if self.bar is not None:
                self.bar.refresh()
            else:
                self._line()

    def _beat(self) -> None:
        """The timer thread: a line whenever ``interval`` seconds passed without one."""
        while True:
            now = time.monotonic()
            wait = max(self.last + self.beat, self.start + self.delay) - now
            if self._stop.wait(max(wait, 0.01)):
                return
            self._maybe_line(self.beat)

    def _line(self, final: bool = False) -> None:
        of = f"/{self.total}" if self.total else ""
        pct = f" ({100 * self.n // self.total}%)" if self.total else ""
        count = f" {self.n}{of} {self.unit}{pct}" if self.total or self.n else ""
        word = "done" if final else ("progress" if count else "running")
        post = f" {self.post}" if self.post else ""
        self.lines += 1
        text = f"{self.desc}: {word}{count}, {time.monotonic() - self.start:.0f} s{post}\n"
        try:
            with _WRITE:  # one write per line: two phases' timer threads never interleave
                self.stream.write(text)
                self.stream.flush()
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        self._stop.set()
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.join()
        if self.bar is not None:
            self.bar.close()
        elif not self.quiet and (self.lines or time.monotonic() - self.start
                                 >= max(self.interval, self.delay)):
            self._line(final=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def bar(desc: str, total: int | None = None, unit: str = "it", every: float = HEARTBEAT,
        quiet: bool = False) -> Progress:
    """A :class:`Progress` on stderr with plain lines every ``every`` seconds off a
    terminal (used by ``theorem 1.8`` for the trajectory, certificates, simulation)."""
    return Progress(total, desc, unit, interval=every, delay=0.5, quiet=quiet)


def phase(desc: str, quiet: bool = False) -> Progress:
    """A phase without steps to count (reading a dataset, the kernel's re-check): from
    :data:`PHASE_DELAY` (2 s) on, a line ``<desc>: running, <t> s`` at least every :data:`HEARTBEAT`
    seconds (terminal or not), and ``<desc>: done, <t> s`` at the end when a line was
    written.  Use as a context manager."""
    return Progress(None, desc, "", interval=HEARTBEAT, delay=PHASE_DELAY, quiet=quiet,
                    plain=True)
