"""Route parity as a standing test (issue 28 item 3): the seeded, structure-aware generator of
``bench/routes.py`` (far float pre-filter candidates, boxes across FF supports, tags at
2^+-1000, long sequences, ties and near-ties, rank-one FF layers of identity pieces only,
multi-head and causal layers) — plain and fast verdicts, witnesses and bounds agree on
Theorems 1.6 and 1.8, and ``verify`` gives one verdict on every route, stated bounds and all.
A bounded run here; the long one is ``python -m bench.routes`` (bench/results-routes.json)."""
from __future__ import annotations

import pytest

from bench.routes import FAMILIES, compare, make_case, run_seeds


def test_routes_agree_on_a_bounded_differential_run():
    tot = run_seeds(range(48), max_n=30)
    assert tot["disagreements"] == []
    assert set(tot["per_family"]) == set(FAMILIES)
    assert all(f["checks"] >= 2 * f["cases"] for f in tot["per_family"].values())
    # the far-candidate shape reaches the fast records' bound: they decline, plain decides
    assert tot["per_family"]["far-candidate"]["declined"] > 0


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_mutated_fast_answer_is_seen_as_a_disagreement(family, monkeypatch):
    """The comparison can fail: a fast backend whose outputs are shifted disagrees."""
    from proofcheck.kernel.fast import flint
    orig = flint.FlintBackend.to_fractions

    def shifted(self, state):
        rows = orig(self, state)
        return [tuple(x + 1 for x in rows[0])] + rows[1:] if rows else rows
    monkeypatch.setattr(flint.FlintBackend, "to_fractions", shifted)
    seed = sorted(FAMILIES).index(family)
    seed = next(s for s in range(seed, 400) if make_case(s).family == family)
    assert compare(make_case(seed))["disagreements"]
