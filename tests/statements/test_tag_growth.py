"""Statement tag-growth (proposition: Phase S of the default construction: the largest
u-projection more than doubles every round (checked on instances)): its construction
(``proofcheck.constructions.afz.theorems.tag_growth``) on the shared table's datasets, the
kernel's check, a mutated parameter refuted with its witness, and the command line's
verdict; ``python -m proofcheck list --where tag-growth`` names the four places."""
from __future__ import annotations

import pytest
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel


def test_tag_growth_witness_names_the_round_that_does_not_double():
    """The check on a growth sequence that stalls in round 2: REFUTED at block 3 (the
    round's tag), SA, with the exact values."""
    from types import SimpleNamespace

    from proofcheck.constructions.afz.theorems.tag_growth import check
    info = {"R": 2, "u": (1, 1), "lambdas": [1, 1]}
    r = check(SimpleNamespace(blocks=[]), [], info, g=[1, 3, 5])
    assert (r.verdict.value, r.witness.block, r.witness.sublayer, r.witness.expected,
            r.witness.got) == ("REFUTED", 3, "SA", 6, 5)


# ------------------------------------------------- the statement's checks (shared table)
SID = "tag-growth"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
