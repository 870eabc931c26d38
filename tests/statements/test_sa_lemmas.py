"""SA lemmas 4.1 (with the tag), 4.2, 4.3 and the collapse: proofs on the returned
layers, seeded and hypothesis-driven instances, the bounded k search, and the
kernel re-derivations (proofcheck.kernel.lemma_checks) with forged instances."""
from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.layers import clustering, corner, sphere

from proofcheck.constructions.afz.phases import collapse
from proofcheck.kernel.errors import BadInput
from proofcheck.constructions.results import check_layer
from proofcheck.kernel.lemma_checks import checker
from proofcheck.kernel.model import SA, Factored, dot
from proofcheck.kernel.verdicts import Verdict

HARD = {"attention": "hardmax"}
q = st.fractions(min_value=-5, max_value=5, max_denominator=4)


def _dims(d):
    return st.lists(q, min_size=d, max_size=d).map(tuple)


# ------------------------------------------------------------------ runs

@pytest.mark.parametrize("mod", [clustering, corner, sphere, collapse])
def test_run_verifies_and_sets_data(mod):
    res = mod.run(None, 2)
    assert res and all(r.verdict == Verdict.VERIFIED for r in res), [r.lines() for r in res]
    inst = [r for r in res if getattr(r, "instance", None) is not None]
    if mod is not collapse:
        assert inst and all(r.data for r in inst)
    names = " ".join(r.name for r in res)
    for d in (2, 3):
        assert f"d = {d}" in names
    assert "d = 4" in names or "d = 5" in names


def test_sphere_run_asserts_count_and_orthant():
    res = sphere.run(None, 0)
    pts = [r for r in res if r.name.startswith("4.3 points on this instance (d =")]
    assert len(pts) == 3 and all(r.verdict == Verdict.VERIFIED for r in pts)
    data = [r.data for r in res if r.data]
    for dat in data:
        r2 = dat["r"] ** 2
        assert all(sum(x * x for x in p) == r2 and max(p) < 0 for p in dat["points"])


# ------------------------------------------------------------------ mutated constructions

def test_wrong_score_matrix_refutes_41_symbolic(monkeypatch):
    orig = clustering.cluster_sa

    def bad(u):  # A = u (u + e_0)^T: not rank-one symmetric in u
        good = orig(u)
        v = tuple(x + (1 if i == 0 else 0) for i, x in enumerate(good.A.right[0]))
        return replace(good, A=Factored(good.A.lam, good.A.left, (v,)))
    monkeypatch.setattr(clustering, "cluster_sa", bad)
    r = clustering.symbolic(2)
    # both provers refute the step; the witness is z3's model, sympy's point is in its line
    assert (r.verdict, r.witness.code) == (Verdict.REFUTED, "smt-counterexample")
    assert r.provers == {"sympy": "REFUTED", "z3": "REFUTED"} and r.counterexample
    assert any(x.startswith("DISPROVED") and "e.g. at" in x for x in r.details)


def test_wrong_tag_value_refutes_tag_symbolic(monkeypatch):
    orig = clustering.tag_sa
    monkeypatch.setattr(clustering, "tag_sa", lambda u, lam: replace(orig(u, lam), rho=F(0)))
    assert clustering.symbolic_tag(2).verdict == Verdict.REFUTED


def test_zero_row_refutes_42_symbolic(monkeypatch):
    e0 = (F(1), F(0), F(0))
    monkeypatch.setattr(corner, "corner_sa", lambda: SA(F(0), Factored(F(1), (e0,), (tuple(-x for x in e0),)),
                                                        Factored(F(1))))
    r = corner.symbolic(3)
    assert (r.verdict, r.witness.code) == (Verdict.REFUTED, "smt-counterexample") and "g_0 > 0" in r.witness.reason


def test_wrong_stereographic_refutes_43_symbolic(monkeypatch):
    orig = sphere.sphere_point
    monkeypatch.setattr(sphere, "sphere_point", lambda v, r: orig(v, r)[:-1] + (-orig(v, r)[-1] - r,))
    assert sphere.symbolic(2).verdict == Verdict.REFUTED


