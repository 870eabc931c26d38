"""The shared table of statement cases (:data:`statement_cases.CASES`): every case names a
registered statement and dataset; every catalogue statement has a passing and a REFUTED
case and its own test file, which runs its cases (``statement_checks.check_case``: the
verdict, the structured fields of the first witness, the kernel's re-check)."""
from __future__ import annotations

from pathlib import Path

from conftest import NAMED
from statement_cases import CASES, cases_of

from proofcheck.frontend.registry import find, load
from proofcheck.kernel.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[2]


def test_every_catalogue_statement_has_a_passing_and_a_refuted_case_and_a_test_file():
    for st in load(plugins=False):
        verdicts = {c.verdict for c in cases_of(st.id)}
        assert Verdict.REFUTED in verdicts and any(v.passed for v in verdicts), st.id
        text = (ROOT / st.tests).read_text()
        assert f'SID = "{st.id}"' in text and "cases_of(SID)" in text, st.tests
    refuted = [c for c in CASES if c.verdict == Verdict.REFUTED]
    assert all(c.mutation is not None and c.witness for c in refuted)


def test_every_case_names_a_registered_statement_and_dataset():
    assert all(find(c.statement) for c in CASES)
    assert {c.dataset for c in CASES} - {None} <= set(NAMED)
    assert len({c.id for c in CASES}) == len(CASES)

