"""Statement C.1 (TS lemma: Softmax concentration under a gap (statement reconstructed from the
seed's one step)): its construction (``proofcheck.constructions.ts.softmax_concentration``)
on the shared table's datasets, the kernel's check, a mutated parameter refuted with its
witness, and the command line's verdict; ``python -m proofcheck list --where C.1`` names the
four places."""
from __future__ import annotations

import pytest
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel


# ------------------------------------------------- the statement's checks (shared table)
SID = "C.1"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
