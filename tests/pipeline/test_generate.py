"""Tests for proofcheck.generate (random admissible datasets)."""
import pytest
from hypothesis import given, settings

from strategies import admissible_datasets

from proofcheck.frontend.io.generate import STYLES, random_dataset
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


# ---- digits_like: large datasets shaped like the digits example -------------

def test_digits_like_admissible_deterministic_and_sharing():
    from proofcheck.frontend.io.generate import digits_like
    ds = digits_like(300, seed=3)
    check_admissible(ds)
    assert ds == digits_like(300, seed=3) and ds != digits_like(300, seed=4)
    assert ds.N == 300 and ds.d == 6 and ds.n_tokens == 300 * 16
    assert all(1 <= len(p.outputs) <= 3 for p in ds.pairs)
    distinct = {t for p in ds.pairs for t in p.inputs}
    # tokens are shared between sequences like the images' backgrounds
    assert len(distinct) < ds.n_tokens // 2
    # positions (row, column) are the last two coordinates, one token per position
    assert all(sorted((int(t[4]), int(t[5])) for t in p.inputs) ==
               [(r, c) for r in range(4) for c in range(4)] for p in ds.pairs)


@pytest.mark.parametrize("share, lo, hi", [(1.0, 1.0, 1.0), (0.0, 0.0, 0.05)])
def test_digits_like_top_share_drives_R(share, lo, hi):
    """top_share 1: every sequence shares its top, R = N - 1 (R close to N);
    top_share 0: distinct strokes, R small."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.frontend.io.generate import digits_like
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.verdicts import Verdict
    ds = digits_like(40, seed=1, tokens=6, targets=(1, 2), top_share=share)
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    R = c.info["R"]
    assert lo * (ds.N - 1) <= R <= hi * (ds.N - 1) + (1 if share == 0 else 0)
    assert check_network(c.net, inputs, targets, c.claims).verdict == Verdict.VERIFIED


@pytest.mark.parametrize("kw", [dict(n_seq=0), dict(n_seq=5, tokens=1), dict(n_seq=5, tokens=17),
                                dict(n_seq=5, targets=(0, 1)), dict(n_seq=5, targets=(3, 2)),
                                dict(n_seq=5, top_share=1.5), dict(n_seq=5, common=0)])
def test_digits_like_rejects_bad_parameters(kw):
    from proofcheck.frontend.io.generate import digits_like
    with pytest.raises(ValueError):
        digits_like(**kw)


def test_generate_cli_writes_a_loadable_dataset(tmp_path):
    from proofcheck.frontend.cli import main
    from proofcheck.frontend.io.generate import digits_like
    from proofcheck.frontend.io.datasets import load_dataset
    out = tmp_path / "big.json"
    assert main(["generate", "--sequences", "50", "--tokens", "8", "--targets", "1-2",
                 "--out", str(out)]) == 0
    ds = load_dataset(out)
    assert ds.pairs == digits_like(50, 0, 8, (1, 2)).pairs
