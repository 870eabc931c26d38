"""Property: on random small datasets read as tuples, the causal constructions are
VERIFIED exactly when a prefix map exists, and refused (NoCausalInterpolant, naming why)
when none does — the necessary condition of causal-first-token; the masked network's
claims and outputs agree on both exact backends."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proofcheck.constructions.causal.under_mask import run_causal
from proofcheck.constructions.causal.prefix_construction import NoCausalInterpolant, construct
from proofcheck.constructions.causal.readings import ALL, LAST, prefix_map
from proofcheck.constructions.claim_check import check_network
from proofcheck.kernel.dataset import Dataset, Pair, check_admissible
from proofcheck.kernel.verdicts import Verdict, combine

TOKEN = st.tuples(st.integers(-1, 1), st.integers(-1, 1)).map(
    lambda t: tuple(Fraction(x) for x in t))


@st.composite
def datasets(draw):
    pairs, seen = [], set()
    for _ in range(draw(st.integers(1, 4))):
        X = tuple(draw(st.lists(TOKEN, min_size=1, max_size=4, unique=True)))
        if X in seen:
            continue
        seen.add(X)
        Y = tuple(draw(st.lists(TOKEN, min_size=1, max_size=len(X), unique=True)))
        pairs.append(Pair(X, Y))
    ds = Dataset("random-causal", 2, tuple(pairs))
    check_admissible(ds, ordered=True)
    return ds


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets(), st.sampled_from([LAST, ALL]))
def test_causal_constructions_verify_iff_a_prefix_map_exists(ds, reading):
    io = [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]
    name = {LAST: "causal-last", ALL: "causal-all"}[reading]
    sol = prefix_map(*io, reading)
    if sol.status == "impossible":
        try:
            construct(*io, 2, reading=reading)
        except NoCausalInterpolant as exc:
            assert "no prefix map" in exc.message
        else:
            raise AssertionError("built a network where no prefix map exists")
        return
    assert sol.status == "possible"
    tc = run_causal(ds, name)
    assert combine(r.verdict for r in tc.results) == Verdict.VERIFIED, \
        [ln for r in tc.results for ln in r.lines()]
    c = tc.construction
    plain = check_network(c.net, io[0], None, c.claims, backend="plain")
    assert plain.verdict == Verdict.VERIFIED and plain.outputs == tc.network_check.outputs
