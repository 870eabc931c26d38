"""Progress feedback off a terminal: plain lines, no carriage returns, rate-limited."""
from __future__ import annotations

import io

from proofcheck.progress import Progress


def test_off_terminal_plain_lines_without_carriage_returns():
    s = io.StringIO()
    p = Progress(100, "exact check", "block", stream=s, interval=0.0, delay=0.0)
    for _ in range(100):
        p.update()
    p.close()
    out = s.getvalue()
    assert "\r" not in out
    lines = out.splitlines()
    assert lines and lines[-1].startswith("exact check: done 100/100 block (100%)")


def test_off_terminal_rate_limited():
    s = io.StringIO()
    p = Progress(10_000, "exact check", "block", stream=s, interval=3600.0, delay=0.0)
    for _ in range(10_000):
        p.update()
    p.close()
    assert s.getvalue() == ""  # short run, long interval: nothing printed
