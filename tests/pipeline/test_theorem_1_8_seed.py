"""``theorem 1.8 --construction seed``: the seed's non-residual mechanism.  The
converge schedule's geometry (hypothesis), the converge layer's symbolic proof and
its mutant, the construction on the digits sample and the named datasets (softmax
certificate, hardmax claims on both backends), the radius-vs-tau relation, mutants
(INCONCLUSIVE and REFUTED with witnesses), the budget obstruction, the CLI (side by
side table, exit codes) and the certificate round trip."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from conftest import NAMED
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.layers import converge
from proofcheck.constructions.afz.theorems.constructions import get
from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES, compare_constructions, verify
from proofcheck.constructions.afz.theorems.theorem_1_8_seed import (
    construct,
    converge_blocks,
    notes,
    param_formula,
    schedule,
)
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.examples import sample
from proofcheck.constructions.claim_check import check_network
from proofcheck.kernel.dataset import Dataset, Pair
from mutate import with_parameter
from proofcheck.kernel.model import Transformer
from proofcheck.constructions.afz.softmax_certifier import certify
from proofcheck.kernel.verdicts import Verdict, combine

F = Fraction


def _io(ds):
    return [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


@pytest.fixture(scope="module")
def digits_seed():
    ds, _ = sample()
    return ds, verify(ds, simulate_num=False, construction="seed")


@settings(max_examples=120, deadline=None)
@given(st.lists(st.fractions(min_value=-50, max_value=50, max_denominator=6), min_size=1,
                max_size=12, unique=True),
       st.lists(st.integers(-10, 10), max_size=5))
def test_schedule_flats_hold_their_neighbourhood_and_nothing_else(kappas, forbidden):
    """Every neighbourhood of half-width delta_l lies in a flat of its block; with any
    common radius <= min delta no unconverged neighbourhood has a kink inside; the
    final points are the images, distinct, and off the forbidden values."""
    forb = {F(v) for v in forbidden} - set(kappas)
    sch = schedule(kappas, forb)
    M = len(kappas)
    assert len(sch.kinks) == converge_blocks(M) == (M + 1) // 2
    rmin = min(sch.deltas)
    vals = list(kappas)
    for i, ks in enumerate(sch.kinks):
        k1, k2, k3, k4 = ks
        assert k1 < k2 < k3 < k4
        for l, v in enumerate(vals):
            if sch.block_of[l] == i:
                d = sch.deltas[l]
                assert (k1 <= v - d and v + d <= k2) or (k3 <= v - d and v + d <= k4)
            elif sch.block_of[l] > i:
                assert all(abs(v - k) >= rmin for k in ks), (i, l, v, ks)
        vals = [converge.image(k1, k2, k3, k4, v) for v in vals]
        done = [v for l, v in enumerate(vals) if sch.block_of[l] <= i]
        assert len(set(done)) == len(done)
    assert vals == sch.final and len(set(vals)) == M and not forb.intersection(vals)


def test_schedule_scales_the_last_block_off_a_forbidden_value():
    """kappas 0, 3: delta = 1 each, final points -2 and -2 + ... ; forbidding the
    unscaled ones forces s < 1."""
    first = schedule([F(0), F(3)], set())
    assert first.scale == 1
    forced = schedule([F(0), F(3)], set(first.final))
    assert forced.scale < 1 and not set(first.final) & set(forced.final)


def test_converge_symbolic_and_its_mutant(monkeypatch):
    assert converge.symbolic(3, 0).verdict == Verdict.VERIFIED
    assert converge.symbolic(2, 1).verdict == Verdict.VERIFIED
    real = converge.converge_ff

    def wrong(axis, d, k1, k2, k3, k4, label=""):  # second flat not flat: W column 3 doubled
        ff = real(axis, d, k1, k2, k3, k4)
        W = list(ff.W)
        W[3] = tuple(2 * x for x in W[3])
        return type(ff)(ff.eta, ff.U, ff.b, tuple(W))
    monkeypatch.setattr(converge, "converge_ff", wrong)
    res = converge._symbolic.__wrapped__(3, 0)
    assert res.verdict == Verdict.REFUTED and res.witness is not None


def test_seed_on_the_digits_sample(digits_seed):
    ds, sc = digits_seed
    assert combine(r.verdict for r in sc.results) == Verdict.VERIFIED_CERTIFIED
    assert sc.construction_name == "seed" and sc.tau_cert is not None
    net, info = sc.construction.net, sc.construction.info
    M, N, R, K = ds.M, ds.N, info["R"], info["K"]
    assert K == converge_blocks(M) == 20 and net.L == 2 * M + R + 1 + K <= 2 * M + 3 * N
    conv = [b.ff for b in net.blocks if b.phase == "V"]
    assert len(conv) == K and all(f.eta == 0 and f.width == 4 for f in conv)
    assert net.n_params() == param_formula(ds.d, M, R) == sc.constants["P"]
    # boxes after the collapse are not points; the converge blocks leave unconverged
    # neighbourhoods their width (an FF layer's stated radius is the running bound
    # since the last SA layer); the certificate passes only when, after the last one,
    # every final box is a point
    first_v, last_v = sc.construction.phases["V"]
    width = {b.block: b.max_width for b in sc.certificate.bounds if b.sublayer == "FF"}
    assert _collapse_half_width(sc.construction, sc.certificate) > 0
    assert all(width[b] > 0 for b in range(first_v, last_v))
    assert sc.certificate.verdict == Verdict.VERIFIED_CERTIFIED
    assert sc.results[0].name == "construction"
    assert any("not proofcheck's shorter default" in line for line in sc.results[0].details)


def test_seed_hardmax_claims_hold_on_both_backends(digits_seed):
    """Every sub-layer claim, exactly: flint on the sample, the Fraction reference on
    its first 6 images (it evaluates every token of a dense layer with big
    Fractions: a minute on the whole sample)."""
    ds, sc = digits_seed
    small, _ = sample(limit=6)
    for backend, data in (("flint", ds), ("fraction", small)):
        inputs, targets = _io(data)
        c = sc.construction if data is ds else construct(inputs, targets, data.d, **SCALES)
        nc = check_network(c.net, inputs, targets, c.claims, backend=backend)
        assert combine(r.verdict for r in nc.results) == Verdict.VERIFIED


@pytest.mark.parametrize("name", sorted(NAMED))
def test_seed_certifies_every_named_dataset(name):
    """VERIFIED-CERTIFIED on every named dataset, also where P exceeds the default
    construction's 38 d M (d = 2, R = N - 1): the certificate states the seed's own
    constant 42 and the kernel checks P <= 42 d M with it."""
    ds = NAMED[name]
    sc = verify(ds, simulate_num=False, construction="seed")
    bad = [r for r in sc.results if r.verdict != Verdict.VERIFIED
           and r.verdict != Verdict.VERIFIED_CERTIFIED]
    assert sc.certificate.verdict == Verdict.VERIFIED_CERTIFIED
    assert not bad
    assert sc.construction.net.n_params() <= 42 * ds.d * ds.M
    inputs, targets = _io(ds)
    nc = check_network(sc.construction.net, inputs, targets, sc.construction.claims)
    assert combine(r.verdict for r in nc.results) == Verdict.VERIFIED


def _collapse_half_width(c, cert):
    blk = c.info["R"] + 1 + len(c.info["kappas"])
    return next(b.max_width for b in cert.bounds if b.block == blk and b.sublayer == "SA") / 2


def test_radius_after_the_collapse_against_the_flats(digits_seed):
    """At tau_cert the box after the collapse fits the smallest flat; at the first
    failing tau of the search it does not (the failure is the convergence's)."""
    ds, sc = digits_seed
    c = sc.construction
    assert _collapse_half_width(c, sc.certificate) <= c.info["min_delta"]
    flat = next(r for r in sc.results if r.name.startswith("each neighbourhood converges"))
    assert flat.verdict == Verdict.VERIFIED and "<= smallest delta" in flat.details[0]
    assert not any("smallest delta" in line and "certified half-width" in line
                   for line in sc.results[0].details)  # a passing run: the check says it
    bad = min(t for t, v in sc.trials if v != Verdict.VERIFIED_CERTIFIED)
    inputs, targets = _io(ds)
    cert = certify(c.net, inputs, targets, bad)
    assert cert.verdict == Verdict.INCONCLUSIVE
    assert _collapse_half_width(c, cert) > c.info["min_delta"]
    assert any("> smallest delta" in line for line in notes(c, cert))


def test_without_the_converge_blocks_no_certificate(digits_seed):
    """Point hats need exact points: dropping phase V leaves non-point final boxes."""
    ds, sc = digits_seed
    inputs, targets = _io(ds)
    net = Transformer(ds.d, [b for b in sc.construction.net.blocks if b.phase != "V"])
    cert = certify(net, inputs, targets, sc.tau_cert)
    w = cert.witness
    assert cert.verdict == Verdict.INCONCLUSIVE and w.coordinate == 0
    assert w.expected == 0 and w.got > 0 and w.sequence is not None and w.token is not None


def test_narrowed_flat_is_inconclusive_hardmax_still_exact(digits_seed):
    """One parameter: the last converge block's k4 moved to just beyond its centre.
    The hardmax network still interpolates exactly; the softmax box straddles the
    kink, so the certificate honestly fails (INCONCLUSIVE, non-point final box)."""
    ds, sc = digits_seed
    c = sc.construction
    inputs, targets = _io(ds)
    blk = c.phases["V"][1]
    k1, k2, k3, k4 = c.info["converge_kinks"][-1]
    vb = (k3 + k4) / 2
    net = with_parameter(c.net, blk, "FF", "b[3]", -(vb + (k4 - vb) / 10 ** 9))
    assert combine(r.verdict for r in check_network(net, inputs, targets).results) == \
        Verdict.VERIFIED
    cert = certify(net, inputs, targets, sc.tau_cert)
    assert cert.verdict == Verdict.INCONCLUSIVE
    assert cert.witness.expected == 0 and cert.witness.got > 0
    assert any(b.straddles for b in cert.bounds if b.block == blk)


def test_mutated_converge_weight_is_refuted_with_witness(digits_seed):
    ds, sc = digits_seed
    c = sc.construction
    inputs, targets = _io(ds)
    blk = c.phases["V"][0] + 3
    k1, k2, k3, k4 = c.info["converge_kinks"][3]
    # k3 of the left-facing unit moved up a little: both flats stay flat and hold their
    # boxes, but every image left of k3 moves, so a point hat misses its point
    net = with_parameter(c.net, blk, "FF", "b[2]", k3 + (k4 - k3) / 1000)
    cert = certify(net, inputs, targets, sc.tau_cert)
    assert cert.verdict == Verdict.REFUTED and cert.witness.sequence is not None
    nc = check_network(net, inputs, targets, c.claims)
    w = next(r.witness for r in nc.results if r.verdict == Verdict.REFUTED)
    assert (w.block, w.sublayer, w.coordinate) == (blk, "FF", 0) and w.expected != w.got


def _five_leaders():
    pts = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)]
    X = tuple(tuple(F(v) for v in p) for p in pts)
    Y = tuple((F(k), F(-k)) for k in range(1, 6))
    return Dataset("five-leaders", 2, (Pair(X, Y),))


