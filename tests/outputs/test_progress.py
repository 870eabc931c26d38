"""Progress feedback off a terminal: plain lines, no carriage returns, rate-limited."""
from __future__ import annotations

import io

import pytest

from proofcheck.frontend.progress import Progress


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


# ------------------------------------------------- phases without steps: a timer writes

class _Stream:
    """A stderr stand-in the slowed phase can watch (not a terminal)."""

    def __init__(self):
        self.parts = []

    def write(self, s):
        self.parts.append(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False

    def text(self) -> str:
        return "".join(self.parts)


def _slowed(real, stream: _Stream, marker: str, lines: int = 3):
    """``real`` run after ``lines`` progress lines containing ``marker`` appeared (the
    phase "takes long" until the timer has spoken three times); the test fails when
    they never come (6,000 polls: the timer is broken), never on the time it took."""
    def call(*a, **k):
        _poll(lambda: stream.text().count(marker) >= lines,
              f"no progress lines {marker!r}: {stream.text()!r}")
        return real(*a, **k)
    return call


def _poll(ready, message: str, polls: int = 6000) -> None:
    """Wait for ``ready()`` with at most ``polls`` sleeps of 0.01 s; fail with ``message``
    when it never holds (a counted hang guard: no duration is compared)."""
    import time
    for _ in range(polls):
        if ready():
            return
        time.sleep(0.01)
    pytest.fail(message)


@pytest.fixture
def fast_beat(monkeypatch):
    """Progress lines every 0.02 s from the start, on a watched stderr (call it in the
    test's body: pytest sets its own stderr between a fixture and the test)."""
    import sys

    import proofcheck.frontend.cli.terminal as terminal
    import proofcheck.frontend.progress as progress
    monkeypatch.setattr(progress, "HEARTBEAT", 0.02)
    monkeypatch.setattr(progress, "PHASE_DELAY", 0.0)
    monkeypatch.setattr(terminal, "BEAT", 0.02)  # verify's own (it loads no progress module)
    monkeypatch.setattr(terminal, "DELAY", 0.0)

    def watch() -> _Stream:
        stream = _Stream()
        monkeypatch.setattr(sys, "stderr", stream)
        return stream
    return watch


def test_a_step_without_updates_still_shows_progress():
    """A bar whose one step takes long writes lines while it waits (the timer), then
    its final line; a line for every interval, not for every update."""
    s = _Stream()
    p = Progress(5, "exact check", "block", stream=s, interval=0.02, delay=0.0)
    _poll(lambda: s.text().count("exact check: progress 0/5 block") >= 3, s.text())
    p.update(5)
    p.close()
    assert s.text().splitlines()[-1].startswith("exact check: done 5/5 block (100%)")
    assert "\r" not in s.text()


@pytest.mark.parametrize("where,marker", [
    ("proofcheck.frontend.io.datasets.load_dataset", "loading the dataset: running"),
    ("proofcheck.kernel.verify.verify_certificate", "kernel re-check: running"),
])
def test_theorem_phases_without_steps_show_progress(tmp_path, monkeypatch, fast_beat,
                                                    where, marker):
    """``theorem 1.6 --dataset``: reading the dataset and the kernel's re-check, slowed,
    write progress lines on stderr, and a final ``done`` line."""
    import importlib
    import json

    from proofcheck.frontend.cli import main
    fast_beat = fast_beat()
    module, name = where.rsplit(".", 1)
    mod = importlib.import_module(module)
    monkeypatch.setattr(mod, name, _slowed(getattr(mod, name), fast_beat, marker))
    f = tmp_path / "d.json"
    f.write_text(json.dumps({"format": "proofcheck-dataset/1", "name": "p", "d": 2, "pairs": [
        {"input": [["1", "0"], ["0", "1"]], "output": [["1", "1"]]}]}))
    assert main(["theorem", "1.6", "--dataset", str(f), "--no-report"]) == 0
    text = fast_beat.text()
    assert text.count(marker) >= 3
    assert marker.replace(": running", ": done") in text


@pytest.mark.parametrize("where,marker", [
    ("proofcheck.frontend.io.datasets.load_dataset", "loading the dataset: running"),
    ("proofcheck.kernel.verify.verify_file", "kernel check: running"),
])
def test_verify_phases_show_progress(tmp_path, monkeypatch, fast_beat, where, marker):
    """``verify --dataset``: reading the dataset and the kernel's check, slowed, write
    progress lines."""
    import importlib
    import json

    from proofcheck.frontend.cli import main
    ds, cert = tmp_path / "d.json", tmp_path / "c.json"
    ds.write_text(json.dumps({"format": "proofcheck-dataset/1", "name": "p", "d": 2, "pairs": [
        {"input": [["1", "0"], ["0", "1"]], "output": [["1", "1"]]}]}))
    assert main(["theorem", "1.6", "--dataset", str(ds), "--certificate", str(cert),
                 "--no-report"]) == 0
    fast_beat = fast_beat()
    module, name = where.rsplit(".", 1)
    mod = importlib.import_module(module)
    monkeypatch.setattr(mod, name, _slowed(getattr(mod, name), fast_beat, marker))
    assert main(["verify", "--dataset", str(ds), str(cert)]) == 0
    assert fast_beat.text().count(marker) >= 3


def test_a_phase_whose_count_reaches_its_total_stops_its_heartbeat(fast_beat):
    """``theorem --workers``: the shard bar opens when the shards start (``done = 0``) and
    closes when the last shard is done, so no heartbeat of a finished phase runs on into
    the next one (it did: "exact check (Dask shards): progress 2/2" every 4 s through the
    kernel's re-check)."""
    from proofcheck.frontend.cli.cmd_theorem import _Bars
    stream = fast_beat()
    with _Bars() as bars:
        hooks = bars.hooks()
        hooks.shard(0, 2)
        _poll(lambda: "exact check (Dask shards): progress 0/2 shard" in stream.text(),
              stream.text())
        hooks.shard(1, 2)
        hooks.shard(2, 2)
        assert bars.open == {}
        done = stream.text()
        assert done.splitlines()[-1].startswith("exact check (Dask shards): done 2/2 shard")
        with Progress(None, "kernel re-check", "", stream=stream, interval=0.02, delay=0.0,
                      plain=True):
            _poll(lambda: stream.text().count("kernel re-check: running") >= 3, stream.text())
    assert "exact check" not in stream.text()[len(done):]


class _SlowStream(_Stream):
    """A stream whose every write lets the other threads run (a write to a pipe can)."""

    def write(self, s):
        import time
        time.sleep(0.002)
        return super().write(s)


def test_two_phases_timer_lines_never_interleave():
    """Two open phases (their timer threads) share stderr: every line is whole."""
    s = _SlowStream()
    a = Progress(None, "phase a", "", stream=s, interval=0.001, delay=0.0, plain=True)
    b = Progress(None, "phase b", "", stream=s, interval=0.001, delay=0.0, plain=True)
    _poll(lambda: s.text().count("\n") >= 100, s.text())
    a.close()
    b.close()
    lines = s.text().splitlines()
    assert all(line.startswith(("phase a: ", "phase b: ")) and line.count(":") == 1
               for line in lines)
