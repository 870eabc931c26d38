"""Plugins that call ``sys.exit`` (at import or in their run) never give exit 0: the
tool skips a plugin whose import exits (warning), a command whose plugin run exits is
exit 4 (no verdict), and ``report`` leaves such a plugin out with a note, like one
whose file name clashes with an earlier plugin's."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

EXITS = """import sys

from proofcheck.api import Statement


def run(dataset=None, seed=0):
    sys.exit(0)


STATEMENT = Statement("x.exits", "lemma", "calls sys.exit(0)", "none", "project",
                      checks=(run,))
"""

EXITS_AT_IMPORT = """import sys

sys.exit(0)
"""


def fake_dist(site: Path, name: str, module: str, source: str, entries: dict) -> None:
    """A plugin distribution in ``site``: module ``module`` with ``source`` and the
    ``proofcheck.statements`` entry points ``entries`` (name -> object path)."""
    (site / f"{module}.py").write_text(source)
    dist = site / f"{name.replace('-', '_')}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[proofcheck.statements]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))


def run(site: Path, *args, cwd=ROOT, timeout=300):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    return subprocess.run([sys.executable, "-m", "proofcheck", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=timeout)


def test_a_plugin_exiting_in_its_run_is_exit_4(tmp_path):
    fake_dist(tmp_path, "exits-plugin", "exits_plugin_mod", EXITS,
              {"exits": "exits_plugin_mod:STATEMENT"})
    r = run(tmp_path, "lemma", "x.exits")
    assert r.returncode == 4, r.stdout + r.stderr
    assert "sys.exit(0)" in r.stderr and "VERDICT" not in r.stdout


def test_a_plugin_exiting_at_import_is_skipped_with_a_warning(tmp_path):
    fake_dist(tmp_path, "exits-at-import", "exits_at_import_mod", EXITS_AT_IMPORT,
              {"gone": "exits_at_import_mod:STATEMENT"})
    r = run(tmp_path, "list")
    assert r.returncode == 0 and "1.6" in r.stdout
    assert "plugin 'gone'" in r.stderr and "SystemExit" in r.stderr
    r = run(tmp_path, "lemma", "3.1")
    assert r.returncode == 0 and "VERDICT: VERIFIED" in r.stdout, r.stderr


def _fake_statement(sid: str, run_fn, source: str = "fake-plugin"):
    from proofcheck.api import Statement
    return Statement(sid, "lemma", f"fake {sid}", "-", "project", checks=(run_fn,),
                     source=source)


def _clamp_run(dataset=None, seed=0):
    from fractions import Fraction

    from proofcheck.api import FF, check_layer
    e1 = (Fraction(1), Fraction(0))
    layer = FF(Fraction(1), U=(e1,), b=(Fraction(0),), W=((Fraction(-1), Fraction(0)),))
    toks = [(Fraction(-1), Fraction(2)), (Fraction(3), Fraction(1))]
    return [check_layer("clamp at 0", layer, [toks], [[(Fraction(-1), Fraction(2)),
                                                       (Fraction(0), Fraction(1))]])]


def test_report_leaves_out_a_plugin_that_exits_and_a_file_name_clash(tmp_path, monkeypatch):
    """``runs.site._plugins``: a plugin whose run calls sys.exit(0) and a second plugin whose
    id has the first good plugin's file name ('x a' and 'x-a' are both plugins/x-a.md)
    are left out with a note; the good one keeps its page and certificate."""
    import sys as _sys

    import proofcheck.frontend.registry as registry
    import proofcheck.frontend.runs.site as site
    stmts = [_fake_statement("x-a", _clamp_run), _fake_statement("x.exits", lambda *a: _sys.exit(0)),
             _fake_statement("X A", _clamp_run, source="other-plugin")]
    monkeypatch.setattr(registry, "load", lambda plugins=True: stmts)
    lines, pages = site._plugins(tmp_path)
    text = "\n".join(lines)
    assert sorted(pages) == ["plugin-x-a"]
    assert sorted(p.name for p in (tmp_path / "plugins").iterdir()) == ["x-a.json", "x-a.md"]
    assert "`x.exits` (fake-plugin) left out: its run or certificate raised SystemExit" in text
    assert "`X A` (other-plugin) left out: its file name is that of `x-a`, plugins/x-a.md" in text
    assert text.count("| x-a | fake-plugin |") == 1


def _never_returns(dataset=None, seed=0):
    import time
    while True:
        time.sleep(60)


def test_report_stops_a_plugin_that_never_returns(tmp_path, monkeypatch):
    """A plugin statement whose run never returns is stopped after the report's bound
    and left out with a note, nothing of it written; the next plugin still runs."""
    import proofcheck.frontend.registry as registry
    import proofcheck.frontend.runs.site as site
    stmts = [_fake_statement("x.hangs", _never_returns), _fake_statement("x-a", _clamp_run)]
    monkeypatch.setattr(registry, "load", lambda plugins=True: stmts)
    lines, pages = site._plugins(tmp_path, seconds=1.0)
    text = "\n".join(lines)
    assert "`x.hangs` (fake-plugin) left out: its run did not finish within 1 s (stopped)" in text
    assert sorted(pages) == ["plugin-x-a"]
    assert sorted(p.name for p in (tmp_path / "plugins").iterdir()) == ["x-a.json", "x-a.md"]


def _mixed_run(dataset=None, seed=0):
    """Passing exact instances (a certificate instance) beside a REFUTED stack check."""
    from fractions import Fraction

    from proofcheck.api import FF, check_stack
    out = _clamp_run()
    e1 = (Fraction(1), Fraction(0))
    layer = FF(Fraction(1), U=(e1,), b=(Fraction(0),), W=((Fraction(-1), Fraction(0)),))
    toks = [(Fraction(3), Fraction(1))]
    return out + [check_stack("stack", [layer], [toks], [[(Fraction(3), Fraction(1))]])]


def test_a_refuted_run_writes_no_certificate_stating_a_pass(tmp_path, monkeypatch, capsys):
    """``lemma --certificate`` of a run REFUTED beside passing instances: exit 1 and no
    file (a certificate would state VERIFIED); ``report`` shows the statement REFUTED
    with no certificate.  A passing run still writes one."""
    import proofcheck.frontend.registry as registry
    import proofcheck.frontend.runs.site as site
    from proofcheck.frontend.cli import main
    from proofcheck.kernel.verdicts import Verdict
    from proofcheck.frontend.runs.lemma import certificate_refusal, run_lemma
    stmts = [_fake_statement("x.mixed", _mixed_run), _fake_statement("x-a", _clamp_run)]
    monkeypatch.setattr(registry, "load", lambda plugins=True: stmts)
    run = run_lemma(stmts[0], None, 0)
    assert (run.verdict, run.recheck.verdict) == (Verdict.REFUTED, Verdict.VERIFIED)
    assert certificate_refusal(run) is not None
    assert certificate_refusal(run_lemma(stmts[1], None, 0)) is None
    cert = tmp_path / "mixed.json"
    assert main(["lemma", "x.mixed", "--certificate", str(cert)]) == 1
    assert not cert.exists()
    assert main(["lemma", "x-a", "--certificate", str(cert)]) == 0 and cert.exists()
    lines, pages = site._plugins(tmp_path / "site", seconds=None)
    names = sorted(p.name for p in (tmp_path / "site" / "plugins").iterdir())
    assert names == ["x-a.json", "x-a.md", "x.mixed.md"]
    row = next(x for x in lines if x.startswith("| x.mixed |"))
    assert "| REFUTED |" in row and "none:" in row


def test_report_lists_the_plugins_discovery_skipped(tmp_path, monkeypatch):
    import proofcheck.frontend.registry as registry
    import proofcheck.frontend.registry.plugins as plugins
    import proofcheck.frontend.runs.site as site
    monkeypatch.setattr(registry, "load", lambda plugins=True: [])
    monkeypatch.setattr(plugins, "_SKIPPED", ["plugin statement '3.1' from imp clashes"] * 2)
    lines, _ = site._plugins(tmp_path)
    assert [x for x in lines if x.startswith("- skipped")] == [
        "- skipped at discovery: plugin statement '3.1' from imp clashes"]
