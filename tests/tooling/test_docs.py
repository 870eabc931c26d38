"""The documentation's links hold: every ``docs/...`` path cited in the README, the docs, the
code and the tests exists; every relative link of a docs page resolves; every ``docs/spec.md §N``
cited names a section of the specification; every catalogue statement has its page
``docs/statements/<id>.md``, and every page there is a statement's."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: the folders whose files may cite docs, and the kinds of file read there
CITING_FOLDERS = ("docs", "proofcheck", "bench", "mutation", "tests", "scripts",
                  "examples", "coq", ".ci")
CITING_SUFFIXES = (".py", ".md", ".toml", ".v", "")

#: a path under docs/, not part of a longer path (``x/docs/`` is another folder)
DOCS_PATH = re.compile(r"(?<![\w./-])docs/[\w./-]*[\w/-]|(?<![\w./-])docs/")
#: a section of the specification: ``docs/spec.md §3`` or ``§3.4``
SPEC_SECTION = re.compile(r"docs/spec\.md §(\d+(?:\.\d+)?)")
#: a Markdown link target that is a relative path (no scheme, no anchor-only link)
MD_LINK = re.compile(r"\]\(((?![a-z]+:|#)[^)\s]+)\)")


def citing_files(root: Path = ROOT):
    """``README.md`` and every text file of :data:`CITING_FOLDERS` with a suffix of
    :data:`CITING_SUFFIXES` (``.ci/run`` has none)."""
    yield root / "README.md"
    for folder in CITING_FOLDERS:
        base = root / folder
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*")):
            if (p.is_file() and p.suffix in CITING_SUFFIXES and "__pycache__" not in p.parts
                    and p.resolve() != Path(__file__).resolve()):  # its own examples
                yield p


def _text(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # a binary file without a suffix
        return ""


def missing_doc_paths(root: Path = ROOT) -> list[str]:
    """``file:line: path`` for every cited ``docs/...`` path that does not exist."""
    out = []
    for p in citing_files(root):
        for n, line in enumerate(_text(p).splitlines(), start=1):
            for m in DOCS_PATH.finditer(line):
                if not (root / m.group(0)).exists():
                    out.append(f"{p.relative_to(root)}:{n}: {m.group(0)}")
    return out


def broken_relative_links(root: Path = ROOT) -> list[str]:
    """``page: target`` for every relative Markdown link of a docs page that does not resolve."""
    out = []
    for p in sorted((root / "docs").rglob("*.md")):
        for m in MD_LINK.finditer(_text(p)):
            target = m.group(1).split("#", 1)[0]
            if target and not (p.parent / target).exists():
                out.append(f"{p.relative_to(root)}: {m.group(1)}")
    return out


def spec_sections(root: Path = ROOT) -> set[str]:
    """The section numbers of docs/spec.md: ``## 3.`` gives ``3``, ``### 3.4`` gives ``3.4``."""
    text = (root / "docs" / "spec.md").read_text(encoding="utf-8")
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", text, re.M))


def unknown_spec_sections(root: Path = ROOT) -> list[str]:
    have = spec_sections(root)
    out = []
    for p in citing_files(root):
        for n, line in enumerate(_text(p).splitlines(), start=1):
            for m in SPEC_SECTION.finditer(line):
                if m.group(1) not in have:
                    out.append(f"{p.relative_to(root)}:{n}: docs/spec.md §{m.group(1)}")
    return out


def test_every_cited_docs_path_exists():
    missing = missing_doc_paths()
    assert not missing, "cited but absent:\n" + "\n".join(missing)


def test_every_relative_link_in_the_docs_resolves():
    broken = broken_relative_links()
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_every_cited_spec_section_exists():
    assert {"1", "2", "3", "3.4", "4", "5", "5.2", "6"} <= spec_sections()
    unknown = unknown_spec_sections()
    assert not unknown, "no such section of docs/spec.md:\n" + "\n".join(unknown)


def test_every_catalogue_statement_has_its_page_and_every_page_a_statement():
    from proofcheck.frontend.registry import load
    ids = {s.id for s in load(plugins=False)}
    pages = {p.stem for p in (ROOT / "docs" / "statements").glob("*.md")} - {"README"}
    assert ids - pages == set(), f"statements without a page: {sorted(ids - pages)}"
    assert pages - ids == set(), f"pages of no catalogue statement: {sorted(pages - ids)}"


def test_the_checks_can_fail(tmp_path):
    """A missing path, a broken link and an unknown section are each found, on a small tree:
    in a docs page, in a python string and in the README, not in a longer path."""
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "spec.md").write_text("# spec\n\n## 1. Objects\n\n### 1.2 Tokens\n")
    (tmp_path / "docs" / "sub" / "a.md").write_text(
        "See docs/spec.md §1.2 and docs/spec.md §7, [b](../b.md) and [ok](../spec.md#x).\n")
    (tmp_path / "README.md").write_text("Details: docs/sub/a.md, docs/gone.md.\n")
    (tmp_path / "proofcheck" / "constructions").mkdir(parents=True)
    (tmp_path / "proofcheck" / "constructions" / "m.py").write_text('"""See docs/old.md; not /x/docs/other.md."""\n')
    assert missing_doc_paths(tmp_path) == ["README.md:1: docs/gone.md", "proofcheck/constructions/m.py:1: docs/old.md"]
    assert broken_relative_links(tmp_path) == ["docs/sub/a.md: ../b.md"]
    assert unknown_spec_sections(tmp_path) == ["docs/sub/a.md:1: docs/spec.md §7"]
