"""Statement 1.8-collapse: the construction reading proved for all tau > 0 on the
returned collapse layers (several instances), its failure modes (INCONCLUSIVE with
the token), and the general reading refuted by two exact counterexamples."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import sympy as sp

from proofcheck.constructions.afz.theorems import softmax_collapse as sc
from proofcheck.frontend.cli import main
from proofcheck.kernel.model import Factored
from proofcheck.kernel.verdicts import Verdict
from proofcheck.frontend.registry import find
from proofcheck.frontend.runs.instances import defaults
from proofcheck.frontend.runs.lemma import run_checks
import pytest
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel


def instances():
    """The statement's default instances, as the registry declares them."""
    return defaults(find("1.8-collapse"), 0)["dataset"]


def test_default_reading_verified_on_several_instances():
    res = run_checks(find("1.8-collapse"))
    assert all(r.verdict == Verdict.VERIFIED for r in res), [r.lines() for r in res]
    proofs = [r for r in res if "for all tau > 0 (symbolic)" in r.name and "'" in r.name]
    assert len(proofs) == len(instances()) == 4
    # the rows the proof is about: the exact hardmax trajectory, said on every proof line
    assert all(r.data["rows"] == "hardmax trajectory" and "hardmax trajectory" in r.name
               for r in proofs)
    assert {ds.d for ds in instances()} == {6, 2, 3, 4}


def test_numerator_is_the_weighted_kappa_gap():
    """On the built layer (V = e1 k^T, rho = 0): the numerator of (out - image)_1 is
    exactly sum_l w_l (kappa_l - kappa_c) and the denominator sum_l w_l."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES
    ds = instances()[1]
    ins, tg = [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]
    c = construct(ins, tg, ds.d, **SCALES)
    sa, rows, spans = sc.collapse_input(c, ins)
    (j, i, cc, X), *_ = sc._nonleaders(sa, rows, spans)[0]
    k = c.info["k"]
    kap = [sum(a * b for a, b in zip(k, x)) for x in X]
    w = sp.symbols(f"w0:{len(X)}", positive=True)
    num, den = sc.softmax_gap_expr(sa, X, i, cc, 0, w)
    want = sum(wl * sp.Rational(str(kl - kap[cc])) for wl, kl in zip(w, kap))
    assert sp.expand(num * sp.Add(*w) - want * den) == 0
    assert sc.extreme_coordinate(sa, X, cc) == (0, 1)
    assert max(kap) == kap[cc] and kap.count(kap[cc]) == 1


def test_minimum_leader_also_proved():
    """V = e1 (-k)^T makes the leader's value the strict minimum: still proved."""
    X = [(F(3), F(3)), (F(1), F(2)), (F(2), F(1))]
    e1 = (F(1), F(0))
    sa = sc._sa(Factored(F(1)))
    sa = replace(sa, V=Factored(F(0), (e1,), ((F(-1), F(-1)),)))
    r = sc.softmax_never_exact(sa, [(0, 1, 0, X)], 1, "t")
    assert r.verdict == Verdict.VERIFIED


def test_leader_not_extreme_is_inconclusive_with_the_token():
    _, sa, X, _ = sc.counterexamples()[0]          # A = 0: the leader (0,0) is the mean
    r = sc.softmax_never_exact(sa, [(0, 0, 1, X)], 5, "t")
    assert r.verdict == Verdict.INCONCLUSIVE
    assert (r.witness.block, r.witness.sequence, r.witness.token) == (5, 0, 0)


def test_rho_nonzero_is_inconclusive():
    _, sa, X, _ = sc.counterexamples()[0]
    r = sc.softmax_never_exact(replace(sa, rho=F(1, 2)), [(0, 0, 1, X)], 5, "t")
    assert r.verdict == Verdict.INCONCLUSIVE and r.witness.got == F(1, 2)


def test_general_reading_refuted_with_both_counterexamples():
    r = sc.general_refuted()
    assert r.verdict == Verdict.REFUTED and r.witness is not None
    tau = sp.Symbol("tau", positive=True)
    (_, sa1, X1, _), (_, sa2, X2, _) = sc.counterexamples()
    assert sc.symbolic_outputs(sa1, X1, tau) == [(0, 0)] * 3
    o = sc.symbolic_outputs(sa2, X2, tau)
    assert o[0] == o[1] == (sp.Rational(1, 2), sp.Rational(1, 2))
    assert sp.simplify(o[2][0] - o[3][0]) == 0 and o[2][1] == o[3][1] == sp.Rational(1, 2)
    assert sp.simplify(o[2][0] - sp.exp(1 / tau) / (1 + sp.exp(1 / tau))) == 0


def test_cli_exit_codes(capsys):
    assert main(["lemma", "1.8-collapse", "--reading", "general"]) == 1
    assert "REFUTED" in capsys.readouterr().out
    assert main(["lemma", "1.8-collapse"]) == 0


def test_an_instance_without_non_leaders_passes_no_line():
    """Every m_j = n_j: every token is a leader.  Before, the hardmax line was VERIFIED
    with '0 non-leader(s)' (vacuous); now the instance is one INCONCLUSIVE line."""
    from proofcheck.kernel.dataset import Dataset, Pair
    ds = Dataset("all-leaders", 2, (Pair(((F(0), F(0)), (F(1), F(0))), ((F(2), F(2)), (F(3), F(1)))),
                                    Pair(((F(0), F(1)),), ((F(-1), F(0)),))))
    res = sc.check_instance(ds)
    assert [r.verdict for r in res] == [Verdict.INCONCLUSIVE]


# ------------------------------------------------- the statement's checks (shared table)
SID = "1.8-collapse"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
