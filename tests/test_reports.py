"""The committed ``reports/`` folder is what ``python -m proofcheck report`` makes
from the code as it is now (everything compared but the provenance: tool
version/commit/time line of the index, the ``provenance`` object and seal of each
certificate); files are mode 0644; the HTML report is self-contained."""
from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from proofcheck.runs.site import regenerate

ROOT = Path(__file__).resolve().parents[1]
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


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
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
    from proofcheck.registry import FLAGS, load
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
