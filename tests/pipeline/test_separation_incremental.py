"""Phase S at speed: the incremental construction (proofcheck/constructions/afz/phases/separation.py) builds
exactly the blocks, claims and rows of the straightforward one
(tests/separation_reference.py), and the flint checker's lazy offsets for runs of
tags (proofcheck/kernel/fast/flint.py, ``_Offsets``) agree with the plain
reference on separation networks, including mutated ones, which both REFUTE with
the same witness."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
import separation_reference as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import admissible_datasets

from proofcheck.constructions.afz.phases.separation import separate
from proofcheck.frontend.io.generate import (
    STYLES,
    digits_like,
    random_dataset,
)
from proofcheck.constructions.claim_check import check_network
from proofcheck.constructions.claims import SequenceShift
from proofcheck.kernel.model import Factored, Transformer
from proofcheck.frontend.io.certificate_writer import network_to_json


def _claim_key(c):
    return (c.kind, {k: v for k, v in vars(c).items() if not k.startswith("_")})


def _same(inputs, d, **kw):
    """Assert the fast and the reference phase S agree on everything they return."""
    a, b = separate(inputs, d, **kw), reference.separate(inputs, d, **kw)
    assert (a.u, a.R, a.lambdas, a.classes_after_first_tag) == \
        (b.u, b.R, b.lambdas, b.classes_after_first_tag)
    assert network_to_json(Transformer(d, a.blocks)) == network_to_json(Transformer(d, b.blocks))
    assert [[_claim_key(x) for x in c] for c in a.claims] == \
        [[_claim_key(x) for x in c] for c in b.claims]
    assert list(a.rows) == list(b.rows)
    assert a.rows.projections() == b.rows.projections()
    assert a.rows.max_coordinate() == b.rows.max_coordinate()
    return a


@settings(max_examples=60, deadline=None)
@given(admissible_datasets(max_N=8, max_n=6))
def test_fast_separation_matches_reference(ds):
    _same([list(p.inputs) for p in ds.pairs], ds.d)


def test_fast_separation_matches_reference_on_every_lambda_candidate():
    """Seeded datasets whose rounds pick lam = 1, 2, 3, 5, 8 (the injectivity test
    on narrow and wide classes decides each candidate like the full test)."""
    seen = Counter()
    for seed in range(40):
        ds = random_dataset(seed, d=2 + seed % 3, N=8, max_n=6, style=STYLES[seed % 4])
        sep = _same([list(p.inputs) for p in ds.pairs], ds.d)
        seen.update(sep.lambdas[1:])
    assert {1, 2, 3, 5} <= set(seen), seen


@pytest.mark.parametrize("n, top_share", [(60, 1.0), (150, 0.3)])
def test_fast_separation_matches_reference_on_digits_like(n, top_share):
    """Many rounds: with top_share 1 every round splits the one shared-top class
    (R = N - 1, wide classes pile up); with 0.3 many narrow classes."""
    ds = digits_like(n, seed=3, top_share=top_share)
    sep = _same([list(p.inputs) for p in ds.pairs], ds.d)
    assert sep.R >= (n - 1 if top_share == 1 else 10)


def test_fast_separation_matches_reference_float_safe():
    for seed in range(3):
        ds = random_dataset(seed, d=3, N=6, max_n=5)
        _same([list(p.inputs) for p in ds.pairs], ds.d, float_format="float64")


# ---- the checker on separation networks: lazy offsets vs the Fraction reference ----

def _separation_case(n=16, tokens=6):
    ds = digits_like(n, seed=5, tokens=tokens, targets=(1, 1), top_share=1.0)
    inputs = [list(p.inputs) for p in ds.pairs]
    sep = separate(inputs, ds.d)
    return inputs, ds.d, sep


def _both(net, inputs, claims):
    a = check_network(net, inputs, None, claims, backend="flint")
    b = check_network(net, inputs, None, claims, backend="fraction")
    assert a.verdict == b.verdict
    assert a.witness == b.witness
    return a, b


def test_lazy_offsets_run_through_a_separation_network():
    """R + 1 tags in a row with a probe between each two: every tag after the first
    is kept lazily, and the probed sequences are rebased (their top changed)."""
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.fast.flint import FlintBackend, _Offsets
    inputs, d, sep = _separation_case()
    assert sep.R == len(inputs) - 1
    be = FlintBackend()
    st = be.load(inputs)
    for blk in sep.blocks:
        st, _, _ = be.ff(blk.ff, st)
        st, _, _ = be.sa(blk.sa, st, HARDMAX)
        assert isinstance(st.off, _Offsets) and st.tag is not None
    assert st.off.n == sep.R + 1
    assert 0 < max(st.off.k) < sep.R + 1 and min(st.off.k) < max(st.off.k)
    a, b = _both(Transformer(d, sep.blocks), inputs, sep.claims)
    assert a.verdict.value == "VERIFIED"
    assert a.outputs == b.outputs
    assert [tuple(r) for r in a.outputs for r in r] == list(sep.rows)


def _mutate_sa_lam(blk, lam):
    return replace(blk, sa=replace(blk.sa, V=Factored(lam)))


def _mutate_shift(blk, k):
    W = tuple(tuple(x * k for x in row) for row in blk.ff.W)
    return replace(blk, ff=replace(blk.ff, W=W))


@pytest.mark.parametrize("mutation", ["tag lam", "probe shift", "tag claim lam 0", "tag claim top"])
def test_mutated_separation_network_refuted_like_the_reference(mutation):
    """A wrong tag factor, a wrong probe shift (network mutated, claims kept) or a
    wrong tag claim (a claimed factor 0, i.e. "nothing moves", or a wrong attended
    row) deep in the run of lazy tags: flint and the Fraction reference both REFUTE
    with the same witness."""
    inputs, d, sep = _separation_case()
    blocks, claims = list(sep.blocks), [list(c) for c in sep.claims]
    b = 7  # block 8: after seven lazy tags with probes in between
    if mutation == "tag lam":
        blocks[b] = _mutate_sa_lam(blocks[b], blocks[b].sa.V.lam + 1)
    elif mutation == "probe shift":
        blocks[b] = _mutate_shift(blocks[b], Fraction(1, 2))
    elif mutation == "tag claim lam 0":
        c = claims[b][1]
        claims[b][1] = SequenceShift(Fraction(0), c.top, c.seq_of)
    else:
        c = claims[b][1]
        top = list(c.top)
        j = len(top) - 1
        lo = sum(len(x) for x in inputs[:j])
        top[j] = lo if top[j] != lo else lo + 1  # another row of the same sequence
        claims[b][1] = SequenceShift(c.lam, top, c.seq_of)
    a, _ = _both(Transformer(d, blocks), inputs, [tuple(c) for c in claims])
    assert a.verdict.value == "REFUTED"
    assert a.witness.block == b + 1
    assert a.witness.sublayer == ("FF" if mutation == "probe shift" else "SA")
    assert a.witness.expected != a.witness.got


def test_translate_claim_mutation_refuted_like_the_reference():
    """Block 1's translation is compared as one matrix; a wrong translation vector
    in the claim still gets the per-row witness of the reference."""
    from proofcheck.constructions.claims import Translate
    inputs, d, sep = _separation_case(n=5)
    claims = [list(c) for c in sep.claims]
    c = claims[0][0].c
    claims[0][0] = Translate((c[0],) + tuple(x + 1 for x in c[1:]))
    a, _ = _both(Transformer(d, sep.blocks), inputs, [tuple(c) for c in claims])
    assert a.verdict.value == "REFUTED"
    w = a.witness
    assert (w.block, w.sublayer, w.sequence, w.token, w.coordinate) == (1, "FF", 0, 0, 1)


def test_tag_with_factor_zero_leaves_the_lazy_path():
    """A tag with lam = -1 (1 + lam = 0: the top token vanishes) is not kept
    lazily; the general path and the tags after it still equal the reference."""
    inputs, d, sep = _separation_case(n=6)
    blocks = list(sep.blocks)
    blocks[2] = _mutate_sa_lam(blocks[2], Fraction(-1))
    a, b = _both(Transformer(d, blocks), inputs, None)
    assert a.outputs == b.outputs and len(a.outputs) == len(inputs)


# ---- magnitudes beyond float64: the pre-filter on mantissas and exponents -------

@settings(max_examples=200, deadline=None)
@given(st.integers(-2 ** 80, 2 ** 80).filter(bool), st.integers(1, 2 ** 80),
       st.integers(-3000, 3000))
def test_frexp_is_within_one_rounding_at_any_magnitude(p, q, s):
    from flint import fmpq

    from proofcheck.kernel.fast.flint import ZERO_E, _frexp
    x = Fraction(p, q) * Fraction(2) ** s
    m, e = _frexp([fmpq(x.numerator, x.denominator), fmpq(0)])
    assert 0.5 <= abs(m[0]) < 1 and (m[1], e[1]) == (0, ZERO_E)
    approx = Fraction(float(m[0])) * Fraction(2) ** int(e[0])
    assert abs(approx - x) <= abs(x) * Fraction(1, 2 ** 53)


def _scaled_case(scale, n=16):
    ds = digits_like(n, seed=5, tokens=6, targets=(1, 1), top_share=1.0)
    inputs = [[tuple(x * scale for x in t) for t in p.inputs] for p in ds.pairs]
    return inputs, ds.d, separate(inputs, ds.d)


@pytest.mark.parametrize("bits", [1100, -1100])
def test_separation_check_beyond_float_range_prefilters_and_agrees(bits, monkeypatch):
    """Every token times 2^1100 (projections beyond float64) or 2^-1100: the
    probes' candidate rows and the tags' sign test still come from the float64
    pre-filter (mantissas and exponents kept apart), far fewer exact projections
    than sequences x rounds, and flint equals the Fraction reference."""
    from proofcheck.kernel.fast import flint
    inputs, d, sep = _scaled_case(Fraction(2) ** bits)
    assert Transformer(d, sep.blocks).max_bits() > 1100
    calls = [0]
    projector = flint._Offsets.projector

    def counting(self, w):
        f = projector(self, w)

        def g(j):
            calls[0] += 1
            return f(j)
        return g
    monkeypatch.setattr(flint._Offsets, "projector", counting)
    a, b = _both(Transformer(d, sep.blocks), inputs, sep.claims)
    assert a.verdict.value == "VERIFIED" and a.outputs == b.outputs
    assert calls[0] < len(inputs) * sep.R / 2, calls[0]


def test_separation_mutation_beyond_float_range_refuted_like_the_reference():
    inputs, d, sep = _scaled_case(Fraction(2) ** 1100)
    blocks = list(sep.blocks)
    blocks[7] = _mutate_shift(blocks[7], Fraction(1, 2))
    a, _ = _both(Transformer(d, blocks), inputs, sep.claims)
    assert a.verdict.value == "REFUTED"
    assert (a.witness.block, a.witness.sublayer) == (8, "FF")


@settings(max_examples=25, deadline=None)
@given(admissible_datasets(max_N=7, max_n=5), st.sampled_from([-1100, 0, 1100]),
       st.integers(0, 10 ** 6))
def test_separation_networks_at_any_scale_check_like_the_reference(ds, bits, pick):
    """Phase S networks of random datasets, tokens scaled by 2^bits: flint (lazy
    offsets, float64 frames) equals the Fraction reference, and a probe whose shift
    is halved is REFUTED by both with the same witness."""
    scale = Fraction(2) ** bits
    inputs = [[tuple(x * scale for x in t) for t in p.inputs] for p in ds.pairs]
    sep = separate(inputs, ds.d)
    a, b = _both(Transformer(ds.d, sep.blocks), inputs, sep.claims)
    assert a.verdict.value == "VERIFIED" and a.outputs == b.outputs
    if sep.R:
        blocks = list(sep.blocks)
        k = 1 + pick % sep.R
        blocks[k] = _mutate_shift(blocks[k], Fraction(1, 2))
        a, _ = _both(Transformer(ds.d, blocks), inputs, sep.claims)
        assert a.verdict.value == "REFUTED" and a.witness.block == k + 1


@pytest.mark.parametrize("modulus", [7, 1009])
def test_wide_residue_collisions_are_decided_exactly(modulus, monkeypatch):
    """With a tiny modulus most residues of wide values collide; each collision is
    compared on the exact values, so the network is still the reference's."""
    import proofcheck.constructions.afz.phases.separation as sep_mod
    monkeypatch.setattr(sep_mod, "_P", modulus)
    for seed in range(6):
        ds = random_dataset(seed, d=2 + seed % 3, N=8, max_n=6, style=STYLES[seed % 4])
        _same([list(p.inputs) for p in ds.pairs], ds.d)
    ds = digits_like(40, seed=3, top_share=1.0)
    _same([list(p.inputs) for p in ds.pairs], ds.d)
