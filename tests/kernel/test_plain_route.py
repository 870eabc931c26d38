"""The plain route (proofcheck/kernel/evaluate.py, softmax.py, low_rank.py): its one-line lemmas
against a literal token-by-token evaluation of docs/spec.md §1, its resource bounds on every route (the
value bound, the work charged, records that keep no tokens, a stated radius rounded once) and
stated bounds that are reported, never replaced by derived ones (issue 28, items 1 and 5)."""
from __future__ import annotations

import gc
import json
import weakref
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import proofcheck.kernel.fast  # noqa: F401 (registers the fast route)
from proofcheck.frontend.io.certificate_writer import seal
from proofcheck.kernel import limits, low_rank, softmax
from proofcheck.kernel.dataset import Dataset, Pair, dataset_to_json, digest
from proofcheck.kernel.errors import ResourceLimit
from proofcheck.kernel.evaluate import PlainBackend, run
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.softmax import DenseFF, check_bounds, plain_trajectory
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROUTES = ("plain", "fast", "auto")


# ------------------------------------------------ the lemmas against docs/spec.md §1 read literally

def _relu(x):
    return x if x > 0 else F(0)


def _literal_ff(ff, x):
    out = [ff.eta * c for c in x]
    for u, b, w in zip(ff.U, ff.b, ff.W):
        z = _relu(sum((a * c for a, c in zip(u, x)), F(0)) + b)
        out = [o + z * wc for o, wc in zip(out, w)]
    return tuple(out)


def _literal_sa(sa, seq):
    out = [[sa.rho * c for c in x] for x in seq]
    for A, V in sa.heads:
        for i, x in enumerate(seq):
            keys = range(i + 1) if sa.causal else range(len(seq))
            s = [sum((a * c for a, c in zip(A.apply(x), seq[l])), F(0)) for l in keys]
            top = [l for l, v in zip(keys, s) if v == max(s)]
            mean = [sum((seq[l][c] for l in top), F(0)) / len(top) for c in range(len(x))]
            out[i] = [o + v for o, v in zip(out[i], V.apply(mean))]
    return [tuple(x) for x in out]


def literal_run(net, inputs):
    seqs = [list(s) for s in inputs]
    for blk in net.blocks:
        seqs = [_literal_sa(blk.sa, [_literal_ff(blk.ff, x) for x in s]) for s in seqs]
    return seqs


SMALL = st.fractions(min_value=-4, max_value=4, max_denominator=3)


@st.composite
def _run_networks(draw):
    """Runs of FF layers (identity SA layers between them) along one direction w with kinks at
    token projections, U of rank 2 and U = 0, eta != 1, then rank-one, lam I + rank-one, causal
    and two-head SA layers; long sequences (several chunks of kept projections)."""
    d = draw(st.integers(2, 3))
    vec = st.tuples(*[SMALL] * d)
    pool = [draw(vec) for _ in range(draw(st.integers(3, 8)))]
    inputs = [draw(st.lists(st.sampled_from(pool), min_size=1, max_size=40, unique=True))
              for _ in range(draw(st.integers(1, 3)))]
    w = draw(vec.filter(any))
    ts = sorted({sum((a * c for a, c in zip(w, x)), F(0)) for x in pool})
    blocks, identity = [], SA(F(1), Factored(F(0)), Factored(F(0)))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["hat", "hat", "rank2", "zero", "eta"]))
        if kind == "hat":
            k0 = draw(st.sampled_from(ts)) - draw(st.sampled_from([F(0), F(1, 2), F(1)]))
            k2 = k0 + draw(st.sampled_from([F(1, 3), F(1), F(3)]))
            v = draw(vec)
            side = draw(st.sampled_from([1, -1]))
            ff = FF(F(1), (tuple(side * x for x in w),) * 3,
                    (-side * k0, -side * (k0 + k2) / 2, -side * k2),
                    tuple(tuple(c * x for x in v) for c in (1, -2, 1)))
        elif kind == "rank2":
            ff = FF(F(1), (draw(vec), draw(vec)), (draw(SMALL), draw(SMALL)),
                    (draw(vec), draw(vec)))
        elif kind == "zero":
            ff = FF(F(1), ((F(0),) * d,), (draw(SMALL),), (draw(vec),))
        else:
            ff = FF(draw(st.sampled_from([F(0), F(1, 2), F(-2)])))
        sa = identity
        if draw(st.integers(0, 2)) == 0:
            a, b = draw(vec), draw(vec)
            A = draw(st.sampled_from([Factored(F(0), (a,), (b,)), Factored(F(1), (a,), (b,)),
                                      Factored(F(0), (a,), (a,))]))
            V = Factored(draw(st.sampled_from([F(1), F(1, 2)])))
            sa = SA.multi(draw(st.sampled_from([F(0), F(1)])),
                          [(A, V)] + ([(Factored(F(1)), Factored(F(1, 3)))]
                                      if draw(st.booleans()) else []),
                          causal=draw(st.booleans()))
        blocks.append(Block(ff, sa))
    return Transformer(d, blocks), inputs


