"""Mutation tests: changing a single parameter of a constructed network makes
the exact check fail with REFUTED at the first block / sub-layer / sequence /
token where the mutated network's trajectory leaves the construction's.

A mutation that moves no token at any sub-layer (e.g. the bias of a ReLU unit no
token activates, or a perturbed score matrix that keeps every argmax) cannot change
any output, so for those the test asserts the verdict stays VERIFIED and that such
mutations are a minority.
"""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from conftest import NAMED

from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.fast import get_backend
from proofcheck.constructions.claim_check import check_network
from mutate import with_parameter
from proofcheck.kernel.verdicts import Verdict


def _trajectory_divergence(net_a, net_b, inputs):
    """First (block, sublayer, row) where the two networks' states differ, by the
    plain evaluator, or None (two states: the plain evaluator changes rows in place)."""
    be = get_backend("fraction")
    sa, sb = be.load(inputs), be.load(inputs)
    for bi, (ba, bb) in enumerate(zip(net_a.blocks, net_b.blocks), start=1):
        for sub in ("FF", "SA"):
            la, lb = (ba.ff, bb.ff) if sub == "FF" else (ba.sa, bb.sa)
            sa = (be.ff(la, sa) if sub == "FF" else be.sa(la, sa, HARDMAX))[0]
            sb = (be.ff(lb, sb) if sub == "FF" else be.sa(lb, sb, HARDMAX))[0]
            for i, (x, y) in enumerate(zip(be.to_fractions(sa), be.to_fractions(sb))):
                if x != y:
                    return bi, sub, i, sa
    return None


def _mutate(v: Fraction, rng) -> Fraction:
    return v + rng.choice([1, -1, Fraction(1, 3), 2]) * (1 + abs(v))


@pytest.mark.parametrize("name", ["common-top", "tie-heavy", "needs-rounds"])
def test_single_parameter_mutations_are_refuted_with_witness(name):
    ds = NAMED[name]
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    # the scores of an SA layer with V = 0 are never used: its A is dead by definition
    params = [p for p in c.net.parameters()
              if not (p[1] == "SA" and p[2].startswith("A.") and c.net.blocks[p[0] - 1].sa.V.is_zero)]
    rng = random.Random(1234)
    sample = rng.sample(params, min(60, len(params)))
    detected = 0
    for block, sub, pname, value in sample:
        mutated = with_parameter(c.net, block, sub, pname, _mutate(value, rng))
        res = check_network(mutated, inputs, targets, c.claims)
        div = _trajectory_divergence(c.net, mutated, inputs)
        if div is None:
            assert res.verdict == Verdict.VERIFIED, (block, sub, pname)
            continue
        detected += 1
        bi, s, row, state = div
        assert res.verdict == Verdict.REFUTED, (block, sub, pname)
        w = res.witness
        assert (w.block, w.sublayer) == (bi, s), (block, sub, pname, w.describe())
        assert (w.sequence, w.token) == state.locate(row)
        assert w.coordinate is not None and w.expected != w.got
        assert bi == block or bi > block  # the trajectory cannot change before the layer
    # robust parameters exist (the tag's A: a perturbed score keeps its argmax; a
    # snap's U weight on coordinate 2: tokens on the line have x_2 = 0), but most
    # parameters matter; a collapse of this ratio means the sampling went wrong
    assert detected >= 0.6 * len(sample), f"only {detected}/{len(sample)} mutations moved a token"


def test_wrong_target_is_refuted_at_the_output():
    """The network is right but the claimed targets are not: the interpolation
    check (not a claim) fails and names the sequence and token."""
    ds = NAMED["square-builtin"]
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    bad = [list(t) for t in targets]
    bad[0][0] = tuple(x + 1 for x in bad[0][0])
    res = check_network(c.net, inputs, bad, c.claims)
    assert res.verdict == Verdict.REFUTED
    assert res.witness.sequence == 0 and res.witness.block is None


def test_missing_target_is_refuted():
    """Inclusion targets ⊆ outputs: an extra target that nothing maps to is caught."""
    ds = NAMED["tie-heavy"]
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    more = [list(t) for t in targets]
    more[1] = more[1] + [(Fraction(99), Fraction(99))]
    res = check_network(c.net, inputs, more, c.claims)
    assert res.verdict == Verdict.REFUTED
    assert (res.witness.code, res.witness.sequence) == ("target-not-hit", 1)


def test_exception_is_error_never_verified():
    ds = NAMED["tie-heavy"]
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    res = check_network(c.net, inputs, targets, c.claims[:-1])  # one claim missing
    assert res.verdict == Verdict.ERROR
    res = check_network(c.net, [[(Fraction(1),)]], targets, None)  # wrong dimension
    assert res.verdict == Verdict.ERROR
