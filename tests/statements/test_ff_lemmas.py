"""FF lemmas 3.1, 3.2, 3.2p, 3.3 (issue "Check what is built", items 1-4):
the named source mutations are REFUTED by ``lemma``; forged lemma certificates come
back REFUTED from the kernel (or exit 2 when malformed); hypothesis-drawn instances
in d = 2..4 verify and single-parameter perturbations of the layer are refuted."""
from __future__ import annotations

import copy
import sys
import types
from fractions import Fraction as F
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.layers import hat, snap, translation
from proofcheck.frontend.registry import find
from proofcheck.frontend.runs.lemma import run_checks
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.certificate_writer import _data_json, lemma_certificate, seal
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.lemma_checks import checker
from proofcheck.kernel.lemma_checks.profile import EXACT, Profile
from proofcheck.kernel.model import FF, dot
from proofcheck.frontend.io.certificate_writer import ff_to_json
from proofcheck.kernel.verdicts import Verdict, combine
from proofcheck.kernel.verify import verify_certificate
from proofcheck.constructions.provers.symbolic import prove_profile

ROOT = Path(__file__).resolve().parents[2]
HARDMAX = {"attention": "hardmax"}


# ---------------------------------------------------------------- named mutations
def _mutated_module(monkeypatch, name, old, new):
    """Install a copy of module ``name`` whose source has ``old`` replaced by ``new``."""
    path = ROOT / (name.replace(".", "/") + ".py")
    src = path.read_text()
    assert src.count(old) == 1, f"mutation anchor not found in {path}"
    mod = types.ModuleType(name)
    mod.__file__ = str(path)
    exec(compile(src.replace(old, new), str(path), "exec"), mod.__dict__)
    monkeypatch.setitem(sys.modules, name, mod)
    return mod


@pytest.mark.parametrize("sid, module, old, new", [
    ("3.2", "proofcheck.constructions.afz.layers.hat", "coef = (1 / delta, -2 / delta, 1 / delta)",
     "coef = (1 / delta, -2 / delta, 2 / delta)"),
    ("3.3", "proofcheck.constructions.afz.layers.snap", "s3 = tuple(-g / delta for g in G3)",
     "s3 = tuple(-2 * g / delta for g in G3)"),
])
def test_named_mutation_is_refuted_on_the_default_instance(monkeypatch, capsys, sid, module, old, new):
    assert main(["lemma", sid]) == 0
    capsys.readouterr()
    _mutated_module(monkeypatch, module, old, new)
    assert main(["lemma", sid]) == 1
    out = capsys.readouterr().out
    checks, recheck = out.split("\nkernel re-check", 1)
    # both the exact probes and the symbolic proof on the returned layer fail, and the
    # kernel refutes the certificate of the exact instances
    assert checks.count("[REFUTED]") >= 2 and "witness:" in checks
    assert recheck.startswith(" of the certificate") and ": REFUTED" in recheck.splitlines()[0]
    assert "DISPROVED: FF(x) = x when" in out and "sympy: refuted; z3: counterexample" in out


# ---------------------------------------------------------------- symbolic proofs
def test_symbolic_proof_refutes_a_wrong_third_coefficient_with_values():
    d = 2
    w, p, q = (sp.symbols(f"{c}0:{d}", real=True) for c in "wpq")
    dl = sp.Symbol("delta", positive=True)
    tp = sum(a * b for a, b in zip(w, p))
    ff = hat.hat_ff(w, tp, dl, [b - a for a, b in zip(p, q)])
    bad = FF(ff.eta, ff.U, ff.b, (ff.W[0], ff.W[1], tuple(2 * x for x in ff.W[2])))
    r = prove_profile("bad", bad, w, [(tp + dl, None, lambda t: [0, 0], "right tail fixed")], "")
    assert (r.verdict, r.witness.code, r.witness.coordinate) == (Verdict.REFUTED, "piece-fails", 0)


def test_symbolic_proof_is_inconclusive_when_a_sign_is_undecided():
    t = sp.Symbol("delta", real=True)  # no positivity assumption
    ff = FF(F(1), ((F(1), F(0)),), (t,), ((F(1), F(0)),))
    r = prove_profile("undecided", ff, (1, 0), [(0, 0, lambda x: [0, 0], "G(0) = 0")], "")
    assert r.verdict == Verdict.INCONCLUSIVE


