"""Mathematical symbols on terminals that cannot encode them: the output streams get
an error handler that writes an ASCII spelling (τ → tau, ≤ → <=, 𝟙 → 1vec, …)
instead of raising ``UnicodeEncodeError``.  And :func:`heartbeat`, the progress line
of ``verify`` (which loads nothing outside the kernel and the command line, so not
:mod:`proofcheck.frontend.progress`)."""
from __future__ import annotations

import codecs
import sys
import threading
import time
from contextlib import contextmanager

#: seconds between two lines of :func:`heartbeat` (at most 5 s, as for every phase)
BEAT = 4.0
#: seconds before its first line
DELAY = 2.0

ASCII = {
    "τ": "tau", "≤": "<=", "≥": ">=", "≠": "!=", "≈": "~", "𝟙": "1vec", "∈": " in ",
    "ℚ": "Q", "ℝ": "R", "‖": "||", "→": "->", "←": "<-", "↦": "|->", "⇒": "=>", "∞": "inf",
    "·": "*", "×": "x", "−": "-", "–": "-", "—": "--", "…": "...", "²": "^2", "³": "^3",
    "⁻": "^-", "¹": "^1", "₁": "_1", "₂": "_2", "ε": "eps", "δ": "delta", "κ": "kappa",
    "λ": "lambda", "ρ": "rho", "η": "eta", "σ": "sigma", "π": "pi", "Δ": "Delta", "θ": "theta",
    "χ": "chi", "β": "beta", "⟨": "<", "⟩": ">", "∘": "o", "Σ": "sum", "∑": "sum", "√": "sqrt",
    "∪": "U", "∩": "^", "⊂": " subset ", "∖": "\\", "ᵀ": "^T", "e₁": "e_1", "✓": "ok", "✗": "x",
}
HANDLER = "proofcheck-ascii"


def _fallback(err: UnicodeEncodeError):
    bad = err.object[err.start:err.end]
    return "".join(ASCII.get(ch, "?") for ch in bad), err.end


def install() -> None:
    """Give stdout and stderr the ASCII fallback (idempotent; never raises)."""
    try:
        codecs.lookup_error(HANDLER)
    except LookupError:
        codecs.register_error(HANDLER, _fallback)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors=HANDLER)
        except (AttributeError, ValueError, OSError):
            pass


@contextmanager
def heartbeat(desc: str):
    """While the block runs: from :data:`DELAY` seconds on, ``<desc>: running, <t> s`` on
    stderr every :data:`BEAT` seconds, and ``<desc>: done, <t> s`` at the end when a line
    was written (a timer thread; never raises on a closed stream)."""
    stop, start, said = threading.Event(), time.monotonic(), []

    def say(word: str) -> None:
        try:
            print(f"{desc}: {word}, {time.monotonic() - start:.0f} s", file=sys.stderr,
                  flush=True)
        except (OSError, ValueError):
            pass

    def beat() -> None:
        wait = DELAY
        while not stop.wait(max(wait, 0.01)):
            said.append(1)
            say("running")
            wait = BEAT
    timer = threading.Thread(target=beat, name=f"heartbeat: {desc}", daemon=True)
    timer.start()
    try:
        yield
    finally:
        stop.set()
        timer.join()
        if said:
            say("done")
