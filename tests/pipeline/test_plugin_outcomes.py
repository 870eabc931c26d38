"""What a plugin statement's run shows, in ``lemma`` and in the report's page: an
argued step as ARGUED (never as the INCONCLUSIVE it is stored as), no "module None";
the declared scope checked against what ran ("mixed, per check" when no check
establishes it); a check that raises is REFUTED with its input as witness (code
``construction-raised``), as a built-in construction is, never an internal error;
the statement's text reaches the HTML literally (``θ*`` is not the start of italics)."""
from __future__ import annotations

import re
from fractions import Fraction as F
from html.parser import HTMLParser

import pytest

from proofcheck.kernel.verdicts import Verdict

E1 = (F(1), F(0))


def _clamp():
    from proofcheck.api import FF
    return FF(F(1), U=(E1,), b=(F(0),), W=((F(-1), F(0)),))  # x1 -> min(x1, 0)


def _instances_only(dataset=None, seed=0):
    from proofcheck.api import check_layer
    toks = [(F(-1), F(2)), (F(3), F(1))]
    return [check_layer("clamp at 0", _clamp(), [toks], [[(F(-1), F(2)), (F(0), F(1))]])]


def _with_argued(dataset=None, seed=0):
    from proofcheck.api import argued
    return _instances_only() + [argued("the general case", "by induction on the width")]


def _raises(dataset=None, seed=0):
    raise ZeroDivisionError("the plugin's own bug")


def _statement(sid, fn, scope="instances", title=None):
    from proofcheck.api import Statement
    return Statement(sid, "FF lemma", title or f"fake {sid}", "-", "project", checks=(fn,),
                     scope=scope, source="fake-plugin")


@pytest.fixture
def plugins(monkeypatch):
    """Install fake plugin statements (``registry.load`` returns them)."""
    import proofcheck.frontend.registry as registry

    def install(*stmts):
        monkeypatch.setattr(registry, "load", lambda plugins=True: list(stmts))
        return stmts
    return install


def test_argued_step_is_argued_in_the_report_page(plugins):
    from proofcheck.frontend.runs.lemma import run_lemma
    from proofcheck.frontend.runs.site import page_of
    (st,) = plugins(_statement("x.argues", _with_argued))
    run = run_lemma(st, None, 0)
    assert run.verdict is Verdict.VERIFIED
    page = page_of(run)
    assert "[ARGUED, not computed] the general case" in page.splitlines()
    assert "[INCONCLUSIVE]" not in page
    assert st.module is None and "module" not in page


def _scope(page: str) -> str:
    return next(x for x in page.splitlines() if x.startswith("- scope: ")).removeprefix("- scope: ")


def test_declared_scope_is_checked_against_what_ran(plugins):
    """Declared ``all-parameters`` with only exact instances: mixed, in the header and
    the page.  Declared ``instances`` with the same checks: the declared scope."""
    from proofcheck.frontend.runs.lemma import header_lines, run_lemma, scope_text
    from proofcheck.frontend.runs.site import page_of
    broad, narrow = plugins(_statement("x.broad", _instances_only, "all-parameters"),
                            _statement("x.narrow", _instances_only, "instances"))
    run = run_lemma(broad, None, 0)
    said = scope_text(run)
    assert said.startswith("mixed, per check") and said.endswith("declared: all-parameters")
    assert f"scope: {said}" in header_lines(run)
    assert _scope(page_of(run)) == said
    run = run_lemma(narrow, None, 0)
    assert scope_text(run) == "instances" and _scope(page_of(run)) == "instances"


def test_declared_scope_with_a_proof_beside_instances_is_not_mixed():
    """The example plugin x.clamp's shape: a proof for all c beside exact instances,
    declared all-parameters; and a built-in statement whose construction's own checks
    state no scope (interpolation, declared dataset, with exact instances)."""
    from proofcheck.frontend.runs.lemma import _mixed
    from proofcheck.kernel.verdicts import Scope
    both = [(Scope.ALL_PARAMETERS.value, 1), (Scope.INSTANCES.value, 4)]
    only = [(Scope.INSTANCES.value, 4)]
    assert not _mixed("all-parameters", both)
    assert _mixed("all-parameters", only)
    assert not _mixed("dataset", only, unscoped=True)
    assert _mixed("dataset", only)
    assert _mixed("instances", both)


