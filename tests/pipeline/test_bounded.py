"""The bounded construction (issue 24 item 4): separation by flag tags, numbers
linear in N, float32-exact on small integer data.

Every named dataset (and the handed cases) VERIFIES through the constructions table
(tests/pipeline/test_constructions.py); here: exact structural facts of the returned
network, its claims failing on mutated parameters with precise witnesses, the new
claim types, the flint in-place SA path against the reference backend, and the
float audit / certified rounding on digits.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import NAMED
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.phases.bounded_separation import plan_layout, separate_bounded
from proofcheck.constructions.afz.phases.flag_collapse import assign_kappas
from proofcheck.constructions.afz.theorems.bounded import construct, constant_checks, lexicographic_u
from proofcheck.constructions.afz.options import ConstructionOptions
from proofcheck.frontend.io.examples import sample
from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.evaluate import spans_of
from proofcheck.kernel.fast import get_backend
from proofcheck.constructions.claim_check import check_network
from proofcheck.constructions.claims import Affine, SequenceTranslate
from mutate import with_parameter
from proofcheck.kernel.model import SA, Factored, Transformer
from proofcheck.kernel.verdicts import Verdict, combine

F = Fraction


def _data(ds):
    return [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


@pytest.fixture(scope="module")
def digits40():
    ds, _ = sample(limit=40)
    inputs, targets = _data(ds)
    return ds, inputs, targets, construct(inputs, targets, ds.d)


# ----------------------------------------------------------- structure and sizes
@pytest.mark.parametrize("name", sorted(NAMED))
def test_separation_disjoint_integer_and_flags(name):
    """After phase S: sequences pairwise disjoint, every coordinate an integer, the
    flag 0 on every token but at most one point's copies (1), signatures <= 4N."""
    ds = NAMED[name]
    inputs, _ = _data(ds)
    sep = separate_bounded(inputs, ds.d)
    nc = check_network(Transformer(ds.d, sep.blocks), inputs, None, sep.claims)
    assert nc.verdict == Verdict.VERIFIED
    rows = [x for s in nc.outputs for x in s]
    assert rows == sep.rows()
    owner = {}
    for j, s in enumerate(nc.outputs):
        for x in s:
            assert owner.setdefault(x, j) == j
    assert all(v.denominator == 1 for x in rows for v in x)
    F_ = sep.layout.F
    flags = [x[F_] for x in rows]
    assert set(flags) <= {0, 1}
    assert len({x for x in rows if x[F_] == 1}) <= 1
    assert max(sep.sig) <= 4 * ds.N and sep.R <= ds.N - 1


def test_digits_sample_magnitudes_and_constants(digits40):
    """On the 40-image sample: VERIFIED with its own constants; every scalar is an
    integer of at most 14 bits (the default needs rationals of far more bits), the
    layout is the expected fold, no snap is needed (targets label e_1)."""
    ds, inputs, targets, c = digits40
    nc = check_network(c.net, inputs, targets, c.claims)
    checks, consts = constant_checks(c.net, ds.d, ds.N, ds.M, c.info)
    assert combine(r.verdict for r in nc.results + checks) == Verdict.VERIFIED
    assert all(v.denominator == 1 for *_, v in c.net.parameters())
    assert consts["max_bits"] <= 14 and consts["largest_phase_S_scalar"] <= consts["B_S"]
    assert c.info["path"] == "flag" and c.info["snaps"] == 0
    assert consts["L"] == consts["L_construction"] == c.info["R"] + 1 + c.info["lifts"]
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct as default
    dflt = default(inputs, targets, ds.d)
    assert dflt.net.max_bits() > 2 * consts["max_bits"]


def test_magnitude_check_can_fail(digits40):
    """The B_S check reads the network: a scalar pushed above the bound is REFUTED."""
    ds, _, _, c = digits40
    info = dict(c.info)
    blk = 2
    big = constant_checks(c.net, ds.d, ds.N, ds.M, info)[1]["B_S"] + 1
    net = with_parameter(c.net, blk, "FF", "b[0]", big)
    checks, _ = constant_checks(net, ds.d, ds.N, ds.M, info)
    bad = [r for r in checks if r.verdict == Verdict.REFUTED]
    assert [r.name.split(" (")[0] for r in bad] == ["every scalar of block 1 SA .. block R+1+M' <= B_S"]


