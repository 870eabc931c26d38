"""Cross-check of the two exact backends: python-flint (with its structural
shortcuts) and the literal Fraction reference give identical outputs."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.fast import get_backend
from proofcheck.kernel.model import FF, SA, Block, Factored

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


# ---- offset tags: chains of tag layers and plateau FFs --------------------------

@st.composite
def tag_chains(draw):
    """Positive tokens (so tags take the offset path), then a chain of blocks:
    FF = plateau hat at some token's projection (direction u or another), SA = tag
    (A = u u^T, V = lam I, rho = 1) or, sometimes, a layer that forces the
    general path (rho != 1) or a tie."""
    from proofcheck.constructions.afz.layers.clustering import tag_sa
    from proofcheck.constructions.afz.layers.hat import plateau_ff
    d = draw(st.integers(2, 3))
    pos = st.fractions(min_value=Fraction(1, 2), max_value=5, max_denominator=3)
    pool = draw(st.lists(st.tuples(*[pos] * d), min_size=2, max_size=8, unique=True))
    seqs = [draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
            for _ in range(draw(st.integers(1, 4)))]
    u = tuple(Fraction(draw(st.integers(1, 4))) for _ in range(d))
    blocks = []
    for _ in range(draw(st.integers(1, 5))):
        w = u if draw(st.booleans()) else tuple(Fraction(draw(st.integers(-2, 3))) for _ in range(d))
        if all(x == 0 for x in w):
            w = u
        p = draw(st.sampled_from(pool))
        tp = sum(a * b for a, b in zip(w, p))
        d1 = draw(st.sampled_from([Fraction(1, 8), Fraction(1, 2), Fraction(2)]))
        shift = tuple(draw(st.integers(-1, 3)) * Fraction(1) for _ in range(d))
        ff = plateau_ff(w, tp, d1, 2 * d1, shift)
        kind = draw(st.sampled_from(["tag", "tag", "tag", "rho", "tie"]))
        lam = draw(st.sampled_from([Fraction(1), Fraction(1, 3), Fraction(2), Fraction(0)]))
        if kind == "tag":
            sa = tag_sa(u, lam)
        elif kind == "rho":
            sa = SA(Fraction(1, 2), Factored(Fraction(0), (u,), (u,)), Factored(lam))
        else:  # a direction with ties (its first coordinate only)
            e = tuple(Fraction(int(i == 0)) for i in range(d))
            sa = tag_sa(e, lam)
        blocks.append(Block(ff, sa))
    return d, seqs, blocks


@settings(max_examples=120, deadline=None)
@given(tag_chains())
def test_offset_tags_chain_agrees_with_reference(case):
    """The flint backend (offset tags, FF on base + offset, folding) gives the
    Fraction reference's outputs on every chain."""
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.model import Transformer
    d, seqs, blocks = case
    net = Transformer(d, blocks)
    a = check_network(net, seqs, None, None, backend="flint")
    b = check_network(net, seqs, None, None, backend="fraction")
    assert a.verdict == b.verdict
    assert a.outputs == b.outputs


def test_offset_path_is_taken_and_a_wrong_tag_claim_is_refuted():
    """A tag on positive tokens is kept as offsets (O(N)); a claim with a wrong
    factor or a wrong attended row is REFUTED with the exact witness."""
    from proofcheck.constructions.afz.layers.clustering import tag_sa
    from proofcheck.kernel.fast.flint import FlintBackend
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.constructions.claims import Fixed, SequenceShift
    from proofcheck.kernel.model import FF, Transformer
    F = Fraction
    seqs = [[(F(1), F(2)), (F(3), F(1))], [(F(2), F(2)), (F(1), F(1))]]
    u = (F(1), F(1))
    be = FlintBackend()
    st_ = be.load(seqs)
    new, touched, before = be.sa(tag_sa(u, F(2)), st_, HARDMAX)
    assert new.off is not None and new.tag == ([1, 2], F(2))  # tops: rows 1 and 2
    assert be.to_fractions(new) == [(F(7), F(4)), (F(9), F(3)), (F(6), F(6)), (F(5), F(5))]
    net = Transformer(2, [Block(FF(F(1)), tag_sa(u, F(2)))])
    seq_of = [0, 0, 1, 1]
    good = [(Fixed(), SequenceShift(F(2), [1, 2], seq_of))]
    assert check_network(net, seqs, None, good).verdict.value == "VERIFIED"
    for bad in (SequenceShift(F(3), [1, 2], seq_of), SequenceShift(F(2), [0, 2], seq_of)):
        r = check_network(net, seqs, None, [(Fixed(), bad)])
        assert r.verdict.value == "REFUTED"
        w = r.witness
        assert (w.block, w.sublayer, w.sequence, w.token, w.coordinate) == (1, "SA", 0, 0, 0)
        assert w.got == F(7)
        assert w.expected == (F(10) if bad.lam == 3 else F(3))