def test_missing_point_refutes_43_symbolic(monkeypatch):
    orig = sphere.negative_orthant_points
    monkeypatch.setattr(sphere, "negative_orthant_points", lambda c, d, r: orig(c, d, r)[:-1])
    r = sphere.symbolic(2)
    assert (r.verdict, r.witness.code) == (Verdict.REFUTED, "symbolic-step-fails") and "returns 2 points (asked 3)" in r.witness.reason


def test_wrong_collapse_value_refutes(monkeypatch):
    orig = collapse.collapse_sa
    monkeypatch.setattr(collapse, "collapse_sa",
                        lambda k: replace(orig(k), V=Factored(F(0), orig(k).V.right, orig(k).V.left)))
    assert collapse.symbolic(2).verdict == Verdict.REFUTED


# ------------------------------------------------------------------ hypothesis instances

@settings(max_examples=40, deadline=None)
@given(d=st.integers(2, 4), data=st.data())
def test_clustering_and_tag_on_random_sequences(d, data):
    seq = data.draw(st.lists(_dims(d), min_size=1, max_size=6, unique=True))
    u = data.draw(_dims(d).filter(any))
    seqs = clustering.probe_sequences([seq], u)
    assert check_layer("4.1", clustering.cluster_sa(u), seqs,
                       [clustering.predicted(s, u) for s in seqs]).verdict == Verdict.VERIFIED
    lam = data.draw(q)
    assert check_layer("tag", clustering.tag_sa(u, lam), seqs,
                       [clustering.predicted_tag(s, u, lam) for s in seqs]).verdict == Verdict.VERIFIED
    assert dot(u, clustering.perpendicular(u)) == 0 and any(clustering.perpendicular(u))


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 4), data=st.data())
def test_corner_on_random_boxes(d, data):
    pos = st.fractions(min_value=F(1, 8), max_value=6, max_denominator=8)
    seq = data.draw(st.lists(st.lists(pos, min_size=d, max_size=d).map(tuple), min_size=1, max_size=6))
    R = max(max(x) for x in seq)
    t = R + data.draw(st.fractions(min_value=0, max_value=3, max_denominator=3))
    T = (t,) * d
    ins = [seq + corner.box_probes(d, R) + [T]]
    assert check_layer("4.2", corner.corner_sa(), ins, [[T] * len(ins[0])]).verdict == Verdict.VERIFIED


@settings(max_examples=30, deadline=None)
@given(count=st.integers(1, 8), d=st.integers(2, 5),
       r=st.fractions(min_value=F(1, 4), max_value=50, max_denominator=5))
def test_sphere_points_exact(count, d, r):
    pts = sphere.negative_orthant_points(count, d, r)
    assert len(pts) == count == len(set(pts))
    assert all(dot(p, p) == r * r and max(p) < 0 for p in pts)
    ins = [pts + [(F(1),) * d]]
    assert check_layer("4.3", sphere.sphere_sa(), ins, [pts + [None]]).verdict == Verdict.VERIFIED


@settings(max_examples=40, deadline=None)
@given(d=st.integers(2, 4), data=st.data())
def test_choose_k_separates(d, data):
    pts = data.draw(st.lists(_dims(d), min_size=1, max_size=6, unique=True))
    forb = set(data.draw(st.lists(q, max_size=4)))
    pts = [p for p in pts if not (all(v == 0 for v in p[1:]) and p[0] in forb)]
    if not pts:
        return
    k, kap = collapse.choose_k(pts, forb, d)
    assert len(set(kap)) == len(kap) and not forb & set(kap)
    assert kap == [dot(k, p) for p in pts] and k[0] == 1


def test_choose_k_rejects_impossible_inputs_clearly():
    with pytest.raises(ValueError, match="leaders 0 and 1 coincide"):
        collapse.choose_k([(F(1), F(2)), (F(1), F(2))], set(), 2)
    with pytest.raises(ValueError, match="leader 1 is 3 e_1"):
        collapse.choose_k([(F(1), F(2)), (F(3), F(0))], {F(3)}, 2)