def test_constructions_reject_undecided_hypotheses():
    x = sp.Symbol("x", real=True)
    with pytest.raises(ValueError, match="not decided"):
        hat.hat_ff((1, 0), 0, x, (1, 1))
    with pytest.raises(ValueError, match="delta1 < delta2"):
        hat.plateau_ff((1, 0), 0, F(1), F(1), (1, 1))
    with pytest.raises(ValueError):
        snap.snap_ff(2, 2, 0, 1, (0, 0))


def test_symbolic_layers_are_the_exact_layers_at_rational_values():
    """The same routine returns both: substituting values into the symbolic layer
    gives the rational layer exactly."""
    k, dl = sp.symbols("kappa delta", positive=True)
    y = sp.symbols("y0:3", real=True)
    sym = snap.snap_ff(1, 3, k, dl, y)
    vals = {k: sp.Rational(5, 2), dl: sp.Rational(1, 3), y[0]: 1, y[1]: -2, y[2]: sp.Rational(7, 5)}
    num = snap.snap_ff(1, 3, F(5, 2), F(1, 3), (F(1), F(-2), F(7, 5)))
    for a, b in ((sym.U, num.U), (sym.W, num.W)):
        assert [[sp.sympify(x).subs(vals) for x in r] for r in a] == \
            [[sp.Rational(x.numerator, x.denominator) for x in r] for r in b]
    assert [sp.sympify(x).subs(vals) for x in sym.b] == [sp.Rational(x.numerator, x.denominator)
                                                          for x in num.b]


# ---------------------------------------------------------------- forged certificates
def _cert(sid, seed=0):
    res = run_checks(find(sid), None, seed)
    return lemma_certificate(sid, res, combine(r.verdict for r in res))


def _forge(cert, edit):
    c = copy.deepcopy(cert)
    edit(c)
    return seal(c)


def _ff_json(ff):
    return ff_to_json(ff)


def test_forged_shift_everything_as_lemma_3_2_is_refuted():
    cert = _cert("3.2")
    inst = cert["instances"][0]
    data = inst["data"]
    p = [F(x) for x in data["p"]]
    q = [F(x) for x in data["q"]]
    c = tuple(b - a for a, b in zip(p, q))
    z = (F(0),) * len(c)
    shift_all = FF(F(1), (z, z, z), (F(1), F(0), F(0)), (c, z, z))

    def edit(cc):
        i = cc["instances"][0]
        i["layer"] = _ff_json(shift_all)
        i["expected"] = [[_data_json(tuple(F(a) + b for a, b in zip(x, c))) for x in s]
                         for s in i["inputs"]]
    got, lines = verify_certificate(_forge(cert, edit))
    assert got == Verdict.REFUTED and any("rank(U) = 1" in ln for ln in lines)


def test_forged_shift_along_w_with_S_and_consistent_outputs_is_refuted():
    """rank(U) = 1 but the layer moves every token of S (its ReLUs are all active)."""
    cert = _cert("3.2")
    data = cert["instances"][0]["data"]
    p, q = [F(x) for x in data["p"]], [F(x) for x in data["q"]]
    c = tuple(b - a for a, b in zip(p, q))
    w = (F(1), F(1))
    big = F(10 ** 6)
    ff = FF(F(1), (w, w, w), (big, big, big), (c, tuple(-x for x in c), tuple(x / big for x in c)))
    S = [[F(x) for x in s] for s in data["S"]]

    def edit(cc):
        i = cc["instances"][0]
        i["layer"] = _ff_json(ff)
        i["inputs"] = [[_data_json(x) for x in S]]
        outs = [tuple(a + g for a, g in zip(x, Profile.along(ff, w).value(dot(w, x)))) for x in S]
        i["expected"] = [[_data_json(x) for x in outs]]
    got, lines = verify_certificate(_forge(cert, edit))
    assert got == Verdict.REFUTED
    assert any("witness" in ln for ln in lines)