def test_kappas():
    """On-line targets y_1 e_1 (y_1 >= 0) are their own kappa; others get the least
    positive integers that are no target's first coordinate."""
    ys = [(F(3), F(0)), (F(0), F(0)), (F(1), F(2)), (F(-1), F(0)), (F(1), F(2))]
    k = assign_kappas(ys)
    assert k == {ys[0]: 3, ys[1]: 0, ys[2]: 2, ys[3]: 4}


def test_layout_is_injective_and_frees_two_coordinates():
    pts = [(a, b, c) for a in range(3) for b in range(2) for c in range(4)]
    lay, pos = plan_layout(pts, 3, 1)
    assert len(set(pos)) == len(pts)
    assert all(q[lay.F] == 0 and q[lay.Z] == 0 for q in pos)
    assert all(q[k] >= 1 for q in pos for k in lay.content)
    M, c = lay.M, lay.c
    for p, q in zip(pts, pos):
        img = [sum(M[r][k] * p[k] for k in range(3)) + c[r] for r in range(3)]
        img[lay.Z] = 0
        assert tuple(img) == q


def test_general_path_direction_is_injective():
    ds = NAMED["union-3d"]
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    assert c.info["path"] == "general"
    sep = separate_bounded(inputs, ds.d)
    u = lexicographic_u(sep)
    rows = set(sep.rows())
    assert len({sum(a * b for a, b in zip(u, x)) for x in rows}) == len(rows)


# ---------------------------------------------------------- every check can fail
def _refuted(c, inputs, targets, net):
    nc = check_network(net, inputs, targets, c.claims)
    assert nc.verdict == Verdict.REFUTED
    return nc.witness


def test_mutated_flag_tag_is_refuted_with_witness(digits40):
    """The signature increment g of round 1's flag tag off by one: the SA output
    differs from its sequence-translate claim at the first token of the first
    sequence holding the lifted point, in the signature coordinate."""
    ds, inputs, targets, c = digits40
    lay = c.info["layout"]
    g = c.info["rounds"][0]["g"]
    sa = c.net.blocks[1].sa
    k = next(i for i, x in enumerate(sa.V.left[0]) if x != 0)
    net = with_parameter(c.net, 2, "SA", f"V.left[0][{k}]", g + 1)
    w = _refuted(c, inputs, targets, net)
    seq = min(c.claims[1][1].c)
    assert (w.block, w.sublayer, w.sequence, w.token, w.coordinate) == (2, "SA", seq, 0, lay.Z)
    assert w.got - w.expected == 1


def test_mutated_lift_kink_is_refuted_with_witness(digits40):
    """Round 2's lift centred one step off: the lifted rows no longer move (or other
    rows do); the witness names block 3's FF and the flag coordinate."""
    ds, inputs, targets, c = digits40
    ff = c.net.blocks[2].ff
    net = with_parameter(c.net, 3, "FF", "b[1]", ff.b[1] + 2)
    w = _refuted(c, inputs, targets, net)
    assert (w.block, w.sublayer, w.coordinate) == (3, "FF", c.info["layout"].F)


def test_mutated_layout_and_collapse_are_refuted(digits40):
    ds, inputs, targets, c = digits40
    net = with_parameter(c.net, 1, "FF", "W[0][0]", c.net.blocks[0].ff.W[0][0] + 1)
    w = _refuted(c, inputs, targets, net)
    lay = c.info["layout"]
    U0, b0, _ = lay.units[0]      # the fold unit: relu(U0 x + b0), 0 on the first rows
    first = next(t for t, x in enumerate(inputs[0])
                 if sum(u * v for u, v in zip(U0, x)) + b0 != 0)
    assert (w.block, w.sublayer, w.sequence, w.token, w.coordinate) == (1, "FF", 0, first, 0)
    assert w.got - w.expected == sum(u * v for u, v in zip(U0, inputs[0][first])) + b0
    last = c.net.L
    net = with_parameter(c.net, last, "SA", "V.left[0][0]", 2)
    w = _refuted(c, inputs, targets, net)
    assert (w.block, w.sublayer) == (last, "SA") and w.coordinate == 0
    # without claims the wrong collapse breaks exact interpolation itself
    nc = check_network(net, inputs, targets, None)
    assert nc.verdict == Verdict.REFUTED and nc.witness.sequence is not None


