"""Progress for long phases: a tqdm bar on a terminal, otherwise a plain line on
stderr every few seconds (``every`` seconds; ``quiet=True`` prints nothing).

    bar = Progress("exact check", total=L, unit="block")
    for ...: bar.update()
    bar.close()
"""
from __future__ import annotations

import sys
import time


class Progress:
    """One phase's progress (``total`` steps of ``unit``); never affects a verdict."""

    def __init__(self, desc: str, total: int | None = None, unit: str = "it",
                 every: float = 5.0, quiet: bool = False, stream=None):
        self.desc, self.total, self.unit = desc, total, unit
        self.stream = stream or sys.stderr
        self.n, self.every, self.quiet = 0, every, quiet
        self.t0 = self.last = time.perf_counter()
        self._bar = None
        if not quiet and getattr(self.stream, "isatty", lambda: False)():
            try:
                from tqdm import tqdm
                self._bar = tqdm(total=total, desc=desc, unit=unit, file=self.stream,
                                 leave=False, delay=1.0)
            except ImportError:  # pragma: no cover - tqdm is a dependency
                self._bar = None

    def update(self, k: int = 1) -> None:
        self.n += k
        if self._bar is not None:
            self._bar.update(k)
            return
        now = time.perf_counter()
        if not self.quiet and now - self.last >= self.every:
            self.last = now
            of = f"/{self.total}" if self.total else ""
            print(f"{self.desc}: {self.n}{of} {self.unit} ({now - self.t0:.0f} s)",
                  file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