# ---- hardmax with A = lam I (the collapse layer): float64 Gram pre-filter -------

@st.composite
def gram_cases(draw):
    """SA layers with ``A = lam I``, ``lam > 0`` on sequences with repeated tokens
    (exact ties) and near-ties far below float64 resolution."""
    d = draw(st.integers(2, 4))
    seqs = draw(sequences(d, 1, 4))
    if draw(st.booleans()):  # a near-tie: x and x (1 + 2^-70) in one sequence
        x = draw(vecs(d))
        seqs.append([x, tuple(v * (1 + Fraction(1, 2 ** 70)) for v in x), tuple(-v for v in x)])
    lam = draw(st.fractions(min_value=Fraction(1, 3), max_value=3, max_denominator=3))
    return SA(draw(small), Factored(lam), draw(factored(d))), seqs


@settings(max_examples=150, deadline=None)
@given(gram_cases())
def test_gram_prefilter_agrees_with_reference(case):
    from proofcheck.kernel.fast.flint import FlintBackend
    layer, seqs = case
    be = FlintBackend()
    assert be._gram_attended(be.load(seqs)) is not None  # the filter applies here
    assert _run("sa", layer, seqs, "flint")[0] == _run("sa", layer, seqs, "fraction")[0]


def test_gram_prefilter_decides_near_ties_exactly_and_falls_back_out_of_range():
    """Scores equal in float64 but not exactly: the exact dot products decide; a
    tie is averaged; a token beyond 2^400 turns the filter off (dense path)."""
    from proofcheck.kernel.fast.flint import FlintBackend
    F = Fraction
    eps = F(1, 2 ** 80)
    seqs = [[(F(1), F(1)), (F(1) + eps, F(1)), (F(1), F(1) + eps)],   # rows 0-2
            [(F(2), F(0)), (F(0), F(2)), (F(1), F(1))]]               # rows 3-5
    be = FlintBackend()
    att = be._gram_attended(be.load(seqs))
    assert att[0] == [1, 2] and att[1] == [1] and att[2] == [2]
    assert att[3] == [3] and att[4] == [4] and att[5] == [3, 4, 5]
    layer = SA(F(0), Factored(F(1)), Factored(F(1)))
    assert _run("sa", layer, seqs, "flint")[0] == _run("sa", layer, seqs, "fraction")[0]
    huge = [[(F(2) ** 401, F(1)), (F(1), F(1))]]
    assert be._gram_attended(be.load(huge)) is None
    assert _run("sa", layer, huge, "flint")[0] == _run("sa", layer, huge, "fraction")[0]


