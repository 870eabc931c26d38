"""Causal attention: the statement causal-first-token, Theorem 1.6's construction
under the mask (where it leaves its claims), and the construction causal-last
(reading last-outputs) on the digits sample and the handed cases."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from conftest import CASES, case_table

from proofcheck.constructions.causal import with_mask
from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
from proofcheck.constructions.causal import first_token as ft
from proofcheck.constructions.causal.prefix_construction import NoCausalInterpolant, construct, param_formula
from proofcheck.constructions.causal.readings import ALL, LAST, prefix_conflicts, prefix_map, read_positions
from proofcheck.constructions.causal.under_mask import run_causal
from proofcheck.constructions.claim_check import check_network
from mutate import with_parameter
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.datasets import load_dataset
from proofcheck.frontend.io.examples import sample
from proofcheck.kernel.dataset import Dataset, Pair
from proofcheck.kernel.numbers import fmt_num
from proofcheck.kernel.verdicts import Scope, Verdict, combine
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel

ADMISSIBLE = sorted(f for f, _, code in case_table() if code == 0)
# prefix conflicts in the reading last-outputs: no causal transformer interpolates them
CONFLICTED = {"nested-chain.json", "singleton-and-full.json", "square-and-centre.json"}


def _io(ds):
    return [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


def _verdict(tc):
    return combine(r.verdict for r in tc.results)


# ------------------------------------------------------------------ causal-first-token

def test_statement_runs_by_id_with_its_witness(capsys):
    assert main(["lemma", "causal-first-token"]) == 0
    res = ft.run()
    assert combine(r.verdict for r in res) == Verdict.VERIFIED
    sym = [r for r in res if r.scope == Scope.ALL_PARAMETERS]
    assert len(sym) == 3 and all(r.verdict == Verdict.VERIFIED for r in sym)
    wit = next(r for r in res if "'first-token-disjoint-targets'" in r.name
               and r.name.startswith("no causal transformer"))
    assert wit.verdict == Verdict.VERIFIED and wit.scope == Scope.DATASET


@pytest.mark.parametrize("d,H", [(2, 1), (3, 2)])
def test_symbolic_step_fails_without_the_mask(d, H):
    assert ft.symbolic_check(d, H).verdict == Verdict.VERIFIED
    assert ft.symbolic_check(d, H, causal=False).verdict == Verdict.INCONCLUSIVE


def test_instances_hold_masked_and_fail_unmasked():
    masked, control = ft.instances_check(seed=3, count=6)
    assert masked.verdict == Verdict.VERIFIED and control.verdict == Verdict.VERIFIED
    rng = random.Random(1)
    found = None
    for _ in range(20):
        net, seqs = ft.random_network(rng, 2), ft.sharing_sequences(rng, 2, p=1)
        assert ft.instance_failure(net, seqs, 1) is None
        found = found or ft.instance_failure(with_mask(net, False), seqs, 1)
    assert found is not None and found.code in ("prefix-output-differs", "prefix-property")


def test_prefix_conflicts_and_readings():
    assert list(read_positions(5, 2, LAST)) == [3, 4]
    assert list(read_positions(3, 1, ALL)) == [0, 1, 2]
    ds = ft.witness_dataset()
    assert [(c.j, c.k, c.i) for c in prefix_conflicts(ds, ALL)] == [(0, 1, 0)]
    assert prefix_conflicts(ds, LAST) == []
    digits = sample()[0]
    assert len(prefix_conflicts(digits, ALL)) == 297 and prefix_conflicts(digits, LAST) == []


# ------------------------------------------------------------------ Theorem 1.6 under the mask

def test_default_under_the_mask_leaves_its_claims_at_block_1(capsys):
    tc = run_causal(sample()[0])
    assert _verdict(tc) == Verdict.REFUTED
    w = tc.network_check.witness
    assert (w.block, w.sublayer, w.sequence, w.token, w.coordinate) == (1, "SA", 0, 0, 0)
    assert w.code == "claim-mismatch"
    assert (w.expected, w.got) == (Fraction(17), Fraction(2))
    tag = tc.construction.claims[0][1]  # block 1 SA: each token adds lam times its top
    assert tag.kind == "sequence-shift" and tag.top[0] == 5 > w.token  # the top comes later
    interp = next(r for r in tc.results if r.name.startswith("exact interpolation"))
    assert interp.verdict == Verdict.REFUTED and interp.witness.code == "output-not-target"
    iw = interp.witness
    assert iw.expected is None and iw.got is not None
    targets = sample()[0].pairs[iw.sequence].outputs
    assert "expected None" not in iw.describe()
    assert all(fmt_num(tuple(y)) in iw.describe() for y in targets)  # the target set shown
    assert main(["theorem", "1.6", "--attention", "causal", "--no-report"]) == 1


@pytest.mark.parametrize("case", ADMISSIBLE)
def test_default_under_the_mask_on_the_handed_cases(case):
    tc = run_causal(load_dataset(CASES / case, ordered=True))
    assert _verdict(tc) == Verdict.REFUTED
    w = tc.network_check.witness
    assert w.sublayer == "SA" and w.block is not None and w.token is not None


def test_the_unmasked_network_keeps_its_claims():
    ds = sample()[0]
    assert _verdict(verify(ds)) == Verdict.VERIFIED


# ------------------------------------------------------------------ causal-last

@pytest.mark.parametrize("case", sorted(set(ADMISSIBLE) - CONFLICTED) + ["permuted-duplicate.json"])
def test_causal_last_verifies_on_the_handed_cases(case, capsys):
    ds = load_dataset(CASES / case, ordered=True)
    tc = run_causal(ds, "causal-last")
    assert _verdict(tc) == Verdict.VERIFIED
    c = tc.constants
    assert c["L"] == c["R"] + 1 + c["K"] and tc.construction.info["reading"] == LAST
    assert c["P"] == param_formula(ds.d, c["R"], c["K"])
    assert main(["theorem", "1.6", "--attention", "causal", "--construction", "causal-last",
                 "--dataset", str(CASES / case), "--no-report"]) == 0


@pytest.mark.parametrize("case", sorted(CONFLICTED))
def test_causal_last_refuses_a_prefix_conflict(case, capsys):
    ds = load_dataset(CASES / case, ordered=True)
    assert prefix_conflicts(ds, LAST)
    with pytest.raises(NoCausalInterpolant, match="no prefix map"):
        construct(*_io(ds), ds.d)
    assert main(["theorem", "1.6", "--attention", "causal", "--construction", "causal-last",
                 "--dataset", str(CASES / case), "--no-report"]) == 2


def test_causal_last_on_the_digits_sample_beside_the_default():
    ds = sample()[0]
    tc = run_causal(ds, "causal-last")
    assert _verdict(tc) == Verdict.VERIFIED
    c = tc.constants
    assert (c["L"], c["P"], c["L_default"], c["P_default"]) == (57, 2653, 82, 4589)
    inputs, targets = _io(ds)
    net, claims = tc.construction.net, tc.construction.claims
    plain = check_network(net, inputs, None, claims, backend="plain")
    fast = check_network(net, inputs, None, claims, backend="flint")
    assert plain.verdict == fast.verdict == Verdict.VERIFIED and plain.outputs == fast.outputs


def test_causal_last_mutated_or_unmasked_is_refuted():
    ds = Dataset("two", 2, (Pair(((Fraction(0), Fraction(0)), (Fraction(1), Fraction(0))),
                                 ((Fraction(5), Fraction(5)),)),
                            Pair(((Fraction(0), Fraction(0)), (Fraction(0), Fraction(1))),
                                 ((Fraction(-5), Fraction(5)),))))
    c = construct(*_io(ds), ds.d)
    inputs, _ = _io(ds)
    lam = c.net.blocks[0].sa.V.lam
    bad = with_parameter(c.net, 1, "SA", "V.lam", lam + 1)
    r = check_network(bad, inputs, None, c.claims)
    assert r.verdict == Verdict.REFUTED
    assert (r.witness.block, r.witness.sublayer, r.witness.sequence) == (1, "SA", 0)
    assert r.witness.coordinate is not None and r.witness.got != r.witness.expected
    r = check_network(with_mask(c.net, False), inputs, None, c.claims)
    assert r.verdict == Verdict.REFUTED and r.witness.sublayer == "SA"


def test_causal_usage_errors(capsys, tmp_path):
    assert main(["theorem", "1.6", "--construction", "causal-last", "--no-report"]) == 2
    assert main(["theorem", "1.8", "--attention", "causal", "--no-report"]) == 2
    assert main(["theorem", "1.6", "--attention", "causal", "--certificate",
                 str(tmp_path / "c.json"), "--no-report"]) == 2
    assert not (tmp_path / "c.json").exists()


def test_permuted_duplicate_is_admissible_under_the_mask_only(capsys):
    # equal as sets but not as tuples: admissible under the mask only
    f = str(CASES / "permuted-duplicate.json")
    assert main(["theorem", "1.6", "--dataset", f, "--no-report"]) == 2
    assert main(["theorem", "1.6", "--attention", "causal", "--dataset", f, "--no-report"]) == 2


def test_docs_table_is_the_results_file():
    """docs/constructions/causal-last.md's L and P columns come from bench/results-causal.json."""
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "constructions" / "causal-last.md").read_text()
    rows = json.loads((root / "bench" / "results-causal.json").read_text())["rows"]
    assert len([r for r in rows if r.get("causal_last", {}).get("verdict") == "VERIFIED"]) >= 6
    for r in rows:
        for key in ("causal_last", "causal_all"):
            cl = r.get(key, {})
            if cl.get("verdict") == "VERIFIED":
                line = next(ln for ln in doc.splitlines() if ln.startswith(f"| {r['dataset']} |"))
                assert f"| {cl['L']} / {cl['L_default']} | {cl['P']} / {cl['P_default']} |" in line


