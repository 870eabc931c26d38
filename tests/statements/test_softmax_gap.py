"""Statement softmax-gap (lemma: Softmax mass outside the argmax set under a score gap): its
construction (``proofcheck.constructions.afz.layers.softmax_gap``) on the shared table's
datasets, the kernel's check, a mutated parameter refuted with its witness, and the command
line's verdict; ``python -m proofcheck list --where softmax-gap`` names the four places."""
from __future__ import annotations

import pytest
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel


# ------------------------------------------------- the statement's checks (shared table)
SID = "softmax-gap"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
