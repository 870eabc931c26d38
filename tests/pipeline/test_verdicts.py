"""What a verdict names (issue 29 items 1-3, docs/spec.md §5): a REFUTED names the
construction and its scope and never the theorem; wrong softmax constructions are
REFUTED with a witness (the hardmax limit), a construction that raises is REFUTED, one
run has one verdict; the kernel holds each construction's block formula and constant.
Each regression asserts codes and structured fields."""
from __future__ import annotations

import copy
import json
from dataclasses import replace
from fractions import Fraction

import pytest

from proofcheck.constructions.afz.theorems.constructions import get
from mutate import with_parameter
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.certificate_writer import seal, theorem_certificate
from proofcheck.kernel.dataset import Dataset, Pair, dataset_to_json
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate, verify_file

F = Fraction


def _f(*xs):
    return tuple(F(x) for x in xs)


def five_targets() -> Dataset:
    """N = 1, M = 5: the seed builds 2M + 1 + ceil(M/2) = 14 > 2M + 3N = 13 blocks."""
    X = tuple(_f(*p) for p in [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 5)])
    return Dataset("five-targets", 2, (Pair(X, tuple(_f(k, -k) for k in range(1, 6))),))


def small() -> Dataset:
    return Dataset("small", 2, (Pair((_f(0, 0), _f(1, 2), _f(3, 1)), (_f(5, -1),)),
                                Pair((_f(1, 2), _f(2, 2)), (_f(-2, 3),)),
                                Pair((_f(4, 4), _f(0, 3), _f(1, 1)), (_f(7, 0), _f(1, 9)))))


def write(tmp_path, ds: Dataset) -> str:
    f = tmp_path / f"{ds.name}.json"
    f.write_text(json.dumps(dataset_to_json(ds)))
    return str(f)


def last_line(capsys) -> str:
    return capsys.readouterr().out.rstrip().splitlines()[-1]


# ------------------------------------------------ item 1: a REFUTED names its claim

def test_five_target_seed_run_refutes_the_construction_not_the_theorem(tmp_path, capsys):
    """The VERDICT line, the certificate and verify name the seed construction; the
    default construction's row beside it is VERIFIED-CERTIFIED on the same data."""
    cert = tmp_path / "c.json"
    assert main(["theorem", "1.8", "--dataset", write(tmp_path, five_targets()),
                 "--construction", "seed", "--no-simulation", "--no-report",
                 "--certificate", str(cert)]) == 1
    out = capsys.readouterr().out.rstrip().splitlines()
    assert out[-1].startswith("VERDICT: REFUTED (on this dataset: construction seed does not "
                              "witness Theorem 1.8 on its 1 pair: ")
    assert out[-1].endswith("[block-budget])") and "Theorem 1.8 is" not in out[-1]
    rows = {r.split("|")[0].strip(): r.split("|")[1].strip() for r in out
            if r.startswith("  seed |") or r.startswith("  default |")}
    assert rows == {"seed": "REFUTED", "default": "VERIFIED-CERTIFIED"}
    c = json.loads(cert.read_text())
    assert c["claim"]["construction"] == "seed" and c["verdict"] == "REFUTED"
    o = verify_file(cert)
    assert o.verdict is Verdict.REFUTED and o.failure.code == "block-budget"
    assert o.verdict_line() == out[-1]
    assert main(["verify", str(cert)]) == 1
    assert last_line(capsys) == out[-1]


def test_causal_refuted_line_names_construction_reading_and_obstruction(capsys):
    assert main(["theorem", "1.6", "--attention", "causal", "--example", "digits-sample",
                 "--limit", "3", "--no-report"]) == 1
    line = last_line(capsys)
    assert line.startswith("VERDICT: REFUTED (on this dataset: the run's own exact check under "
                           "the causal mask; no certificate: construction default does not "
                           "witness Theorem 1.6 in the reading all-outputs on its 3 pairs: ")
    assert "[claim-mismatch]" in line and "causal-first-token" in line


# ------------------------------- item 2: wrong softmax constructions, one verdict per run

