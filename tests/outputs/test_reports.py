"""The committed ``reports/`` folder is what ``python -m proofcheck report`` makes
from the code as it is now (everything compared but the provenance: tool
version/commit/time line of the index, the ``provenance`` object and seal of each
certificate); files are mode 0644; the HTML report is self-contained.  ``report`` is
atomic (a failure midway leaves the folder byte-for-byte as it was; files it does not
make are kept) and shows installed plugins in a section of their own."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from proofcheck.frontend.runs.site import regenerate

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "reports"
PROV_LINE = re.compile(rb"proofcheck \S+ \(commit [^)]*\); Python [^\n<]*")


def comparable(rel: Path, data: bytes):
    """The part of a report file that must not change unless the code changes."""
    if rel.suffix == ".json" and rel.parts[0] == "certificates":
        j = json.loads(data)
        j.pop("provenance", None)
        j.pop("digest", None)
        return j
    return PROV_LINE.sub(b"<provenance>", data)


KEEP = "theorem-1.6-kept.md"  # a run report the report itself does not make


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    (out / KEEP).write_text("kept\n")
    (out / "statements").mkdir()
    (out / "statements" / "stale.md").write_text("from an older report\n")
    assert regenerate(out) == 0
    return out


def files(root: Path) -> list[Path]:
    """Files of a reports folder, without the git-ignored theorem-run reports."""
    return sorted(p.relative_to(root) for p in root.rglob("*")
                  if p.is_file() and not p.relative_to(root).parts[0].startswith("theorem-"))


def test_committed_reports_are_current(fresh, capsys):
    capsys.readouterr()
    got, have = files(fresh), files(COMMITTED)
    assert got == have, (f"files differ: only fresh {sorted(set(got) - set(have))}, only "
                         f"committed {sorted(set(have) - set(got))}; run `python -m proofcheck "
                         "report` and commit reports/")
    stale = [str(r) for r in got
             if comparable(r, (fresh / r).read_bytes()) != comparable(r, (COMMITTED / r).read_bytes())]
    assert not stale, (f"reports/ was generated from different code: {stale}; run "
                       "`python -m proofcheck report` and commit reports/")


def test_comparison_can_fail(fresh, tmp_path):
    """The staleness check notices a changed verdict line and a changed picture."""
    rel = Path("index.md")
    data = (fresh / rel).read_bytes()
    assert comparable(rel, data) != comparable(rel, data.replace(b"VERIFIED", b"REFUTED", 1))
    rel = Path("img/trajectory.png")
    data = (fresh / rel).read_bytes()
    assert comparable(rel, data) != comparable(rel, data[:-10] + b"0" * 10)


def test_report_files_are_0644(fresh):
    for p in [*fresh.rglob("*")]:
        if p.is_file():
            assert stat.S_IMODE(p.stat().st_mode) == 0o644, p


def test_index_content(fresh):
    index = (fresh / "index.md").read_text()
    assert "| 1.6 |" in index or "[1.6]" in index
    assert "certificates/theorem-1.6-generated-7.json" in index
    from proofcheck.frontend.registry import FLAGS, load
    status = {s.id: ("implemented" if s.implemented else "planned") for s in load()}
    assert ("planned" in index) == ("planned" in status.values())
    for flag, meaning in FLAGS.items():  # the legend says what each flag means
        assert f"- `{flag}`: {meaning}" in index


def test_html_is_self_contained_and_images_exist(fresh):
    html = (fresh / "index.html").read_text()
    assert "data:image/png;base64," in html and 'src="img/' not in html
    assert not re.search(r'(src|href)="(https?:|//|file:)', html), "external reference"
    assert "<link" not in html and "<script" not in html
    md = (fresh / "index.md").read_text()
    named = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert named and all((fresh / n).is_file() for n in named)
    for page in (fresh / "statements").glob("*.md"):
        for n in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text()):
            assert (page.parent / n).is_file(), (page, n)


def test_files_the_report_does_not_make_are_kept(fresh):
    assert (fresh / KEEP).read_text() == "kept\n"
    assert not (fresh / "statements" / "stale.md").exists()
    assert not [p for p in fresh.parent.iterdir() if p.name.startswith(".tmp-")]


def snapshot(root: Path) -> dict:
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def copy_of_reports(tmp_path):
    out = tmp_path / "reports"
    shutil.copytree(COMMITTED, out)
    (out / KEEP).write_text("kept\n")
    return out, snapshot(out)


def test_a_failure_midway_leaves_the_folder_unchanged(copy_of_reports, monkeypatch):
    """The pictures fail after every statement page and certificate was written."""
    import proofcheck.frontend.reporting.plots as plots
    out, before = copy_of_reports

    def fail(*args, **kwargs):
        raise RuntimeError("injected failure")
    monkeypatch.setattr(plots, "dependency_plot", fail)
    with pytest.raises(RuntimeError, match="injected failure"):
        regenerate(out, quick=True)
    assert snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["reports"]


def test_a_certificate_that_does_not_recheck_leaves_the_folder_unchanged(copy_of_reports,
                                                                         monkeypatch):
    import proofcheck.kernel.verify as kverify
    from proofcheck.kernel.verdicts import Verdict
    out, before = copy_of_reports
    monkeypatch.setattr(kverify, "verify_certificate",
                        lambda cert, *a, **k: kverify.Outcome(Verdict.REFUTED, []))
    assert regenerate(out, quick=True) == 1
    assert snapshot(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["reports"]


BROKEN = """from proofcheck.api import Statement


