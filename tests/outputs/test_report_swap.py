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

import proofcheck.frontend.runs.site as site
from proofcheck.frontend.io.files import exchange

ROOT = Path(__file__).resolve().parents[2]


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
import proofcheck.frontend.runs.site as site
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
import proofcheck.frontend.runs.site as site
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


def _unmovable(monkeypatch, out: Path, code: int):
    """Renames (``os.rename``, ``os.replace``, the exchange) as on a mount point ``out``:
    a rename of ``out`` itself fails with ``code`` (EBUSY, or EXDEV), and so, with
    EXDEV, any rename between a path inside ``out`` and one outside it (two file
    systems).  Returns the list of refused calls."""
    import errno as E
    refused = []

    def inside(p) -> bool:
        p = Path(p).absolute()
        return p == out or out in p.parents

    def check(a, b):
        if Path(a).absolute() == out or Path(b).absolute() == out or (
                code == E.EXDEV and inside(a) != inside(b)):
            refused.append((str(a), str(b)))
            raise OSError(code, os.strerror(code), str(b))

    def wrap(real):
        def call(a, b, *args, **kw):
            check(a, b)
            return real(a, b, *args, **kw)
        return call
    monkeypatch.setattr(os, "rename", wrap(os.rename))
    monkeypatch.setattr(os, "replace", wrap(os.replace))
    monkeypatch.setattr(site, "exchange", wrap(site.exchange))
    return refused


@pytest.mark.parametrize("code", ["EBUSY", "EXDEV"])
def test_swap_into_a_folder_that_cannot_be_renamed(tmp_path, monkeypatch, code):
    """The bug report: ``report --out`` on a mount point (EBUSY) or across file systems
    (EXDEV) did all its work, then failed in the swap (exit 4).  The report's entries
    are replaced inside the folder instead; the rest is kept; no staging folder stays."""
    import errno as E
    out, new = _folders(tmp_path)
    (out / "img").mkdir()
    (out / "img" / "old.png").write_bytes(b"an entry the new report no longer makes")
    refused = _unmovable(monkeypatch, out.absolute(), getattr(E, code))
    site._swap_in(new, out)
    assert refused  # the whole-folder swap was tried and refused
    assert _tree(out) == {"index.md": b"new index\n", "statements/a.md": b"new page\n",
                          "theorem-1.6-x.md": b"a run report, carried over\n"}
    assert sorted(p.name for p in out.iterdir()) == ["index.md", "statements",
                                                     "theorem-1.6-x.md"]


def test_swap_inside_undoes_what_it_did_when_a_step_fails(tmp_path, monkeypatch):
    import errno as E
    out, new = _folders(tmp_path)
    (new / "img").mkdir()
    (new / "img" / "a.png").write_bytes(b"png")
    before = _tree(out)
    _unmovable(monkeypatch, out.absolute(), E.EBUSY)
    real = site._put_entry
    calls = []

    def fail_third(staged, target):
        calls.append(target.name)
        if len(calls) == 3:
            raise OSError(E.EIO, "injected failure", str(target))
        return real(staged, target)
    monkeypatch.setattr(site, "_put_entry", fail_third)
    with pytest.raises(OSError, match="injected failure"):
        site._swap_in(new, out)
    assert _tree(out) == before
    assert sorted(p.name for p in out.iterdir()) == ["statements", "theorem-1.6-x.md"]


def test_report_on_a_mount_point_finishes_with_exit_0(tmp_path, monkeypatch, capsys):
    """``regenerate`` (its build replaced by a small one) into a folder whose renames
    fail with EBUSY: exit 0, the new pages in place, nothing left behind."""
    import errno as E
    out = tmp_path / "reports"
    (out / "statements").mkdir(parents=True)
    (out / "statements" / "a.md").write_text("old page\n")
    (out / "theorem-1.6-x.md").write_text("a run report, carried over\n")

    def build(folder, quick, plugin_seconds):
        (folder / "statements").mkdir()
        (folder / "statements" / "a.md").write_text("new page\n")
        (folder / "index.md").write_text("new index\n")
        return 0
    monkeypatch.setattr(site, "_build", build)
    refused = _unmovable(monkeypatch, out.absolute(), E.EBUSY)
    assert site.regenerate(out) == 0
    assert refused and _tree(out) == {"index.md": b"new index\n",
                                      "statements/a.md": b"new page\n",
                                      "theorem-1.6-x.md": b"a run report, carried over\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def test_a_staging_folder_left_inside_is_removed_by_the_next_report(tmp_path):
    out, _ = _folders(tmp_path)
    stage = out / ".tmp-reports-in-abcd1234"
    (stage / "statements").mkdir(parents=True)
    before = _tree(out)
    assert site.clean_leftovers(out) == [stage] and not stage.exists()
    assert _tree(out) == {k: v for k, v in before.items() if not k.startswith(".tmp-")}
