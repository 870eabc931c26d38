"""What ``lemma`` prints: by default a summary (``lemma 3.2`` was 228 lines) that keeps
every check's verdict and scope, the full details of any check that did not pass, and
the kernel's re-check counted; ``--verbose`` prints everything.  A ``--dataset`` /
``--example`` run says which checks used the data."""
from __future__ import annotations

import re
from fractions import Fraction as F

import pytest

from proofcheck.frontend.cli import main
from proofcheck.kernel.verdicts import Verdict
from proofcheck.frontend.registry import find
from proofcheck.frontend.runs.instances import DataRequest, load
from proofcheck.frontend.runs.lemma import run_lemma, run_lines, run_output

VERDICT_LINE = re.compile(r"\[(VERIFIED|VERIFIED-CERTIFIED|REFUTED|INCONCLUSIVE|ERROR|"
                          r"ARGUED, not computed)\] ")


def _out(capsys, *argv) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["lemma", *argv])
    return code, capsys.readouterr().out.splitlines()


def test_lemma_3_2_summary_is_short_and_keeps_every_check(capsys):
    code, lines = _out(capsys, "3.2")
    assert code == 0 and len(lines) <= 60, len(lines)
    run = run_lemma(find("3.2"), None, 0)
    checks = [x for x in lines if VERDICT_LINE.match(x)]
    assert len(checks) == len(run.results) == 19  # one line per check (none grouped here)
    for r, line in zip(run.results, checks):  # verdict and scope of every check kept
        assert line.startswith(f"[{r.verdict.value}] ")
        assert line.endswith(r.lines()[0][len(f"[{r.verdict.value}] {r.name}"):])  # scope tail
        assert (f"[{r.scope.value}" in line) if r.scope else True
    assert lines[-1].startswith("VERDICT: VERIFIED")
    code, full = _out(capsys, "3.2", "--verbose")
    assert code == 0 and len(full) >= 220
    assert [x for x in full if x in run_lines(run)] == run_lines(run)


def test_checks_differing_only_in_their_instance_share_a_line(capsys):
    """``lemma separation`` (81 checks on 16 instances): a passing check repeated on
    several instances is one line with its verdict, scope and instance count."""
    code, lines = _out(capsys, "separation")
    assert code == 0 and len(lines) <= 60
    grouped = [x for x in lines if " -- on 16 instances: " in x]
    assert len(grouped) >= 3 and all(x.startswith("[VERIFIED] ") for x in grouped)


def _refuting_plugin(dataset=None, seed=0):
    from proofcheck.api import FF, check_layer
    e1 = (F(1), F(0))
    layer = FF(F(1), U=(e1,), b=(F(0),), W=((F(-1), F(0)),))  # min(x1, 0)
    return [check_layer(f"clamp {k}", layer, [[(F(k), F(1))]], [[(F(min(k, 0)), F(1))]])
            for k in range(-3, 4)] + [
        check_layer("claims x1 -> x1", layer, [[(F(2), F(1))]], [[(F(2), F(1))]])]


def test_a_check_that_fails_keeps_its_details_and_witness(monkeypatch, capsys):
    import proofcheck.frontend.registry as registry
    from proofcheck.api import Statement
    st = Statement("x.refutes", "FF lemma", "t", "-", "project", checks=(_refuting_plugin,),
                   source="fake-plugin")
    monkeypatch.setattr(registry, "load", lambda plugins=True: [st])
    run = run_lemma(st, None, 0)
    bad = next(r for r in run.results if r.verdict is Verdict.REFUTED)
    code, lines = _out(capsys, "x.refutes")
    assert code == 1
    assert bad.lines()[0] in lines and f"    witness: {bad.witness.describe()}" in lines
    assert all(ln in lines for ln in bad.lines())
    assert sum(1 for x in lines if x.startswith("[VERIFIED] ")) == 7


@pytest.mark.parametrize("sid", ["3.1", "3.2", "4.1", "4.2", "4.3", "tag-growth", "separation"])
def test_a_dataset_run_says_which_checks_used_it(sid):
    st = find(sid)
    ds, _ = load(st, DataRequest(None, "digits-sample", 3, "label"))
    run = run_lemma(st, ds, 0)
    used = run.on_dataset
    assert run.dataset == "digits-sample-3" and used
    assert all(r.name.startswith("'digits-sample-3'") or "'digits-sample-3'" in r.name
               for r in used)
    header = [x for x in run_output(run) if x.startswith("dataset ")]  # not in the body
    assert not header
    from proofcheck.frontend.runs.lemma import header_lines
    line = next(x for x in header_lines(run) if x.startswith("dataset 'digits-sample-3'"))
    assert f"used by {len(used)} of the {len(run.results)} checks" in line
    default = run_lemma(st, None, 0)
    assert default.dataset is None and default.on_dataset == []