def _mutated(monkeypatch, how):
    """The default construction with its network changed by ``how(net) -> net``."""
    import proofcheck.constructions.afz.theorems.theorem_1_6 as t16
    real = t16.construct

    def construct(*a, **k):
        c = real(*a, **k)
        c.net = how(c.net)
        return c
    monkeypatch.setattr(t16, "construct", construct)


def _last_snap_off(net):
    """The last snap's W moved by 1: its token lands beside its target (hardmax too)."""
    L = net.L
    return with_parameter(net, L, "FF", "W[1][0]", net.blocks[L - 1].ff.W[0][1] + 1)


@pytest.mark.parametrize("tau", [None, "1/8"])
def test_wrong_softmax_network_is_refuted_at_the_hardmax_limit(monkeypatch, tmp_path, capsys,
                                                               tau):
    """Before: "tau must be positive (got 0)", ERROR exit 4 (searched) or INCONCLUSIVE
    (--tau).  Now REFUTED: the kernel's limit witness (sequence, token, exact hardmax
    value), the certificate (positive tau) written and re-checked alike, and the hardmax
    claim check naming the block and sub-layer."""
    _mutated(monkeypatch, _last_snap_off)
    cert = tmp_path / "c.json"
    ds = small()
    args = ["theorem", "1.8", "--dataset", write(tmp_path, ds), "--no-simulation",
            "--no-report", "--certificate", str(cert)] + (["--tau", tau] if tau else [])
    assert main(args) == 1
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1].endswith("[limit-output-not-target])")
    assert "[REFUTED] hardmax limit: block " in out
    c = json.loads(cert.read_text())
    assert c["verdict"] == "REFUTED" and F(c["semantics"]["tau"]) > 0
    o = verify_file(cert)
    assert o.verdict is Verdict.REFUTED and o.failure.code == "limit-output-not-target"
    assert o.failure.sequence is not None and o.failure.token is not None and o.failure.got


def test_limit_claim_check_names_the_wrong_block(monkeypatch):
    from proofcheck.constructions.afz.theorems.theorem_1_8 import verify
    _mutated(monkeypatch, _last_snap_off)
    sc = verify(small(), simulate_num=False)
    assert sc.certificate.verdict is Verdict.REFUTED
    assert sc.certificate.witness.code == "limit-output-not-target"
    bad = [r for r in sc.results if r.name.startswith("hardmax limit") and
           r.verdict is Verdict.REFUTED]
    L = sc.construction.net.L
    assert (bad[0].witness.block, bad[0].witness.sublayer, bad[0].witness.code) == \
        (L, "FF", "claim-mismatch")


def test_limit_witness_needs_a_miss_and_no_tie():
    """The kernel's rule decides nothing for an exact hardmax limit or a trajectory that
    stopped at a tie, and refutes a miss with its code."""
    from proofcheck.kernel.softmax import plain_trajectory
    from proofcheck.kernel.theorem import limit_witness
    from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    ds = small()
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    net = construct(inputs, targets, 2, **SCALES).net
    assert limit_witness(plain_trajectory(net, inputs), targets) is None
    w = limit_witness(plain_trajectory(_last_snap_off(net), inputs), targets)
    assert w.code == "limit-output-not-target" and w.sequence is not None
    traj = plain_trajectory(_last_snap_off(net), inputs)
    traj.stop = (0, None)
    assert limit_witness(traj, targets) is None


def test_construction_that_raises_is_refuted_not_an_internal_error(monkeypatch, tmp_path,
                                                                    capsys):
    import proofcheck.constructions.afz.theorems.theorem_1_8_seed as seed

    def boom(*a, **k):
        raise ValueError("no leader")
    monkeypatch.setattr(seed, "construct", boom)
    cert = tmp_path / "c.json"
    assert main(["theorem", "1.8", "--dataset", write(tmp_path, small()), "--construction",
                 "seed", "--no-simulation", "--no-report", "--certificate", str(cert)]) == 1
    line = last_line(capsys)
    assert line.startswith("VERDICT: REFUTED (on this dataset: construction seed does not "
                           "witness Theorem 1.8 on its 3 pairs: construction raised")
    assert line.endswith("[construction-raised])") and not cert.exists()