def run(dataset=None, seed=0):
    raise ValueError("the plugin's own bug")


STATEMENT = Statement("x.broken", "lemma", "a <b>broken</b> | plugin", "none", "project",
                      checks=(run,))
"""


def test_report_with_plugins_installed(tmp_path):
    """The example plugin gets its section, page and certificate (which ``verify``
    re-checks); a plugin whose check raises is REFUTED with its input as witness (as a
    built-in construction that raises), with its page and no certificate; exit 0."""
    from test_plugin import EXAMPLES, pip_install
    site = tmp_path / "site"
    (tmp_path / "src").mkdir()
    r = pip_install(site, EXAMPLES[:1], tmp_path / "src")
    assert r.returncode == 0, r.stderr[-2000:]
    (site / "broken_plugin_mod.py").write_text(BROKEN)
    dist = site / "broken_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[proofcheck.statements]\n"
                                           "broken = broken_plugin_mod:STATEMENT\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    out = tmp_path / "reports"
    r = subprocess.run([sys.executable, "-m", "proofcheck", "report", "--out", str(out)],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    index = (out / "index.md").read_text()
    section = index.split("## Plugin statements", 1)[1].split("\n## ", 1)[0]
    assert "| x.clamp | proofcheck-example-clamp |" in section
    row = next(x for x in section.splitlines() if x.startswith("| x.broken | broken-plugin |"))
    assert "| REFUTED | [page](plugins/x.broken.md) | none: no exact layer instance |" in row
    page = (out / "plugins" / "x.broken.md").read_text()
    assert "[REFUTED] x.broken: run runs on its input" in page and "ValueError" in page
    assert "x.clamp" not in index.split("## Plugin statements", 1)[0]  # not in the catalogue
    assert sorted(p.name for p in (out / "plugins").iterdir()) == [
        "x.broken.md", "x.clamp.json", "x.clamp.md"]
    assert not (out / "statements" / "x.clamp.md").exists()
    cert = json.loads((out / "plugins" / "x.clamp.json").read_text())
    assert cert["claim"]["statement"] == "x.clamp" and cert["claim"]["scope"] == "instances"
    assert cert["claim"]["source"] == "plugin:proofcheck-example-clamp" and cert["claim"]["text"]
    r = subprocess.run([sys.executable, "-m", "proofcheck", "verify",
                        str(out / "plugins" / "x.clamp.json")],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    html = (out / "index.html").read_text()
    assert 'id="st-plugin-x.clamp"' in html and 'href="#st-plugin-x.clamp"' in html
    assert "<b>broken</b>" not in html and "<script" not in html