def test_a_plugin_check_that_raises_is_refuted_with_its_input(plugins, capsys):
    from proofcheck.frontend.cli import main
    from proofcheck.frontend.runs.lemma import CONSTRUCTION_RAISED, run_lemma
    (st,) = plugins(_statement("x.raises", _raises))
    run = run_lemma(st, None, 0)
    assert run.verdict is Verdict.REFUTED
    (res,) = run.results
    assert res.witness.code == CONSTRUCTION_RAISED == "construction-raised"
    assert res.witness.got == "its own instances, seed 0"
    assert "ZeroDivisionError" in res.witness.reason
    capsys.readouterr()
    assert main(["lemma", "x.raises"]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err
    assert out.splitlines()[-1].startswith("VERDICT: REFUTED")


def test_a_plugin_check_that_raises_on_a_dataset_names_it(plugins, tmp_path, capsys):
    import json

    from proofcheck.frontend.cli import main
    plugins(_statement("x.raises", _raises))
    f = tmp_path / "d.json"
    f.write_text(json.dumps({"format": "proofcheck-dataset/1", "name": "mine", "d": 2,
                             "pairs": [{"input": [["1", "0"]], "output": [["0", "1"]]}]}))
    assert main(["lemma", "x.raises", "--dataset", str(f)]) == 1
    assert "got dataset 'mine' (d = 2, N = 1), seed 0" in capsys.readouterr().out


def test_report_shows_a_raising_plugin_refuted(plugins, tmp_path):
    import proofcheck.frontend.runs.site as site
    plugins(_statement("x.raises", _raises))
    lines, pages = site._plugins(tmp_path, seconds=None)
    row = next(x for x in lines if x.startswith("| x.raises |"))
    assert "| REFUTED |" in row and "none: no exact layer instance" in row
    page = pages["plugin-x.raises"].splitlines()
    assert "[REFUTED] x.raises: _raises runs on its input" in page
    assert "- verdict: **REFUTED**" in page
    assert sorted(p.name for p in (tmp_path / "plugins").iterdir()) == ["x.raises.md"]


class _Text(HTMLParser):
    """The text of the first ``<h1>`` and whether any ``<em>`` occurs."""

    def __init__(self):
        super().__init__()
        self.h1, self.inside, self.em = None, False, False

    def handle_starttag(self, tag, attrs):
        self.inside = tag == "h1" and self.h1 is None
        self.em |= tag in ("em", "strong", "a", "code", "img")
        if self.inside:
            self.h1 = ""

    def handle_endtag(self, tag):
        if tag == "h1":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.h1 += data


@pytest.mark.parametrize("title", [
    "If θ* interpolates, then J(θ*) = 0 and eps ‖θ*‖² bounds it",
    "a_b and c_d, `x` [link](http://e.org) ![i](x.png) <b>bold</b> & | pipes \\ back",
])
def test_html_renders_the_title_literally(plugins, tmp_path, title):
    from proofcheck.frontend.reporting.site import html
    from proofcheck.frontend.runs.lemma import run_lemma
    from proofcheck.frontend.runs.site import page_of
    (st,) = plugins(_statement("x.t", _instances_only, title=title))
    page = page_of(run_lemma(st, None, 0))
    heading = page.splitlines()[0]
    doc = html("# index\n", {"x.t": heading + "\n"}, tmp_path)
    section = re.search(r'<section id="st-x.t">(.*)</section>', doc, re.S).group(1)
    p = _Text()
    p.feed(section)
    assert p.h1 == f"x.t — {title}" and not p.em, section


def _only_argued(dataset=None, seed=0):
    from proofcheck.api import argued
    return [argued("the whole lemma", "by hand")]


def test_an_undecided_run_says_why_in_its_verdict_line(plugins):
    """A run whose steps are all argued is INCONCLUSIVE and its VERDICT line says that nothing
    was computed; a run with a computed check that did not pass names that check."""
    from proofcheck.frontend.runs.lemma import run_lemma, verdict_text
    (st,) = plugins(_statement("x.only-argued", _only_argued))
    run = run_lemma(st, None, 0)
    assert run.verdict is Verdict.INCONCLUSIVE
    assert verdict_text(run).startswith("VERDICT: INCONCLUSIVE (nothing was computed")
