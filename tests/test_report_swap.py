"""The report's folder swap (``runs.site._swap_in``): one atomic exchange of the two
folders where the system has ``renameat2`` (no moment without ``reports/``), the
two-rename fallback elsewhere; and a report process killed midway leaves ``reports/``
byte-for-byte as it was."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import proofcheck.runs.site as site
from proofcheck.io.files import exchange

ROOT = Path(__file__).resolve().parents[1]


def _tree(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _folders(tmp_path):
    out, new = tmp_path / "reports", tmp_path / ".tmp-reports-new"
    (out / "statements").mkdir(parents=True)
    (out / "statements" / "a.md").write_text("old page\n")
    (out / "theorem-1.6-x.md").write_text("a run report, carried over\n")
    (new / "statements").mkdir(parents=True)
    (new / "statements" / "a.md").write_text("new page\n")
    (new / "index.md").write_text("new index\n")
    return out, new


def test_exchange_swaps_two_folders(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "f").write_text("A")
    (b / "g").write_text("B")
    if not exchange(a, b):
        pytest.skip("no renameat2(RENAME_EXCHANGE) here")
    assert (a / "g").read_text() == "B" and (b / "f").read_text() == "A"
    with pytest.raises(FileNotFoundError):
        exchange(a, tmp_path / "missing")


def test_swap_never_renames_the_report_folder_away(tmp_path, monkeypatch):
    """With the exchange, ``reports`` is never renamed: a rename of it failing (as a
    kill between two renames would leave it: gone) changes nothing."""
    out, new = _folders(tmp_path)
    if not exchange(tmp_path / "reports", tmp_path / "reports"):
        pytest.skip("no renameat2(RENAME_EXCHANGE) here")
    real = os.rename

    def rename(src, dst, *a, **k):
        if Path(src) == out:
            raise OSError("the report folder must not be renamed away")
        return real(src, dst, *a, **k)
    monkeypatch.setattr(os, "rename", rename)
    site._swap_in(new, out)
    assert _tree(out) == {"index.md": b"new index\n", "statements/a.md": b"new page\n",
                          "theorem-1.6-x.md": b"a run report, carried over\n"}
    assert (new / "statements" / "a.md").read_text() == "old page\n"  # the caller removes it


def test_swap_falls_back_to_two_renames(tmp_path, monkeypatch):
    out, new = _folders(tmp_path)
    monkeypatch.setattr(site, "exchange", lambda a, b: False)
    site._swap_in(new, out)
    assert (out / "statements" / "a.md").read_text() == "new page\n"
    assert (out / "theorem-1.6-x.md").exists() and not new.exists()


KILLED = """import sys, time
import proofcheck.runs.site as site
real = site._recheck_certificates
def slow(out):
    print("building", flush=True)
    time.sleep(120)
    return real(out)
site._recheck_certificates = slow
site.regenerate(sys.argv[1], quick=True)
"""


def test_report_killed_midway_leaves_the_folder_unchanged(tmp_path):
    out, _ = _folders(tmp_path)
    before = _tree(out)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-c", KILLED, str(out)], stdout=subprocess.PIPE,
                         text=True, env=env, cwd=tmp_path)
    try:
        assert p.stdout.readline().strip() == "building"
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert _tree(out) == before  # the build folder it leaves is .tmp-reports-*, git-ignored
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-reports-")
                 and p.name != ".tmp-reports-new"]
    assert len(leftovers) == 1
    assert site.clean_leftovers(out) == leftovers  # the next report removes it first
    assert not leftovers[0].exists() and _tree(out) == before


TERMINATED = """import sys, time
import proofcheck.runs.site as site
def slow(out, cat):
    print("building", flush=True)
    time.sleep(120)
site._statements = slow
site.regenerate(sys.argv[1], quick=True)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_report_terminated_cleans_up_after_itself(tmp_path, sig):
    out, _ = _folders(tmp_path)
    before = _tree(out)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-c", TERMINATED, str(out)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env, cwd=tmp_path)
    try:
        assert p.stdout.readline().strip() == "building"
        p.send_signal(sig)
        assert p.wait(timeout=60) == 128 + sig
    finally:
        if p.poll() is None:
            p.kill()
    assert _tree(out) == before
    assert sorted(x.name for x in tmp_path.iterdir()) == [".tmp-reports-new", "reports"]


def test_leftovers_beside_the_folder_are_removed_and_a_lost_folder_restored(tmp_path):
    out = tmp_path / "reports"
    build = tmp_path / ".tmp-reports-abcd_123"
    (build / "statements").mkdir(parents=True)
    held = tmp_path / ".tmp-reports-old-zz9yx8w7" / "reports"
    held.mkdir(parents=True)
    (held / "index.md").write_text("the previous version\n")
    other = tmp_path / ".tmp-reports2-abcd_123"  # another folder's, or not a report's
    other.mkdir()
    removed = site.clean_leftovers(out)
    assert sorted(p.name for p in removed) == [".tmp-reports-abcd_123",
                                                ".tmp-reports-old-zz9yx8w7"]
    assert (out / "index.md").read_text() == "the previous version\n"  # restored, not lost
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp-reports2-abcd_123", "reports"]


def test_a_second_report_in_the_same_folder_is_refused(tmp_path):
    from proofcheck.kernel.errors import BadInput
    out = tmp_path / "reports"
    with site._one_report(out):
        with pytest.raises(BadInput) as e:
            site.regenerate(out, quick=True)
    assert e.value.path == str(out)
    assert list(tmp_path.iterdir()) == []  # refused before anything was written
