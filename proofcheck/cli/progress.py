"""Progress feedback for long runs (terminal only; never part of a result).

:func:`bar` gives a tqdm bar on a terminal; when stderr is not a terminal it prints
a plain line at most every ``every`` seconds (and at the end), or nothing when
``quiet``.  Used by ``theorem 1.8`` for the hardmax trajectory, the certificates
and the simulation.
"""
from __future__ import annotations

import sys
import time


class _Plain:
    def __init__(self, desc, total, unit, every):
        self.desc, self.total, self.unit, self.every = desc, total, unit, every
        self.n, self.last, self.post = 0, time.monotonic(), ""

    def update(self, k=1, postfix=None):
        self.n += k
        if postfix is not None:
            self.post = postfix
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            tot = f"/{self.total}" if self.total else ""
            print(f"  {self.desc}: {self.n}{tot} {self.unit} {self.post}".rstrip(),
                  file=sys.stderr, flush=True)

    def close(self):
        pass


class _Tqdm:
    def __init__(self, desc, total, unit):
        from tqdm import tqdm
        self.bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False,
                        delay=0.5)

    def update(self, k=1, postfix=None):
        if postfix is not None:
            self.bar.set_postfix_str(postfix, refresh=False)
        self.bar.update(k)

    def close(self):
        self.bar.close()


def bar(desc: str, total: int | None = None, unit: str = "it", every: float = 30.0,
        quiet: bool = False):
    """An object with ``update(k=1, postfix=None)`` and ``close()``."""
    if sys.stderr.isatty():
        try:
            return _Tqdm(desc, total, unit)
        except ImportError:  # pragma: no cover - tqdm is a dependency
            pass
    if quiet:
        return _Plain(desc, total, unit, float("inf"))
    return _Plain(desc, total, unit, every)
