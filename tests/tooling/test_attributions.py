"""Every sentence about a source says what the source says (issue 29, item 4).

The seeds (shared/seeds/000: a summary of the interpolation paper; 002: a study note on
the Takakura–Suzuki appendix) describe no tag rule, no float behaviour and no hypothesis
of the softmax remark, number Lemmas C.1, C.3 and C.4 only as headings over a step, a
paraphrase and a derivation, and the authors' repository numbers no lemma.  The phrases
below attributed more than that; they are retired, and this test fails when one is
found in the README, in docs/**/*.md or in a string (docstrings included) of the python
sources.  Also: the catalogue flags, the causal obstruction's word, and the VERDICT
line's scope wording (several datasets, assumed inequalities).
"""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: (pattern, what was wrong with it); matched ignoring case on text whose white space
#: (line breaks included) is collapsed to single spaces
RETIRED = [
    (r"\bseed's phase S\b", "the tag rule of phase S is proofcheck's reconstruction"),
    (r"\bpaper's phase S\b", "the tag rule of phase S is proofcheck's reconstruction"),
    (r"\bthe seed's tag\b", "the seed gives no tag rule"),
    (r"\bseed's class cannot\b", "the seed gives no tag rule"),
    (r"\bpaper's integer\b", "lambda >= 1 is the default construction's choice"),
    (r"no fixed float precision holds the network", "a float claim the seeds do not make"),
    (r"Why the default network cannot be float-safe", "reworded: measured, not a seed claim"),
    (r"\bcaption-numbered\b", "the authors' repository has no captions numbering a lemma"),
    (r"(?:known|comes) from (?:a|the) figure caption", "the figures hold no such text"),
    (r"appear in a seed \([^)]*C\.[134]", "the seed numbers C.1/C.3/C.4 without the statement"),
    (r"seed's hypothes[ie]s", "the seed states no hypothesis; the reading is proofcheck's"),
    (r"proves the seed's remark", "it proves proofcheck's reading of the remark"),
    (r"seed's remark itself is proved", "it proves proofcheck's reading of the remark"),
    (r"for every masked network", "the symbolic step covers three layer forms"),
    (r"certified counterexample N = 3", "a failure of the union-bound argument, not of C.3"),
    (r"No C < 4 works", "the constant 4 is not shown sharp"),
    (r"The seed's mechanism, `theorem 1\.8", "proofcheck's reconstruction, three departures"),
    (r"seed's mechanism \(Theorem 1\.8 sketch\), reconstructed", "proofcheck's reconstruction"),
    (r"the seed's Theorem 1\.8 mechanism, reconstructed", "proofcheck's reconstruction"),
    (r"the seed's construction beside", "proofcheck's reconstruction of the mechanism"),
    (r"## The seed's construction", "proofcheck's reconstruction of the mechanism"),
]
PY_FOLDERS = ("proofcheck", "bench", "mutation", "tests", "examples")


def _norm(text: str) -> str:
    return " ".join(text.split())