def test_choose_k_search_goes_past_c_1():
    pts = [(F(1), F(0)), (F(0), F(1))]  # kappas collide at c = 1
    k, kap = collapse.choose_k(pts, set(), 2)
    assert k == (F(1), F(2)) and kap == [F(1), F(2)]


def test_generic_routines_accept_symbols():
    import sympy as sp
    u = sp.symbols("a b", real=True)
    L = clustering.cluster_sa(u)
    assert L.A.left[0] == tuple(u) and L.rho == 0
    r = sp.Symbol("r", positive=True)
    p = sphere.sphere_point((F(-1, 2),), r)
    assert sp.simplify(p[0] + F(4, 5) * r) == 0


# ------------------------------------------------------------------ kernel re-derivation

def _good(st_id):
    if st_id == "4.1":
        u = (F(1), F(-2))
        return {"u": ["1", "-2"]}, clustering.cluster_sa(u)
    if st_id == "4.2":
        return ({"box": {"lower": ["0", "0"], "upper": ["5", "5"]}, "t": "5"}, corner.corner_sa())
    pts = sphere.negative_orthant_points(3, 2, F(5))
    return ({"r": "5", "points": [[str(x) for x in p] for p in pts]}, sphere.sphere_sa())


@pytest.mark.parametrize("sid", ["4.1", "4.2", "4.3"])
def test_kernel_check_verifies_genuine(sid):
    data, layer = _good(sid)
    v, lines, w = checker(sid)(sid, data, layer, HARD, "$.instances[0]", 2)
    assert v == Verdict.VERIFIED and w is None and any("conclusion" in x for x in lines)


ZERO_SA = SA(F(0), Factored(F(0)), Factored(F(0)))
IDENTITY_SA = SA(F(1), Factored(F(0)), Factored(F(0)))


@pytest.mark.parametrize("sid,layer,sem,reason", [
    ("4.2", ZERO_SA, HARD, "V[0][0]"),                 # everything to 0
    ("4.3", IDENTITY_SA, HARD, "rho"),                  # identity SA as Lemma 4.3
    ("4.3", IDENTITY_SA, {"attention": "softmax", "tau": "1/100"}, "hardmax statement"),
    ("4.1", IDENTITY_SA, HARD, "rho"),
    ("4.2", SA(F(0), Factored(F(2)), Factored(F(1))), HARD, "A[0][0]"),
    ("4.1", clustering.cluster_sa((F(2), F(-4))), HARD, "A[0][0]"),  # 4 u u^T
    ("4.3", sphere.sphere_sa(), {"attention": "softmax", "tau": "1"}, "hardmax statement"),
])
def test_kernel_check_refutes_forged_layers(sid, layer, sem, reason):
    data, _ = _good(sid)
    v, lines, w = checker(sid)(sid, data, layer, sem, "$.instances[0]", 2)
    assert v == Verdict.REFUTED and reason in w.describe(), lines


@pytest.mark.parametrize("sid,data,reason", [
    ("4.1", {"u": ["0", "0"]}, "nonzero"),
    ("4.2", {"box": {"lower": ["0", "0"], "upper": ["5", "6"]}, "t": "5"}, "t must be >="),
    ("4.2", {"box": {"lower": ["1", "0"], "upper": ["5", "5"]}, "t": "5"}, "positive box"),
    ("4.3", {"r": "5", "points": [["-3", "-4"], ["-4", "-4"]]}, "point 1 is not on the sphere"),
    ("4.3", {"r": "5", "points": [["-3", "-4"], ["3", "-4"]]}, "negative orthant"),
    ("4.3", {"r": "5", "points": [["-3", "-4"], ["-3", "-4"]]}, "coincide"),
    ("4.3", {"r": "-5", "points": [["-3", "-4"]]}, "radius"),
])
def test_kernel_check_refutes_false_hypotheses(sid, data, reason):
    _, layer = _good(sid)
    v, _, w = checker(sid)(sid, data, layer, HARD, "$.instances[0]", 2)
    assert v == Verdict.REFUTED and reason in w.describe()


