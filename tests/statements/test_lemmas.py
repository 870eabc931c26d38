"""Lemma checks: every implemented statement verifies on built-in and dataset
instances, and every check can fail with a precise witness."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp
from conftest import NAMED

from proofcheck.constructions.afz.layers import clustering, corner, hat, snap, sphere, translation
from proofcheck.frontend.registry import find, load
from proofcheck.frontend.runs.lemma import run_checks
from proofcheck.constructions.results import check_layer
from proofcheck.kernel.verdicts import Verdict
from proofcheck.constructions.provers.symbolic import prove_positive, prove_profile

# the statements of proofcheck/constructions/afz; tests/statements/test_ts_lemmas.py covers proofcheck/constructions/ts (whose runs
# ignore datasets) and tests/statements/test_resnet.py the resnet statement
IMPLEMENTED = [s.id for s in load() if s.implemented and s.module.startswith("proofcheck.constructions.afz.")]


@pytest.mark.parametrize("sid", IMPLEMENTED)
@pytest.mark.parametrize("seed", [0, 1])
def test_statement_verifies_builtin(sid, seed):
    res = run_checks(find(sid), None, seed)
    assert res and all(r.verdict.passed for r in res), [r.lines() for r in res]


@pytest.mark.parametrize("sid", IMPLEMENTED)
@pytest.mark.parametrize("dname", ["tie-heavy", "union-3d"])
def test_statement_verifies_on_dataset(sid, dname):
    res = run_checks(find(sid), NAMED[dname], 3)
    assert res and all(r.verdict.passed for r in res), [r.lines() for r in res]


S = [(F(0), F(0)), (F(1), F(0)), (F(0), F(1)), (F(2), F(-1))]


def test_translation_wrong_vector_is_refuted():
    ff = translation.translation_ff((F(1), F(2)))
    exp = [[(x + 1, y + 3) for x, y in S]]
    r = check_layer("3.1", ff, [S], exp)
    assert r.verdict == Verdict.REFUTED
    assert (r.witness.sequence, r.witness.token, r.witness.coordinate) == (0, 0, 1)
    assert (r.witness.expected, r.witness.got) == (F(3), F(2))


def test_hat_too_wide_moves_a_neighbour():
    p, q = S[1], (F(5), F(5))
    w = hat.separating_direction(S, p)
    from proofcheck.kernel.model import dot
    gaps = sorted(abs(dot(w, x) - dot(w, p)) for x in S if x != p)
    ff = hat.hat_ff(w, dot(w, p), 2 * gaps[0], tuple(b - a for a, b in zip(p, q)))
    r = check_layer("3.2", ff, [S], [[q if x == p else x for x in S]])
    assert r.verdict == Verdict.REFUTED
    nearest = min((x for x in S if x != p), key=lambda x: abs(dot(w, x) - dot(w, p)))
    assert r.witness.token == S.index(nearest)


def test_plateau_too_narrow_misses_an_edge_token():
    w, tp = (F(1), F(0)), F(0)
    ff = hat.plateau_ff(w, tp, F(1, 4), F(1, 2), (F(1), F(1)))
    pts = [(F(0), F(0)), (F(1, 3), F(0))]  # 1/3 is inside the claimed delta1 = 1/3 plateau
    r = check_layer("3.2p", ff, [pts], [[(F(1), F(1)), (F(4, 3), F(1))]])
    assert r.verdict == Verdict.REFUTED and r.witness.token == 1


def test_snap_wrong_half_width_is_refuted():
    ff = snap.snap_ff(0, 2, F(3), F(1, 4), (F(7), F(-1)))
    pts = [(F(3), F(0)), (F(3) + F(1, 2), F(0))]  # 3.5 is in the ramp, not the plateau
    r = check_layer("3.3", ff, [pts], [[(F(7), F(-1)), (F(7), F(-1))]])
    assert r.verdict == Verdict.REFUTED and r.witness.token == 1


def test_clustering_wrong_value_map_is_refuted():
    u = (F(1), F(1))
    seq = [(F(1), F(0)), (F(-2), F(0)), (F(1), F(-1))]
    wrong = clustering.tag_sa(u, 2)  # rho = 1, V = 2I: not Lemma 4.1's V = I, rho = 0
    r = check_layer("4.1", wrong, [seq], [clustering.predicted(seq, u)])
    assert r.verdict == Verdict.REFUTED
    assert check_layer("4.1", clustering.cluster_sa(u), [seq],
                       [clustering.predicted(seq, u)]).verdict == Verdict.VERIFIED


def test_corner_fails_when_t_is_not_above_the_box():
    seq = [(F(1), F(3)), (F(2), F(2))]  # t 1 = (2, 2) does not dominate (1, 3)
    r = check_layer("4.2", corner.corner_sa(), [seq], [[(F(2), F(2))] * 2])
    assert r.verdict == Verdict.REFUTED and r.witness.token == 0


def test_sphere_leader_captured_by_a_large_token():
    r = F(2)
    pts = sphere.negative_orthant_points(2, 2, r)
    big = (F(-10), F(-10))  # same orthant, far out: <s, big> > r^2
    seq = pts + [big]
    res = check_layer("4.3", sphere.sphere_sa(), [seq], [pts + [None]])
    assert res.verdict == Verdict.REFUTED and res.witness.token == 0


def test_sphere_points_are_exact_and_negative():
    for d in (2, 3, 5):
        pts = sphere.negative_orthant_points(6, d, F(32))
        assert len(set(pts)) == 6
        assert all(sum(x * x for x in p) == 1024 and max(p) < 0 for p in pts)


def test_prove_profile_refutes_a_wrong_hat():
    """A hat whose middle coefficient is -1/delta instead of -2/delta: the right tail
    is not fixed, REFUTED with parameter values."""
    from proofcheck.kernel.model import FF
    t_p = sp.Symbol("t_p", real=True)
    dl = sp.Symbol("delta", positive=True)
    w = (1, 0)
    bad = FF(F(1), (w, w, w), (-t_p + dl, -t_p, -t_p - dl), ((1 / dl, 0), (-1 / dl, 0), (1 / dl, 0)))
    r = prove_profile("bad hat", bad, w, [(t_p + dl, None, lambda t: [0, 0], "right tail fixed")], "")
    assert r.verdict == Verdict.REFUTED and r.witness.coordinate == 0


def test_prove_profile_rejects_a_row_off_the_direction():
    from proofcheck.kernel.model import FF
    ff = FF(F(1), ((F(1), F(0)), (F(0), F(1))), (F(0), F(0)), ((F(1), F(0)), (F(1), F(0))))
    r = prove_profile("two directions", ff, (1, 0), [(None, None, lambda t: [0, 0], "x")], "")
    assert (r.verdict, r.witness.code) == (Verdict.INCONCLUSIVE, "row-off-direction")


def test_prove_profile_on_a_plain_ff_is_not_applicable_not_refuted():
    """eta = 0 is outside the prover's reach: INCONCLUSIVE with code eta-not-one."""
    from proofcheck.kernel.model import FF
    ff = FF(F(0), ((F(1), F(0)),), (F(0),), ((F(1), F(0)),))
    r = prove_profile("plain", ff, (1, 0), [(None, None, lambda t: [0, 0], "x")], "")
    assert (r.verdict, r.witness.code, r.witness.got) == (Verdict.INCONCLUSIVE, "eta-not-one", 0)


def test_prove_positive_is_three_valued():
    a = sp.Symbol("a", positive=True)
    b = sp.Symbol("b", real=True)
    assert prove_positive("p", a * a + 1).verdict == Verdict.VERIFIED
    assert prove_positive("n", -a).verdict == Verdict.REFUTED
    assert prove_positive("u", a * b).verdict == Verdict.INCONCLUSIVE


def test_proof_steps_fail_closed():
    from proofcheck.constructions.provers.symbolic import ProofSteps
    p = ProofSteps()
    p.need(True, "a")
    assert p.result("x", []).verdict == Verdict.VERIFIED
    p.need(False, "b")
    r = p.result("x", ["convention: c"])
    assert r.verdict == Verdict.INCONCLUSIVE and r.details == ["convention: c", "proved: a",
                                                                "NOT proved: b"]
