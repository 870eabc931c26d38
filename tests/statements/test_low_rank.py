"""Statements low-rank and length-independence: the kernel's low-rank check on the
built networks and on theorem certificates (a rank-2 A is REFUTED with its block),
and the length sweeps (L and P move only through R; a moved size is REFUTED)."""
from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction as F

from conftest import NAMED
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.theorems import length_independence as li
from proofcheck.constructions.afz.theorems import low_rank as lr_statement
from proofcheck.constructions.afz.theorems.theorem_1_6 import verify as verify16
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.certificate_writer import seal, theorem_certificate
from proofcheck.constructions.afz.low_rank_summary import ranks
from proofcheck.kernel import low_rank
from proofcheck.kernel.model import Factored, Transformer
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate
from proofcheck.frontend.registry import find
from proofcheck.frontend.runs.lemma import run_checks
import pytest
from statement_cases import cases_of
from statement_checks import check_case, check_cli, check_kernel


def _rank2(net, block: int):
    """``net`` with block ``block``'s A replaced by e2 e1^T - e1 e2^T (a rotation of the
    (e1, e2) plane: c I + rank <= 1 for no real c)."""
    d = net.d
    e = [tuple(F(int(i == k)) for i in range(d)) for k in range(2)]
    blk = net.blocks[block - 1]
    sa = replace(blk.sa, A=Factored(F(0), (e[1], tuple(-x for x in e[0])), (e[0], e[1])))
    return Transformer(d, [replace(b, sa=sa) if i == block - 1 else b
                           for i, b in enumerate(net.blocks)])


def test_built_networks_have_the_low_rank_form():
    res = run_checks(find("low-rank"))
    assert all(r.verdict == Verdict.VERIFIED for r in res), [r.lines() for r in res]
    assert res[0].name.endswith("on these 4 instances")


def test_low_rank_checks_every_construction_of_the_table():
    """'the built networks': each construction for each theorem it serves, per instance."""
    from proofcheck.constructions.afz.theorems.constructions import CONSTRUCTIONS
    res = lr_statement.check_instance(NAMED["tie-heavy"])
    want = [(thm, name) for name, spec in CONSTRUCTIONS.items() for thm in spec.theorems]
    assert len(res) == len(want) >= 4
    for r, (thm, name) in zip(res, want):
        assert r.verdict == Verdict.VERIFIED
        assert r.name.startswith(f"Theorem {thm} network, construction {name} ")


def test_rank_two_attention_is_refuted_with_its_block():
    net = verify16(NAMED["tie-heavy"]).construction.net
    assert low_rank.failures(net) == []
    bad = _rank2(net, 1)
    assert [r[:2] for r in ranks(bad)][0] == (1, 2)
    r = lr_statement.check_network("t", bad)
    assert r.verdict == Verdict.REFUTED and (r.witness.block, r.witness.sublayer) == (1, "SA")
    # one stored term is rank <= 1 without forming the matrix; a zero factor is rank 0
    z = Factored(F(3), ((F(0), F(0)),), ((F(1), F(2)),))
    assert low_rank.low_rank_part(z, 2) == 0
    # two dependent terms still have rank 1
    dep = Factored(F(0), ((F(1), F(0)), (F(2), F(0))), ((F(1), F(1)), (F(1), F(1))))
    assert low_rank.low_rank_part(dep, 2) == 1


def test_kernel_checks_low_rank_on_theorem_certificates():
    ds = NAMED["tie-heavy"]
    tc = verify16(ds)
    net = tc.construction.net
    cert = theorem_certificate("1.6", ds, net, Verdict.VERIFIED, constants=tc.constants)
    v, lines = verify_certificate(cert)
    assert v == Verdict.VERIFIED and any(s.startswith("low-rank: all ") for s in lines)
    forged = json.loads(json.dumps(cert))
    d = net.d
    e = [["1" if i == k else "0" for i in range(d)] for k in range(2)]
    rot = [e[1], ["-1" if x == "1" else "0" for x in e[0]]]
    forged["network"]["blocks"][0]["sa"]["A"] = {"lam": "0", "left": rot, "right": e}
    v, lines = verify_certificate(seal(forged))
    assert v == Verdict.REFUTED
    assert any(s.startswith("block 1 SA: A - c I has rank >= 2 > 1") for s in lines)