@pytest.mark.parametrize("sid,data,path", [
    ("4.1", {}, "$.instances[0].data.u"),
    ("4.1", {"u": [1.5, 2]}, "$.instances[0].data.u[0]"),
    ("4.1", {"u": ["1", "2", "3"]}, "$.instances[0].data.u"),  # another dimension
    ("4.1", {"u": ["1", "2"], "lambda": 1.5}, "$.instances[0].data.lambda"),
    ("4.2", {"box": {"lower": ["0"], "upper": ["1", "2"]}, "t": "2"}, "$.instances[0].data.box.lower"),
    ("4.2", {"box": {"lower": ["0", "0"], "upper": ["1", "1"]}, "t": True}, "$.instances[0].data.t"),
    ("4.3", {"r": "1e999999999", "points": [["-1", "0"]]}, "$.instances[0].data.r"),
    ("4.3", {"r": "1", "points": []}, "$.instances[0].data.points"),
    ("4.3", None, "$.instances[0].data"),
])
def test_kernel_check_malformed_data_is_bad_input(sid, data, path):
    _, layer = _good(sid)
    with pytest.raises(BadInput) as e:
        checker(sid)(sid, data, layer, HARD, "$.instances[0]", 2)
    assert e.value.path == path


def _certificate(sid, tmp_path):
    from proofcheck.frontend.cli import main
    path = tmp_path / f"{sid}.json"
    assert main(["lemma", sid, "--certificate", str(path)]) == 0
    return json.loads(path.read_text())


def _forge_zero(cert):
    """Lemma 4.2 forgery: every instance's SA becomes rho = 0, A = 0, V = 0 and its
    expected outputs all 0 (the layer really maps everything to 0)."""
    from proofcheck.frontend.io.certificate_writer import seal
    from proofcheck.frontend.io.certificate_writer import sa_to_json
    for i in cert["instances"]:
        i["layer"] = sa_to_json(ZERO_SA)
        i["expected"] = [[["0"] * len(t) for t in s] for s in i["inputs"]]
    return seal(cert)


def _forge_identity(cert, semantics=None):
    from proofcheck.frontend.io.certificate_writer import seal
    from proofcheck.frontend.io.certificate_writer import sa_to_json
    for i in cert["instances"]:
        i["layer"] = sa_to_json(IDENTITY_SA)
        i["expected"] = i["inputs"]
        if semantics:
            i["verdict"] = "REFUTED"
    if semantics:
        cert["semantics"] = semantics
    return seal(cert)


@pytest.mark.parametrize("sid,forge", [
    ("4.2", _forge_zero), ("4.3", _forge_identity),
    ("4.3", lambda c: _forge_identity(c, {"attention": "softmax", "tau": "1/100"}))])
def test_forged_certificates_refuted_by_the_checks(sid, forge, tmp_path):
    """Each instance of a forged certificate, as the dispatcher hands it over."""
    from proofcheck.kernel.serialize import sa_from_json
    cert = forge(_certificate(sid, tmp_path))
    for k, i in enumerate(cert["instances"]):
        d = len(i["inputs"][0][0])
        layer = sa_from_json(i["layer"], d, f"$.instances[{k}].layer")
        v, _, w = checker(sid)(sid, i["data"], layer, cert["semantics"], f"$.instances[{k}]", d)
        assert v == Verdict.REFUTED and w is not None


@pytest.mark.parametrize("sid,forge", [
    ("4.2", _forge_zero), ("4.3", _forge_identity),
    ("4.3", lambda c: _forge_identity(c, {"attention": "softmax", "tau": "1/100"}))])
def test_forged_certificates_refuted_by_verify(sid, forge, tmp_path):
    from proofcheck.kernel.verify import verify_certificate
    v, lines = verify_certificate(forge(_certificate(sid, tmp_path)))
    assert v == Verdict.REFUTED, lines