@pytest.mark.parametrize("sid", ["3.1", "3.2", "3.2p", "3.3"])
def test_forged_identity_with_respelled_outputs_is_refuted(sid):
    cert = _cert(sid)
    i0 = cert["instances"][0]
    width = len(i0["layer"]["U"])
    d = len(i0["inputs"][0][0])
    z = (F(0),) * d
    ident = FF(F(1), (z,) * width, (F(0),) * width, (z,) * width)

    def edit(cc):
        i = cc["instances"][0]
        i["layer"] = _ff_json(ident)
        i["expected"] = [[[x + "/1" if "/" not in x else x for x in t] for t in s] for s in i["inputs"]]
        if sid == "3.1":
            i["data"]["c"] = ["0"] * d
    got, lines = verify_certificate(_forge(cert, edit))
    assert got == Verdict.REFUTED, lines


def test_respelled_numbers_of_a_true_certificate_still_verify():
    """Numbers are compared, never spellings: "3" and "6/2" are the same number."""
    cert = _cert("3.3")

    def edit(cc):
        i = cc["instances"][0]
        i["expected"] = [[None if t is None else [x + "/1" if "/" not in x else x for x in t]
                          for t in s] for s in i["expected"]]
        i["data"]["kappa"] = str(F(i["data"]["kappa"]) * 2) + "/2"
    got, _ = verify_certificate(_forge(cert, edit))
    assert got == Verdict.VERIFIED


def test_stated_instance_verdict_is_checked():
    cert = _cert("3.2p")

    def edit(cc):
        cc["instances"][0]["verdict"] = "REFUTED"
    got, lines = verify_certificate(_forge(cert, edit))
    assert got == Verdict.REFUTED and any("states REFUTED" in ln for ln in lines)


def test_forged_snap_data_is_refuted():
    cert = _cert("3.3")

    def edit(cc):  # claim a wider snapping interval than the layer's plateau
        i = cc["instances"][0]
        i["data"]["delta"] = str(F(i["data"]["delta"]) * 2)
    got, lines = verify_certificate(_forge(cert, edit))
    assert got == Verdict.REFUTED and any("witness" in ln for ln in lines)


def test_forged_plateau_data_is_refuted():
    cert = _cert("3.2p")

    def edit(cc):  # claim the plateau reaches the ramp
        i = cc["instances"][0]
        i["data"]["delta1"] = i["data"]["delta2"]
        i["data"]["delta2"] = str(F(i["data"]["delta2"]) * 2)
    got, lines = verify_certificate(_forge(cert, edit))
    assert got == Verdict.REFUTED


def test_softmax_semantics_for_ff_lemma_is_certified_and_tau_is_parsed_safely():
    cert = _cert("3.2")

    def soft(tau):
        def edit(cc):
            cc["semantics"] = {"attention": "softmax", "tau": tau}
        return _forge(cert, edit)
    got, lines = verify_certificate(soft("1/100"))
    assert got == Verdict.VERIFIED and any("softmax" in ln for ln in lines)
    for bad in ("1e999999999", "-1", "0", "nan"):  # refused by the reader, no arithmetic
        with pytest.raises(BadInput):
            verify_certificate(soft(bad))


@pytest.mark.parametrize("edit, where", [
    (lambda i: i.pop("data"), ".data"),
    (lambda i: i["data"].update(p=[0.5, 3.0]), ".data.p[0]"),
    (lambda i: i["data"].update(q=[True, "1"]), ".data.q[0]"),
    (lambda i: i["data"].update(S="x"), ".data.S"),
    (lambda i: i.update(verdict="FINE"), ".verdict"),
    (lambda i: i.update(inputs=[[["1e999999999", "0"]]]), ".inputs[0][0][0]"),
])
def test_malformed_lemma_data_is_bad_input_with_path(edit, where):
    cert = _cert("3.2")

    def e(cc):
        edit(cc["instances"][0])
    with pytest.raises(BadInput) as exc:
        verify_certificate(_forge(cert, e))
    assert exc.value.path == "$.instances[0]" + where


def test_cli_verify_of_a_forged_lemma_certificate_exits_1(tmp_path, capsys):
    import json
    cert = _cert("3.3")

    def edit(cc):
        cc["instances"][0]["data"]["target"] = ["0", "0"]
    f = tmp_path / "forged.json"
    f.write_text(json.dumps(_forge(cert, edit)))
    assert main(["verify", str(f)]) == 1