def _ds(name, pairs):
    F = Fraction
    return Dataset(name, 2, tuple(Pair(tuple((F(a), F(b)) for a, b in X),
                                       tuple((F(a), F(b)) for a, b in Y)) for X, Y in pairs))


def test_no_prefix_map_without_a_pairwise_conflict():
    """Prefix (a) is read in all three sequences (domain {p}), (a, b) in 0 and 2
    (domain {p}): target q of sequence 0 cannot be hit, yet no two sequences with a
    common prefix have disjoint targets."""
    a, b, c, e, p, q = (0, 0), (1, 0), (0, 1), (1, 1), (5, 5), (-5, 5)
    ds = _ds("no-pairwise", [((a, b), (p, q)), ((a, c), (p,)), ((a, b, e), (p,))])
    assert prefix_conflicts(ds, ALL) == []
    sol = prefix_map(*_io(ds), ALL)
    assert sol.status == "impossible" and sol.where == (0, (Fraction(-5), Fraction(5)))
    with pytest.raises(NoCausalInterpolant, match="no prefix map"):
        construct(*_io(ds), 2, reading=ALL)
    from proofcheck.constructions.causal.under_mask import conflict_check
    assert conflict_check(ds, ALL).verdict == Verdict.VERIFIED


@pytest.mark.parametrize("seed", range(4))
def test_causal_all_verifies_when_a_prefix_map_exists(seed):
    """Generated data with fresh first tokens (each sequence gets its own first token):
    a prefix map exists in both readings and both constructions verify."""
    from proofcheck.frontend.io.generate import random_dataset
    base = random_dataset(seed, d=2, N=4, style="mixed")
    pairs = tuple(Pair(((Fraction(100 + j), Fraction(-100 - j)),) + p.inputs, p.outputs)
                  for j, p in enumerate(base.pairs))
    ds = Dataset(f"fresh-first-{seed}", 2, pairs)
    for name in ("causal-all", "causal-last"):
        tc = run_causal(ds, name)
        assert _verdict(tc) == Verdict.VERIFIED, [r.lines() for r in tc.results]


