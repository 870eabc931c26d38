"""The trusted base is a folder (issue "Check what is built", item 7): every module
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

ROOT = Path(__file__).resolve().parents[1]

#: kernel modules that ``verify`` does not import, and why they stay in the kernel
NOT_NEEDED_BY_VERIFY = {
    # the package itself
    "proofcheck.kernel": "package",
    # claims are what a construction says each sub-layer does; kernel.checker compares
    # them token by token in `theorem` runs (trusted there), `verify` passes none
    "proofcheck.kernel.claims": "checked by kernel.checker in theorem runs",
    # three-valued arb comparisons (SPEC §6): used by the TS lemma checks and by
    # kernel lemma checks of softmax instances
    "proofcheck.kernel.balls": "three-valued ball comparisons (SPEC §6)",
}

#: what the kernel must never import (SPEC: the trusted base imports no construction,
#: I/O, reporting or command-line code)
FORBIDDEN = ("lemmas", "proofcheck.io", "proofcheck.reporting", "proofcheck.cli",
             "proofcheck.registry", "proofcheck.symbolic", "proofcheck.simulate")


def test_import_contracts_are_kept(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / ".importlinter"), no_cache=True) == 0


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
    return grimp.build_graph("proofcheck", "lemmas")


def _verify_roots(graph) -> set[str]:
    from proofcheck.kernel.lemma_checks import MODULES
    roots = {"proofcheck.kernel.verify"}
    roots |= {f"proofcheck.kernel.lemma_checks.{m}" for m in MODULES.values()
              if f"proofcheck.kernel.lemma_checks.{m}" in graph.modules}
    return roots


def test_everything_verify_needs_is_in_the_kernel(graph):
    needed = set()
    for root in _verify_roots(graph):
        needed |= {root} | graph.find_upstream_modules(root)
    outside = sorted(m for m in needed if not m.startswith("proofcheck.kernel"))
    assert outside == []


def test_nothing_else_is_in_the_kernel(graph):
    needed = set()
    for root in _verify_roots(graph) | {"proofcheck.kernel.lemma_checks"}:
        needed |= {root} | graph.find_upstream_modules(root)
    kernel = {m for m in graph.modules if m.startswith("proofcheck.kernel")}
    extra = sorted(kernel - needed - set(NOT_NEEDED_BY_VERIFY))
    assert extra == [], ("kernel modules that verify does not need: move them out of "
                         "proofcheck/kernel or list them with a reason in NOT_NEEDED_BY_VERIFY")


def test_verify_loads_no_construction_code_at_run_time(tmp_path):
    from conftest import NAMED

    from lemmas.afz.theorems.theorem_1_6 import verify as verify16
    from proofcheck.io.certificate_writer import theorem_certificate
    from proofcheck.kernel.verdicts import Verdict
    ds = NAMED["square-builtin"]
    tc = verify16(ds)
    f = tmp_path / "c.json"
    f.write_text(json.dumps(theorem_certificate("1.6", ds, tc.construction.net,
                                                Verdict.VERIFIED, constants=tc.constants)))
    code = ("import json, sys\nfrom proofcheck.cli import main\n"
            f"rc = main(['verify', {str(f)!r}])\n"
            "print(json.dumps([rc, sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('proofcheck', 'lemmas'))]))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    rc, loaded = json.loads(r.stdout.strip().splitlines()[-1])
    assert rc == 0, r.stderr
    assert "proofcheck.kernel.verify" in loaded
    bad = [m for m in loaded if m.startswith(FORBIDDEN) and not m.startswith("proofcheck.cli")]
    assert bad == []
    # outside the kernel only the package root and the command-line front end
    assert all(m == "proofcheck" or m.startswith(("proofcheck.kernel", "proofcheck.cli"))
               for m in loaded), loaded
