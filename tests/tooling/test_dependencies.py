"""Every third-party import of ``proofcheck/`` and ``proofcheck/constructions/`` is declared where its
module runs: deptry (DEP001 undeclared, DEP003 only a transitive dependency) on each
group of modules against the core dependencies plus that group's extra only
(``[tool.proofcheck.extra-modules]`` in pyproject.toml; every other module against the
core dependencies alone).  Imports inside functions count too (deptry reads them all)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
EXTRAS = PYPROJECT["project"]["optional-dependencies"]
CORE = PYPROJECT["project"]["dependencies"]
EXTRA_MODULES = PYPROJECT["tool"]["proofcheck"]["extra-modules"]
FAILING = ("DEP001", "DEP003")
pytest.importorskip("deptry", reason="deptry not installed (extra 'test')")


def extra_of(rel: str) -> str:
    """The extra whose dependencies the module at ``rel`` may import ("core": none);
    the longest matching prefix of ``[tool.proofcheck.extra-modules]`` wins."""
    best, name = "", "core"
    for extra, prefixes in EXTRA_MODULES.items():
        for p in prefixes:
            if rel.startswith(p) and len(p) > len(best):
                best, name = p, extra
    return name


def groups() -> dict[str, list[str]]:
    """extra -> the module paths (relative to the project root) assigned to it."""
    out: dict[str, list[str]] = {}
    for f in sorted((ROOT / "proofcheck").rglob("*.py")):
        rel = f.relative_to(ROOT).as_posix()
        out.setdefault(extra_of(rel), []).append(rel)
    return out


def deptry_issues(tmp: Path, files: dict[str, str], deps: list[str]) -> list[dict]:
    """deptry's DEP001/DEP003 findings for the modules ``files`` (path -> source text)
    in a scratch project declaring exactly ``deps``."""
    proj = tmp / "project"
    shutil.rmtree(proj, ignore_errors=True)
    for rel, text in files.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "dependency-check"\nversion = "0"\ndependencies = '
        + json.dumps(deps) + "\n")
    out = tmp / "deptry.json"
    r = subprocess.run([sys.executable, "-m", "deptry", str(proj), "--no-ansi",
                        "--json-output", str(out), "--known-first-party", "proofcheck"],
                       capture_output=True, text=True, timeout=120, cwd=proj)
    assert out.exists(), r.stdout + r.stderr  # deptry ran (exit 1 only means findings)
    return [i for i in json.loads(out.read_text()) if i["error"]["code"] in FAILING]


def sources(paths) -> dict[str, str]:
    return {p: (ROOT / p).read_text() for p in paths}


def where(issue) -> str:
    """The module path of a finding, relative to the scratch project."""
    return issue["location"]["file"].replace("\\", "/").split("/project/", 1)[-1]


def describe(issues) -> list[str]:
    return [f"{where(i)}:{i['location']['line']} {i['error']['code']} {i['error']['message']}"
            for i in issues]


@pytest.mark.parametrize("extra", sorted(groups()))
def test_imports_are_declared_for_their_extra(extra, tmp_path):
    deps = CORE + ([] if extra == "core" else EXTRAS[extra])
    issues = deptry_issues(tmp_path, sources(groups()[extra]), deps)
    assert not issues, (f"modules of the {extra!r} group import packages that group does not "
                        f"declare (pyproject.toml): {describe(issues)}")


def test_extra_modules_table_names_real_extras_and_paths():
    for extra, prefixes in EXTRA_MODULES.items():
        assert extra in EXTRAS, extra
        for p in prefixes:
            assert (ROOT / p).exists(), p
    assert extra_of("proofcheck/frontend/export/torch_module.py") == "torch"
    assert extra_of("proofcheck/frontend/export/onnx_graph.py") == "export"
    assert extra_of("proofcheck/frontend/reporting/plots.py") == "core"


def test_a_removed_declaration_is_found(tmp_path):
    """The check can fail: the report's networkx import without its declaration is
    DEP003 (installed, but only as some other package's dependency, or not at all:
    DEP001), located at proofcheck/frontend/reporting/plots.py."""
    deps = [d for d in CORE if not d.startswith("networkx")]
    assert len(deps) == len(CORE) - 1
    issues = deptry_issues(tmp_path, sources(["proofcheck/frontend/reporting/plots.py"]), deps)
    assert {(i["module"], where(i)) for i in issues} == {("networkx",
                                                          "proofcheck/frontend/reporting/plots.py")}
    assert {i["error"]["code"] for i in issues} <= set(FAILING)


def test_a_core_module_may_not_use_an_extra(tmp_path):
    """An export module counted as core: onnx (the export extra) is undeclared there,
    even when imported inside a function; an unknown package is DEP001."""
    files = sources(["proofcheck/frontend/export/onnx_graph.py"])
    files["proofcheck/extra_import.py"] = "def f():\n    import no_such_package_xyz\n"
    issues = deptry_issues(tmp_path, files, CORE)
    found = {(i["module"], i["error"]["code"]) for i in issues}
    assert ("no_such_package_xyz", "DEP001") in found
    assert "onnx" in {m for m, _ in found}
