"""Statement 4.2 (SA lemma: Corner collapse): its construction
(``proofcheck.constructions.afz.layers.corner``) on the shared table's datasets, the
kernel's check, a mutated parameter refuted with its witness, and the command line's
verdict; ``python -m proofcheck list --where 4.2`` names the four places."""
from __future__ import annotations

import pytest
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel


# ------------------------------------------------- the statement's checks (shared table)
SID = "4.2"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)


def test_the_declared_scope_names_the_dimensions_the_proofs_fixed():
    """4.2 is proved symbolically in d = 2 and d = 3 only: the header says so."""
    from proofcheck.frontend.registry import find
    from proofcheck.frontend.runs.lemma import run_checks
    st = find("4.2")
    results = run_checks(st, None, 0, None)
    assert sorted({d for r in results for d in r.fixed_dimensions()}) == [2, 3]
