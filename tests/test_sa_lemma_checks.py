"""The SA lemma checks as a test command (mutation testing, docs/mutation-sa.md):
each statement's own check at its default seed must come back VERIFIED, so a
mutant of a construction routine is killed exactly when a check REFUTES it (or
the routine rejects its input)."""
from __future__ import annotations

import pytest

from lemmas.afz import clustering, collapse, corner, sphere
from proofcheck.kernel.verdicts import Verdict


@pytest.mark.parametrize("mod", [clustering, corner, sphere, collapse],
                         ids=["4.1", "4.2", "4.3", "collapse"])
def test_lemma_check_verifies(mod):
    res = mod.run(None, 0)
    bad = [r for r in res if r.verdict != Verdict.VERIFIED]
    assert res and not bad, [r.lines() for r in bad]
