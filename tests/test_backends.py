"""Cross-check of the two exact backends: python-flint (with its structural
shortcuts) and the literal Fraction reference give identical outputs."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.backends import get_backend
from proofcheck.kernel.model import FF, SA, Factored

small = st.fractions(min_value=-4, max_value=4, max_denominator=3)


def vecs(d):
    return st.tuples(*[small] * d)


@st.composite
def sequences(draw, d, min_seqs=1, max_seqs=3):
    """Sequences with deliberate repeats of projections (ties) and zeros."""
    pool = draw(st.lists(vecs(d), min_size=1, max_size=6))
    pool.append((Fraction(0),) * d)
    k = draw(st.integers(min_seqs, max_seqs))
    return [draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5)) for _ in range(k)]


@st.composite
def ff_layers(draw, d):
    width = draw(st.integers(0, 4))
    rank_one = draw(st.booleans())
    w = draw(vecs(d))
    U = tuple((tuple(draw(small) * x for x in w) if rank_one else draw(vecs(d)))
              for _ in range(width))
    return FF(draw(st.sampled_from([Fraction(1), Fraction(0), draw(small)])), U,
              tuple(draw(small) for _ in range(width)), tuple(draw(vecs(d)) for _ in range(width)))


@st.composite
def factored(draw, d, max_rank=2):
    r = draw(st.integers(0, max_rank))
    return Factored(draw(small), tuple(draw(vecs(d)) for _ in range(r)),
                    tuple(draw(vecs(d)) for _ in range(r)))


@st.composite
def sa_layers(draw, d):
    if draw(st.booleans()):  # rank-one A without identity part: the flint fast path
        A = Factored(Fraction(0), (draw(vecs(d)),), (draw(vecs(d)),))
    else:
        A = draw(factored(d))
    return SA(draw(small), A, draw(factored(d)))


def _run(kind, layer, seqs, backend):
    be = get_backend(backend)
    st_ = be.load(seqs)
    flat = [tuple(x) for x in be.to_fractions(st_)]
    st_, touched, before = be.ff(layer, st_) if kind == "ff" else be.sa(layer, st_, HARDMAX)
    if before is not None:  # updated in place: before holds exactly the old touched rows
        assert sorted(before) == sorted(touched)
        assert all(tuple(Fraction(int(v.p), int(v.q)) for v in before[i]) == flat[i] for i in before)
    return be.to_fractions(st_), touched


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4).flatmap(lambda d: st.tuples(ff_layers(d), sequences(d))))
def test_ff_backends_agree(case):
    layer, seqs = case
    a, touched = _run("ff", layer, seqs, "flint")
    b, _ = _run("ff", layer, seqs, "fraction")
    assert a == b
    if touched is not None:  # rows the fast path did not touch are unchanged
        flat = [tuple(x) for s in seqs for x in s]
        assert all(a[i] == flat[i] for i in range(len(flat)) if i not in set(touched))


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 4).flatmap(lambda d: st.tuples(sa_layers(d), sequences(d))))
def test_sa_backends_agree(case):
    layer, seqs = case
    assert _run("sa", layer, seqs, "flint")[0] == _run("sa", layer, seqs, "fraction")[0]


def test_hardmax_ties_are_averaged():
    """Two tokens tie for the top score: each attends to both, weight 1/2 each."""
    F = Fraction
    seqs = [[(F(1), F(0)), (F(0), F(1)), (F(-1), F(-1))]]
    u = (F(1), F(1))
    layer = SA(F(0), Factored(F(0), (u,), (u,)), Factored(F(1)))
    for backend in ("flint", "fraction"):
        out, _ = _run("sa", layer, seqs, backend)
        assert out[0] == out[1] == (F(1, 2), F(1, 2))
        assert out[2] == (F(-1), F(-1))  # negative side: the u-minimal token itself