def test_a_claim_that_fails_beside_a_passing_network_is_one_refuted(monkeypatch, tmp_path,
                                                                   capsys):
    """The construction's claim for its last snap is wrong, its network interpolates:
    before, the certificate stated REFUTED, the kernel found its content VERIFIED and the
    run ended ERROR (exit 4).  Now the run is REFUTED by its own check, the kernel's
    verdict on the content is printed beside it and no certificate is written."""
    import proofcheck.constructions.afz.theorems.theorem_1_6 as t16
    from proofcheck.constructions.claims import Fixed
    real = t16.construct

    def construct(*a, **k):
        c = real(*a, **k)
        c.claims[-1] = (Fixed(), c.claims[-1][1])
        return c
    monkeypatch.setattr(t16, "construct", construct)
    cert = tmp_path / "c.json"
    assert main(["theorem", "1.6", "--dataset", write(tmp_path, small()), "--no-report",
                 "--certificate", str(cert)]) == 1
    out = capsys.readouterr().out
    line = out.rstrip().splitlines()[-1]
    assert "construction default does not do what it states" in line
    assert "[claim-mismatch]" in line and line.endswith("re-checked by the kernel: VERIFIED)")
    assert "certificate: not written" in out and not cert.exists()


# ---------------------------------------------------------------- the seed mechanism

@pytest.fixture(scope="module")
def seed_run():
    from proofcheck.constructions.afz.theorems.theorem_1_8 import verify
    ds = small()
    return ds, verify(ds, simulate_num=False, construction="seed")


def test_seed_run_proves_its_converge_layers(seed_run):
    """The converge profile's proof and the instance check run in every seed run; the
    flats' half-widths the construction reports are those of the layers it built."""
    from proofcheck.constructions.afz.theorems.theorem_1_8_seed import built_flats
    _, sc = seed_run
    names = {r.name.split(":")[0]: r.verdict for r in sc.results}
    assert names["converge symbolic"] is Verdict.VERIFIED
    assert all(r.verdict.passed for r in sc.results)
    assert built_flats(sc.construction) == sc.construction.info["deltas"]


def test_a_converge_layer_not_the_proved_one_is_refuted(seed_run):
    from proofcheck.constructions.afz.theorems.theorem_1_8_seed import converge_layers, softmax_checks
    ds, sc = seed_run
    c = copy.copy(sc.construction)
    blk = converge_layers(c)[0][0]
    c.net = with_parameter(c.net, blk, "FF", "W[0][1]", 2)  # unit 2's slope doubled
    res = softmax_checks(c, sc.certificate, None, None)
    bad = [r for r in res if r.verdict is Verdict.REFUTED]
    assert [(r.witness.code, r.witness.block) for r in bad] == [("not-the-proved-layer", blk)]


def test_a_box_straddling_a_converge_kink_under_a_passing_certificate_is_refuted(seed_run):
    """The printed condition is a check: a passing certificate whose box straddles a
    converge kink (the mechanism the construction states fails) is never VERIFIED."""
    from proofcheck.constructions.afz.theorems.theorem_1_8_seed import converge_layers, softmax_checks
    _, sc = seed_run
    blk = converge_layers(sc.construction)[0][0]
    raw = [dict(b, straddles=1) if b["block"] == blk and b["sublayer"] == "FF" else b
           for b in sc.certificate.raw]
    res = softmax_checks(sc.construction, replace(sc.certificate, raw=raw), None, None)
    bad = [r for r in res if r.verdict is Verdict.REFUTED]
    assert [(r.witness.code, r.witness.block) for r in bad] == \
        [("box-straddles-converge-kink", blk)]


# ------------------------------------------------- item 3: constants the kernel knows

