"""Tests for proofcheck.generate (random admissible datasets)."""
import pytest
from hypothesis import given, settings

from proofcheck.io.generate import STYLES, admissible_datasets, random_dataset
from proofcheck.kernel.dataset import check_admissible


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("d, N, max_n", [(2, 4, 5), (3, 8, 1), (2, 8, 6), (6, 1, 1), (2, 15, 3)])
def test_admissible_across_seeds(style, d, N, max_n):
    for seed in range(15):
        ds = random_dataset(seed, d=d, N=N, max_n=max_n, style=style)
        check_admissible(ds)
        assert ds.d == d and ds.N == N
        assert all(1 <= len(p.outputs) <= len(p.inputs) <= max_n for p in ds.pairs)


def test_deterministic():
    assert random_dataset(7) == random_dataset(7)
    assert random_dataset(7) != random_dataset(8)


def test_small_rationals():
    ds = random_dataset(3, coord_range=2, N=6)
    vals = {c for p in ds.pairs for s in (p.inputs, p.outputs) for t in s for c in t}
    assert all(abs(v) <= 2 and v.denominator in (1, 2, 3) for v in vals)


def test_overlap_style_shares_tokens():
    for seed in range(20):
        ds = random_dataset(seed, N=5, max_n=4, style="overlap")
        sets = [set(p.inputs) for p in ds.pairs]
        for j in range(1, len(sets)):
            assert any(sets[j] & sets[i] for i in range(j)), (seed, j)


def test_nested_style_has_chains():
    found = 0
    for seed in range(10):
        ds = random_dataset(seed, N=4, max_n=5, style="nested")
        sets = [frozenset(p.inputs) for p in ds.pairs]
        found += sum(a < b for a, b in zip(sets, sets[1:]))
    assert found >= 10


def test_union_style_has_unions():
    found = 0
    for seed in range(20):
        sets = [frozenset(p.inputs) for p in random_dataset(seed, N=6, max_n=6,
                                                            style="union").pairs]
        found += any(sets[k] == sets[i] | sets[j] for k in range(len(sets))
                     for i in range(k) for j in range(i + 1, k))
    assert found >= 5


@pytest.mark.parametrize("kwargs", [{"d": 1}, {"N": 0}, {"max_n": 0}, {"style": "x"},
                                    {"coord_range": 0}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        random_dataset(0, **kwargs)


@settings(max_examples=40, deadline=None)
@given(admissible_datasets())
def test_strategy_admissible(ds):
    check_admissible(ds)
    assert 2 <= ds.d <= 6 and 1 <= ds.N <= 8
