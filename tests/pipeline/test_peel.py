"""The peel layer (proofcheck/constructions/afz/layers/peel.py): exact conclusions on random
instances, the symbolic proof, and the flint backend's support path for rank-one
FFs with unbounded pieces around an identity piece (agrees with the reference,
also through the sorted index of a second layer in the same direction)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.layers.peel import CONFIGURATIONS, peel_ff, symbolic
from proofcheck.kernel.fast import get_backend
from proofcheck.kernel.fast.flint import _support
from proofcheck.kernel.model import ParameterError
from proofcheck.kernel.verdicts import Verdict

F = Fraction
small = st.fractions(min_value=-6, max_value=6, max_denominator=4)


@st.composite
def peel_cases(draw):
    """A direction, a fixed band [lo, hi], a + b <= 4 points outside it with random
    displacements, and tokens inside the band (some on its edges)."""
    d = draw(st.integers(2, 3))
    w = (F(draw(st.integers(1, 3))),) + tuple(draw(small) for _ in range(d - 1))
    lo = draw(small)
    hi = lo + draw(st.fractions(min_value=0, max_value=4, max_denominator=3))
    a = draw(st.integers(0, 4))
    b = draw(st.integers(0, 4 - a))
    ups = sorted(set(draw(st.lists(st.fractions(min_value=F(1, 8), max_value=9, max_denominator=8),
                                   min_size=a, max_size=a))))
    downs = sorted(set(draw(st.lists(st.fractions(min_value=F(1, 8), max_value=9,
                                                  max_denominator=8), min_size=b, max_size=b))))
    disp = lambda: tuple(draw(small) for _ in range(d))  # noqa: E731
    top = [(hi + t, disp()) for t in ups]
    bottom = [(lo - t, disp()) for t in downs]
    inside = [lo, hi] + [lo + (hi - lo) * F(k, 5) for k in range(1, 5)]
    return d, w, lo, hi, top, bottom, inside


def _token(w, t, extra):
    """A token with projection t on w (first coordinate solved), other coordinates extra."""
    rest = sum((a * x for a, x in zip(w[1:], extra)), F(0))
    return ((t - rest) / w[0],) + tuple(extra)


def _apply_both(layers, seqs):
    out = {}
    for name in ("flint", "fraction"):
        be = get_backend(name)
        s = be.load(seqs)
        for ff in layers:
            s = be.ff(ff, s)[0]
        out[name] = be.to_fractions(s)
    return out


@settings(max_examples=120, deadline=None)
@given(peel_cases(), st.data())
def test_peel_moves_its_points_and_fixes_the_band(case, data):
    d, w, lo, hi, top, bottom, inside = case
    ff = peel_ff(w, top, bottom, hi, lo)
    assert ff.width == len(top) + len(bottom) <= 4
    extra = lambda: tuple(data.draw(small) for _ in range(d - 1))  # noqa: E731
    moved = [(_token(w, t, extra()), D) for t, D in top + bottom]
    fixed = [_token(w, t, extra()) for t in inside]
    seqs = [[x for x, _ in moved] + fixed]
    out = _apply_both([ff, ff], seqs)  # twice: the second layer uses the sorted index
    assert out["flint"] == out["fraction"]
    once = _apply_both([ff], seqs)["flint"]
    assert once == [tuple(a + b for a, b in zip(x, D)) for x, D in moved] + fixed


def test_peel_rejects_bad_input():
    w = (F(1), F(0))
    z = (F(0), F(0))
    with pytest.raises(ParameterError):
        peel_ff(w, [(F(k + 3), z) for k in range(5)], [], F(2), F(0))  # width 5
    with pytest.raises(ParameterError):
        peel_ff(w, [(F(1), z)], [], F(2), F(0))  # a top point inside the band
    with pytest.raises(ParameterError):
        peel_ff(w, [(F(3), z), (F(3), z)], [], F(2), F(0))  # two points coincide
    with pytest.raises(ParameterError):
        peel_ff(w, [], [], F(0), F(2))  # lo > hi


def test_peel_symbolic_proof_verifies():
    r = symbolic(2)
    assert r.verdict == Verdict.VERIFIED
    assert sum(1 for x in r.details if x.startswith("a = ")) == 2 * len(CONFIGURATIONS) == 28


def test_peel_symbolic_proof_covers_the_four_top_layer(monkeypatch):
    """The construction's usual layer has four top points and none below; a layer wrong
    only in that configuration (the fourth column doubled) is REFUTED there — a proof of
    the 2 + 2 configuration alone would pass it."""
    import proofcheck.constructions.afz.layers.peel as peel
    real = peel.peel_ff

    def wrong(w, top, bottom, hi, lo, label="peel"):
        ff = real(w, top, bottom, hi, lo, label)
        if len(top) == 4:
            W = list(ff.W)
            W[3] = tuple(2 * x for x in W[3])
            ff = type(ff)(ff.eta, ff.U, ff.b, tuple(W))
        return ff
    monkeypatch.setattr(peel, "peel_ff", wrong)
    r = peel._symbolic.__wrapped__(2)
    assert r.verdict == Verdict.REFUTED
    assert "a = 4, b = 0, lo < hi: not proved" in r.details
    assert r.witness is not None and "q4" in r.witness.reason


def test_support_runs_of_non_identity_pieces():
    k = [F(0), F(1), F(2)]
    assert _support(k, [(1,), None, None, (1,)]) == [(None, F(0)), (F(2), None)]
    assert _support(k, [None, (1,), (1,), None]) == [(F(0), F(2))]
    assert _support(k, [(1,), (1,), (1,), (1,)]) == [(None, None)]
    assert _support(k, [None, None, None, None]) == []