# ------------------------------------------------------------- new claim types
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=1,
                         max_size=4), min_size=1, max_size=4),
       st.lists(st.integers(-3, 3), min_size=6, max_size=6))
def test_claims_restrict_like_the_whole(seqs, m):
    """Affine and SequenceTranslate give the same expected rows on a shard of
    sequences (renumbered) as on the whole state."""
    rows = [tuple(F(v) for v in x) for s in seqs for x in s]
    spans = spans_of(len(s) for s in seqs)
    claims = [Affine(((F(m[0]), F(m[1])), (F(m[2]), F(m[3]))), (F(m[4]), F(m[5]))),
              SequenceTranslate({j: (F(j), F(-1)) for j in range(0, len(seqs), 2)}, spans)]
    for cl in claims:
        whole = [cl.bind(Fraction).expected(i, rows.__getitem__) for i in range(len(rows))]
        for j0 in range(len(seqs)):
            for j1 in range(j0 + 1, len(seqs) + 1):
                r0, r1 = spans[j0][0], spans[j1 - 1][1]
                part = cl.restrict(r0, r1, j0, j1).bind(Fraction)
                sub = rows[r0:r1]
                assert [part.expected(i, sub.__getitem__) for i in range(r1 - r0)] == whole[r0:r1]
        listed = cl.rows()
        if listed is not None:
            assert all(whole[i] == rows[i] for i in range(len(rows)) if i not in set(listed))


# ------------------------------------------------- flint in-place SA (rho = 1)
small = st.integers(-3, 3).map(Fraction)
vecs = lambda d: st.tuples(*[small] * d)  # noqa: E731


@settings(max_examples=120, deadline=None)
@given(st.integers(2, 4).flatmap(lambda d: st.tuples(
    st.just(d), vecs(d), vecs(d), st.lists(st.tuples(vecs(d), vecs(d)), max_size=2), small,
    st.lists(st.lists(st.sampled_from([(Fraction(0),) * d, (Fraction(1),) * d]) | vecs(d),
                      min_size=1, max_size=5), min_size=1, max_size=3))))
def test_inplace_rank_one_sa_agrees_with_reference(case):
    """Hardmax, ``A = a b^T``, ``rho = 1``, any V: the flint path that updates only the
    rows whose ``V mean`` is nonzero equals the reference backend, ``before`` holds
    the old rows it touched, untouched rows are unchanged (ties and zeros drawn)."""
    d, a, b, vf, lam, seqs = case
    sa = SA(Fraction(1), Factored(Fraction(0), (a,), (b,)),
            Factored(lam, tuple(x for x, _ in vf), tuple(y for _, y in vf)))
    flat = [tuple(x) for s in seqs for x in s]
    out = {}
    for name in ("flint", "reference"):
        be = get_backend(name)
        st_ = be.load(seqs)
        new, touched, before = be.sa(sa, st_, HARDMAX)
        out[name] = [tuple(x) for x in be.to_fractions(new)]
        if name == "flint" and before is not None:
            assert sorted(before) == sorted(touched)
            assert all(tuple(Fraction(int(v.p), int(v.q)) for v in before[i]) == flat[i]
                       for i in before)
            assert all(out[name][i] == flat[i] for i in range(len(flat)) if i not in before)
    assert out["flint"] == out["reference"]