def test_constants_print_the_ranks(capsys):
    assert main(["theorem", "1.6", "--limit", "3", "--no-report"]) == 0
    tc = verify16(NAMED["tie-heavy"])
    assert (tc.constants["max_rank_A_minus_lam_I"], tc.constants["max_rank_V_minus_lam_I"]) \
        == (1, 1)
    assert "A = λI + rank ≤ 1" in capsys.readouterr().out


def test_length_independence_runs_by_id(capsys):
    assert main(["lemma", "length-independence"]) == 0
    res = run_checks(find("length-independence"))
    assert all(r.verdict == Verdict.VERIFIED for r in res)
    fresh = [r for r in res if "fresh tokens" in r.name]
    assert len(fresh) == 4 and fresh[0].data["equal"] is True   # digits: L, P equal


def test_length_sweep_fails_when_the_size_moves(monkeypatch):
    real = li.row

    def inflated(ds):
        r = real(ds)
        if "+32" in ds.name:
            r["L"] += 1
        return r
    monkeypatch.setattr(li, "row", inflated)
    res = li.sweep_check(NAMED["tie-heavy"])
    assert [r.verdict for r in res] == [Verdict.REFUTED] * 2
    assert res[0].witness.got[0] == res[0].witness.expected[0] + 1


def test_low_rank_runs_by_id():
    assert main(["lemma", "low-rank"]) == 0


def _fac(rows_left, rows_right, lam=0):
    return Factored(F(lam), tuple(tuple(map(F, r)) for r in rows_left),
                    tuple(tuple(map(F, r)) for r in rows_right))


def test_identity_stored_as_rank_one_terms_has_the_form():
    """A = I stored as d rank-one terms with lam = 0 is c I + rank 0 (c = 1), not rank d."""
    for d in (2, 3, 4):
        e = [[int(i == k) for i in range(d)] for k in range(d)]
        assert low_rank.low_rank_part(_fac(e, e), d) == 0
    # diag(1, 1, 5) = I + 4 e3 e3^T: rank 1 with c = 1, whatever lam is stored
    e = [[1, 0, 0], [0, 1, 0], [0, 0, 5]]
    assert low_rank.low_rank_part(_fac(e, [[1, 0, 0], [0, 1, 0], [0, 0, 1]], lam=7), 3) == 1
    # d = 2: real eigenvalues (here +-sqrt 2, irrational) give rank 1; a rotation none
    assert low_rank.low_rank_part(_fac([[2, 0], [0, 1]], [[0, 1], [1, 0]]), 2) == 1
    assert low_rank.low_rank_part(_fac([[0, 1], [-1, 0]], [[1, 0], [0, 1]]), 2) == 2
    # diag(1, 2, 3): no c leaves rank <= 1
    assert low_rank.low_rank_part(_fac([[1, 0, 0], [0, 2, 0], [0, 0, 3]],
                                       [[1, 0, 0], [0, 1, 0], [0, 0, 1]]), 3) >= 2


def _has_form_sympy(B, d) -> bool:
    """Independent decision: some real eigenvalue c of B with rank(B - c I) <= 1."""
    import sympy
    M = sympy.Matrix(B)
    return d == 1 or any(ev.is_real and (M - ev * sympy.eye(d)).rank() <= 1
                         for ev in M.eigenvals())


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.data())
def test_low_rank_part_decides_the_form_exactly(d, data):
    """low_rank_part <= 1 iff B = c I + rank <= 1 for a real c (sympy's eigenvalues),
    on random factored matrices: some near the form (c I + u v^T + a small term)."""
    ints = st.integers(-2, 2)
    k = data.draw(st.integers(0, 3))
    left = [data.draw(st.lists(ints, min_size=d, max_size=d)) for _ in range(k)]
    right = [data.draw(st.lists(ints, min_size=d, max_size=d)) for _ in range(k)]
    m = _fac(left, right, lam=data.draw(ints))
    B = [[int(x) for x in row] for row in m.dense(d)]
    assert (low_rank.low_rank_part(m, d) <= 1) == _has_form_sympy(B, d)


# ------------------------------------------------- the statement's checks (shared table)
SID = "low-rank"


@pytest.mark.parametrize("case", cases_of(SID), ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    """Construction on the table's datasets; a mutated parameter refuted with its witness."""
    check_case(case, monkeypatch)


def test_kernel_check():
    check_kernel(SID)


def test_cli_verdict(capsys):
    check_cli(SID, capsys)
