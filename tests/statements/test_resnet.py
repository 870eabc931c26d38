"""The ``resnet`` statement (docs/spec.md §2; proofcheck/constructions/resnet): the relocation chain maps points
exactly, the ResNet on flattened sequences interpolates exactly and every check can
fail with a witness, the parameter comparison, and the token-wise obstruction
cross-checked against brute force."""
from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.resnet import chain, checks, flattened, tokenwise
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.examples import sample
from proofcheck.frontend.io.generate import random_dataset
from proofcheck.kernel.dataset import Dataset, Pair, check_admissible
from proofcheck.kernel.layercheck import evaluate_layer
from proofcheck.kernel.verdicts import Verdict
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel

FAST = settings(max_examples=25, deadline=None)


def run_chain(ch, points):
    state = [[tuple(F(x) for x in p)] for p in points]
    for ff in ch.layers:
        state = evaluate_layer(ff, state)
    return [s[0] for s in state]


# ------------------------------------------------------------------ chain
@st.composite
def points_and_images(draw):
    D = draw(st.integers(1, 3))
    coord = st.fractions(min_value=-4, max_value=4, max_denominator=3)
    pts = draw(st.lists(st.tuples(*[coord] * D), min_size=1, max_size=7, unique=True))
    # images: other points (cycles, merges), themselves, or fresh points
    imgs = [draw(st.one_of(st.sampled_from(pts), st.tuples(*[coord] * D))) for _ in pts]
    return pts, imgs


@FAST
@given(points_and_images())
def test_chain_maps_every_point_to_its_image(pi):
    pts, imgs = pi
    ch = chain.relocation_chain(pts, imgs)
    assert run_chain(ch, pts) == [tuple(F(x) for x in q) for q in imgs]
    assert ch.final == [tuple(F(x) for x in q) for q in imgs]
    moved = sum(p != q for p, q in zip(pts, imgs))
    assert len(ch.layers) == moved + ch.detours and ch.detours <= moved
    assert all(ff.width == 3 and ff.eta == 1 for ff in ch.layers)


def test_chain_swap_needs_one_detour_and_backends_agree():
    a, b, c = (F(0), F(0)), (F(1), F(0)), (F(0), F(1))
    ch = chain.relocation_chain([a, b, c], [b, a, c])
    assert ch.detours == 1 and len(ch.layers) == 3
    assert ch.moves[0].detour and ch.moves[0].q[0] == 2  # fresh point beyond every coordinate
    assert run_chain(ch, [a, b, c]) == [b, a, c]
    with pytest.raises(ValueError, match="distinct"):
        chain.relocation_chain([a, a], [b, c])
    # a point off the cycle (a -> b, b <-> c): the detour must break the cycle itself
    ch = chain.relocation_chain([a, b, c], [b, c, b])
    assert ch.detours == 1 and ch.moves[0].index in (1, 2) and len(ch.layers) == 4
    assert run_chain(ch, [a, b, c]) == [b, c, b]
    # two cycles and a tail into each: one detour per cycle
    pts = [(F(k), F(0)) for k in range(6)]
    imgs = [pts[1], pts[0], pts[0], pts[4], pts[3], pts[3]]
    ch = chain.relocation_chain(pts, imgs)
    assert ch.detours == 2 and run_chain(ch, pts) == imgs


# ------------------------------------------------------------------ datasets
def test_tokenisations_of_the_digits_sample():
    ds, _ = sample()
    imgs, labels = flattened.digits_images(ds)
    two = flattened.tokenise(imgs, labels, 2, ds.name)
    assert two.pairs == ds.pairs  # the 2x2 tokenisation IS the sample's tokens
    px = flattened.tokenise(imgs, labels, 1, ds.name)
    four = flattened.tokenise(imgs, labels, 4, ds.name)
    assert (px.d, len(px.pairs[0].inputs), four.d, len(four.pairs[0].inputs)) == (3, 64, 18, 4)
    assert px.pairs[0].inputs[9] == (F(imgs[0][1][1]), F(1), F(1))
    assert flattened.digits_images(random_dataset(0, d=6, N=3)) is None
    with pytest.raises(ValueError):
        flattened.tokenise(imgs, labels, 3, ds.name)


