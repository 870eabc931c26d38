"""The trusted base is a folder: every module
``verify`` needs is in ``proofcheck/kernel`` and the kernel imports nothing from the
constructions, I/O, reporting or the command line — checked with import-linter
(contracts in ``.importlinter``), with grimp's import graph, and at run time."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]

#: kernel modules that neither ``verify`` (plain route) nor the fast tier needs, and why
#: they stay in the kernel
NOT_NEEDED_BY_VERIFY = {
    # the package itself
    "proofcheck.kernel": "package",
}

#: what the kernel must never import (docs/spec.md: the trusted base imports no construction,
#: I/O, reporting or command-line code)
FORBIDDEN = ("proofcheck.constructions", "proofcheck.frontend")


def test_import_contracts_are_kept(monkeypatch):
    """Layers (imports flow one way, imports inside functions included), no cycles
    between siblings at any depth, the kernel self-contained."""
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))  # bench is a folder, not an installed package
    assert lint_imports(config_filename=str(ROOT / ".importlinter"), no_cache=True) == 0


def _layers(contract: str = "layers") -> list[str]:
    text = (ROOT / ".importlinter").read_text()
    block = text.split(f"[importlinter:contract:{contract}]", 1)[1].split("\nlayers =\n", 1)[1]
    return [line.strip() for line in block.split("\n\n", 1)[0].splitlines() if line.strip()]


def _members(folder: Path, prefix: str) -> set[str]:
    """The modules and packages directly inside ``folder``, as ``prefix`` + name."""
    return {f"{prefix}{p.stem if p.is_file() else p.name}" for p in folder.iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}


@pytest.mark.parametrize("contract, folder, prefix", [
    ("layers", "proofcheck", "proofcheck."),
    ("frontend-layers", "proofcheck/frontend", ""),
    ("construction-layers", "proofcheck/constructions", "")])
def test_every_package_is_in_a_layer(contract, folder, prefix):
    """Each package and module of proofcheck, of its front end and of its constructions
    has its place in the layers contract of its folder, so none escapes it."""
    named = {m.strip() for layer in _layers(contract) for m in layer.split("|")}
    found = _members(ROOT / folder, prefix) | ({"bench"} if folder == "proofcheck" else set())
    assert found - named == set()


def test_the_three_siblings_are_the_layers():
    """The package is three sibling folders imported strictly downward (and the entry
    points above them): front end, constructions with their provers, kernel."""
    assert _layers()[-3:] == ["proofcheck.frontend", "proofcheck.constructions",
                              "proofcheck.kernel"]


def test_layers_contract_is_not_vacuous(tmp_path, monkeypatch):
    """The same layers with the kernel on top is broken (everything imports it)."""
    layers = _layers()
    cfg = tmp_path / "upside-down.ini"
    cfg.write_text("[importlinter]\nroot_packages =\n    proofcheck\n    bench\n\n"
                   "[importlinter:contract:x]\nname = x\ntype = layers\nlayers =\n"
                   + "".join(f"    {layer}\n" for layer in [layers[-1]] + layers[:-1]))
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    assert lint_imports(config_filename=str(cfg), no_cache=True) != 0


def _package(module: str) -> str:
    """The package a private name belongs to: the kernel as a whole, else the first three
    components (``proofcheck.frontend.reporting``, ``proofcheck.constructions.afz``), or two
    outside the package (``bench.softmax``)."""
    parts = module.split(".")
    if parts[:2] == ["proofcheck", "kernel"]:
        return "proofcheck.kernel"
    return ".".join(parts[:3] if parts[0] == "proofcheck" else parts[:2])


def _private_uses(path: Path, module: str):
    """``(imported module, name, line)`` for every private name (``_x``, not a dunder)
    that ``path`` takes from another package: ``from m import _x`` and ``m._x`` on
    an imported module ``m``, inside functions too."""
    import ast
    tree = ast.parse(path.read_text())
    roots = ("proofcheck", "bench")
    private = lambda n: n.startswith("_") and not n.startswith("__")  # noqa: E731
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update({a.asname or a.name: a.name for a in node.names
                            if a.name.split(".")[0] in roots})
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                node.module.split(".")[0] in roots and _package(node.module) != _package(module):
            yield from ((node.module, a.name, node.lineno) for a in node.names if private(a.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr) and \
                isinstance(node.value, ast.Name) and node.value.id in aliases and \
                _package(aliases[node.value.id]) != _package(module):
            yield aliases[node.value.id], node.attr, node.lineno


def test_no_package_uses_another_packages_private_names():
    bad = []
    for root in ("proofcheck", "bench"):
        for path in sorted((ROOT / root).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
            bad += [f"{module} uses {m}.{name} (line {line})"
                    for m, name, line in _private_uses(path, module)]
    assert bad == []


def test_private_name_rule_can_fail(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("def f():\n    from proofcheck.frontend.reporting.plots import _hidden\n"
                 "import proofcheck.kernel.model as m\nm._private\n")
    assert [n for _, n, _ in _private_uses(f, "proofcheck.frontend.export.x")] == ["_hidden", "_private"]


def test_import_linter_would_catch_a_violation(tmp_path, monkeypatch):
    """The same machinery reports a contract that the code breaks (verify does import
    the dataset module), so the passing test above is not vacuous."""
    cfg = tmp_path / "broken.ini"
    cfg.write_text("[importlinter]\nroot_packages =\n    proofcheck\n\n"
                   "[importlinter:contract:x]\nname = x\ntype = forbidden\n"
                   "source_modules =\n    proofcheck.kernel.verify\n"
                   "forbidden_modules =\n    proofcheck.kernel.dataset\n")
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(cfg), no_cache=True) != 0


def test_contract_lists_every_forbidden_package():
    text = (ROOT / ".importlinter").read_text()
    for mod in FORBIDDEN:
        assert f"\n    {mod}\n" in text + "\n", mod


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("proofcheck")


def _verify_roots(graph) -> set[str]:
    from proofcheck.kernel.statements import LEMMA_FORMS
    roots = {"proofcheck.kernel.verify", "proofcheck.kernel.lemma_checks"}
    roots |= {f"proofcheck.kernel.lemma_checks.{m}" for *_, m in LEMMA_FORMS.values()
              if f"proofcheck.kernel.lemma_checks.{m}" in graph.modules}
    return roots


def _upstream(graph, roots) -> set[str]:
    out = set()
    for root in roots:
        out |= {root} | graph.find_upstream_modules(root)
    return out


def test_everything_verify_needs_is_in_the_plain_kernel(graph):
    needed = _upstream(graph, _verify_roots(graph))
    outside = sorted(m for m in needed if not m.startswith("proofcheck.kernel")
                     or m.startswith("proofcheck.kernel.fast"))
    assert outside == []


def test_nothing_else_is_in_the_kernel(graph):
    fast = {m for m in graph.modules if m.startswith("proofcheck.kernel.fast")}
    needed = _upstream(graph, _verify_roots(graph) | fast)
    kernel = {m for m in graph.modules if m.startswith("proofcheck.kernel")}
    extra = sorted(kernel - needed - set(NOT_NEEDED_BY_VERIFY))
    assert extra == [], ("kernel modules that verify does not need: move them out of "
                         "proofcheck/kernel or list them with a reason in NOT_NEEDED_BY_VERIFY")


def test_the_plain_kernel_never_imports_the_fast_tier(graph):
    """Also imports inside functions (grimp sees them); and the contract lists every
    plain module as a source."""
    plain = {m for m in graph.modules if m.startswith("proofcheck.kernel.")
             and not m.startswith("proofcheck.kernel.fast")}
    for m in plain:
        assert not any(u.startswith("proofcheck.kernel.fast")
                       for u in graph.find_upstream_modules(m)), m
    text = (ROOT / ".importlinter").read_text()
    contract = text[text.index("[importlinter:contract:plain-kernel-below-fast-tier]"):]
    listed = {ln.strip() for ln in contract.splitlines() if ln.startswith("    proofcheck.")}
    assert {m for m in plain if m.count(".") == 2} <= listed


def test_verify_loads_no_construction_code_at_run_time(tmp_path):
    from conftest import NAMED

    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify as verify16
    from proofcheck.frontend.io.certificate_writer import theorem_certificate
    from proofcheck.kernel.verdicts import Verdict
    ds = NAMED["square-builtin"]
    tc = verify16(ds)
    f = tmp_path / "c.json"
    f.write_text(json.dumps(theorem_certificate("1.6", ds, tc.construction.net,
                                                Verdict.VERIFIED, constants=tc.constants)))
    code = ("import json, sys\nfrom proofcheck.frontend.cli import main\n"
            f"rc = main(['verify', {str(f)!r}])\n"
            "print(json.dumps([rc, sorted(m for m in sys.modules "
            "if m.split('.')[0] == 'proofcheck')]))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    rc, loaded = json.loads(r.stdout.strip().splitlines()[-1])
    assert rc == 0, r.stderr
    assert "proofcheck.kernel.verify" in loaded
    cli = ("proofcheck.frontend.cli",)
    bad = [m for m in loaded if m.startswith(FORBIDDEN) and not m.startswith(cli)
           and m != "proofcheck.frontend"]
    assert bad == []
    # outside the kernel only the package roots and the command-line front end
    assert all(m in ("proofcheck", "proofcheck.frontend") or
               m.startswith(("proofcheck.kernel",) + cli) for m in loaded), loaded
