"""The two routes of the kernel agree: the fast tier (proofcheck/kernel/fast/) gives
exactly the plain tier's values — hardmax outputs token by token, and for softmax
certificates the same records, verdicts and derived bounds — on random and
adversarial networks (ties, extreme magnitudes, tag offsets followed by layers in
other directions) and on every handed case; and verify says which route it took."""
from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from conftest import CASES, NAMED, case_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.softmax_certifier import certify
from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES
from mutate import with_parameter
from proofcheck.frontend.io.certificate_writer import theorem_certificate
from proofcheck.frontend.io.datasets import load_dataset
from proofcheck.kernel.evaluate import PlainBackend, run
from proofcheck.kernel.fast.flint import FlintBackend
from proofcheck.kernel.fast.softmax import fast_trajectory
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.softmax import SARecord, Undecided, check_bounds, plain_trajectory
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def rat(big=False):
    small = st.fractions(min_value=-3, max_value=3, max_denominator=4)
    if not big:
        return small
    huge = st.sampled_from([F(2) ** 200, -F(2) ** 200, F(1, 2 ** 200), F(3, 2 ** 150)])
    return st.one_of(small, huge)


@st.composite
def networks(draw, d=None, big=False):
    d = d or draw(st.integers(2, 3))
    vec = st.tuples(*[rat(big)] * d)
    blocks = []
    for _ in range(draw(st.integers(1, 4))):
        w = draw(st.integers(0, 3))
        if draw(st.booleans()) and w:  # rank one: rows parallel to one direction
            u = draw(vec)
            U = tuple(tuple(c * x for x in u) for c in draw(st.lists(rat(), min_size=w,
                                                                       max_size=w)))
        else:
            U = tuple(draw(vec) for _ in range(w))
        ff = FF(draw(st.sampled_from([F(1), F(1), F(0), F(1, 2)])), U,
                tuple(draw(rat()) for _ in range(w)), tuple(draw(vec) for _ in range(w)))
        kind = draw(st.sampled_from(["tag", "lam", "rank1", "identity"]))
        a = draw(vec)
        A = {"tag": Factored(F(0), (a,), (a,)), "lam": Factored(draw(rat()) or F(1)),
             "rank1": Factored(F(0), (a,), (draw(vec),)), "identity": Factored(F(0))}[kind]
        V = Factored(draw(st.sampled_from([F(0), F(1), F(2)])),
                     *(((draw(vec),), (draw(vec),)) if draw(st.booleans()) else ((), ())))
        rho = F(1) if kind == "tag" else draw(st.sampled_from([F(0), F(1), F(1, 2)]))
        blocks.append(Block(ff, SA(rho, A, V if kind != "identity" else Factored(F(0)))))
    return Transformer(d, blocks)


@st.composite
def inputs_for(draw, d, big=False, ties=False):
    pool = [tuple(draw(rat(big)) for _ in range(d)) for _ in range(draw(st.integers(2, 6)))]
    if ties:  # equal projections everywhere: mirrored tokens
        pool += [tuple(-x for x in t) for t in pool[:2]]
    return [draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
            for _ in range(draw(st.integers(1, 3)))]


def same_outputs(net, inputs):
    def out(be):
        try:
            return run(net, inputs, be)
        except Exception as e:  # both must fail alike (e.g. the bit bound)
            return type(e).__name__
    assert out(PlainBackend()) == out(FlintBackend())


@FAST
@given(st.data())
def test_fast_equals_plain_on_random_networks(data):
    net = data.draw(networks())
    same_outputs(net, data.draw(inputs_for(net.d, ties=data.draw(st.booleans()))))


@FAST
@given(st.data())
def test_fast_equals_plain_on_extreme_magnitudes(data):
    net = data.draw(networks(big=True))
    same_outputs(net, data.draw(inputs_for(net.d, big=True)))