def test_mutated_collapse_is_refuted_with_the_reference_witness():
    """Theorem 1.6 network with a wrong collapse value map (k changed in the layer,
    not in the claim): both backends REFUTE at the same block / sub-layer /
    sequence / token / coordinate with the same values."""
    from dataclasses import replace

    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.frontend.io.generate import random_dataset
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.model import Transformer
    ds = random_dataset(5, d=3, N=5, style="mixed")
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    bi = c.phases["C"][0]
    blk = c.net.blocks[bi - 1]
    V = blk.sa.V
    bad_k = tuple(x + (i == 1) for i, x in enumerate(V.right[0]))
    blocks = list(c.net.blocks)
    blocks[bi - 1] = replace(blk, sa=replace(blk.sa, V=Factored(V.lam, V.left, (bad_k,))))
    net = Transformer(c.net.d, blocks)
    ws = []
    for backend in ("flint", "fraction"):
        r = check_network(net, inputs, targets, c.claims, backend=backend)
        assert r.verdict.value == "REFUTED"
        w = r.witness
        ws.append((w.block, w.sublayer, w.sequence, w.token, w.coordinate, w.expected, w.got))
    assert ws[0] == ws[1] and ws[0][:2] == (bi, "SA")
    assert check_network(c.net, inputs, targets, c.claims).verdict.value == "VERIFIED"


def test_ff_pieces_on_demand_inner_identity_and_mutation():
    """Bounded rank-one FFs whose pieces are computed on demand: two trapezoids
    with an identity piece between them, and units that cancel everywhere (an FF
    that is the identity without zero weights) agree with the reference; one
    weight changed moves exactly the rows the reference moves."""
    F = Fraction
    w = (F(1), F(0))
    col = (F(1), F(2))
    neg = tuple(-x for x in col)
    two = FF(F(1), (w,) * 8, tuple(F(-k) for k in (0, 1, 2, 3, 5, 6, 7, 8)),
             (col, neg, neg, col) * 2)
    cancel = FF(F(1), (w, w), (F(0), F(0)), (col, neg))
    seqs = [[(F(x), F(y)) for x, y in ((-1, 0), (F(1, 2), 3), (4, 1), (F(11, 2), 0),
                                       (F(13, 2), 2), (9, 9))]]
    for layer in (two, cancel):
        a, touched = _run("ff", layer, seqs, "flint")
        assert a == _run("ff", layer, seqs, "fraction")[0]
    assert a == seqs[0] and not touched  # `cancel` moves nothing
    a, _ = _run("ff", two, seqs, "flint")
    assert a[2] == seqs[0][2] and a[0] == seqs[0][0] and a[1] != seqs[0][1]
    bad = FF(F(1), (w, w), (F(0), F(0)), (col, (F(-1), F(-1))))  # no longer cancels
    a, touched = _run("ff", bad, seqs, "flint")
    assert a == _run("ff", bad, seqs, "fraction")[0]
    assert a[0] == seqs[0][0] and a[2] != seqs[0][2]


def test_gram_prefilter_blocks_and_long_sequences(monkeypatch):
    """Many sequences split over several float64 blocks give the reference's
    outputs; a sequence too long for one block turns the filter off."""
    from proofcheck.kernel.fast.flint import FlintBackend
    F = Fraction
    seqs = [[(F(i + 1), F(j % 3)), (F(j), F(i - 2)), (F(1), F(1))] for i in range(4)
            for j in range(5)]
    monkeypatch.setattr(FlintBackend, "GRAM_FLOATS", 20)  # 2 sequences of 3 per block
    be = FlintBackend()
    assert be._gram_attended(be.load(seqs)) is not None
    layer = SA(F(1, 2), Factored(F(2)), Factored(F(1), ((F(1), F(0)),), ((F(0), F(1)),)))
    assert _run("sa", layer, seqs, "flint")[0] == _run("sa", layer, seqs, "fraction")[0]
    long_seq = [[(F(i), F(1)) for i in range(1, 6)]]  # 25 entries > 20
    assert be._gram_attended(be.load(long_seq)) is None
    assert _run("sa", layer, long_seq, "flint")[0] == _run("sa", layer, long_seq, "fraction")[0]


