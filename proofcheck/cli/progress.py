"""Progress feedback for long phases: a tqdm bar on a terminal; off a terminal
(stderr redirected to a file or a pipe) one plain line at most every
``interval`` seconds, so logs do not fill with carriage-return updates."""
from __future__ import annotations

import sys
import time


class Progress:
    """``Progress(total, desc, unit)``; call ``update(k)`` and ``close()`` (or use as
    a context manager).  Writes to ``stream`` (default stderr); never raises on a
    closed stream (progress is feedback, not output)."""

    def __init__(self, total: int | None, desc: str, unit: str = "it", stream=None,
                 interval: float = 10.0, delay: float = 2.0):
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.desc, self.unit = total, desc, unit
        self.n, self.interval = 0, interval
        self.start = self.last = time.monotonic()
        self.delay = delay
        self.bar = None
        try:
            tty = self.stream.isatty()
        except (AttributeError, ValueError, OSError):
            tty = False
        if tty:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=desc, unit=unit, delay=delay, file=self.stream,
                            leave=False)

    def update(self, k: int = 1) -> None:
        self.n += k
        if self.bar is not None:
            self.bar.update(k)
            return
        now = time.monotonic()
        if now - self.last >= self.interval and now - self.start >= self.delay:
            self.last = now
            self._line()

    def _line(self, final: bool = False) -> None:
        of = f"/{self.total}" if self.total else ""
        pct = f" ({100 * self.n // self.total}%)" if self.total else ""
        word = "done" if final else "progress"
        try:
            print(f"{self.desc}: {word} {self.n}{of} {self.unit}{pct}, "
                  f"{time.monotonic() - self.start:.0f} s", file=self.stream, flush=True)
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif time.monotonic() - self.start >= max(self.interval, self.delay):
            self._line(final=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