def test_budget_obstruction_is_refuted_with_the_phase_counts():
    """N = 1, M = 5: K = 3 converge blocks, L = 2M + 1 + 3 = 14 > 2M + 3N = 13."""
    ds = _five_leaders()
    sc = verify(ds, simulate_num=False, construction="seed")
    r = next(r for r in sc.results if r.name.startswith("L <= 2M + 3N"))
    assert r.verdict == Verdict.REFUTED
    assert (r.witness.expected, r.witness.got) == (13, 14)
    assert sc.certificate.verdict == Verdict.VERIFIED_CERTIFIED  # the network itself works
    assert combine(x.verdict for x in sc.results) == Verdict.REFUTED


def test_cli_budget_obstruction_exits_1(tmp_path, capsys):
    from proofcheck.kernel.dataset import dataset_to_json
    f = tmp_path / "five.json"
    f.write_text(json.dumps(dataset_to_json(_five_leaders())))
    assert main(["theorem", "1.8", "--dataset", str(f), "--construction", "seed",
                 "--no-simulation", "--no-report"]) == 1
    assert "obstruction at phase V" in capsys.readouterr().out


def test_comparison_rows(digits_seed):
    ds, sc = digits_seed
    rows = compare_constructions(ds, sc)
    assert [r["construction"] for r in rows] == ["seed", "default"]
    default = verify(ds, simulate_num=False)
    assert rows[1]["L"] == default.construction.net.L == rows[0]["L"] - sc.construction.info["K"]
    assert rows[0]["theta_sq_norm"] == sc.construction.net.sq_norm()
    assert rows[1]["tau_cert"] == default.tau_cert


