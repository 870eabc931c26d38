"""Long phases of `coq`, `verify --coq` and `report` say on stderr that they run: the heartbeat
(proofcheck.frontend.cli.terminal) wraps each; made immediate here (DELAY and BEAT near 0),
with the slow step replaced by one that waits until a heartbeat line was written."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from proofcheck.frontend.cli import main, terminal
from proofcheck.frontend.coq import library, run

CERTS = Path(__file__).resolve().parents[2] / "reports" / "certificates"


@pytest.fixture
def fast_beats(monkeypatch):
    monkeypatch.setattr(terminal, "DELAY", 0.0)
    monkeypatch.setattr(terminal, "BEAT", 0.01)


def _slow(result, seen: threading.Event):
    def step(*a, **k):
        seen.wait(5)  # returns once the heartbeat spoke (or after 5 s: the test then fails)
        return result
    return step


class _Said:
    """stderr stand-in that sets ``seen`` at the first ``running`` line."""

    def __init__(self, seen):
        self.seen, self.text = seen, ""

    def write(self, s):
        self.text += s
        if "running" in s:
            self.seen.set()

    def flush(self):
        pass


def test_coq_says_it_runs(fast_beats, monkeypatch, capsys):
    seen = threading.Event()
    said = _Said(seen)
    monkeypatch.setattr(library, "coqc", lambda: "coqc")
    monkeypatch.setattr(run, "check", _slow(run.Outcome(
        "VERIFIED", "Theorem 1.6 on 7 pairs", None, 1.0, [], "8.16.1"), seen))
    monkeypatch.setattr(terminal.sys, "stderr", said)
    assert main(["coq", str(CERTS / "theorem-1.6-generated-7.json")]) == 0
    assert "coq: compiling and checking: running" in said.text
    assert "coq: compiling and checking: done" in said.text


def test_report_says_it_runs(fast_beats, monkeypatch, tmp_path):
    import proofcheck.frontend.runs.site as site
    seen = threading.Event()
    said = _Said(seen)
    monkeypatch.setattr(site, "regenerate", _slow(0, seen))
    monkeypatch.setattr(terminal.sys, "stderr", said)
    assert main(["report", "--out", str(tmp_path / "r")]) == 0
    assert "report: building every statement's page and certificate: running" in said.text
