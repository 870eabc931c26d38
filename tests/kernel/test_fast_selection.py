"""The float64 pre-filters of the fast SA records (proofcheck/kernel/fast/selection.py)
never lose an exact maximiser or minimiser, and the records they give equal the plain
route's: near-ties far below float64 resolution, magnitudes far outside the float64
range, exact ties, zeros, one-token sequences; construction networks whose tag offsets
grow over many sequences while FF layers change some of them."""
from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from flint import fmpq, fmpq_mat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES
from proofcheck.frontend.io.generate import random_dataset
from proofcheck.kernel.evaluate import rows, spans_of
from proofcheck.kernel.fast.flint import FlintBackend, State, _frexp
from proofcheck.kernel.fast.selection import (enclose, lam_identity_gaps, max_abs_columns,
                                              max_candidates, min_product_candidates)
from proofcheck.kernel.fast.softmax import fast_trajectory
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.softmax import SARecord, plain_trajectory, sequence_stats

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def near(base: F, k: int) -> F:
    """``base (1 + k 2^-70)``: apart from ``base`` far below float64 resolution."""
    return base * (1 + F(k, 2 ** 70))


scales = st.sampled_from([F(1), F(3, 7), F(2) ** 3000, F(1, 2 ** 3000), F(2) ** -1060])
values = st.builds(lambda s, b, k, neg: (-1 if neg else 1) * near(s * b, k), scales,
                   st.fractions(min_value=F(1, 4), max_value=4, max_denominator=16),
                   st.integers(0, 3), st.booleans())
# three terms per sequence: a plain value, or two huge terms that cancel in float64
# (exactly they leave k big 2^-70, far above the third term) plus a small one
sums = st.one_of(
    st.builds(lambda x: [x, F(0), F(0)], values),
    st.builds(lambda big, k, x: [near(big, k), -big, x],
              st.sampled_from([F(2) ** 60, F(2) ** 3000, F(7, 3)]), st.integers(-3, 3), values))


def _fq(x: F) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _terms(cols):
    """Enclosure terms of the exact per-sequence sums ``sum(cols[j])`` (one column per
    term, with its sign folded into the value)."""
    out = []
    for col in zip(*cols):
        m, e = _frexp([_fq(abs(x)) for x in col])
        out.append((1, np.where(np.array([x < 0 for x in col]), -m, m), e))
    return out


def _maximisers(xs):
    return {j for j, x in enumerate(xs) if x == max(xs)}


@SETTINGS
@given(st.lists(sums, min_size=1, max_size=12))
def test_max_candidates_hold_every_maximiser(cols):
    got = max_candidates([enclose(_terms(cols))])
    assert _maximisers([sum(c) for c in cols]) <= set(got)


def test_max_candidates_keep_a_maximiser_whose_terms_cancel_in_float64():
    """Sequence 0 is (2^60 + 127) - 2^60 + 1/2 = 127.5 exactly but 1/2 in float64 (its first
    term rounds to 2^60): it is kept beside sequence 1 (3, exact in float64)."""
    big = F(2) ** 60
    cols = [[big + 2 ** 7 - 1, -big, F(1, 2)], [F(3), F(0), F(0)]]
    assert sum(cols[0]) > sum(cols[1])
    assert 0 in max_candidates([enclose(_terms(cols))])


def _positive_products(data):
    s = [abs(sum(c)) + F(1, 2 ** 2000) for c in data.draw(st.lists(sums, min_size=1,
                                                                     max_size=12))]
    dl = [abs(data.draw(values)) for _ in s]
    return s, dl


def _min_candidates(s, dl):
    v, err, E = enclose(_terms([[x, F(0)] if x > 0 else [x, F(0)] for x in s]))
    dm, de = _frexp([_fq(x) for x in dl])
    js = np.flatnonzero(v - err > 0)
    return js.tolist(), set(min_product_candidates(js, v, err, E, dm, de))


@SETTINGS
@given(st.data())
def test_min_product_candidates_hold_every_minimiser(data):
    s, dl = _positive_products(data)
    sure, got = _min_candidates(s, dl)
    assert got <= set(sure)
    g = [s[j] * dl[j] for j in sure]
    assert {sure[k] for k, x in enumerate(g) if x == min(g, default=None)} <= got


def test_min_product_candidates_keep_a_minimiser_against_a_cancelling_sum():
    """Sequence 0 = (2^60 + 2^22 + 100) - 2^60 is 2^22 in float64 (its first term rounds
    to 2^60 + 2^22; its error bound is about 2^21); sequence 1 = 2^22 + 64 is smaller
    exactly, larger in float64: it must stay a candidate."""
    big = F(2) ** 60
    a = [[big + 2 ** 22 + 100, -big], [F(2 ** 22 + 64), F(0)]]
    v, err, E = enclose(_terms(a))
    dm, de = _frexp([fmpq(1), fmpq(1)])
    js = np.flatnonzero(v - err > 0)
    assert js.tolist() == [0, 1] and sum(a[1]) < sum(a[0])
    assert 1 in min_product_candidates(js, v, err, E, dm, de)
