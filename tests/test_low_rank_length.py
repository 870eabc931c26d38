"""Statements low-rank and length-independence: the kernel's low-rank check on the
built networks and on theorem certificates (a rank-2 A is REFUTED with its block),
and the length sweeps (L and P move only through R; a moved size is REFUTED)."""
from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction as F

from conftest import NAMED

from lemmas.afz.theorems import length_independence as li
from lemmas.afz.theorems import low_rank as lr_statement
from lemmas.afz.theorems.theorem_1_6 import verify as verify16
from proofcheck.cli import main
from proofcheck.io.certificate_writer import seal, theorem_certificate
from proofcheck.kernel import low_rank
from proofcheck.kernel.model import Factored, Transformer
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate


def _rank2(net, block: int):
    """``net`` with block ``block``'s A replaced by e1 e1^T + e2 e2^T (rank 2)."""
    d = net.d
    e = [tuple(F(int(i == k)) for i in range(d)) for k in range(2)]
    blk = net.blocks[block - 1]
    sa = replace(blk.sa, A=Factored(F(0), tuple(e), tuple(e)))
    return Transformer(d, [replace(b, sa=sa) if i == block - 1 else b
                           for i, b in enumerate(net.blocks)])


def test_built_networks_have_the_low_rank_form():
    res = lr_statement.run()
    assert all(r.verdict == Verdict.VERIFIED for r in res), [r.lines() for r in res]
    assert res[0].name.endswith("on these 4 instances")


def test_low_rank_checks_every_construction_of_the_table():
    """'the built networks': each construction for each theorem it serves, per instance."""
    from lemmas.afz.theorems.constructions import CONSTRUCTIONS
    res = lr_statement.check_instance(NAMED["tie-heavy"])
    want = [(thm, name) for name, spec in CONSTRUCTIONS.items() for thm in spec.theorems
            if "full" in spec.attention]
    # the causal constructions have no prefix map on tie-heavy: named, not built
    assert sum("not built on this dataset" in d for d in res[-1].details) == 2
    assert len(res) == len(want) >= 4
    for r, (thm, name) in zip(res, want):
        assert r.verdict == Verdict.VERIFIED
        assert r.name.startswith(f"Theorem {thm} network, construction {name} ")


def test_rank_two_attention_is_refuted_with_its_block():
    net = verify16(NAMED["tie-heavy"]).construction.net
    assert low_rank.failures(net) == []
    bad = _rank2(net, 1)
    assert [r[:2] for r in low_rank.ranks(bad)][0] == (1, 2)
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
    forged["network"]["blocks"][0]["sa"]["A"] = {"lam": "0", "left": e, "right": e}
    v, lines = verify_certificate(seal(forged))
    assert v == Verdict.REFUTED
    assert any(s.startswith("block 1 SA: A - lam I has rank 2") for s in lines)


def test_constants_print_the_ranks(capsys):
    assert main(["theorem", "1.6", "--limit", "3", "--no-report"]) == 0
    tc = verify16(NAMED["tie-heavy"])
    assert (tc.constants["max_rank_A_minus_lam_I"], tc.constants["max_rank_V_minus_lam_I"]) \
        == (1, 1)
    assert "A = λI + rank ≤ 1" in capsys.readouterr().out


def test_length_independence_runs_by_id(capsys):
    assert main(["lemma", "length-independence"]) == 0
    res = li.run()
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