def test_cli_seed_side_by_side_and_certificate(tmp_path, capsys):
    cert = tmp_path / "seed.json"
    assert main(["theorem", "1.8", "--construction", "seed", "--no-simulation", "--no-report",
                 "--certificate", str(cert)]) == 0
    rows = [line.split("|") for line in capsys.readouterr().out.splitlines()
            if line.startswith("  seed |") or line.startswith("  default |")]
    assert [r[0].strip() for r in rows] == ["seed", "default"]
    assert [r[1].strip() for r in rows] == ["VERIFIED-CERTIFIED"] * 2
    assert main(["verify", str(cert)]) == 0


def test_seed_serves_theorem_1_8_only():
    assert get("seed", "1.8").name == "seed"
    with pytest.raises(KeyError):
        get("seed", "1.6")
    assert main(["theorem", "1.6", "--construction", "seed", "--no-report"]) == 2


def test_float_safe_options_are_refused():
    from proofcheck.constructions.afz.options import ConstructionOptions
    ds, _ = sample(limit=3)
    inputs, targets = _io(ds)
    with pytest.raises(ValueError):
        construct(inputs, targets, ds.d, options=ConstructionOptions("float32"), **SCALES)


def test_seed_exceeds_the_default_parameter_bound_exactly_where_the_docs_say():
    """d = 2: P > 38 d M (the default construction's constant) iff 28R + 17 + 24 ceil(M/2)
    > 33M (every one-target dataset, even with R = 0); never for d = 3, 4 (R <= M - 1).
    The seed's certificate names its construction, whose constant 42 the kernel holds: a
    one-pair d = 2 dataset (P = 84 > 76 = 38 d M) verifies against 42 d M = 84, and a
    certificate stating another constant (38, or 100,000), re-sealed, is refuted
    (param-constant)."""
    import json

    from proofcheck.constructions.afz.theorems.constructions import certified_constants
    from proofcheck.frontend.io.certificate_writer import seal, theorem_certificate
    from proofcheck.kernel.verify import verify_certificate
    for d in (2, 3, 4):
        for M in range(1, 60):
            for R in range(M):
                over = param_formula(d, M, R) > 38 * d * M
                assert over == (d == 2 and 28 * R + 17 + 24 * converge_blocks(M) > 33 * M)
    ds = Dataset("one-pair", 2, (Pair(((F(0), F(0)), (F(1), F(2))), ((F(3), F(-1)),)),))
    sc = verify(ds, simulate_num=False, construction="seed")
    assert sc.certificate.verdict == Verdict.VERIFIED_CERTIFIED
    assert all(r.verdict.passed for r in sc.results)
    assert sc.construction.net.n_params() == 84
    cert = theorem_certificate("1.8", ds, sc.construction.net, Verdict.VERIFIED_CERTIFIED,
                               tau=sc.certificate.tau, bounds=sc.certificate,
                               constants=certified_constants(sc.constants))
    out = verify_certificate(cert)
    assert out.verdict == Verdict.VERIFIED_CERTIFIED, out.lines
    assert any("P = 84 <= C d M = 84 with C = 42 (the construction's proved constant, held "
               "by the kernel)" in ln for ln in out.lines), out.lines
    assert cert["claim"]["construction"] == "seed"
    for C in (38, 100_000):  # the seed's constant is the kernel's: a certificate cannot choose
        other = json.loads(json.dumps(cert))
        other["claim"]["constants"].update(param_constant=C, P_bound=C * 2)
        out = verify_certificate(seal(other))
        assert out.verdict == Verdict.REFUTED and out.failure.code == "param-constant"
        assert f"claimed param_constant = {C}, but construction seed's proved constant = 42" \
            in out.verdict_line()