def test_lazy_offsets_rebase_when_a_tag_changes_direction():
    """Two offset tags in a row in different directions, no row changed between
    them: the second tag's tops differ from the first's, so the lazy offsets must
    rebase those sequences (a regression found by the chain test above); outputs
    equal the reference and the state stays on the offset path."""
    from proofcheck.constructions.afz.layers.clustering import tag_sa
    from proofcheck.kernel.fast.flint import FlintBackend, _Offsets
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.model import Transformer
    F = Fraction
    seqs = [[(F(1), F(3)), (F(2), F(1))], [(F(3), F(1)), (F(1), F(2)), (F(2), F(2))]]
    u, e = (F(1), F(2)), (F(1), F(0))  # tops by u: rows 0, 3; by e: rows 1, 2
    blocks = [Block(FF(F(1)), tag_sa(u, F(2))), Block(FF(F(1)), tag_sa(e, F(1, 3))),
              Block(FF(F(1)), tag_sa(u, F(1)))]
    be = FlintBackend()
    st_ = be.load(seqs)
    tops = []
    for blk in blocks:
        st_, _, _ = be.sa(blk.sa, st_, HARDMAX)
        assert isinstance(st_.off, _Offsets)
        tops.append(st_.tag[0])
    assert tops[0] != tops[1]
    net = Transformer(2, blocks)
    a = check_network(net, seqs, None, None, backend="flint")
    b = check_network(net, seqs, None, None, backend="fraction")
    assert a.outputs == b.outputs


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_affine_pieces_match_the_layer_on_every_piece(data):
    """The lazily computed pieces of a rank-one FF (outer pieces by the signs of
    c_k, identity decided in integers) agree with the layer evaluated literally
    at points inside every piece and at the kinks."""
    from proofcheck.kernel.fast.flint import _rank_one, affine_pieces, f2q
    small = st.fractions(min_value=-4, max_value=4, max_denominator=3)
    d = data.draw(st.integers(1, 3))
    w = tuple(data.draw(st.lists(small, min_size=d, max_size=d)))
    if not any(w):
        w = (Fraction(1),) + w[1:]
    width = data.draw(st.integers(1, 4))
    cs = data.draw(st.lists(st.sampled_from([Fraction(0), Fraction(1), Fraction(-2), Fraction(1, 3)]),
                            min_size=width, max_size=width))
    if data.draw(st.booleans()):  # a hat: columns a, -a, -a, a with b_0 + b_3 = b_1 + b_2
        a = tuple(data.draw(st.lists(small, min_size=d, max_size=d)))
        b0, s1, s2 = (data.draw(st.fractions(min_value=-3, max_value=3, max_denominator=4))
                      for _ in range(3))
        bs = [b0, b0 - abs(s1) - Fraction(1, 8), b0 - abs(s1) - abs(s2) - Fraction(1, 4),
              b0 - 2 * abs(s1) - abs(s2) - Fraction(3, 8)]
        bs = [bs[0], bs[1], bs[2], bs[1] + bs[2] - bs[0]]
        cs, Wc = [Fraction(1)] * 4, [a, tuple(-x for x in a), tuple(-x for x in a), a]
        eta = Fraction(1)
    else:
        bs = data.draw(st.lists(small, min_size=width, max_size=width))
        Wc = [tuple(data.draw(st.lists(small, min_size=d, max_size=d))) for _ in range(width)]
        eta = data.draw(st.sampled_from([Fraction(1), Fraction(1), Fraction(1, 2)]))
    U = tuple(tuple(c * x for x in w) for c in cs)
    ff = FF(eta, U, tuple(bs), tuple(Wc))
    r1 = _rank_one(ff.U)
    if r1 is None:
        return
    wv, kinks, maps = affine_pieces(ff, r1)
    kq = [f2q(k) for k in kinks]
    ww = sum(x * x for x in wv)
    pts = ([kq[0] - 3] + [(x + y) / 2 for x, y in zip(kq, kq[1:])] + [kq[-1] + Fraction(5, 2)]
           if kq else [Fraction(0), Fraction(7)])
    pts = list(zip(range(len(pts)), pts)) + list(enumerate(kq))
    pts += [(p + 1, t) for p, t in enumerate(kq)]  # a kink lies in both pieces it bounds
    assert len(maps) == len(kq) + 1
    fresh = affine_pieces(ff, r1)[2]  # identity asked first, before any map is built
    assert [fresh.identity(p) for p in range(len(fresh))] == [m is None for m in maps]
    for p, t in pts:
        x = [t * x / ww for x in wv]  # <w, x> = t
        y = [eta * xi for xi in x]
        for u, bk, col in zip(ff.U, ff.b, ff.W):
            z = sum(ui * xi for ui, xi in zip(u, x)) + bk
            if z > 0:
                y = [yi + ci * z for yi, ci in zip(y, col)]
        m = maps[p]
        got = x if m is None else [eta * xi + f2q(g) * t + f2q(h) for xi, g, h in zip(x, *m)]
        assert got == y, (p, t)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3).filter(bool), min_size=2, max_size=4),
       st.lists(st.integers(-3, 3), min_size=4, max_size=4),
       st.lists(st.integers(-4, 4), min_size=2, max_size=2))