def test_kernel_constants_are_proved_bounds_of_the_exact_counts():
    """Each construction's P (its exact count, over the whole range of R) is at most
    C d M with the kernel's constant, tight somewhere for d = 2; bounded's bound
    (28d + 24) M + 2d - 1 too."""
    from proofcheck.kernel.statements import (KNOWN_CONSTRUCTIONS, param_formula,
                                              peel_param_formula, seed_param_formula)
    C = {k: v.param_constant for k, v in KNOWN_CONSTRUCTIONS.items()}
    assert C == {"default": 38, "peel": 17, "seed": 42, "bounded": 42}
    for d in range(2, 9):
        for M in range(1, 40):
            for N in range(1, M + 1):
                for R in range(N):
                    assert param_formula(d, M, R) <= 38 * d * M
                    assert peel_param_formula(d, N, M, R) <= 17 * d * M
                    assert seed_param_formula(d, M, R) <= 42 * d * M
            assert (28 * d + 24) * M + 2 * d - 1 <= 42 * d * M
    assert seed_param_formula(2, 1, 0) == 84 == 42 * 2 * 1


def _bounded_cert(ds, extra_blocks=0):
    """The bounded construction's certificate of ``ds``, with ``extra_blocks`` identity
    blocks appended (a mutant building more blocks than its formula, the stated R kept)."""
    from proofcheck.constructions.afz.theorems.constructions import certified_constants
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    from proofcheck.kernel.model import Block, Transformer
    from proofcheck.constructions.layers import identity_ff, identity_sa
    tc = verify(ds, construction=get("bounded", "1.6"))
    net = tc.construction.net
    net = Transformer(net.d, list(net.blocks) + [Block(identity_ff(), identity_sa())] * extra_blocks)
    consts = certified_constants(tc.constants)
    consts.update(L=net.L, P=net.n_params(), L_construction=tc.constants["L_construction"])
    return theorem_certificate("1.6", ds, net, Verdict.VERIFIED, constants=consts), tc


@pytest.mark.parametrize("stated_r", [True, False])
def test_bounded_block_formula_is_the_kernels_from_the_dataset(stated_r):
    """One pair, target off the e_1 ray: the formula gives L = 0 + 1 + 1 + 1 = 3 from the
    dataset.  Two extra blocks (L = 5, still within 2M + 2N + 1) are REFUTED, with or
    without R stated; the construction-side check names the same formula."""
    ds = Dataset("one", 2, (Pair((_f(0, 0), _f(1, 2)), (_f(3, -1),)),))
    cert, tc = _bounded_cert(ds)
    assert verify_certificate(cert).verdict is Verdict.VERIFIED
    assert tc.constants["L_construction"] == 3 == tc.construction.net.L
    bad, _ = _bounded_cert(ds, 2)
    if not stated_r:
        body = {k: v for k, v in bad.items() if k != "digest"}
        for k in ("R", "L_construction"):
            body["claim"]["constants"].pop(k)
        bad = seal(body)
    o = verify_certificate(bad)
    assert o.verdict is Verdict.REFUTED
    assert o.failure.code == ("constant-mismatch" if stated_r else "block-formula")


def test_bounded_construction_side_formula_reads_the_dataset():
    """Two extra blocks with the construction's report inflated to match (two more
    snaps): the check with the dataset's M' and D' refutes it, the report alone would not."""
    from proofcheck.constructions.afz.theorems import bounded
    from proofcheck.kernel.model import Block, Transformer
    from proofcheck.constructions.layers import identity_ff, identity_sa
    ds = Dataset("one", 2, (Pair((_f(0, 0), _f(1, 2)), (_f(3, -1),)),))
    targets = [list(p.outputs) for p in ds.pairs]
    c = bounded.construct([list(p.inputs) for p in ds.pairs], targets, 2)
    checks, _ = bounded.constant_checks(c.net, 2, 1, 1, c.info, targets)
    assert all(r.verdict.passed for r in checks)
    net = Transformer(2, list(c.net.blocks) + [Block(identity_ff(), identity_sa())] * 2)
    info = dict(c.info, snaps=c.info["snaps"] + 2)
    checks, _ = bounded.constant_checks(net, 2, 1, 1, info, targets)
    bad = [r for r in checks if r.verdict is Verdict.REFUTED]
    assert [r.name for r in bad] == ["L = R + 1 + max(1, M') + D' (M', D' from the dataset)"]
    checks, _ = bounded.constant_checks(net, 2, 1, 1, info)  # the report alone: fooled
    assert all(r.verdict.passed for r in checks if r.name.startswith("L = R"))