def test_pad_to_length_keeps_targets_and_admissibility():
    base = random_dataset(2, d=2, N=5, max_n=4)
    for n in (4, 9):
        ds = flattened.pad_to_length(base, n, seed=1)
        check_admissible(ds)
        assert ds.N == base.N and all(len(p.inputs) == n for p in ds.pairs)
        for p, q in zip(ds.pairs, base.pairs):
            assert p.outputs == q.outputs and p.inputs[:len(q.inputs)] == q.inputs
    with pytest.raises(ValueError):
        flattened.pad_to_length(base, 2)


# ------------------------------------------------------------------ (a) ResNet
def test_resnet_interpolates_ragged_data_exactly_on_both_backends():
    ds = random_dataset(5, d=2, N=6, max_n=5)
    assert len({len(p.inputs) for p in ds.pairs}) > 1  # ragged: padding is exercised
    net = flattened.build(ds)
    r = flattened.verify(ds, net, backends=("flint", "fraction"))
    assert r.verdict == Verdict.VERIFIED, r.lines()
    n, d = net.n, ds.d
    assert net.n_params() == net.K * (6 * n * d + 4) == r.data["P"]
    assert net.padded > 0 and flattened.padding_token(ds) not in {
        t for p in ds.pairs for t in p.inputs + p.outputs}
    # the output vector of sequence j read as tokens is exactly (Y_j, last target repeated)
    y = flattened.unflatten(net.outputs[1], d)
    assert set(y) == set(ds.pairs[1].outputs) and len(y) == n


def test_resnet_mutated_layer_is_refuted_at_that_block():
    ds = random_dataset(3, d=2, N=4, max_n=3)
    net = flattened.build(ds)
    ff = net.chain.layers[2]
    bad_W = (tuple(x + 1 for x in ff.W[0]),) + ff.W[1:]
    net.chain.layers[2] = replace(ff, W=bad_W)
    r = flattened.verify(ds, net)
    assert r.verdict == Verdict.REFUTED
    assert r.witness.block == 3 and r.witness.sublayer == "FF"
    assert r.witness.sequence == net.chain.moves[2].index


def test_resnet_decoding_against_other_targets_is_refuted():
    ds = random_dataset(3, d=2, N=4, max_n=3)
    net = flattened.build(ds)
    p0 = ds.pairs[0]
    moved = tuple((y[0] + 100,) + y[1:] for y in p0.outputs)
    other = Dataset(ds.name, ds.d, (Pair(p0.inputs, moved),) + ds.pairs[1:])
    r = flattened.verify(other, net)
    assert r.verdict == Verdict.REFUTED and r.witness.sequence == 0
    assert "not a target" in r.witness.reason


def test_comparison_rows_and_failure(monkeypatch):
    gen = random_dataset(1, d=2, N=4, max_n=3)
    fam = [flattened.pad_to_length(gen, n) for n in (3, 6, 12)]
    summary, results, rows = checks.compare(fam)
    assert summary.verdict == Verdict.VERIFIED and all(r.verdict.passed for r in results)
    for w in rows:
        assert w["P_R"] == w["K"] * (6 * w["n"] * w["d"] + 4)
        assert w["resnet"] == w["transformer"] == "VERIFIED"
    assert [w["P_R"] for w in rows] == sorted({w["P_R"] for w in rows})  # grows with n
    from proofcheck.constructions.afz.theorems.theorem_1_6 import param_formula
    assert all(w["P_T"] == param_formula(w["d"], w["M"], w["R"]) for w in rows)
    # a broken ResNet makes the side-by-side check fail
    real = flattened.build

    def broken(ds):
        net = real(ds)
        ff = net.chain.layers[0]
        net.chain.layers[0] = replace(ff, b=(ff.b[0] + 1,) + ff.b[1:])
        return net
    monkeypatch.setattr(flattened, "build", broken)
    summary, results, _ = checks.compare(fam[:1])
    assert summary.verdict == Verdict.REFUTED and results[0].witness.block == 1


# ------------------------------------------------------------------ (b) token-wise
def brute_force_exists(ds) -> bool:
    toks = list(dict.fromkeys(t for p in ds.pairs for t in p.inputs))
    values = list(dict.fromkeys(y for p in ds.pairs for y in p.outputs))
    for choice in itertools.product(values, repeat=len(toks)):
        f = dict(zip(toks, choice))
        if all({f[x] for x in p.inputs} == set(p.outputs) for p in ds.pairs):
            return True
    return False


