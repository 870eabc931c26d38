"""The ``peel`` construction (proofcheck/constructions/afz/theorems/peel.py): exact block and
parameter counts, both backends, mutated parameters REFUTED with their witness,
and a certificate of a ``peel`` run that ``verify`` re-checks."""
from __future__ import annotations

from fractions import Fraction

from conftest import NAMED

from proofcheck.constructions.afz.theorems.constructions import get
from proofcheck.constructions.afz.theorems.peel import block_formula, param_formula
from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.examples import sample
from proofcheck.constructions.claim_check import check_network
from mutate import with_parameter
from proofcheck.kernel.verdicts import Verdict, combine


def _io(ds):
    return [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


def test_exact_counts_on_the_digits_sample_and_a_multi_target_case():
    """Digits sample (every m_j = 1): the collapse replaces the last tag, 10 peels;
    needs-rounds (m = 1, 3, 1, 1, 1, 3): 4 extra leaders, the collapse in the last
    of their blocks, 3 peels."""
    ds, _ = sample()
    tc = verify(ds, construction=get("peel", "1.6"))
    c = tc.constants
    assert (c["N"], c["M"], c["d"], c["R"]) == (40, 40, 6, 1)
    assert c["L"] == 12 == block_formula(40, 40, 1) == 1 + 1 + 0 + 10
    assert c["P"] == 669 == param_formula(6, 40, 40, 1)
    assert c["L_default"] == 82 and tc.construction.phases["C"] == (2, 2)
    assert tc.construction.info["mu"] == 0
    tc = verify(NAMED["needs-rounds"], construction=get("peel", "1.6"))
    c = tc.constants
    assert (c["N"], c["M"], c["R"], c["L"], c["P"]) == (6, 10, 1, 9, 207)
    assert tc.construction.phases == {"S": (1, 2), "L": (3, 6), "C": (6, 6), "I": (7, 9)}
    assert tc.construction.info["mu"] == Fraction(1, 64)
    assert combine(r.verdict for r in tc.results) == Verdict.VERIFIED


def test_fraction_backend_verifies_like_flint():
    for name in ("needs-rounds", "common-top", "tie-heavy"):
        tc = verify(NAMED[name], construction=get("peel", "1.6"), backend="fraction")
        assert combine(r.verdict for r in tc.results) == Verdict.VERIFIED, name


def test_mutated_peel_weight_is_refuted_at_its_block():
    """W[0][0] of the first peel (its lowest top unit is active at all four top
    kappas) + 1: the first row it moves lands 1 * (kappa - kink) off its target."""
    ds, _ = sample()
    inputs, targets = _io(ds)
    tc = verify(ds, construction=get("peel", "1.6"))
    c = tc.construction
    b = c.phases["I"][0]
    ff = c.net.blocks[b - 1].ff
    bad = with_parameter(c.net, b, "FF", "W[0][0]", ff.W[0][0] + 1)
    nc = check_network(bad, inputs, targets, c.claims)
    w = nc.witness
    assert nc.verdict == Verdict.REFUTED
    assert (w.block, w.sublayer, w.coordinate) == (b, "FF", 0)
    kappa = c.info["kappas"][w.sequence]  # every m_j = 1: leader l is sequence l
    kink = -ff.b[0] / ff.U[0][0]
    assert w.expected == targets[w.sequence][0][0]
    assert w.got - w.expected == kappa - kink


def test_mutated_mu_is_refuted_at_the_collapse():
    """mu = 0 in a sequence with two extra leaders: both attend to the u-minimal one
    (Lemma 4.1), so the other leader's image is wrong — REFUTED at the collapse SA."""
    ds = NAMED["needs-rounds"]
    inputs, targets = _io(ds)
    c = verify(ds, construction=get("peel", "1.6")).construction
    cb = c.phases["C"][0]
    bad = with_parameter(c.net, cb, "SA", "A.lam", 0)
    nc = check_network(bad, inputs, targets, c.claims)
    assert nc.verdict == Verdict.REFUTED
    assert (nc.witness.block, nc.witness.sublayer) == (cb, "SA")
    assert nc.witness.sequence in (1, 5)  # the sequences with m_j = 3


def test_certificate_of_a_peel_run_verifies(tmp_path):
    cert = tmp_path / "c.json"
    assert main(["theorem", "1.6", "--construction", "peel", "--no-report",
                 "--certificate", str(cert)]) == 0
    assert main(["verify", str(cert)]) == 0


def _generic_6d():
    """Five sequences in d = 6 with m = 1, 2, 3, 4, 2 targets drawn from [-50, 50]^6."""
    import random

    from proofcheck.kernel.dataset import Dataset, Pair
    rng = random.Random(1)
    tok = lambda: tuple(Fraction(rng.randint(-50, 50)) for _ in range(6))  # noqa: E731
    return Dataset("generic-6d", 6, tuple(Pair(tuple(tok() for _ in range(5)),
                                               tuple(tok() for _ in range(m)))
                                          for m in (1, 2, 3, 4, 2)))


def _placement(ds):
    from proofcheck.constructions.afz.phases.peeling import direct_placement_bound
    c = verify(ds, construction=get("peel", "1.6")).construction
    pts = [(k,) + (Fraction(0),) * (ds.d - 1) for k in c.info["kappas"]]
    ys = [tuple(y) for p in ds.pairs for y in p.outputs]
    lo, hi = c.phases["I"]
    return lambda layers=hi - lo + 1: direct_placement_bound(pts, ys, layers)


def test_direct_placement_bound_is_attained_on_a_generic_instance():
    """Every 5 of the 12 displacements independent: >= 3 layers, the peel phase has 3
    (VERIFIED); a claimed length of 2 or 4 is REFUTED with the bound as witness."""
    check = _placement(_generic_6d())
    r = check()
    assert r.verdict == Verdict.VERIFIED and "C(12, 5) = 792" in r.details[0]
    for wrong in (2, 4):
        r = check(wrong)
        assert r.verdict == Verdict.REFUTED
        assert (r.witness.expected, r.witness.got) == (3, wrong)


def test_direct_placement_bound_needs_its_premise():
    """Digits targets label * e_1: every displacement is parallel to e_1, the premise
    fails (INCONCLUSIVE, not a pass)."""
    ds, _ = sample(limit=8)
    assert _placement(ds)().verdict == Verdict.INCONCLUSIVE


def test_float_safe_options_are_refused():
    import pytest

    from proofcheck.constructions.afz.options import ConstructionOptions
    from proofcheck.constructions.afz.theorems.peel import construct
    from proofcheck.kernel.model import ParameterError
    inputs, targets = _io(NAMED["square-builtin"])
    with pytest.raises(ParameterError) as e:
        construct(inputs, targets, 2, options=ConstructionOptions(float_format="float32"))
    assert e.value.parameter == "options"
    assert construct(inputs, targets, 2, options=ConstructionOptions()).net.L == 4
