"""Progress feedback for long phases (never part of a result): a tqdm bar on a
terminal; off a terminal (stderr redirected to a file or a pipe) one plain line at
most every ``interval`` seconds and a final line, so logs do not fill with
carriage-return updates; nothing at all when ``quiet``."""
from __future__ import annotations

import sys
import time


class Progress:
    """``Progress(total, desc, unit)``; call ``update(k, postfix=None)`` and ``close()``
    (or use as a context manager).  Writes to ``stream`` (default stderr); never
    raises on a closed stream (progress is feedback, not output)."""

    def __init__(self, total: int | None, desc: str, unit: str = "it", stream=None,
                 interval: float = 10.0, delay: float = 2.0, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.desc, self.unit = total, desc, unit
        self.n, self.interval, self.quiet = 0, interval, quiet
        self.start = self.last = time.monotonic()
        self.delay, self.post = delay, ""
        self.bar = None
        try:
            tty = self.stream.isatty()
        except (AttributeError, ValueError, OSError):
            tty = False
        if tty and not quiet:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=desc, unit=unit, delay=delay, file=self.stream,
                            leave=False)

    def update(self, k: int = 1, postfix: str | None = None) -> None:
        self.n += k
        if postfix is not None:
            self.post = postfix
        if self.bar is not None:
            if postfix is not None:
                self.bar.set_postfix_str(postfix, refresh=False)
            self.bar.update(k)
            return
        now = time.monotonic()
        if not self.quiet and now - self.last >= self.interval and now - self.start >= self.delay:
            self.last = now
            self._line()

    def _line(self, final: bool = False) -> None:
        of = f"/{self.total}" if self.total else ""
        pct = f" ({100 * self.n // self.total}%)" if self.total else ""
        word = "done" if final else "progress"
        post = f" {self.post}" if self.post else ""
        try:
            print(f"{self.desc}: {word} {self.n}{of} {self.unit}{pct}, "
                  f"{time.monotonic() - self.start:.0f} s{post}", file=self.stream, flush=True)
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif not self.quiet and time.monotonic() - self.start >= max(self.interval, self.delay):
            self._line(final=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def bar(desc: str, total: int | None = None, unit: str = "it", every: float = 30.0,
        quiet: bool = False) -> Progress:
    """A :class:`Progress` on stderr with plain lines every ``every`` seconds off a
    terminal (used by ``theorem 1.8`` for the trajectory, certificates, simulation)."""
    return Progress(total, desc, unit, interval=every, delay=0.5, quiet=quiet)