# ----------------------------------------------------- float audit and rounding
def test_audit_is_exact_in_float32_and_rounding_verifies(digits40):
    """Small integer data: every weight is a float32 value and every intermediate a
    small integer, so float32 and float64 evaluation are exact (zero deviation, no
    region exit, outputs equal the targets) and the network rounded to float32 is
    the same network: VERIFIED."""
    from proofcheck.frontend.export.audit import audit_many
    from proofcheck.frontend.export.rounding import certify_rounded, get_format
    ds, inputs, targets, c = digits40
    for r in audit_many(c.net, inputs, targets, ["float64", "float32"]):
        assert r.max_dev == 0 and r.exits_total == 0 and r.first_exit is None
        assert r.final["all_equal"] and r.weights_rounded == 0
    rc = certify_rounded(c.net, inputs, targets, get_format("float32"), c.claims)
    assert rc.verdict == Verdict.VERIFIED and rc.stats["changed"] == 0


def test_rank_one_audit_sets_agree_with_the_dense_filter(digits40):
    """The audit's exact argmax sets for rank-one A (ties included) equal the sets
    of the dense exact computation, and a float set that differs is an exit."""
    from proofcheck.frontend.export.audit import _ExactRows, _rank_one_sets, _sa_exits
    ds, inputs, targets, c = digits40
    be = get_backend("flint")
    state = be.load(inputs)
    spans = state.spans
    n = max(hi - lo for lo, hi in spans)
    mask = np.zeros((len(spans), n), dtype=bool)
    for j, (lo, hi) in enumerate(spans):
        mask[j, :hi - lo] = True
    checked = 0
    for blk in c.net.blocks[:4]:
        state, _, _ = be.ff(blk.ff, state)
        ex = _ExactRows(be, state)
        C = _rank_one_sets(blk.sa, ex, mask, spans)
        if C is None:   # only rank-one A (the mean tag has A = 0)
            assert not blk.sa.A.left
            state, _, _ = be.sa(blk.sa, state, HARDMAX)
            continue
        checked += 1
        rows = [ex[i] for i in range(state.n)]
        for j, (lo, hi) in enumerate(spans):
            for t in range(hi - lo):
                ax = blk.sa.A.apply(rows[lo + t])
                sc = [sum((p * q for p, q in zip(ax, rows[lo + l])), Fraction(0))
                      for l in range(hi - lo)]
                assert [bool(x) for x in C[j, t, :hi - lo]] == [s == max(sc) for s in sc]
        E = np.array([[float(v) for v in r] for r in rows])
        got = []
        assert _sa_exits(blk.sa, C, E, ex, mask, spans, ds.d, 2.0 ** -50,
                         lambda *a: got.append(a)) == 0
        C2 = C.copy()
        C2[0, 0, :] = ~C2[0, 0, :] & mask[0]
        assert _sa_exits(blk.sa, C2, E, ex, mask, spans, ds.d, 2.0 ** -50,
                         lambda *a: got.append(a)) >= 1
        state, _, _ = be.sa(blk.sa, state, HARDMAX)
    assert checked >= 3


def test_float_safe_option(digits40):
    """``--float-safe float32``: representable data builds the same network; data with
    a non-representable target is refused naming it (exit 2 on the command line)."""
    ds, inputs, targets, c = digits40
    safe = construct(inputs, targets, ds.d, options=ConstructionOptions("float32"))
    assert list(safe.net.parameters()) == list(c.net.parameters())
    ds2 = NAMED["number-spellings"]  # a handed case (tests/cases): missing fails
    i2, t2 = _data(ds2)
    with pytest.raises(ValueError, match="not a float32 value"):
        construct(i2, t2, ds2.d, options=ConstructionOptions("float32"))
    from proofcheck.frontend.cli import main
    assert main(["audit", "1.6", "--limit", "6", "--construction", "bounded", "--float-safe",
                 "float32", "--rounding", "float32", "--dtype", "float32"]) == 0
    assert main(["audit", "1.6", "--limit", "6", "--construction", "nope"]) == 2


