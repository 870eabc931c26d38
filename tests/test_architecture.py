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

#: kernel modules that neither ``verify`` (plain route) nor the fast tier needs, and why
#: they stay in the kernel
NOT_NEEDED_BY_VERIFY = {
    # the package itself
    "proofcheck.kernel": "package",
}

#: what the kernel must never import (SPEC: the trusted base imports no construction,
#: I/O, reporting or command-line code)
FORBIDDEN = ("lemmas", "proofcheck.io", "proofcheck.reporting", "proofcheck.cli",
             "proofcheck.catalogue", "proofcheck.symbolic", "proofcheck.simulate")


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