@st.composite
def small_datasets(draw):
    pool = [(F(i), F(i * i % 5)) for i in range(5)]
    targets = [(F(10 + i), F(0)) for i in range(3)]
    N = draw(st.integers(1, 4))
    pairs, seen = [], set()
    for _ in range(N):
        xs = tuple(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True)))
        ys = tuple(draw(st.lists(st.sampled_from(targets), min_size=1, max_size=len(xs),
                                 unique=True)))
        if frozenset(xs) not in seen:
            seen.add(frozenset(xs))
            pairs.append(Pair(xs, ys))
    return Dataset("small", 2, tuple(pairs))


@FAST
@given(small_datasets())
def test_tokenwise_decision_agrees_with_brute_force(ds):
    sol = tokenwise.solve(ds)
    assert sol.status in ("possible", "impossible")
    assert (sol.status == "possible") == brute_force_exists(ds)
    ob = tokenwise.conflicts(ds)
    if ob.first is not None:  # the obstruction implies impossibility
        assert sol.status == "impossible"
        c = ob.first
        assert ds.pairs[c.j].inputs[c.a] == c.token == ds.pairs[c.k].inputs[c.b]
        assert not set(ds.pairs[c.j].outputs) & set(ds.pairs[c.k].outputs)
    r = tokenwise.check(ds)
    assert r.verdict == Verdict.VERIFIED, r.lines()
    if sol.status == "possible":
        assert "is possible" in r.name


def test_tokenwise_witness_on_the_digits_sample():
    ds, _ = sample()
    r = tokenwise.check(ds)
    assert r.verdict == Verdict.VERIFIED
    wit = next(d for d in r.details if d.startswith("witness pair"))
    assert "token (0, 0, 0, 0, 0, 0) = X_0[0] = X_1[0]" in wit
    assert ds.pairs[0].outputs != ds.pairs[1].outputs


def test_tokenwise_wrong_network_is_refuted(monkeypatch):
    ds = checks.reading_examples()[1][0]  # intersecting targets: possible
    sol = tokenwise.solve(ds)
    wrong = dict(sol.f)
    x0 = ds.pairs[0].inputs[1]
    wrong[x0] = (F(7), F(7))  # not a target of sequence 0
    monkeypatch.setattr(tokenwise, "solve", lambda ds, max_nodes=0: tokenwise.Solution(
        "possible", f=wrong))
    r = tokenwise.check(ds)
    assert r.verdict == Verdict.REFUTED and r.witness.sequence == 0
    assert r.witness.got == (F(7), F(7))


def test_reading_examples_check_can_fail(monkeypatch):
    ex = checks.reading_examples()
    flipped = [(ex[1][0], "impossible")] + ex[1:]
    monkeypatch.setattr(checks, "reading_examples", lambda: flipped)
    r = checks.check_reading_examples()
    assert r.verdict == Verdict.REFUTED
    assert (r.witness.expected, r.witness.got) == ("impossible", "possible")


def test_solve_undecided_is_inconclusive():
    ds = checks.reading_examples()[1][0]
    assert tokenwise.solve(ds, max_nodes=0).status == "undecided"
    assert tokenwise.check(ds, max_nodes=0).verdict == Verdict.INCONCLUSIVE


# ------------------------------------------------------------------ CLI
def test_cli_lemma_resnet_prints_its_checks(capsys):
    assert main(["lemma", "resnet", "--example", "digits-sample", "--limit", "6"]) == 0
    out = capsys.readouterr().out  # the summary: every check's line, witnesses kept
    assert "digits-sample-6-patch1x1" in out and "| random-mixed-0-n32 |" not in out
    assert "witness pair: token" in out and "reading: disjoint targets obstruct" in out
    assert main(["lemma", "resnet", "--example", "digits-sample", "--limit", "6",
                 "--verbose"]) == 0
    out = capsys.readouterr().out  # every detail: the parameter table
    assert "| random-mixed-0-n32 |" in out and "reading: a token-wise map" in out
    from proofcheck.kernel.verdicts import Scope
    assert out.rstrip().endswith(f"VERDICT: VERIFIED ({Scope.DATASET.value}; no certificate)")


# ------------------------------------------------- the statement's checks (shared table)
SID = "resnet"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