# ------------------------------------------------------------------ tag-growth
def test_tag_growth_holds_on_the_default_network_and_can_fail():
    """The default construction's phase S (proofcheck's reconstruction): the largest
    projection more than doubles every round
    (exactly, on the default network); with one tag's lam set to 0 it does not, and
    the witness names that block."""
    from proofcheck.constructions.afz.theorems.tag_growth import check
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct as default
    ds = NAMED["common-top"]
    inputs, targets = _data(ds)
    c = default(inputs, targets, ds.d)
    assert c.info["R"] >= 3
    assert check(c.net, inputs, c.info).verdict == Verdict.VERIFIED
    net = with_parameter(c.net, 3, "SA", "V.lam", 0)
    r = check(net, inputs, c.info)
    assert r.verdict == Verdict.REFUTED and (r.witness.block, r.witness.sublayer) == (3, "SA")
    assert r.witness.got <= r.witness.expected


def test_cli_report_and_certificate(tmp_path):
    """``theorem 1.6 --construction bounded`` writes its report (the construction's
    choices, its round words) and a certificate that ``verify`` re-checks: VERIFIED."""
    import json

    from proofcheck.frontend.cli import main
    cert = tmp_path / "c.json"
    assert main(["theorem", "1.6", "--limit", "6", "--construction", "bounded", "--out",
                 str(tmp_path / "rep"), "--certificate", str(cert)]) == 0
    rep = json.loads(next((tmp_path / "rep").glob("*.json")).read_text())
    assert rep["construction"]["name"] == "bounded" and "layout" in rep["construction"]["choices"]
    assert rep["constants"]["construction"] == "bounded"
    assert json.loads(cert.read_text())["claim"]["constants"]["L"] == rep["constants"]["L"]
    assert main(["verify", str(cert)]) == 0


# ------------------------------------- the flagged token as the first leader
def _held_leader(y0):
    from proofcheck.constructions.afz.edges import held_leader
    return held_leader(y0)


@pytest.mark.parametrize("y0, kappa", [((F(-3), F(1, 3), F(4, 3)), 1), ((F(2), F(0), F(0)), 2),
                                       ((F(1, 2), F(0), F(0)), F(1, 2))],
                         ids=["kappa 1: no FF", "kappa 2: top-up 1", "kappa 1/2: top-up -1/2"])
def test_flagged_first_leader_keeps_its_flag(y0, kappa):
    """The leader lifts keep the flag-1 token's flag and top it up to kappa (no reset):
    every claim VERIFIES; the old step (reset by the first lift) is REFUTED at that
    block with the witness of the defect (the leader's flag 0 instead of kappa)."""
    from mutation.apply import patched
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    from proofcheck.constructions.afz.theorems.constructions import get
    ds = _held_leader(y0)
    inputs, targets = _data(ds)
    c = construct(inputs, targets, 3)
    assert c.info["path"] == "flag" and c.info["kappas"][0] == kappa
    assert all(r.verdict == Verdict.VERIFIED for r in verify(ds, construction=get("bounded", "1.6")).results)
    with patched("proofcheck/constructions/afz/phases/flag_collapse.py", "held = _held_flag(sep, lifted, lead)",
                 "held = None"):
        bad = [r for r in verify(ds, construction=get("bounded", "1.6")).results
               if r.verdict != Verdict.VERIFIED]
    w = bad[0].witness
    assert (w.code, w.sequence, w.token, w.coordinate) == ("claim-mismatch", 0, 0, 2)
    assert (Fraction(w.expected), Fraction(w.got)) == (kappa, 0)
    assert w.block == c.phases["L, C, I"][0] == c.info["R"] + 2 and w.sublayer == "FF"


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 4), st.sampled_from(["overlap", "union", "mixed"]),
       st.integers(2, 5))
def test_bounded_verifies_on_random_one_target_datasets(seed, d, style, N):
    """Property: on seeded admissible datasets (d = 2..4, overlapping styles, one
    target per pair, so the flag phases L and C run) every claim of the bounded
    construction VERIFIES."""
    from proofcheck.constructions.afz.edges import single_target
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.frontend.io.generate import random_dataset
    ds = single_target(random_dataset(seed, d=d, N=N, max_n=4, style=style))
    bad = [r for r in verify(ds, construction=get("bounded", "1.6")).results
           if r.verdict != Verdict.VERIFIED]
    assert not bad, bad[0].witness.describe()