@SETTINGS
@given(_run_networks())
def test_plain_route_equals_the_literal_formulas(case):
    net, inputs = case
    assert run(net, inputs, PlainBackend()) == literal_run(net, inputs)


def test_identity_and_vanishing_pieces_leave_tokens_in_place():
    """A hat moves only the tokens strictly inside its outermost kinks; beyond them, where its
    profile vanishes on both sides, every token is the very same number."""
    x = [(F(k), F(1)) for k in range(40)]
    hat = FF(F(1), ((F(1), F(0)),) * 3, (F(-10), F(-11), F(-12)),
             ((F(0), F(1)), (F(0), F(-2)), (F(0), F(1))))
    net = Transformer(2, [Block(hat, SA(F(1), Factored(F(0)), Factored(F(0))))] * 2)
    out = run(net, [x])[0]
    assert [i for i, (a, b) in enumerate(zip(out, x)) if a != b] == [11]
    assert out[11] == (F(11), F(3))


# ----------------------------------------------------------------- resource bounds

def _ff(eta, U=(), b=(), W=()):
    return {"eta": str(eta), "U": [list(map(str, u)) for u in U], "b": list(map(str, b)),
            "W": [list(map(str, w)) for w in W]}


IDENTITY_SA = {"rho": "1", "A": {"lam": "0", "left": [], "right": []},
               "V": {"lam": "0", "left": [], "right": []}}


def _cert18(ds, blocks, bounds=None):
    c = {"format": "proofcheck-certificate/2", "kind": "theorem",
         "claim": {"statement": "1.8", "d": ds.d, "constants": {"param_constant": 1000},
                   "dataset": {"name": ds.name, "sha256": digest(ds)}},
         "semantics": {"attention": "softmax", "tau": "1"}, "dataset": dataset_to_json(ds),
         "network": {"d": ds.d, "blocks": blocks}, "verdict": "VERIFIED-CERTIFIED"}
    if bounds is not None:
        c["bounds"] = bounds
    return seal(c)


def _points(N):
    return Dataset("points", 2, tuple(Pair(((F(k), F(1)),), ((F(k), F(1)),)) for k in range(N)))


def test_the_value_bound_holds_on_every_route():
    """A 1.2 KB true 1.8 certificate whose values reach 66,439 bits (x 10^10000 twice, then
    back): the plain route verified it, the fast route stopped; now RESOURCE-LIMIT on all."""
    ds = Dataset("two", 2, (Pair(((F(1), F(0)), (F(0), F(1))), ((F(1), F(0)), (F(0), F(1)))),))
    c = _cert18(ds, [{"ff": _ff(e), "sa": IDENTITY_SA}
                     for e in ("1e10000", "1e10000", "1e-10000", "1e-10000")])
    assert len(json.dumps(c)) < 1500
    for route in ROUTES:
        out = verify_certificate(c, route=route)
        assert out.verdict == Verdict.RESOURCE_LIMIT and "66439 bits" in out.lines[0], route


