"""Every handed case in tests/cases (or ``$PROOFCHECK_CASES``) gives the verdict and exit code listed in
its README, through the command line, and a rejected input writes nothing."""
from __future__ import annotations

import pytest
from conftest import CASES, case_table

from proofcheck.frontend.cli import main

# what the message must name, per error case (the README's wording may differ)
FRAGMENTS = {
    "permuted-duplicate.json": ["INADMISSIBLE", "input sequences 0 and 1", "equal as sets"],
    "repeated-token.json": ["INADMISSIBLE", "repeated token", "input 0"],
    "m-greater-than-n.json": ["INADMISSIBLE", "output longer than input", "pair 0"],
    "dimension-one.json": ["INADMISSIBLE", "d must be at least 2"],
    "ragged-token.json": ["BAD INPUT", "token 1 of input 0", "1 coordinate", "expected 2"],
    "not-a-number.json": ["BAD INPUT", "input 0 token 0 coordinate 0", "not a finite number"],
    "empty-sequence.json": ["input 0 is empty"],
}

ROWS = case_table()


@pytest.mark.parametrize("fname,expected,code", ROWS, ids=[r[0] for r in ROWS])
def test_handed_case(fname, expected, code, tmp_path, capsys):
    out_dir = tmp_path / "reports"
    rc = main(["theorem", "1.6", "--dataset", str(CASES / fname), "--out", str(out_dir)])
    out, err = capsys.readouterr()
    assert rc == code, (out, err)
    if code == 0:
        assert "VERDICT: VERIFIED" in out
        assert "exact interpolation" in out
        written = sorted(p.name for p in out_dir.iterdir())
        assert written == [f"theorem-1.6-{fname[:-5]}.json", f"theorem-1.6-{fname[:-5]}.md"]
    else:
        for frag in FRAGMENTS[fname]:
            assert frag in err, (frag, err)
        assert "Traceback" not in err
        assert not out_dir.exists(), "a rejected input must write nothing"


def test_every_case_is_covered():
    """The table lists the 14 handed cases, each present in the folder (a missing case
    fails here, and in its own row)."""
    assert len(ROWS) == 14
    assert {r[0] for r in ROWS} == {p.name for p in CASES.glob("*.json")}
    assert all(r[2] == 0 or r[0] in FRAGMENTS for r in ROWS)
