"""``Transformer.sq_norm`` (exact ``||theta||^2`` over common denominators) equals
the plain left-to-right sum of the squares of every stored scalar."""
from __future__ import annotations

from fractions import Fraction as F

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
from proofcheck.frontend.io.generate import digits_like
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer


def plain_sq_norm(net: Transformer):
    return sum((v * v for *_, v in net.parameters()), F(0))


# rationals with shared and with huge, nearly coprime denominators
_q = st.one_of(
    st.integers(-10 ** 30, 10 ** 30),
    st.fractions(max_denominator=12),
    st.builds(F, st.integers(-2 ** 300, 2 ** 300), st.integers(1, 2 ** 200)),
)


@st.composite
def networks(draw, d=3):
    def vec():
        return tuple(draw(st.lists(_q, min_size=d, max_size=d)))

    blocks = []
    for _ in range(draw(st.integers(0, 4))):
        w = draw(st.integers(0, 3))
        ff = FF(draw(_q), tuple(vec() for _ in range(w)),
                tuple(draw(_q) for _ in range(w)), tuple(vec() for _ in range(w)))
        r = draw(st.integers(0, 2))
        A = Factored(draw(_q), tuple(vec() for _ in range(r)), tuple(vec() for _ in range(r)))
        sa = SA(draw(_q), A, Factored(draw(_q)))
        blocks.append(Block(ff, sa))
    return Transformer(d, blocks)


@settings(max_examples=80, deadline=None)
@given(networks())
def test_sq_norm_equals_plain_sum(net):
    got = net.sq_norm()
    assert type(got) is F
    assert got == plain_sq_norm(net)


def test_sq_norm_on_a_separation_network():
    """R = N - 1 (every sequence shares its top): thousands of distinct
    denominators of a few hundred bits."""
    ds = digits_like(40, seed=1, top_share=1.0)
    c = construct([list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs], ds.d)
    assert c.info["R"] == 39
    assert c.net.sq_norm() == plain_sq_norm(c.net)


def test_sq_norm_exact_values_and_generic_scalars():
    ff = FF(F(1, 2), ((F(1, 3), F(2)),), (F(-1, 3),), ((F(1, 6), F(0)),))
    net = Transformer(2, [Block(ff, SA(F(1), Factored(F(0)), Factored(F(3, 4))))])
    # eta, U (2), b, W (2); rho, A.lam, V.lam
    want = F(1, 4) + F(1, 9) + 4 + F(1, 9) + F(1, 36) + 0 + 1 + 0 + F(9, 16)
    assert net.sq_norm() == want
    x = sympy.Symbol("x")
    sym = Transformer(2, [Block(FF(x), SA(F(1, 2), Factored(F(0)), Factored(F(0))))])
    assert sympy.simplify(sym.sq_norm() - (x ** 2 + sympy.Rational(1, 4))) == 0
    assert Transformer(2, []).sq_norm() == 0


def test_sq_norm_kept_only_for_the_same_blocks():
    """The value kept on the network is the one of its current blocks: replacing, adding or
    removing a block gives the new sum (blocks are frozen, the list is not)."""
    one = FF(F(1), ((F(1), F(2)),), (F(3, 7),), ((F(5), F(-1, 2)),))
    sa = SA(F(1), Factored(F(0)), Factored(F(0)))
    net = Transformer(2, [Block(one, sa)])
    first = net.sq_norm()
    assert first == plain_sq_norm(net)
    net.blocks[0] = Block(FF(F(2), one.U, one.b, one.W), sa)
    assert net.sq_norm() == plain_sq_norm(net) != first
    net.blocks.append(Block(one, sa))
    assert net.sq_norm() == plain_sq_norm(net)
    net.blocks.pop()
    net.blocks.pop()
    assert net.sq_norm() == plain_sq_norm(net) == 0