def _scaling_net(N, L, e):
    """``L`` FF layers scaling by ``10^e``, ``10^e``, ``10^-e``, ``10^-e``, ... on ``N`` tokens."""
    up, down = FF(F(10) ** e), FF(F(1, 10 ** e))
    blocks = [Block(f, SA(F(1), Factored(F(0)), Factored(F(0))))
              for _ in range(L // 4) for f in (up, up, down, down)]
    return Transformer(2, blocks), [[(F(k), F(1))] for k in range(N)]


def _reaches_matrix(obj, depth=4) -> bool:
    """Whether an ``fmpq_mat`` is reachable from ``obj`` within ``depth`` references."""
    from flint import fmpq_mat
    seen, todo = set(), [(obj, 0)]
    while todo:
        o, k = todo.pop()
        if id(o) in seen or k > depth:
            continue
        seen.add(id(o))
        if isinstance(o, fmpq_mat):
            return True
        todo += [(r, k + 1) for r in gc.get_referents(o) if not isinstance(r, type)]
    return False


def test_softmax_records_keep_no_tokens():
    """Every FF record held the whole state (its ``locate`` was bound to it): a 37 KB true
    certificate of this shape took 3.3 GB.  A record keeps the ReLU arguments (U of rank >= 2)
    or the projections (U = c w^T) only, and the streamed trajectory keeps no record."""
    net, inputs = _scaling_net(8, 8, 3)
    hat = FF(F(1), ((F(1), F(2)),) * 3, (F(-1), F(-2), F(-3)), ((F(1), F(0)), (F(-2), F(0)),
                                                                 (F(1), F(0))))
    net.blocks.append(Block(hat, net.blocks[0].sa))
    traj = plain_trajectory(net, inputs)
    assert traj.records and all(isinstance(r, DenseFF) for r in traj.records)
    assert not any(_reaches_matrix(r) for r in traj.records)
    assert traj.records[-1].z is None and len(traj.records[-1].t) == len(inputs)
    stream = plain_trajectory(net, inputs, stream=True)
    refs = [weakref.ref(r) for r in stream.records]
    gc.collect()
    assert all(r() is None for r in refs) and stream.outputs == traj.outputs


def test_big_values_are_charged_by_their_bits():
    """The plain FF layers charged rows x coordinates whatever the values' size: 63,000-bit
    values cost tens of times more now, the same layers on small values stay cheap."""
    def units(e):
        net, inputs = _scaling_net(40, 8, e)
        with limits.budget(None, 10 ** 12):
            run(net, inputs, PlainBackend())
            return limits.used()
    assert units(9500) > 10 * units(1)


def _hinted_pass(stated_radius):
    """An SA layer (tag, every token within ``stated_radius`` of its hardmax value) then an FF
    whose boxes lie on its identity pieces, on 200 tokens: the pass with that radius stated."""
    x = [[(F(k), F(1)), (F(k), F(2))] for k in range(100)]
    tag = SA(F(1), Factored(F(0), ((F(1), F(1)),), ((F(1), F(1)),)), Factored(F(1)))
    hat = FF(F(1), ((F(0), F(1)),) * 3, (F(-10), F(-11), F(-12)),
             ((F(1), F(0)), (F(-2), F(0)), (F(1), F(0))))
    net = Transformer(2, [Block(FF(F(1)), tag), Block(hat, SA(F(1), Factored(F(0)),
                                                               Factored(F(0))))])
    traj = plain_trajectory(net, x)
    derived = check_bounds(traj, F(1, 64), 256, traj.outputs).bounds
    hints = [dict(derived[0], radius=stated_radius), dict(derived[1], radius=None)]
    return traj, hints


def test_a_stated_radius_is_rounded_once_and_read_once_per_layer(monkeypatch):
    """A stated SA radius of huge rationals was carried exactly into every later step, and the
    FF pass recomputed ``|U_k| . r`` for every token (a 212 KB true certificate: 221 s).  Now
    the radius is rounded up once to a 64-bit mantissa and each distinct radius is read once."""
    huge = [F(3 ** 2000 + 1, 3 ** 2000 * 2 ** 20)] * 2
    traj, hints = _hinted_pass([softmax.q(x) for x in huge])
    calls = []
    real = softmax.absdot
    monkeypatch.setattr(softmax, "absdot", lambda a, r: calls.append(1) or real(a, r))
    res = check_bounds(traj, F(1, 64), 256, traj.outputs, hints)
    ff_radius = res.bounds[1]["radius"]
    assert ff_radius == [softmax.up64(softmax.q(x)) for x in huge] != [softmax.q(x) for x in huge]
    assert all(int(r.q) & (int(r.q) - 1) == 0 for r in ff_radius)  # a dyadic
    assert len(calls) < 20  # not per token (200 tokens, 3 units)


# -------------------------------------------------------- stated bounds: reported, not replaced

def _format1():
    return json.loads((ROOT / "tests" / "data" / "theorem-1.8-format1.json").read_text())


def _resealed(c):
    return seal({k: v for k, v in c.items() if k != "digest"})


def _witness_code(out):
    return next((ln for ln in out.lines if ln.startswith("witness: ")), "")


@pytest.mark.parametrize("route", ROUTES)
def test_a_null_stated_gap_where_a_token_has_a_competitor_is_refuted(route):
    """Format 1 with min_gap null on a layer with competitors exited 0 (the derived gap took its
    place); the null states that no token has a competitor: REFUTED with the token."""
    c = _format1()
    assert verify_certificate(c, route=route).verdict == Verdict.VERIFIED_CERTIFIED
    c["bounds"][0]["min_gap"] = None
    out = verify_certificate(_resealed(c), route=route)
    assert out.verdict == Verdict.REFUTED and out.exit_code() == 1
    assert "at block 1, sub-layer SA, sequence 2, token 0: expected 8320" in _witness_code(out)


@pytest.mark.parametrize("keep", [1, 2])
@pytest.mark.parametrize("route", ROUTES)
def test_a_truncated_list_of_stated_bounds_is_inconclusive(route, keep):
    """Format 1 with the last bound(s) cut off exited 0 (derived bounds filled the list); now the
    first sub-layer without a stated bound is INCONCLUSIVE (nothing against the claim)."""
    c = _format1()
    c["bounds"] = c["bounds"][:keep]
    out = verify_certificate(_resealed(c), route=route)
    assert out.verdict == Verdict.INCONCLUSIVE and out.exit_code() == 3
    block = [2, 10][keep - 1]
    assert f"at block {block}, sub-layer SA" in _witness_code(out)


def test_a_stated_gap_that_does_not_follow_is_inconclusive_even_above_the_exact_margin():
    """A stated number is a hint for the pass: above the certified gap, even above the exact
    hardmax margin, it does not follow (INCONCLUSIVE, bound-not-implied): no output is
    exhibited against the claim."""
    from proofcheck.kernel.dataset import embedded_dataset
    from proofcheck.kernel.serialize import network_from_json
    c = _format1()
    net, ds = network_from_json(c["network"]), embedded_dataset(c["dataset"])
    traj = plain_trajectory(net, [list(p.inputs) for p in ds.pairs])
    exact = softmax.f2q([r for r in traj.records if isinstance(r, softmax.SARecord)][1].gap)
    derived = F(c["bounds"][1]["min_gap"])
    assert derived < exact
    for stated in (exact + F(1, 10 ** 9), (derived + exact) / 2):
        c["bounds"][1]["min_gap"] = f"{stated.numerator}/{stated.denominator}"
        out = verify_certificate(_resealed(c), route="plain")
        assert out.verdict == Verdict.INCONCLUSIVE and "block 2, sub-layer SA" in _witness_code(out)


# ------------------------------------------------------------------------- low rank

def _dense_answer(m: Factored, d: int) -> int:
    """The dense decision (the one used before the factored lemma), for comparison."""
    B = m.dense(d)
    c = low_rank._candidate(B, d)
    return min(low_rank.rank_of([[x - (lam if i == j else 0) for j, x in enumerate(row)]
                                 for i, row in enumerate(B)]) for lam in (m.lam, c))


@SETTINGS
@given(st.data())
def test_few_terms_decide_low_rank_like_the_dense_matrix(data):
    """r <= d - 2 terms: decided from the r x r Gram product; it agrees with the dense d x d
    decision on whether some c I + rank <= 1 exists and on that rank."""
    d = data.draw(st.integers(3, 6))
    r = data.draw(st.integers(2, d - 2)) if d >= 4 else 1
    small = st.integers(-2, 2).map(F)
    vecs = st.lists(st.tuples(*[small] * d), min_size=r, max_size=r)
    left = data.draw(vecs)
    right = data.draw(st.one_of(vecs, st.just([tuple(2 * x for x in left[0])] * r)))
    m = Factored(data.draw(small), tuple(left), tuple(right))
    got, want = low_rank.low_rank_part(m, d), _dense_answer(m, d)
    assert (got <= 1) == (want <= 1) and (got > 1 or got == want)


def _wide(d, r, entry):
    return Factored(F(0), tuple(tuple(entry(i, k) for i in range(d)) for k in range(r)),
                    tuple(tuple(entry(k, i) for i in range(d)) for k in range(r)))


def test_low_rank_of_few_terms_of_huge_entries_is_cheap():
    """d = 64, two terms of 33,000-bit entries: the dense 64 x 64 decision took minutes; the
    Gram product of the factors decides within a few thousand units."""
    m = _wide(64, 2, lambda i, k: F(i + 2 * k + 1, 10 ** 9999))
    with limits.budget(None, 400_000):
        assert low_rank.low_rank_part(m, 64) == 2


def test_low_rank_of_a_dense_matrix_of_huge_entries_is_charged_by_bits():
    """d = 32, 31 terms of 33,000-bit entries: exact ranks whose entries grow to 2 million bits
    were charged as if the entries were small; now the budget stops them before they run."""
    m = _wide(32, 31, lambda i, k: F((i * 31 + k) % 7 + 1, 10 ** 9999))
    with limits.budget(None, limits.MIN_UNITS), pytest.raises(ResourceLimit):
        low_rank.low_rank_part(m, 32)