def python_strings(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of every string literal of a python file, implicitly concatenated
    literals joined (``"the seed's " "phase S"`` is one text)."""
    out, cur, line = [], [], 0
    toks = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    for tok in toks:
        if tok.type == tokenize.STRING:
            if not cur:
                line = tok.start[0]
            body = re.sub(r"^[rRbBuUfF]*('''|\"\"\"|'|\")", "", tok.string)
            cur.append(re.sub(r"('''|\"\"\"|'|\")$", "", body))
        elif tok.type in (tokenize.NL, tokenize.COMMENT) and cur:
            continue
        elif cur:
            out.append((line, "".join(cur)))
            cur = []
    if cur:
        out.append((line, "".join(cur)))
    return out


def texts(root: Path = ROOT):
    """``(place, text)``: README.md, every docs/**/*.md, every python string."""
    yield "README.md", (root / "README.md").read_text()
    for p in sorted((root / "docs").rglob("*.md")):
        yield str(p.relative_to(root)), p.read_text()
    for folder in PY_FOLDERS:
        for p in sorted((root / folder).rglob("*.py")):
            if p.resolve() == Path(__file__).resolve():
                continue
            for line, s in python_strings(p):
                yield f"{p.relative_to(root)}:{line}", s


def retired_hits(root: Path = ROOT) -> list[str]:
    hits = []
    for place, text in texts(root):
        flat = _norm(text)
        for pat, why in RETIRED:
            for m in re.finditer(pat, flat, re.IGNORECASE):
                hits.append(f"{place}: {m.group(0)!r} ({why})")
    return hits


def test_no_retired_attribution_phrase_remains():
    hits = retired_hits()
    assert not hits, "\n".join(hits)


def test_the_scan_finds_a_phrase_split_over_literals_and_lines(tmp_path):
    """The scanner can fail: a retired phrase split over two implicitly concatenated
    literals, and one broken over two Markdown lines, are found."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("In the seed's\nphase S every tag ...\n")
    (tmp_path / "docs" / "x.md").write_text("ok\n")
    (tmp_path / "proofcheck" / "constructions").mkdir(parents=True)
    (tmp_path / "proofcheck" / "constructions" / "m.py").write_text('X = ("for every masked "\n     "network")\n')
    hits = retired_hits(tmp_path)
    assert len(hits) == 2 and hits[0].startswith("README.md") and "proofcheck/constructions/m.py:1" in hits[1]


def test_flags_say_what_the_seeds_number():
    """Seed 000 §4 states Theorems 1.6 and 1.8; seed 002 has the headings C.1, C.3, C.4
    over one step, a paraphrase and a derivation; 4.1-4.3 are the design document's."""
    from proofcheck.frontend.registry import load
    by = {}
    for s in load(plugins=False):
        by.setdefault(s.flag, set()).add(s.id)
    assert by["seed-numbered"] == {"1.6", "1.8"}
    assert by["seed-step"] == {"C.1", "C.3", "C.4"}
    assert by["spec-numbered"] == {"4.1", "4.2", "4.3"}


def test_the_causal_obstruction_is_not_called_inadmissible():
    """No prefix map: no causal transformer interpolates the dataset; the dataset is
    admissible for Theorem 1.6, so the refusal is not INADMISSIBLE."""
    from proofcheck.constructions.causal.prefix_construction import NoCausalInterpolant, construct
    from proofcheck.constructions.causal.readings import ALL
    from proofcheck.kernel.errors import BadInput, Inadmissible
    F = __import__("fractions").Fraction
    a, p, q = (F(0), F(0)), (F(1), F(0)), (F(2), F(0))
    with pytest.raises(NoCausalInterpolant) as e:
        construct([[a, (F(0), F(1))], [a, (F(1), F(1))]], [[p], [q]], 2, reading=ALL)
    assert not isinstance(e.value, Inadmissible) and isinstance(e.value, BadInput)
    assert str(e.value).startswith("NO CAUSAL INTERPOLANT:")


def _run(sid: str, datasets, given=False, results=()):
    from proofcheck.frontend.registry import find
    from proofcheck.frontend.runs.lemma import LemmaRun
    return LemmaRun(find(sid), None, 0, "x", list(results), datasets=datasets, given=given)


def test_verdict_line_names_the_number_of_datasets():
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Scope, Verdict
    from proofcheck.frontend.runs.lemma import verdict_text
    ok = CheckResult("c", Verdict.VERIFIED)
    assert "on these 7 datasets and the edge datasets" in verdict_text(
        _run("separation", 7, results=[ok]))
    assert "on this dataset" in verdict_text(_run("separation", 1, given=True, results=[ok]))
    assert "on these 4 datasets;" in verdict_text(_run("1.8-collapse", 4, results=[ok]))
    per_check = CheckResult("c", Verdict.VERIFIED, scope=Scope.DATASET)
    line = verdict_text(_run("1.8-collapse", 4, results=[per_check]))
    assert "1 check on these 4 datasets" in line and "this dataset" not in line


def test_verdict_line_names_the_assumed_inequality():
    """C.3 and G.2 substitute into Hoeffding's and Bernstein's inequalities: their
    VERDICT lines say so."""
    from proofcheck.frontend.registry import find
    from proofcheck.frontend.runs.lemma import run_lemma, verdict_text
    from proofcheck.constructions.ts.near_orthogonal import union_bound_all
    assert union_bound_all().assumes == ("Hoeffding's inequality",)
    run = run_lemma(find("G.2"))
    assert "for all parameters, assuming Bernstein's inequality" in verdict_text(run)