@st.composite
def token_sets(draw):
    d = draw(st.integers(1, 3))
    pool = [tuple(draw(values) for _ in range(d)) for _ in range(draw(st.integers(1, 5)))]
    if draw(st.booleans()):  # near-ties: a token and its scaled copy
        pool.append(tuple(near(x, 1) for x in pool[0]))
    if draw(st.booleans()):
        pool.append(tuple([F(0)] * d))
    seqs = [draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))
            for _ in range(draw(st.integers(1, 6)))]
    return d, seqs


def _exact_gaps(A, X, spans):
    gap = at = None
    for j, (lo, hi) in enumerate(spans):
        if hi - lo > 1:
            g, i, c = sequence_stats(A, rows(X, lo, hi))
            if g is None:
                return None, (j, i, c)
            if gap is None or g < gap:
                gap, at = g, (j, i, c)
    return gap, at


@SETTINGS
@given(token_sets(), st.sampled_from([F(1), F(5, 3), F(2) ** 80]))
def test_lam_identity_gaps_equal_the_plain_scores(ts, lam):
    d, seqs = ts
    X = fmpq_mat(sum(map(len, seqs)), d, [_fq(x) for s in seqs for t in s for x in t])
    spans = spans_of(len(s) for s in seqs)
    got = lam_identity_gaps(lam, X, spans)
    if got is None:  # the pre-filter does not apply (a modulus outside [2^-400, 2^400])
        assert any(x != 0 and not F(1, 2 ** 400) <= abs(x) <= 2 ** 400
                   for s in seqs for t in s for x in t)
        return
    assert got == _exact_gaps(Factored(lam), X, spans)


def test_lam_identity_gaps_score_a_token_whose_float64_margin_is_an_overestimate():
    """Sequence 0 (d = 1): 2^60 + 100 and 2^60 are one float64 value, so both tokens'
    float margins are 0 with a large error bound; sequence 1's tokens 1 and 2 have the
    smallest exact margin (1): token 0 of sequence 1 is scored exactly and reported."""
    X = fmpq_mat(4, 1, [fmpq(2 ** 60 + 100), fmpq(2 ** 60), fmpq(1), fmpq(2)])
    spans = [(0, 2), (2, 4)]
    assert lam_identity_gaps(F(1), X, spans) == _exact_gaps(Factored(F(1)), X, spans) == \
        (fmpq(1), (1, 0, 0))


def test_lam_identity_gaps_find_a_tie_that_float64_rounding_splits():
    """<q, l> = <q, l'> exactly for q = (1/4, 1/4, 1/4), l = (1, 2^-53, 2^-53) and
    l' = (2^-53, 2^-53, 1), while float64 sums in another order may differ: the tie
    is reported, as on the plain route."""
    t = F(1, 2 ** 53)
    toks = [(F(1, 4),) * 3, (F(1), t, t), (t, t, F(1))]
    X = fmpq_mat(3, 3, [_fq(x) for r in toks for x in r])
    got = lam_identity_gaps(F(1), X, [(0, 3)])
    assert got == _exact_gaps(Factored(F(1)), X, [(0, 3)]) and got[0] is None


@SETTINGS
@given(token_sets())
def test_max_abs_columns_are_exact(ts):
    d, seqs = ts
    toks = [t for s in seqs for t in s]
    e = [_fq(x) for t in toks for x in t]
    assert max_abs_columns(e, len(toks), d) == [max(abs(_fq(t[c])) for t in toks)
                                                for c in range(d)]


def _same_records(net, inputs):
    fast, plain = fast_trajectory(net, inputs), plain_trajectory(net, inputs)
    assert (fast.stop is None) == (plain.stop is None) and len(fast.records) == len(plain.records)
    if fast.stop is not None:
        assert fast.stop[1].code == plain.stop[1].code
    n = 0
    for a, b in zip(fast.records, plain.records):
        if isinstance(a, SARecord):
            n += 1
            assert (a.block, a.gap, a.gap_at, a.nmax1, a.S, a.Xmax, a.P, a.Q) == \
                (b.block, b.gap, b.gap_at, b.nmax1, b.S, b.Xmax, b.P, b.Q)
    assert fast.outputs == plain.outputs
    return n


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10 ** 6), st.integers(2, 3), st.integers(4, 12), st.integers(1, 5),
       st.sampled_from(["mixed", "distinct"]))