def test_int_rank_one_ff_is_exact_like_the_reference(cs, bs, w):
    """A rank-one FF given in Python ints whose rows are proportional but not one
    object (c_k = u_k[j] / w[j] would be a float with ``/``): the flint backend's
    pieces stay exact and give the reference backend's outputs."""
    if not any(w):
        w = [1, w[1]]
    width = len(cs)
    U = tuple(tuple(c * x for x in w) for c in cs)
    W = tuple((k + 1, -k) for k in range(width))
    from proofcheck.kernel.fast.flint import _rank_one
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.constructions.layers import identity_sa
    from proofcheck.kernel.model import Transformer
    ff = FF(1, U, tuple(bs[:width]), W)
    r1 = _rank_one(ff.U)
    assert r1 is not None and all(type(c) is not float for c in r1[1])
    net = Transformer(2, [Block(ff, identity_sa())])
    xs = [[(Fraction(a), Fraction(b)) for a, b in ((-3, 1), (0, 0), (1, 2), (5, -1))]]
    ref = check_network(net, xs, None, None, backend="fraction")
    fl = check_network(net, xs, None, None, backend="flint")
    assert ref.verdict == fl.verdict  # no claims, no targets: outputs only
    assert fl.outputs == ref.outputs and fl.outputs


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fractions(min_value=-6, max_value=6, max_denominator=4), min_size=1, max_size=12),
       st.lists(st.tuples(st.integers(0, 11), st.fractions(min_value=-6, max_value=6,
                                                          max_denominator=4)), max_size=12),
       st.fractions(min_value=-6, max_value=6, max_denominator=4),
       st.fractions(min_value=0, max_value=4, max_denominator=4))
def test_sorted_index_is_the_exact_order_through_updates(ts, moves, lo, width):
    """The fast tier's sorted index (entries ``(floor t, t, row)``: ties and equal floors
    included) answers every window and its neighbours like a scan of the exact projections,
    before and after rows move."""
    from flint import fmpq, fmpq_mat
    from proofcheck.kernel.fast.flint import _Index, q2f
    X = fmpq_mat(len(ts), 1, [q2f(t) for t in ts])
    ix = _Index((Fraction(1),), X)
    exact = list(ts)
    for i, t in [(0, ts[0])] + moves:
        if i < len(exact):
            ix.update(i, q2f(t))
            exact[i] = t
        hi = lo + width
        want = [r for _, r in sorted((t, r) for r, t in enumerate(exact) if lo <= t <= hi)]
        assert ix.between(q2f(lo), q2f(hi)) == want
        below = [r for _, r in sorted((t, r) for r, t in enumerate(exact) if t < lo)]
        above = [r for _, r in sorted((t, r) for r, t in enumerate(exact) if t > hi)]
        assert ix.neighbours(q2f(lo), q2f(hi)) == [below[-1] if below else None,
                                                   above[0] if above else None]
        assert [(e[1], e[2]) for e in ix.pairs] == sorted((fmpq(t.numerator, t.denominator), r)
                                                          for r, t in enumerate(exact))