# ---------------------------------------------------------------- hypothesis instances
rat = st.fractions(min_value=-6, max_value=6, max_denominator=4)


@st.composite
def relocation_instance(draw):
    d = draw(st.integers(2, 4))
    S = draw(st.lists(st.tuples(*[rat] * d), min_size=1, max_size=6, unique=True))
    p = S[draw(st.integers(0, len(S) - 1))]
    q = draw(st.tuples(*[rat] * d).filter(lambda x: x not in S))
    return d, S, p, q


def _kernel(sid, data, ff):
    return checker(sid)(sid, _data_json(data), ff, HARDMAX, "$.instances[0]", len(ff.U[0]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(relocation_instance(), st.booleans(), st.integers(0, 2), st.integers(0, 3),
       st.sampled_from([1, -1, F(1, 3)]))
def test_random_relocations_verify_and_perturbations_are_refuted(inst, plateau, k, i, eps):
    d, S, p, q = inst
    ff = hat.relocate(S, p, q, plateau=plateau)
    w = ff.U[0]
    tp = dot(w, p)
    gap = min((abs(dot(w, x) - tp) for x in S if x != p), default=F(1))
    sid = "3.2p" if plateau else "3.2"
    data = {"S": S, "p": p, "q": q}
    if plateau:
        data.update(delta1=gap / 4, delta2=gap / 2)
    v, lines, wit = _kernel(sid, data, ff)
    assert v == Verdict.VERIFIED, lines
    # exact images on S (from the layer, by the profile): p -> q, the others fixed
    prof = Profile.along(ff, w, EXACT)
    for x in S:
        assert tuple(a + g for a, g in zip(x, prof.value(dot(w, x)))) == (q if x == p else x)
    # one perturbed W entry (of a column that matters) or bias: refuted with a witness
    cols = list(ff.W)
    if any(cols[k]):
        cols[k] = tuple(c + (eps if j == i % d else 0) for j, c in enumerate(cols[k]))
        v2, _, wit2 = _kernel(sid, data, FF(ff.eta, ff.U, ff.b, tuple(cols)))
        assert v2 == Verdict.REFUTED and wit2 is not None
    b = list(ff.b)
    b[k] += eps
    v3, _, wit3 = _kernel(sid, data, FF(ff.eta, ff.U, tuple(b), ff.W))
    assert v3 == Verdict.REFUTED and wit3 is not None


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4).flatmap(lambda d: st.tuples(
    st.just(d), st.integers(0, d - 1), rat, st.fractions(min_value=F(1, 8), max_value=3, max_denominator=8),
    st.tuples(*[rat] * d))), st.integers(0, 3), st.sampled_from([1, -1, F(1, 2)]))
def test_random_snaps_verify_and_perturbations_are_refuted(inst, k, eps):
    d, axis, kappa, delta, y = inst
    ff = snap.snap_ff(axis, d, kappa, delta, y)
    e = tuple(F(int(i == axis)) for i in range(d))
    data = {"line": e, "kappa": kappa, "delta": delta, "target": y}
    v, lines, _ = _kernel("3.3", data, ff)
    assert v == Verdict.VERIFIED, lines
    # a unit whose W column is zero does not act: moving its bias is an equivalent layer
    assume(any(ff.W[k]))
    b = list(ff.b)
    b[k] += eps
    v2, _, wit = _kernel("3.3", data, FF(ff.eta, ff.U, tuple(b), ff.W))
    assert v2 == Verdict.REFUTED and wit is not None and wit.coordinate is not None


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4).flatmap(lambda d: st.tuples(*[rat] * d)).filter(any))
def test_random_translations_verify(c):
    ff = translation.translation_ff(c)
    v, lines, _ = _kernel("3.1", {"c": c}, ff)
    assert v == Verdict.VERIFIED, lines
    wrong = (c[0] + (1 if c[0] != -1 else 2),) + tuple(c[1:])  # never the zero vector
    v2, _, wit = _kernel("3.1", {"c": wrong}, ff)
    assert v2 == Verdict.REFUTED and wit.expected == wrong[wit.coordinate]
