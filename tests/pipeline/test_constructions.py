"""The constructions table (``theorem ID --construction NAME``): every construction
it declares builds a network that the kernel VERIFIES on every named dataset, with
its own constant checks; ``list`` ends with one line per construction; an unknown
name is a usage error (exit 2)."""
from __future__ import annotations

import pytest
from conftest import NAMED

from proofcheck.constructions.afz.theorems.constructions import CONSTRUCTIONS, get
from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
from proofcheck.constructions.causal.constructions import CAUSAL_CONSTRUCTIONS
from proofcheck.frontend.cli import main
from proofcheck.kernel.verdicts import Verdict, combine

HARDMAX = sorted(n for n, s in CONSTRUCTIONS.items() if "1.6" in s.theorems)


@pytest.mark.parametrize("name", HARDMAX)
@pytest.mark.parametrize("case", sorted(NAMED))
def test_every_hardmax_construction_verifies(name, case):
    tc = verify(NAMED[case], construction=get(name, "1.6"))
    assert combine(r.verdict for r in tc.results) == Verdict.VERIFIED
    assert tc.constants["L"] == tc.construction.net.L


def test_unknown_construction_is_a_usage_error(capsys):
    with pytest.raises(KeyError):
        get("no-such-construction", "1.6")
    assert main(["theorem", "1.6", "--construction", "no-such-construction",
                 "--no-report"]) == 2


def test_list_ends_with_the_constructions(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out.rstrip().splitlines()
    table = {**CONSTRUCTIONS, **CAUSAL_CONSTRUCTIONS}  # the causal ones last
    tail = out[-len(table):]
    assert [line.split(":")[0].strip() for line in tail] == list(table)
    assert all(f": L = {s.blocks}" in line for line, s in zip(tail, table.values()))