def test_construction_records_fast_equal_plain(seed, d, N, max_n, style):
    """Theorem 1.8 networks: a run of tags kept as growing per-sequence offsets, FF
    layers that change some sequences in between, then the A = I layer."""
    try:
        ds = random_dataset(seed, d=d, N=N, max_n=max_n, style=style)
    except ValueError:
        return
    inputs = [list(p.inputs) for p in ds.pairs]
    c = construct(inputs, [list(p.outputs) for p in ds.pairs], ds.d, **SCALES)
    assert _same_records(c.net, inputs) >= 1


@pytest.mark.parametrize("k", [0, 1])
def test_construction_records_with_near_tied_sequences(k):
    """Sequences whose extremes differ by 2^-70 relative (one float64 value for all):
    the exact decision picks the same sequence and token as the plain route."""
    base = [[F(1), F(2)], [F(3), F(1)], [F(2), F(5)]]
    inputs = [[tuple(near(x, i + k) for x in t) for t in base[:2 + i % 2]] for i in range(6)]
    targets = [[(F(i % 3), F(1))] for i in range(6)]
    c = construct(inputs, targets, 2, **SCALES)
    assert _same_records(c.net, inputs) >= 1


def _offset_then_rank_one(c):
    """A tag with ``lam = 2^60 + 128`` (kept as per-sequence offsets ``lam y_j``, ``y_j``
    the top token by the first coordinate), then a rank-one layer ``A = a b^T`` with
    ``b = e_2``: token ``(1/2, c)`` of sequence 0 has ``q = c + 2^60 + 128`` after the
    tag, which float64 copies of its three terms put at 255 whatever ``c`` is within
    128 of ``-(2^60 + 128)``; sequence 1 is far from any rounding."""
    lam = F(2) ** 60 + 128
    e1, e2 = (F(1), F(0)), (F(0), F(1))
    ident = FF(F(1))
    net = Transformer(2, [Block(ident, SA(F(1), Factored(F(0), (e1,), (e1,)), Factored(lam))),
                          Block(ident, SA(F(1), Factored(F(0), (e1,), (e2,)), Factored(F(1))))])
    inputs = [[(F(1), F(1)), (F(1, 2), c)], [(F(3), F(2)), (F(1), F(5))]]
    return net, inputs


@pytest.mark.parametrize("c, code", [(-(F(2) ** 60 + 128), "hardmax-tie"),   # q = 0 exactly
                                     (-(F(2) ** 60 + 127), None),            # q = 1 > 0
                                     (-(F(2) ** 60 + 129), None)])           # q = -1 < 0
def test_rank_one_record_decides_signs_that_float64_gets_wrong(c, code):
    """The sign of the smallest ``q`` of a sequence with pending offsets is decided
    exactly when the float64 enclosure cannot: q = 0 is a tie (attention to every
    token), q > 0 the margin ``q (p_max - p_second)`` (here the smallest one), q < 0
    the exact scores; as on the plain route."""
    net, inputs = _offset_then_rank_one(c)
    _same_records(net, inputs)
    fast = fast_trajectory(net, inputs)
    assert (fast.stop and fast.stop[1].code) == code
    if code is None and c == -(F(2) ** 60 + 127):
        assert fast.records[1].gap == fmpq(1, 2) and fast.records[1].gap_at[0] == 0
        net, inputs = _offset_then_rank_one(c)  # the same with the sequences swapped
        swapped = fast_trajectory(net, inputs[::-1])
        assert swapped.records[1].gap == fmpq(1, 2) and swapped.records[1].gap_at[0] == 1
        _same_records(net, inputs[::-1])


def _rank_one_net():
    """One SA layer ``A = e_1 e_2^T``: ``s_il = q_i p_l`` with ``p = x_1``, ``q = x_2``."""
    e1, e2 = (F(1), F(0)), (F(0), F(1))
    return Transformer(2, [Block(FF(F(1)), SA(F(1), Factored(F(0), (e1,), (e2,)),
                                              Factored(F(1))))])


def test_rank_one_gap_ties_between_sequences_name_the_first_sequence():
    """Sequence 0 has q of both signs (scored exactly), sequence 1 only q > 0 (from its
    extremes): both have the smallest margin 1; the first sequence is named, as on the
    plain route."""
    inputs = [[(F(0), F(1)), (F(1), F(-1))], [(F(0), F(1)), (F(1), F(1))]]
    for tr in (fast_trajectory(_rank_one_net(), inputs), plain_trajectory(_rank_one_net(), inputs)):
        assert (tr.records[0].gap, tr.records[0].gap_at) == (fmpq(1), (0, 0, 0))


