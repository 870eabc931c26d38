"""The SA lemma checks as a test command (mutation testing, docs/measurements/mutation.md):
each statement's own check at its default seed must come back VERIFIED, so a
mutant of a construction routine is killed exactly when a check does not verify.

With ``SA_MUTATION_LOG=FILE`` in the environment every failing run appends one JSON
line ``{"mutant", "check", "kinds", "first"}`` to FILE, so the mutation report can
tell a REFUTED verdict with a witness from a crash."""
from __future__ import annotations

import json
import os

import pytest

from proofcheck.constructions.afz.layers import clustering, corner, sphere

from proofcheck.constructions.afz.phases import collapse
from proofcheck.kernel.verdicts import Verdict


def _log(check, kinds, first):
    path = os.environ.get("SA_MUTATION_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"mutant": os.environ.get("MUTANT_UNDER_TEST"), "check": check,
                                "kinds": kinds, "first": first}) + "\n")


@pytest.mark.parametrize("mod", [clustering, corner, sphere, collapse],
                         ids=["4.1", "4.2", "4.3", "collapse"])
def test_lemma_check_verifies(mod):
    try:
        res = mod.run(None, 0)
    except BaseException as exc:
        _log(mod.ID, ["EXCEPTION"], f"{type(exc).__name__}: {exc}"[:300])
        raise
    bad = [r for r in res if r.verdict != Verdict.VERIFIED]
    if bad:
        ref = [r for r in bad if r.verdict == Verdict.REFUTED and r.witness is not None]
        first = (ref or bad)[0]
        _log(mod.ID, sorted({r.verdict.value + ("+witness" if r.witness else "") for r in bad}),
             f"{first.name}: " + (first.witness.describe() if first.witness else " ".join(first.details[-1:]))[:300])
    assert res and not bad, [r.lines() for r in bad]