def _heads_cert(construction, C):
    """A two-block network with 1,001 heads in its first SA layer (1,000 of them zero: the
    same function), its certificate stating C and naming ``construction`` (or none)."""
    from test_heads_certificates import dataset_of, two_head_net
    from proofcheck.kernel.model import SA, Block, Factored, Transformer
    net = two_head_net()
    b0 = net.blocks[0]
    zero = (Factored(F(0)), Factored(F(0)))
    sa = SA.multi(b0.sa.rho, list(b0.sa.heads) + [zero] * 999, causal=True)
    net = Transformer(2, [Block(b0.ff, sa)] + list(net.blocks[1:]))
    ds = dataset_of(net)
    consts = {"N": ds.N, "M": ds.M, "d": 2, "L": net.L, "P": net.n_params(),
              "param_constant": C, "P_bound": C * 2 * ds.M}
    return theorem_certificate("1.6", ds, net, Verdict.VERIFIED, constants=consts,
                               construction=construction)


def test_a_million_beside_1001_heads_is_no_constant(capsys):
    """Named default: REFUTED (the kernel's 38, and not its block formula); unnamed: the
    stated C is arithmetic on this dataset, the line says no O(d M) claim and names the
    heads and the mask."""
    o = verify_certificate(_heads_cert("default", 10 ** 6))
    assert o.verdict is Verdict.REFUTED and o.failure.code == "param-constant"
    o = verify_certificate(_heads_cert(None, 10 ** 6))
    assert o.verdict is Verdict.VERIFIED
    assert "no O(d M) claim" in o.detail and "at most 1001 heads per SA layer" in o.detail
    assert "causal mask on 1 of 2 SA layers" in o.detail
    assert "the certificate's network (no construction named)" in o.detail


def test_unknown_construction_has_no_constant_and_no_formula():
    cert = _heads_cert("my-plugin", 10 ** 6)
    o = verify_certificate(cert)
    assert o.verdict is Verdict.VERIFIED and "construction my-plugin witnesses" in o.detail
    assert "P / (d M) = " in o.detail and "a construction the kernel does not know" in o.detail
    body = {k: v for k, v in cert.items() if k != "digest"}
    body["claim"]["constants"]["R"] = 0
    with pytest.raises(BadInput) as e:
        verify_certificate(seal(body))
    assert e.value.path == "$.claim.constants.R"


def test_a_known_construction_for_another_theorem_is_bad_input():
    cert = _heads_cert("seed", 42)  # the seed serves Theorem 1.8 only
    with pytest.raises(BadInput) as e:
        verify_certificate(cert)
    assert e.value.path == "$.claim.construction"


def test_exact_limit_with_a_box_across_a_kink_is_inconclusive_and_writable(seed_run):
    """The last converge block's k4 moved to just beyond its flat's centre: the hardmax
    limit is exact (no limit witness), but at the seed's tau_cert the box straddles the
    kink and the final box is no point.  Its certificate at that tau states INCONCLUSIVE
    and the kernel agrees (exit 3); stating REFUTED, it cannot be established."""
    from proofcheck.constructions.afz.softmax_certifier import certify
    ds, sc = seed_run
    c = sc.construction
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    blk = c.phases["V"][1]
    k1, k2, k3, k4 = c.info["converge_kinks"][-1]
    vb = (k3 + k4) / 2
    net = with_parameter(c.net, blk, "FF", "b[3]", -(vb + (k4 - vb) / 10 ** 9))
    cert = certify(net, inputs, targets, sc.tau_cert)
    assert cert.verdict is Verdict.INCONCLUSIVE and cert.witness.code == "final-box-not-a-point"
    for stated in (Verdict.INCONCLUSIVE, Verdict.REFUTED):
        o = verify_certificate(theorem_certificate("1.8", ds, net, stated, tau=cert.tau,
                                                   bounds=cert, construction="seed-narrowed"))
        assert o.verdict is Verdict.INCONCLUSIVE and o.exit_code() == 3 and o.failure is None
