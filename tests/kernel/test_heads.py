"""Multi-head and causally masked SA (docs/spec.md §1 "Extensions"): the model, the plain
evaluator and the fast backend against a literal Fraction reading of the formulas,
and fast = plain on random multi-head masked networks with ties (hardmax)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.causal import with_mask
from proofcheck.kernel.evaluate import PlainBackend, run
from proofcheck.kernel.fast import get_backend
from proofcheck.kernel.model import FF, SA, Block, Factored, ParameterError, Transformer

F = Fraction
small = st.fractions(min_value=-2, max_value=2, max_denominator=2)
ZERO = Factored(F(0))


def vecs(d):
    return st.tuples(*[small] * d)


# ------------------------------------------------------------- the reference

def ref_matrix(f: Factored, x):
    return [f.lam * x[i] + sum((a[i] * sum(bj * xj for bj, xj in zip(b, x))
                                for a, b in zip(f.left, f.right)), F(0)) for i in range(len(x))]


def ref_sa(sa: SA, seq):
    """docs/spec.md §1 read literally in Fractions: per head, ties averaged over the allowed keys."""
    n, d = len(seq), len(seq[0])
    out = [[sa.rho * x for x in seq[i]] for i in range(n)]
    for A, V in sa.heads:
        for i in range(n):
            keys = range(i + 1) if sa.causal else range(n)
            Ax = ref_matrix(A, seq[i])
            s = {l: sum(a * b for a, b in zip(Ax, seq[l])) for l in keys}
            C = [l for l in keys if s[l] == max(s.values())]
            mean = [sum(seq[l][c] for l in C) / len(C) for c in range(d)]
            out[i] = [o + v for o, v in zip(out[i], ref_matrix(V, mean))]
    return [tuple(r) for r in out]


def ref_ff(ff: FF, x):
    out = [ff.eta * xi for xi in x]
    for u, b, w in zip(ff.U, ff.b, ff.W):
        z = max(F(0), sum(a * c for a, c in zip(u, x)) + b)
        out = [o + wi * z for o, wi in zip(out, w)]
    return tuple(out)


def ref_run(net: Transformer, seqs):
    out = []
    for s in seqs:
        s = [tuple(F(x) for x in t) for t in s]
        for blk in net.blocks:
            s = ref_sa(blk.sa, [ref_ff(blk.ff, x) for x in s])
        out.append(s)
    return out


# ------------------------------------------------------------- strategies

@st.composite
def factored(draw, d, rank_one=None):
    if rank_one if rank_one is not None else draw(st.booleans()):
        return Factored(F(0), (draw(vecs(d)),), (draw(vecs(d)),))
    r = draw(st.integers(0, 2))
    return Factored(draw(small), tuple(draw(vecs(d)) for _ in range(r)),
                    tuple(draw(vecs(d)) for _ in range(r)))


@st.composite
def sa_layers(draw, d, causal=None):
    H = draw(st.integers(1, 3))
    heads = [(draw(factored(d)), draw(factored(d))) for _ in range(H)]
    c = draw(st.booleans()) if causal is None else causal
    return SA.multi(draw(st.sampled_from([F(0), F(1), draw(small)])), heads, causal=c)


@st.composite
def ff_layers(draw, d):
    w = draw(st.integers(0, 2))
    return FF(draw(st.sampled_from([F(1), draw(small)])), tuple(draw(vecs(d)) for _ in range(w)),
              tuple(draw(small) for _ in range(w)), tuple(draw(vecs(d)) for _ in range(w)))


@st.composite
def networks(draw, causal=None):
    d = draw(st.integers(1, 3))
    L = draw(st.integers(1, 3))
    blocks = [Block(draw(ff_layers(d)) if draw(st.booleans()) else FF(F(1)),
                    draw(sa_layers(d, causal))) for _ in range(L)]
    pool = draw(st.lists(vecs(d), min_size=1, max_size=4)) + [(F(0),) * d]  # ties, zeros
    seqs = [draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5))
            for _ in range(draw(st.integers(1, 3)))]
    return Transformer(d, blocks), seqs


# ------------------------------------------------------------- tests

@settings(max_examples=60, deadline=None)
@given(networks())
def test_fast_equals_plain_on_multi_head_masked_networks(case):
    net, seqs = case
    assert run(net, seqs, get_backend("flint")) == run(net, seqs, PlainBackend())


@settings(max_examples=30, deadline=None)
@given(networks(causal=True))
def test_plain_equals_fraction_reference(case):
    net, seqs = case
    if net.max_bits() > 8:
        return
    assert run(net, seqs, PlainBackend()) == ref_run(net, seqs)


def e(*xs):
    return tuple(F(x) for x in xs)


def test_causal_mask_exact_values():
    """A = I, V = I, rho = 0 in d = 1 on (1, 3, 2): token i attends to the largest
    ``x_l^2`` with l <= i: (1, 3, 3) masked, (3, 3, 3) unmasked."""
    sa = SA(F(0), Factored(F(1)), Factored(F(1)))
    net = Transformer(1, [Block(FF(F(1)), sa)])
    seq = [[e(1), e(3), e(2)]]
    assert run(net, seq) == [[e(3), e(3), e(3)]]
    for be in (PlainBackend(), get_backend("flint")):
        assert run(with_mask(net), seq, be) == [[e(1), e(3), e(3)]]


def test_causal_ties_averaged_among_allowed_keys():
    """Rank-one A = e e^T with every score tied (x_l = +-1): token i averages x_0..x_i."""
    sa = SA(F(0), Factored(F(0), (e(1),), (e(0),)), Factored(F(1)), causal=True)
    net = Transformer(1, [Block(FF(F(1)), sa)])
    seq = [[e(1), e(-1), e(4)]]
    want = [[e(1), e(0), (F(4, 3),)]]
    for be in (PlainBackend(), get_backend("flint")):
        assert run(net, seq, be) == want


def test_two_heads_add_their_terms():
    """Head 1 attends to the max (A = e e^T), head 2 to the min (A = -e e^T), V = I
    each, rho = 0: every token becomes max + min."""
    up = Factored(F(0), (e(1),), (e(1),))
    down = Factored(F(0), (e(-1),), (e(1),))
    sa = SA.multi(F(0), [(up, Factored(F(1))), (down, Factored(F(1)))])
    assert sa.H == 2 and sa.n_params() == 1 + 3 + 1 + 3 + 1
    net = Transformer(1, [Block(FF(F(1)), sa)])
    for be in (PlainBackend(), get_backend("flint")):
        assert run(net, [[e(1), e(2), e(5)]], be) == [[e(6), e(6), e(6)]]
        assert run(with_mask(net), [[e(1), e(2), e(5)]], be) == [[e(2), e(3), e(6)]]


def test_defaults_are_one_head_no_mask():
    sa = SA(F(1), Factored(F(0)), Factored(F(0)))
    assert sa.H == 1 and sa.heads == ((sa.A, sa.V),) and sa.causal is False
    assert sa == SA.multi(F(1), [(sa.A, sa.V)])
    net = Transformer(1, [Block(FF(F(1)), sa)])
    assert not net.causal and with_mask(net).causal and not with_mask(with_mask(net), False).causal
    names = [p[2] for p in Transformer(1, [Block(FF(F(1)), SA.multi(
        F(0), [(ZERO, ZERO), (ZERO, ZERO)]))]).parameters()]
    assert names == ["eta", "rho", "heads[0].A.lam", "heads[0].V.lam", "heads[1].A.lam",
                     "heads[1].V.lam"]


@pytest.mark.parametrize("kwargs, parameter", [
    ({"causal": 1}, "causal"), ({"more_heads": ((ZERO,),)}, "more_heads"),
    ({"more_heads": [(ZERO, ZERO)]}, "more_heads"), ({"more_heads": ((ZERO, "x"),)}, "head 2 V"),
])
def test_bad_heads_or_mask_rejected(kwargs, parameter):
    with pytest.raises(ParameterError) as ex:
        SA(F(0), ZERO, ZERO, **kwargs)
    assert ex.value.parameter == parameter


def test_multi_needs_a_head():
    with pytest.raises(ParameterError):
        SA.multi(F(0), [])


def test_head_dimensions_must_agree():
    with pytest.raises(ParameterError) as ex:
        SA.multi(F(0), [(Factored(F(0), (e(1),), (e(1),)), ZERO),
                        (Factored(F(0), (e(1, 2),), (e(1, 2),)), ZERO)])
    assert ex.value.parameter == "A, V"


def test_bench_heads_quick_routes_agree(capsys):
    from bench.heads import main
    assert main(["--quick"]) == 0
    assert "outputs equal: True" in capsys.readouterr().out