def test_rank_one_hardmax_tie_in_an_earlier_mixed_sign_sequence_comes_first():
    """Sequence 0's token 0 has q = 0 (a tie of every key, found by exact scoring);
    sequence 1 has q > 0 everywhere and its largest p twice (a tie from its extremes):
    the stop names sequence 0, token 0, as on the plain route."""
    inputs = [[(F(0), F(0)), (F(1), F(1))], [(F(1), F(1)), (F(1), F(2))]]
    for tr in (fast_trajectory(_rank_one_net(), inputs), plain_trajectory(_rank_one_net(), inputs)):
        w = tr.stop[1]
        assert (tr.stop[0], w.code, w.block, w.sequence, w.token) == (0, "hardmax-tie", 1, 0, 0)


def _spent(f):
    """Work units ``f()`` charges to a check's budget."""
    from proofcheck.kernel.limits import _BUDGET, budget
    with budget(0):
        f()
        left, total = _BUDGET.get()
    return total - left


def test_exact_scores_of_large_values_are_charged_at_the_plain_rate():
    """Three tokens within 2^-4700 of 1 (4,755-bit denominators): every float64 margin is
    undecided, so every row is scored exactly; the record's charges equal the plain
    route's (scores of 3^2 (4 + d) units at twice the values' size: 45 x 11 = 495; they
    were 162 whatever the size), and the hardmax evaluation's exact rows are charged
    3 (3 9) 4 = 324 (they were not charged)."""
    den = 3 ** 3000
    X = fmpq_mat(3, 1, [fmpq(den + k * k + 1, den) for k in range(3)])
    plain = _spent(lambda: sequence_stats(Factored(F(1)), X))
    assert plain == _spent(lambda: lam_identity_gaps(F(1), X, [(0, 3)])) == 495
    assert _spent(lambda: FlintBackend()._gram_attended(State(X, [(0, 3)], 1))) == 324


# exponents around the float64 range, the Gram range (2^+-400) and the clip SHIFT = 2100
EXPS = [0, 53, 400, 899, 901, 1022, 1024, 1074, 1076, 2099, 2100, 2101, 5000]
terms_ = st.builds(lambda e, s, k, neg: (-1 if neg else 1) * F(2) ** (s * e) * k,
                   st.sampled_from(EXPS), st.sampled_from([1, -1]),
                   st.fractions(min_value=F(1, 2 ** 20), max_value=2 ** 20, max_denominator=2 ** 20),
                   st.booleans())
cancelling = st.builds(lambda a, k, b: [a, -a * (1 + F(1, 2 ** k)), b], terms_,
                       st.sampled_from([30, 53, 60, 1000, 2000]), terms_)


@SETTINGS
@given(st.lists(st.one_of(st.lists(terms_, min_size=3, max_size=3), cancelling),
                min_size=1, max_size=8))
def test_enclosures_hold_every_exact_sum_across_the_exponent_clip(cols):
    """``[v - err, v + err] 2^E`` holds the exact sum of every sequence whose terms'
    exponents differ by up to 2^5000 (past the clip at 2100) or cancel to 2^-2000
    relative; the maximisers stay candidates."""
    v, err, E = enclose(_terms(cols))
    for j, c in enumerate(cols):
        lo, hi = (F(float(v[j])) + s * F(float(err[j])) for s in (-1, 1))
        assert lo * F(2) ** int(E[j]) <= sum(c) <= hi * F(2) ** int(E[j])
    assert _maximisers([sum(c) for c in cols]) <= set(max_candidates([(v, err, E)]))


@pytest.mark.parametrize("d, top, applies", [(64, 400, True), (64, 401, False), (65, 0, False),
                                             (64, -400, True), (64, -401, False)])
def test_lam_identity_gaps_at_the_edges_of_the_gram_range(d, top, applies):
    """d = 64 with a coordinate of modulus 2^top and near-ties of 2^-60 relative: the
    float64 Gram pass applies for |x| in [2^-400, 2^400] and d <= 64 and then gives
    the plain route's gap and place; outside it, ``None`` (the plain route scores)."""
    base = [F(k % 5 + 1, 3) for k in range(d)]
    base[d // 2] = F(2) ** top
    toks = [tuple(base), tuple(x * (1 + F(1, 2 ** 60)) for x in base),
            tuple(reversed(base)), tuple(F(0) if k % 2 else x for k, x in enumerate(base))]
    X = fmpq_mat(4, d, [_fq(x) for t in toks for x in t])
    spans = [(0, 2), (2, 4)]
    got = lam_identity_gaps(F(1), X, spans)
    assert (got is not None) == applies
    if applies:
        want = _exact_gaps(Factored(F(1)), X, spans)
        assert got == want and want[1] == (0, 0, 0)  # token 0 attends to its 2^-60 copy