def test_an_unknown_construction_lists_the_causal_ones_too(capsys):
    """`list` shows causal-last / causal-all under 1.6: the exit-2 error names them too,
    with the option they need; 1.8 has none."""
    from proofcheck.constructions.causal.constructions import CAUSAL_CONSTRUCTIONS
    assert main(["theorem", "1.6", "--construction", "nope", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert all(name in err for name in ("default", "peel", "bounded", *CAUSAL_CONSTRUCTIONS))
    assert "--attention causal" in err
    assert main(["theorem", "1.8", "--tau", "1/10", "--construction", "nope", "--no-report"]) == 2
    assert "causal-last" not in capsys.readouterr().err


def test_causal_runs_without_certificate_state_their_scope():
    """No certificate under the mask: the VERDICT line carries the kernel's Scope
    wording; causal-first-token's header is 'mixed' with its checks' scopes."""
    from proofcheck.frontend.runs.lemma import header_lines, run_lemma, scope_summary, verdict_text
    from proofcheck.frontend.registry import find
    from proofcheck.frontend.runs.theorem import TheoremOptions, run_theorem
    run = run_lemma(find("causal-first-token"))
    assert run.recheck is None and run.verdict == Verdict.VERIFIED
    summary = dict(scope_summary(run))
    assert set(summary) == {Scope.ALL_PARAMETERS.value, Scope.DATASET.value,
                            Scope.INSTANCES.value}
    assert next(x for x in header_lines(run) if x.startswith("scope:")).startswith("scope: mixed")
    assert all(f"{n} check" in verdict_text(run) and s in verdict_text(run)
               for s, n in summary.items())
    tr = run_theorem("1.6", sample()[0], opts=TheoremOptions(attention="causal",
                                                       construction="causal-last"))
    assert tr.certificate is None and tr.recheck.verdict == Verdict.VERIFIED
    assert tr.recheck.verdict_line().startswith(f"VERDICT: VERIFIED ({Scope.DATASET.value}:")


# ------------------------------------------------- the statement's checks (shared table)
SID = "causal-first-token"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