@pytest.mark.parametrize("name", ["common-top", "needs-rounds", "tie-heavy", "overlap-4d"])
def test_fast_equals_plain_on_constructions_and_mutants(name):
    """Construction networks: runs of tags kept as lazy offsets, then hats in the
    same and in other directions (offsets that change direction); and mutants."""
    ds = NAMED[name]
    inputs = [list(p.inputs) for p in ds.pairs]
    c = construct(inputs, [list(p.outputs) for p in ds.pairs], ds.d)
    same_outputs(c.net, inputs)
    params = list(c.net.parameters())
    for k in range(0, len(params), max(1, len(params) // 12)):
        block, sub, name_, value = params[k]
        same_outputs(with_parameter(c.net, block, sub, name_, value + F(1, 3)), inputs)


def _records_equal(a, b):
    assert len(a.records) == len(b.records) and (a.stop is None) == (b.stop is None)
    for ra, rb in zip(a.records, b.records):
        assert type(ra) is SARecord or ra.block == rb.block
        if isinstance(ra, SARecord):
            assert (ra.block, ra.gap, ra.gap_at, ra.nmax1, ra.S, ra.Xmax, ra.P, ra.Q) == \
                (rb.block, rb.gap, rb.gap_at, rb.nmax1, rb.S, rb.Xmax, rb.P, rb.Q)
    assert a.outputs == b.outputs


def same_softmax(net, inputs, targets, taus):
    fast, plain = fast_trajectory(net, inputs), plain_trajectory(net, inputs)
    _records_equal(fast, plain)
    for tau in taus:
        p = check_bounds(plain, tau, 256, targets)
        try:
            f = check_bounds(fast, tau, 256, targets)
        except Undecided:
            continue  # the fast route declines; verify then decides on the plain route
        assert f.verdict == p.verdict and f.bounds == p.bounds, tau


@FAST
@given(st.data())
def test_softmax_records_and_bounds_fast_equal_plain(data):
    net = data.draw(networks())
    inputs = data.draw(inputs_for(net.d, ties=data.draw(st.booleans())))
    targets = [[t] for t in run(net, inputs)[0][:1]] + [[s[0]] for s in run(net, inputs)[1:]]
    same_softmax(net, inputs, targets, [F(1, 64), F(1), F(64)])


@FAST
@given(st.data())
def test_softmax_records_fast_equal_plain_on_extreme_magnitudes(data):
    """Values far outside the float64 range and far below its resolution: the float64
    pre-filters of the fast records (proofcheck/kernel/fast/selection.py) fall back or
    keep every exact candidate."""
    net = data.draw(networks(big=True))
    inputs = data.draw(inputs_for(net.d, big=True, ties=data.draw(st.booleans())))

    def traj(f):
        try:
            return f(net, inputs)
        except Exception as e:  # both must fail alike (e.g. the bit bound)
            return type(e).__name__
    fast, plain = traj(fast_trajectory), traj(plain_trajectory)
    if isinstance(fast, str) or isinstance(plain, str):
        assert fast == plain
    else:
        _records_equal(fast, plain)


def _handed():
    return [f[:-5] for f, _, code in case_table() if code == 0]


@pytest.mark.parametrize("name", _handed())
def test_fast_equals_plain_on_handed_cases(name):
    """Every handed VERIFIED case: the 1.6 network's outputs, its certificate on both
    routes, and the softmax records and bounds of the 1.8 network at three tau."""
    ds = load_dataset(CASES / f"{name}.json")
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    same_outputs(c.net, inputs)
    cert = json.loads(json.dumps(theorem_certificate("1.6", ds, c.net, Verdict.VERIFIED)))
    outs = {r: verify_certificate(cert, route=r) for r in ("plain", "fast")}
    assert outs["plain"].verdict == outs["fast"].verdict == Verdict.VERIFIED
    assert outs["plain"].route == "plain" and outs["fast"].route.startswith("fast (")
    c18 = construct(inputs, targets, ds.d, **SCALES)
    same_softmax(c18.net, inputs, targets, [F(1, 1024), F(1, 8), F(1)])


def test_verify_names_the_route_and_plain_is_forced():
    ds = NAMED["square-builtin"]
    inputs, targets = [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d, **SCALES)
    cert = certify(c.net, inputs, targets, F(1, 8))
    assert cert.verdict == Verdict.VERIFIED_CERTIFIED
    doc = json.loads(json.dumps(theorem_certificate("1.8", ds, c.net, cert.verdict, tau=F(1, 8),
                                                    bounds=cert)))
    for route in ("plain", "fast", "auto"):
        out = verify_certificate(doc, route=route)
        assert out.verdict == Verdict.VERIFIED_CERTIFIED
        assert any(ln.startswith("route: ") for ln in out.lines)
    assert verify_certificate(doc, route="plain").route == "plain"
    assert verify_certificate(doc, route="fast").route.startswith("fast (")


def _q(r, pos=False):
    return F(r.randint(1 if pos else -40, 50), r.choice([1, 2, 3, 7, 11]))


def _hat(r, d, blocks, inputs):
    """A bounded rank-one FF (a hat along ``w``) whose kinks sit at a token's exact
    projection after ``blocks`` or 2^-k relative to it (k up to 1000)."""
    w = (F(1),) + tuple(_q(r) for _ in range(d - 1))
    t = sum(a * b for a, b in zip(w, r.choice([x for s in run(Transformer(d, blocks), inputs)
                                               for x in s])))
    def delta():
        return r.choice([F(0), F(1, 3), abs(t) / 2 ** r.choice([1, 53, 60, 1000])])
    k0, k2 = t - delta(), t + delta()
    k2 = k2 if k2 > k0 else k0 + F(1, 2 ** 70) * (abs(t) or 1)
    v = tuple(_q(r) * r.choice([F(1), F(2) ** 200, F(1, 2 ** 200)]) for _ in range(d))
    ff = FF(F(1), (w,) * 3, (-k0, -(k0 + k2) / 2, -k2), tuple(tuple(c * x for x in v)
                                                              for c in (1, -2, 1)))
    return Block(ff, SA(F(1), Factored(F(0)), Factored(F(0))))


def _tag(r, d):
    a = tuple(_q(r, True) for _ in range(d))
    lam = r.choice([F(1), F(1, 2), F(2) ** 300, F(2) ** 1000, F(1, 2 ** 300), F(7) ** 100])
    return Block(FF(F(1)), SA(F(1), Factored(F(0), (a,), (a,)), Factored(lam)))


def _other(r, d):
    """A rank-one SA in another direction (q of both signs) or an A = lam I layer."""
    if r.random() < 0.6:
        a, b = tuple(_q(r) for _ in range(d)), tuple(_q(r, r.random() < 0.6) for _ in range(d))
        return Block(FF(F(1)), SA(r.choice([F(0), F(1)]), Factored(F(0), (a,), (b,)),
                                  Factored(F(1))))
    return Block(FF(F(1)), SA(F(1), Factored(r.choice([F(1), F(2) ** 300, F(-1)])),
                              Factored(F(1, 2))))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_softmax_records_fast_equal_plain_after_huge_tags_and_aimed_hats(r):
    """Runs of tags with factors up to 2^1000 (offsets of sequences rebased at
    different tags differ by such factors), hats whose kinks sit exactly at a
    token's projection or 2^-1000 relative to it (in-place rows, rebased offsets),
    then rank-one SA in other directions and lam I layers: the same records."""
    d = r.choice([2, 3])
    pool = [tuple(_q(r, True) for _ in range(d)) for _ in range(r.randint(2, 6))]
    pool.append(tuple(x * (1 + F(1, 2 ** r.choice([60, 1000]))) for x in pool[0]))
    inputs = [r.sample(pool, r.randint(1, min(4, len(pool)))) for _ in range(r.randint(1, 6))]
    blocks = []
    for _ in range(r.randint(2, 6)):
        k = r.random()
        blocks.append(_tag(r, d) if k < 0.45 else _hat(r, d, blocks, inputs) if k < 0.8
                      else _other(r, d))
    net = Transformer(d, blocks + [_other(r, d)])
    fast, plain = fast_trajectory(net, inputs), plain_trajectory(net, inputs)
    _records_equal(fast, plain)
    if fast.stop is not None:
        a, b = fast.stop[1], plain.stop[1]
        assert (fast.stop[0], a.code, a.block, a.sequence, a.token) == \
            (plain.stop[0], b.code, b.block, b.sequence, b.token)
