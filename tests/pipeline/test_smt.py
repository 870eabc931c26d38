"""z3 as the second prover of the all-parameter layer lemmas (proofcheck/constructions/provers/smt.py): on the
layers the routines return, sympy and z3 agree (VERIFIED, both named); a layer with one
parameter changed is REFUTED by z3 with its model as the witness (code
``smt-counterexample``), the model re-evaluated here in Fractions against the lemma's
statement; z3 answering unknown, timing out, missing or disagreeing with sympy is never
a pass; ``lemma 3.2`` prints both provers."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.layers import clustering, corner, hat, snap, sphere, translation
from proofcheck.constructions.provers import smt
from proofcheck.frontend.cli import main
from proofcheck.kernel.model import Factored
from proofcheck.kernel.verdicts import Verdict
from proofcheck.constructions.provers.smt import Outcome, Z3Prover
from proofcheck.constructions.provers.symbolic import prove_profile
from proofcheck.constructions.provers.sa_proofs import Proof, score, value

BOTH = {"sympy": "VERIFIED", "z3": "VERIFIED"}
REFUTED_BY_BOTH = {"sympy": "REFUTED", "z3": "REFUTED"}


# ------------------------------------------------------------------ the routines' layers
@pytest.mark.parametrize("proof", [
    lambda: translation.symbolic(2), lambda: hat.symbolic(2)[0], lambda: hat.symbolic(2)[1],
    lambda: snap.symbolic(2), lambda: snap.symbolic(3, 2), lambda: clustering.symbolic(2),
    lambda: clustering.symbolic_tag(2), lambda: corner.symbolic(2), lambda: sphere.symbolic(2),
], ids=["3.1", "3.2", "3.2p", "3.3", "3.3-axis-2", "4.1", "tag", "4.2", "4.3"])
def test_sympy_and_z3_agree_on_the_returned_layer(proof):
    r = proof()
    assert (r.verdict, r.provers, r.witness, r.counterexample) == (Verdict.VERIFIED, BOTH, None,
                                                                   None)
    d = 3 if "axis 2" in r.name or "e_2" in r.name else 2  # snap.symbolic(3, 2) fixes d = 3
    assert r.scope_text() == f"for all parameters, d = {d}"  # the dimension the proof fixed
    assert r.lines()[0].endswith(f"[for all parameters, d = {d}; sympy and z3 agree]")
    assert any(x.startswith("proved (sympy and z3): ") for x in r.details)


# ------------------------------------------------------------------ wrong layers (FF)
def _ff(layer, x):
    """``eta x + sum_k W_k relu(<U_k, x> + b_k)`` in Fractions (docs/spec.md §1)."""
    out = [layer.eta * v for v in x]
    for u, b, col in zip(layer.U, layer.b, layer.W):
        a = sum((F(p) * v for p, v in zip(u, x)), F(0)) + b
        out = [o + F(c) * max(a, F(0)) for o, c in zip(out, col)]
    return out


def _dot(a, b):
    return sum((F(x) * y for x, y in zip(a, b)), F(0))


def _vec(m, name, d):
    return [m.get(f"{name}{i}", F(0)) for i in range(d)]


def _hat_violated(m, d):
    w, p, q = _vec(m, "w", d), _vec(m, "p", d), _vec(m, "q", d)
    x = [m[f"x[{i}]"] for i in range(d)]
    tp, dl, t = _dot(w, p), m["delta"], _dot(w, x)
    got = _ff(hat.hat_ff(w, tp, dl, [b - a for a, b in zip(p, q)]), x)
    fixed = (t <= tp - dl or t >= tp + dl) and got != x
    moved = t == tp and got != [a + b - c for a, b, c in zip(x, q, p)]
    return fixed or moved


def _plateau_violated(m, d):
    w, p, q = _vec(m, "w", d), _vec(m, "p", d), _vec(m, "q", d)
    x = [m[f"x[{i}]"] for i in range(d)]
    tp, d1, t = _dot(w, p), m["delta1"], _dot(w, x)
    d2 = d1 + m["s"]
    got = _ff(hat.plateau_ff(w, tp, d1, d2, [b - a for a, b in zip(p, q)]), x)
    fixed = (t <= tp - d2 or t >= tp + d2) and got != x
    moved = abs(t - tp) <= d1 and got != [a + b - c for a, b, c in zip(x, q, p)]
    return fixed or moved


def _snap_violated(m, d):
    y, x = _vec(m, "y", d), [m[f"x[{i}]"] for i in range(d)]
    k, dl = m["kappa"], m["delta"]
    got = _ff(snap.snap_ff(0, d, k, dl, y), x)
    fixed = abs(x[0] - k) >= 2 * dl and got != x
    onto = abs(x[0] - k) <= dl and got != [a + b - (x[0] if i == 0 else 0)
                                           for i, (a, b) in enumerate(zip(x, y))]
    return fixed or onto


def _translation_violated(m, d):
    c, x = _vec(m, "c", d), [m[f"x[{i}]"] for i in range(d)]
    return _ff(translation.translation_ff(c), x) != [a + b for a, b in zip(x, c)]


def _mutate(module, name, edit):
    real = getattr(module, name)
    return lambda *a, **k: edit(real(*a, **k))


@pytest.mark.parametrize("module, name, edit, proof, violated", [
    (translation, "translation_ff", lambda f: replace(f, b=(F(2),)),
     lambda: translation.symbolic(2), _translation_violated),
    (hat, "hat_ff", lambda f: replace(f, W=f.W[:2] + (tuple(2 * x for x in f.W[2]),)),
     lambda: hat._symbolic.__wrapped__(2)[0], _hat_violated),
    (hat, "plateau_ff", lambda f: replace(f, b=(f.b[0] + 1,) + f.b[1:]),
     lambda: hat._symbolic.__wrapped__(2)[1], _plateau_violated),
    (snap, "snap_ff", lambda f: replace(f, W=f.W[:3] + (tuple(2 * x for x in f.W[3]),)),
     lambda: snap._symbolic.__wrapped__(2, 0), _snap_violated),
], ids=["3.1 b", "3.2 W3", "3.2p b1", "3.3 W4"])
def test_one_changed_parameter_of_an_ff_layer_is_refuted_with_z3s_model(
        monkeypatch, module, name, edit, proof, violated):
    monkeypatch.setattr(module, name, _mutate(module, name, edit))
    r = proof()
    assert (r.verdict, r.witness.code, r.provers) == (Verdict.REFUTED, "smt-counterexample",
                                                      REFUTED_BY_BOTH)
    assert all(type(v) is F for v in r.counterexample.values())
    # the model, re-evaluated in Fractions on the mutated routine's rational layer,
    # violates the lemma's statement
    assert violated(r.counterexample, 2)
    assert r.witness.got != r.witness.expected


# ------------------------------------------------------------------ wrong layers (SA)
def _corner_violated(m, layer, d):
    x, t = _vec(m, "x", d), m["t"]
    g = _vec(m, "g", d)
    T = (t,) * d
    return score(layer, x, T) - score(layer, x, [t - a for a in g]) <= 0 and max(g) > 0


def _sphere_violated(m, layer, d):
    x = _vec(m, "x", d)
    return value(layer, x, x) != x


def _tag_violated(m, layer, d):
    x, y = _vec(m, "x", d), _vec(m, "y", d)
    lam = m.get("lam", F(0))
    return value(layer, x, y) != [a + lam * b for a, b in zip(x, y)]


@pytest.mark.parametrize("module, name, bad, proof, violated, rational", [
    (corner, "corner_sa", lambda f: replace(f, A=Factored(F(-1))), corner.symbolic,
     _corner_violated, lambda real, m: real()),
    (sphere, "sphere_sa", lambda f: replace(f, rho=F(1)), sphere.symbolic, _sphere_violated,
     lambda real, m: real()),
    (clustering, "tag_sa", lambda f: replace(f, rho=F(0)), clustering.symbolic_tag,
     _tag_violated, lambda real, m: real(_vec(m, "u", 2), m.get("lam", F(0)))),
], ids=["4.2 A = -I", "4.3 rho = 1", "tag rho = 0"])
def test_one_changed_parameter_of_an_sa_layer_is_refuted_with_z3s_model(
        monkeypatch, module, name, bad, proof, violated, rational):
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a: bad(real(*a)))
    r = proof(2)
    assert (r.verdict, r.witness.code, r.provers) == (Verdict.REFUTED, "smt-counterexample",
                                                      REFUTED_BY_BOTH)
    # the model (symbols it does not name are free: 0) on the mutated rational layer
    assert violated(r.counterexample, bad(rational(real, r.counterexample)), 2)


def test_wrong_41_score_matrix_is_refuted_by_both_with_z3s_model(monkeypatch):
    real = clustering.cluster_sa

    def bad(u):  # A = u (u + e_0)^T
        good = real(u)
        v = tuple(x + (1 if i == 0 else 0) for i, x in enumerate(good.A.right[0]))
        return replace(good, A=Factored(good.A.lam, good.A.left, (v,)))
    monkeypatch.setattr(clustering, "cluster_sa", bad)
    r = clustering.symbolic(2)
    assert (r.verdict, r.witness.code, r.provers) == (Verdict.REFUTED, "smt-counterexample",
                                                      REFUTED_BY_BOTH)
    m = r.counterexample  # the first step: <A x_i, x_l - x_k> = <u,x_i>(<u,x_l> - <u,x_k>)
    u, xi, xl, xk = (_vec(m, n, 2) for n in ("u", "xi", "xl", "xk"))
    layer = bad(tuple(u))
    D = score(layer, xi, xl) - score(layer, xi, xk)
    assert D != _dot(u, xi) * (_dot(u, xl) - _dot(u, xk))


# ------------------------------------------------------------------ never a pass by default
def _hat_claims(d):
    w, p, q = (sp.symbols(f"{c}0:{d}", real=True) for c in "wpq")
    dl = sp.Symbol("delta", positive=True)
    tp = sum(a * b for a, b in zip(w, p))
    shift = [b - a for a, b in zip(p, q)]
    return hat.hat_ff(w, tp, dl, shift), w, [
        (None, tp - dl, lambda t: [0] * d, "left tail fixed"),
        (tp, tp, lambda t: shift, "p -> q"), (tp + dl, None, lambda t: [0] * d, "right tail fixed")]


def test_z3_unknown_is_inconclusive_never_a_pass(monkeypatch):
    import z3
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a: z3.unknown)
    ff, w, claims = _hat_claims(2)
    r = prove_profile("hat", ff, w, claims, "", second=Z3Prover())
    assert (r.verdict, r.provers) == (Verdict.INCONCLUSIVE, {"sympy": "VERIFIED",
                                                            "z3": "INCONCLUSIVE"})
    assert r.scope is None and "z3: unknown" in r.details[-1]
    P = Proof(second=Z3Prover())
    x = sp.Symbol("x", positive=True)
    assert P.positive(x + 1, "x + 1 > 0") is False
    assert P.result("one step").verdict is Verdict.INCONCLUSIVE


def test_a_real_timeout_is_inconclusive():
    ff, w, claims = _hat_claims(20)  # z3 needs about 0.5 s here; 1 ms is not enough
    out = Z3Prover(timeout_ms=1).profile_claim(ff, w, *claims[1][:3])
    assert out.verdict is Verdict.INCONCLUSIVE and out.note == "z3: unknown (timeout 0.001 s)"


def test_z3_missing_is_inconclusive(monkeypatch):
    monkeypatch.setattr(smt, "_z3", lambda: None)
    out = Z3Prover().zero(sp.Symbol("x", real=True))
    assert out.verdict is Verdict.INCONCLUSIVE and "pip install z3-solver" in out.note


@pytest.mark.parametrize("expr, why", [
    (sp.sqrt(sp.Symbol("x", positive=True)), "Pow"),
    (sp.Abs(sp.Symbol("x", real=True)), "Abs"),
    (sp.Symbol("z"), "not declared real"),
])
def test_outside_the_translated_fragment_is_inconclusive(expr, why):
    out = Z3Prover().zero(expr)
    assert out.verdict is Verdict.INCONCLUSIVE and why in out.note


def test_provers_disagreeing_is_an_error(monkeypatch):
    ff, w, claims = _hat_claims(2)
    fake = Outcome(Verdict.REFUTED, "z3: counterexample (injected)")
    monkeypatch.setattr(Z3Prover, "profile_claim", lambda self, *a: fake)
    r = prove_profile("hat", ff, w, claims, "", second=Z3Prover())
    assert (r.verdict, r.witness.code) == (Verdict.ERROR, "provers-disagree")
    assert r.details[-1].startswith("PROVERS DISAGREE: left tail fixed")


def test_an_irrational_counterexample_is_inconclusive():
    x = sp.Symbol("x", real=True)
    out = Z3Prover().sign((x ** 2 - 2) ** 2, positive=True)  # fails only at x = +-sqrt 2
    assert out.verdict is Verdict.INCONCLUSIVE and "irrational" in out.note


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=3, max_size=3), st.integers(-2, 2))
def test_polynomial_identities_and_their_perturbations(coefs, c):
    """z3 proves ``(a x + b y + k)^2`` equals its expansion, and refutes it with a
    checked rational model once a non-zero constant is added."""
    x, y = sp.symbols("x y", real=True)
    a, b, k = coefs
    e = (a * x + b * y + k) ** 2
    assert Z3Prover().zero(e - sp.expand(e)).verdict is Verdict.VERIFIED
    out = Z3Prover().zero(e - sp.expand(e) + c * x * y + 1)
    assert out.verdict is Verdict.REFUTED and out.witness.code == "smt-counterexample"
    assert (e - sp.expand(e) + c * x * y + 1).subs(
        {s: sp.Rational(out.model.get(str(s), F(0))) for s in (x, y)}) != 0


# ------------------------------------------------------------------ the command line
def test_lemma_32_prints_both_provers(capsys):
    assert main(["lemma", "3.2"]) == 0  # the summary: the check line with both provers
    line = next(x for x in capsys.readouterr().out.splitlines()
                if x.startswith("[VERIFIED] 3.2 for all parameters"))
    assert line.endswith("[for all parameters, d = 2; sympy and z3 agree]")
    assert main(["lemma", "3.2", "--verbose"]) == 0  # every proved claim names both
    out = capsys.readouterr().out.splitlines()
    line = next(x for x in out if x.startswith("[VERIFIED] 3.2 for all parameters"))
    assert line.endswith("[for all parameters, d = 2; sympy and z3 agree]")
    i = out.index(line)
    assert [x.strip().split(":")[0] for x in out[i + 4:i + 7]] == ["proved (sympy and z3)"] * 3


def test_the_prover_raising_is_inconclusive_not_a_refutation(monkeypatch):
    """A failure inside the z3 side (here its translation) is the prover failing:
    INCONCLUSIVE with its message, never "the construction raised" (REFUTED)."""
    from proofcheck.constructions.provers.sa_proofs import guarded

    def boom(*a, **k):
        raise TypeError("injected")
    monkeypatch.setattr(smt, "to_z3", boom)
    [r] = guarded("4.2 symbolic (d = 2)", corner.symbolic, 2)
    assert (r.verdict, r.provers) == (Verdict.INCONCLUSIVE, {"sympy": "VERIFIED",
                                                            "z3": "INCONCLUSIVE"})
    assert any("z3: the prover raised TypeError: injected" in x for x in r.details)


def test_readme_block_is_the_results_file():
    """The README's provers table is ``python -m bench.provers --readme`` of
    bench/results-provers.json, and that file records both provers agreeing on every
    conclusion and refuting every one-parameter variant."""
    import json
    from pathlib import Path

    from bench.provers import readme
    root = Path(__file__).resolve().parents[2]
    res = json.loads((root / "bench" / "results-provers.json").read_text())
    assert readme(res) in (root / "docs" / "measurements" / "provers.md").read_text()
    assert all(r["provers"] == BOTH for r in res["layers"])
    assert all(r["wrong_variant"]["provers"] == REFUTED_BY_BOTH for r in res["layers"])
    assert {r["lemma"] for r in res["layers"]} == {"3.1", "3.2", "3.2p", "3.3", "4.1", "tag",
                                                   "4.2", "4.3"}
