"""Lemma *softmax-gap* (project statement, docs/spec.md §2).

For one score row ``s`` with argmax set ``C`` and gaps ``Delta_l = s_max - s_l > 0``
(``l`` not in C), softmax at temperature tau gives

* ``sum_{l not in C} pi_l <= sum_{l not in C} exp(-Delta_l / tau) / |C|``
  (since ``Z >= |C| exp(s_max / tau)``);
* ``SA_tau(X)_i - SA_inf(X)_i = V sum_{l not in C} pi_l (x_l - xbar_C)`` exactly
  (inside C the weights are equal, so they sum to ``(1 - mass) xbar_C``), hence
  ``|SA_tau(X)_i - SA_inf(X)_i|_inf <= |V|_inf * mass * max_l |x_l - xbar_C|_inf``
  with ``|.|_inf`` the max-norm on vectors and ``|V|_inf`` its induced norm
  (largest absolute row sum): the norm convention of this project;
* every bound is increasing in tau: ``d/dtau exp(-Delta/tau) = Delta/tau^2
  exp(-Delta/tau) > 0``.

Checked symbolically (sympy: the identity for a row of 5 scores with |C| = 2, the
monotonicity) and with rigorous ball arithmetic on seeded random rows
(python-flint arb, three-valued comparisons).
"""
from __future__ import annotations

import random
from fractions import Fraction

from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness

ID = "softmax-gap"


def symbolic():
    import sympy as sp

    from proofcheck.kernel.verdicts import combine
    from proofcheck.constructions.provers.symbolic import prove_identity, prove_positive
    tau, dl = sp.symbols("tau Delta", positive=True)
    r1 = prove_positive("monotone in tau", sp.diff(sp.exp(-dl / tau), tau), "d/dtau exp(-Delta/tau)")
    # identity for n = 5, C = {0, 1}: weights p_C equal, p2..p4 free, sum 1
    p2, p3, p4 = sp.symbols("p2 p3 p4", nonnegative=True)
    x = [sp.Symbol(f"x{k}", real=True) for k in range(5)]
    pc = (1 - p2 - p3 - p4) / 2
    w = [pc, pc, p2, p3, p4]
    xbar = (x[0] + x[1]) / 2
    lhs = sum(wi * xi for wi, xi in zip(w, x)) - xbar
    rhs = sum(wi * (xi - xbar) for wi, xi in zip(w[2:], x[2:]))
    r2 = prove_identity("identity", lhs, rhs)
    r2.details = ["sum_l pi_l x_l - xbar_C = sum_{l not in C} pi_l (x_l - xbar_C) (n = 5, "
                  "|C| = 2)"] + r2.details[1:]
    v = combine([r1.verdict, r2.verdict])  # a prover failure stays INCONCLUSIVE
    return CheckResult("softmax-gap for all parameters (symbolic): monotonicity in tau for every "
                       "gap; the error identity for n = 5, |C| = 2 (all weights and tokens)", v,
                       r2.details + r1.details)


def check_row(scores, tau, X=None, V=None, name="row"):
    """Rigorous check of both bounds on one row (arb, three-valued).  ``scores``:
    ``(n,)`` Fractions; ``X``: ``(n, d)`` tokens; ``V``: ``(d, d)``."""
    from flint import arb

    from proofcheck.constructions.ts.balls import ball as to_arb
    from proofcheck.constructions.ts.balls import le
    smax = max(scores)
    C = [l for l, s in enumerate(scores) if s == smax]
    t = to_arb(Fraction(tau))
    e = [((to_arb(s) - to_arb(smax)) / t).exp() for s in scores]  # exponents <= 0
    Z = sum(e, arb(0))
    mass = sum((e[l] for l in range(len(scores)) if l not in C), arb(0)) / Z  # small terms summed
    bound = sum((((to_arb(s) - to_arb(smax)) / t).exp() for l, s in enumerate(scores)
                 if l not in C), arb(0)) / len(C)
    dec = le(mass, bound)
    if dec is not True:
        v = Verdict.REFUTED if dec is False else Verdict.INCONCLUSIVE
        return CheckResult(name, v, witness=Witness("mass bound", expected=str(bound), got=str(mass)))
    if X is not None:
        d = len(X[0])
        pi = [ei / Z for ei in e]
        xbar = [sum((to_arb(X[l][k]) for l in C), arb(0)) / len(C) for k in range(d)]
        diff = [sum((pi[l] * to_arb(X[l][k]) for l in range(len(X))), arb(0)) - xbar[k]
                for k in range(d)]
        err = [sum((to_arb(V[i][k]) * diff[k] for k in range(d)), arb(0)) for i in range(d)]
        vnorm = max(sum(abs(Fraction(v)) for v in row) for row in V)
        spread = max(abs(to_arb(X[l][k]) - xbar[k]) for l in range(len(X)) for k in range(d))
        rhs = to_arb(vnorm) * bound * spread
        for i, ei in enumerate(err):
            dec = le(abs(ei), rhs)
            if dec is not True:
                v = Verdict.REFUTED if dec is False else Verdict.INCONCLUSIVE
                return CheckResult(name, v, witness=Witness("SA error bound", coordinate=i,
                                                            expected=str(rhs), got=str(abs(ei))))
    return CheckResult(name, Verdict.VERIFIED)


def check_row_adaptive(scores, tau, X, V, name="row", precisions=(64, 256, 1024, 4096)):
    """:func:`check_row` at increasing ball precision while it is undecided."""
    from flint import ctx
    old = ctx.prec
    try:
        for p in precisions:
            ctx.prec = p
            r = check_row(scores, tau, X, V, name)
            if r.verdict != Verdict.INCONCLUSIVE:
                return r
        return r
    finally:
        ctx.prec = old


def run(dataset=None, seed: int = 0, trials: int = 60):
    """Seeded random rows (with ties in the argmax set) and tokens; both bounds
    must hold with certainty for every row."""
    rng = random.Random(seed)
    worst = None
    for k in range(trials):
        n = rng.randint(2, 7)
        top = Fraction(rng.randint(-5, 5))
        scores = [top] * rng.randint(1, 2) + [top - Fraction(rng.randint(1, 40), rng.randint(1, 8))
                                               for _ in range(n - 1)]
        rng.shuffle(scores)
        tau = Fraction(rng.randint(1, 64), rng.randint(1, 16))
        d = rng.randint(1, 3)
        X = [[Fraction(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(d)] for _ in scores]
        V = [[Fraction(rng.randint(-3, 3)) for _ in range(d)] for _ in range(d)]
        r = check_row_adaptive(scores, tau, X, V, name=f"row {k}")
        if r.verdict != Verdict.VERIFIED:
            r.name = f"softmax-gap rigorous check failed on row {k} (tau = {tau}, scores {scores})"
            return [r, symbolic()]
        worst = k
    res = CheckResult(f"softmax-gap rigorous: mass and SA-error bounds on these {worst + 1} "
                      "instances (seeded rows, n <= 7, d <= 3)",
                      Verdict.VERIFIED,
                      ["convention: max-norm on tokens, induced (row-sum) norm on V",
                       "arb ball arithmetic; an undecided comparison would be INCONCLUSIVE"])
    return [res, symbolic()]
