"""G.2 (Takakura–Suzuki, proof of Theorem 5.2, Appendix G, "式変形2"): Bernstein's
inequality plus a union bound.

The seed quotes Bernstein: ``X_1..X_n`` independent, ``E X_i = 0``, ``|X_i| <= M`` a.s.,
``sigma^2 = (1/n) sum_i Var X_i``; for every ``eps > 0``

    Pr(|(1/n) sum_i X_i| > eps) <= 2 exp(-n eps^2 / (2 sigma^2 + (2M/3) eps)),

and concludes, for ``T = max_{j <= N} sum_i X~_i(j)``,

    Pr(T >= sqrt t) <= sum_j Pr(sum_i X~_i(j) >= sqrt t)
                     "=" 2N exp(-t / (2 (8 n R^2 + (4 R^2 / (3 r)) sqrt t))).

Decisions (the seed does not say what ``R``, ``r`` bound):

* **Inferred parameters.**  With ``eps = sqrt(t)/n`` Bernstein's exponent for the sum
  is ``t / (2 n sigma^2 + (2M/3) sqrt t)``; it equals the seed's for every ``t`` iff
  ``sigma^2 = 8 R^2`` and ``M = 4 R^2 / r`` (sympy solves for them).  So the seed uses
  ``(1/n) sum_i Var X~_i(j) <= 8 R^2`` and ``|X~_i(j)| <= 4 R^2 / r``; since the
  exponent decreases in ``sigma^2`` and ``M`` (sympy), upper bounds may be plugged in.
* The last "=" is an "<=" (Bernstein is an inequality).  The factor ``2N`` comes from
  the two-sided form; the one-sided events ``sum_i X~_i(j) >= sqrt t`` would allow
  ``N`` — the seed's bound is valid, a factor 2 loose.  ``>`` versus ``>=``: the
  Chernoff proof of Bernstein bounds ``Pr(S >= s)``, so the non-strict events are covered.
* The union bound needs no independence across ``j``: it bounds every coupling of
  the ``N`` sums.  The exact checks therefore compare ``N * Pr(S >= sqrt t)`` (which
  dominates ``Pr(T >= sqrt t)`` under every coupling) and the exact value
  ``1 - (1 - p)^N`` for independent copies with the bound.

Exact small cases: ``X~_i`` i.i.d. over ``i`` from two families meeting the inferred
hypotheses — three-point ``{-M, 0, M}`` (``P(+-M) = q/2``, ``Var = q M^2``) and
two-point ``{a, -b}`` with mean 0 (``Var = ab``); the law of the sum is computed
exactly with Fractions (convolution / binomial), ``t = s^2`` with ``s`` rational so
the event ``S >= s`` is decided exactly; the bound is an arb ball, compared
three-valued (disjoint balls only).  Bernstein itself (the seed's quoted form, with
the exact ``sigma^2`` and ``M``) is checked the same way.

Conventions: see ``CONVENTIONS``.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Callable

from flint import arb

from proofcheck.constructions.ts.search import search
from proofcheck.constructions.ts import balls
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value

ID = "G.2"

CONVENTIONS = [
    "convention: X~_i(j), i <= n, independent over i with mean 0; any dependence over j <= N",
    "convention: inferred hypotheses (1/n) sum_i Var X~_i(j) <= sigma^2 = 8 R^2 and "
    "|X~_i(j)| <= M = 4 R^2 / r (the unique values matching the seed's exponent)",
    "convention: t = s^2 with s > 0 rational (exact events S >= s); the seed's final '=' "
    "read as '<='; 2N from two-sided Bernstein",
]


# ---------------------------------------------------------------- distributions
def three_point(M: Fraction, q: Fraction) -> dict:
    """``X = +-M`` w.p. ``q/2`` each, 0 w.p. ``1 - q``."""
    return {M: q / 2, Fraction(0): 1 - q, -M: q / 2} if q < 1 else {M: Fraction(1, 2), -M: Fraction(1, 2)}


def two_point(a: Fraction, b: Fraction) -> dict:
    """``X = a`` w.p. ``b/(a+b)``, ``-b`` w.p. ``a/(a+b)`` (mean 0, variance ``ab``)."""
    return {a: b / (a + b), -b: a / (a + b)}


def moments(law: dict) -> tuple[Fraction, Fraction, Fraction]:
    """Exact ``(mean, variance, max |X|)``."""
    mean = sum(p * x for x, p in law.items())
    var = sum(p * (x - mean) ** 2 for x, p in law.items())
    return mean, var, max(abs(x) for x, p in law.items() if p > 0)


def sum_law(law: dict, n: int) -> dict:
    """Exact law of the sum of ``n`` i.i.d. copies (convolution on Fractions)."""
    out = {Fraction(0): Fraction(1)}
    for _ in range(n):
        nxt: dict = {}
        for s, p in out.items():
            for x, q in law.items():
                if q:
                    nxt[s + x] = nxt.get(s + x, Fraction(0)) + p * q
        out = nxt
    return out


def tail(law: dict, n: int, s: Fraction) -> Fraction:
    """Exact ``Pr(X_1 + ... + X_n >= s)``."""
    if len(law) == 2:  # binomial shortcut
        (a, pa), (b, pb) = sorted(law.items(), reverse=True)
        return sum((comb(n, k) * pa ** k * pb ** (n - k) for k in range(n + 1)
                    if k * a + (n - k) * b >= s), Fraction(0))
    return sum((p for v, p in sum_law(law, n).items() if v >= s), Fraction(0))


# ---------------------------------------------------------------- bounds
def seed_bound(n: int, N: int, R: Fraction, r: Fraction, s: Fraction) -> arb:
    """``2N exp(-t / (2 (8 n R^2 + (4 R^2/(3 r)) sqrt t)))`` with ``sqrt t = s``."""
    E = s ** 2 / (2 * (8 * n * R ** 2 + 4 * R ** 2 / (3 * r) * s))
    return 2 * N * balls.exp_q(-E)


def bernstein_bound(n: int, var: Fraction, M: Fraction, eps: Fraction) -> arb:
    """The seed's Bernstein: ``2 exp(-n eps^2 / (2 sigma^2 + (2M/3) eps))``."""
    return 2 * balls.exp_q(-n * eps ** 2 / (2 * var + 2 * M * eps / 3))


# ---------------------------------------------------------------- instances
def gen_instance(d):
    """``(n, N, R, r, s, law)`` with a law meeting Var <= 8R^2 and |X| <= 4R^2/r."""
    n, N = d.integer(1, 10), d.integer(1, 6)
    R, r = d.fraction(Fraction(1, 4), 3, 4), d.fraction(Fraction(1, 4), 3, 4)
    M = 4 * R ** 2 / r
    if d.boolean():
        qmax = min(Fraction(1), 8 * R ** 2 / M ** 2)
        law = three_point(M, qmax * d.fraction(Fraction(1, 10), 1, 10))
    else:
        a, b = M * d.fraction(Fraction(1, 10), 1, 10), M * d.fraction(Fraction(1, 10), 1, 10)
        if a * b > 8 * R ** 2:
            b = 8 * R ** 2 / a
        law = two_point(a, b)
    s = n * M * d.fraction(Fraction(1, 20), 1, 20)
    return n, N, R, r, s, law


def check_instance(inst, bound: Callable = seed_bound) -> tuple[bool | None, dict]:
    """Three-valued: ``N * Pr(S >= s) <= bound`` (every coupling over j) and
    ``1 - (1 - p)^N <= bound`` (independent copies), ``S`` a sum of ``n`` copies."""
    n, N, R, r, s, law = inst
    mean, var, M = moments(law)
    assert mean == 0 and var <= 8 * R ** 2 and M <= 4 * R ** 2 / r, "instance violates hypotheses"
    p = tail(law, n, s)
    union, indep = N * p, 1 - (1 - p) ** N
    st = {}

    def cmp():
        st["b"] = bound(n, N, R, r, s)
        u, i = balls.le(union, st["b"]), balls.le(indep, st["b"])
        return None if None in (u, i) else (u and i)
    t, bits = balls.decide(cmp)
    return t, {"p": p, "union": union, "indep": indep, "bound": st["b"], "bits": bits,
               "var": var, "M": M}


def check_bernstein(inst) -> tuple[bool | None, dict]:
    """The seed's Bernstein statement with the exact variance and range:
    ``Pr(|S/n| > eps) <= 2 exp(-n eps^2/(2 sigma^2 + 2 M eps/3))``, ``eps = s/n``."""
    n, N, R, r, s, law = inst
    _, var, M = moments(law)
    eps = s / n
    dist = sum_law(law, n)
    p = sum((q for v, q in dist.items() if abs(v) > s), Fraction(0))
    st = {}

    def cmp():
        st["b"] = bernstein_bound(n, var, M, eps)
        return balls.le(p, st["b"])
    t, bits = balls.decide(cmp)
    return t, {"p": p, "bound": st["b"], "bits": bits, "var": var, "M": M}


def _describe(inst) -> str:
    n, N, R, r, s, law = inst
    return (f"n = {n}, N = {N}, R = {fmt_value(R)}, r = {fmt_value(r)}, sqrt t = {fmt_value(s)}, "
            f"law of X~ = {{" + ", ".join(f"{fmt_value(x)}: {fmt_value(p)}" for x, p in law.items())
            + "}")


# ---------------------------------------------------------------- checks
def symbolic() -> CheckResult:
    import sympy as sp

    from proofcheck.constructions.provers.symbolic import ProofSteps, is_zero
    n, N, R, r, s, sig2, M = sp.symbols("n N R r s sigma2 M", positive=True)
    t = s ** 2
    proof = ProofSteps()
    need = proof.need
    eps = s / n
    E_mean = n * eps ** 2 / (2 * sig2 + 2 * M / 3 * eps)
    E_sum = t / (2 * n * sig2 + 2 * M / 3 * s)
    bern = "Bernstein's inequality"
    need(is_zero(E_mean - E_sum), "eps = sqrt(t)/n: n eps^2/(2 sigma^2 + (2M/3) eps) = "
         "t/(2 n sigma^2 + (2M/3) sqrt t)  (|sum| >= sqrt t iff |mean| >= eps)", bern)
    target = t / (2 * (8 * n * R ** 2 + 4 * R ** 2 / (3 * r) * s))
    sol = sp.solve([sp.Eq(2 * n * sig2, 16 * n * R ** 2), sp.Eq(2 * M / 3, 8 * R ** 2 / (3 * r))],
                   [sig2, M], dict=True)
    need(len(sol) == 1 and is_zero(sol[0][sig2] - 8 * R ** 2) and is_zero(sol[0][M] - 4 * R ** 2 / r),
         "matching the seed's exponent for every t forces sigma^2 = 8R^2 and M = 4R^2/r")
    need(is_zero(E_sum.subs({sig2: 8 * R ** 2, M: 4 * R ** 2 / r}) - target),
         "with sigma^2 = 8R^2, M = 4R^2/r: exponent = t/(2(8nR^2 + (4R^2/(3r)) sqrt t))", bern)
    need(sp.diff(E_sum, sig2).is_negative and sp.diff(E_sum, M).is_negative,
         "the exponent decreases in sigma^2 and in M: upper bounds on Var and |X| may be plugged in")
    j = sp.Symbol("j", integer=True)
    need(is_zero(sp.Sum(2 * sp.exp(-target), (j, 1, N)).doit() - 2 * N * sp.exp(-target)),
         "union bound: Pr(max_j S_j >= sqrt t) <= sum_{j<=N} Pr(S_j >= sqrt t) <= "
         "N * 2 exp(-...) = 2N exp(-t/(2(8nR^2 + (4R^2/(3r)) sqrt t)))")
    return proof.result("G.2 for all parameters (symbolic), substituted into Bernstein's "
                       "inequality: sigma^2 = 8R^2, M = 4R^2/r and the union bound give the seed's "
                       "2N exp(-t/(2(8nR^2 + (4R^2/(3r)) sqrt t)))",
                       CONVENTIONS + ["method: sympy, symbolic n, N, R, r, sqrt t, sigma^2, M"])


EDGE_CASES = [
    # Rademacher +-M at the variance cap (r^2 >= 2R^2 makes q = 1 admissible)
    (1, 1, Fraction(1), Fraction(2), Fraction(2), three_point(Fraction(2), Fraction(1))),
    (10, 6, Fraction(1), Fraction(3), Fraction(4), three_point(Fraction(4, 3), Fraction(1))),
    (8, 3, Fraction(1, 2), Fraction(1, 4), Fraction(8), two_point(Fraction(4), Fraction(1, 2))),
    # a case where the bound is below 1: n = 10 signs, sqrt t = 8
    (10, 1, Fraction(1, 2), Fraction(1), Fraction(8), three_point(Fraction(1), Fraction(1))),
]


def _run_search(name, check, seed, max_examples, extra_det, bound=None) -> CheckResult:
    det = ["method: exact law of the sum (Fractions) vs an arb ball of the bound, "
           "three-valued (disjoint balls only)"] + extra_det
    chk = (lambda i: check(i, bound)) if bound is not None else check
    det.append(f"{len(EDGE_CASES)} edge cases (Rademacher at the variance cap, n up to 10; the last with a bound below 1):")
    for inst in EDGE_CASES:
        t, info = chk(inst)
        if t is not True:
            return _fail(name, det + ["edge case"], inst, t, info)
        what = ("N Pr(S >= sqrt t) = " + fmt_value(info["union"]) + f" (independent copies: "
                f"{fmt_value(info['indep'])})") if "union" in info else \
            "Pr(|mean| > eps) = " + fmt_value(info["p"])
        det.append(f"  {_describe(inst)}: {what} <= bound in "
                   f"{balls.fmt_interval(balls.outward(info['bound'], 6))}")
    out = search(gen_instance, chk, seed, max_examples)
    det.append(f"search: {out.method}; {out.checked} instances (n <= 10, N <= 6)")
    if out.t is True:
        return CheckResult(name, Verdict.VERIFIED, det + ["no counterexample"])
    inst = out.counterexample if out.counterexample is not None else out.undecided
    return _fail(name, det, inst, out.t, out.info)


def _fail(name, det, inst, t, info) -> CheckResult:
    det = det + [_describe(inst)]
    if t is None:
        return CheckResult(name, Verdict.INCONCLUSIVE, det + ["comparison undecided at 4096 bits"])
    prob = info.get("union", info["p"])
    what = "N Pr(S >= sqrt t)" if "union" in info else "Pr(|mean| > eps)"
    if "union" in info and balls.le(info["union"], info["bound"]) is True:
        prob, what = info["indep"], "Pr(T >= sqrt t) for independent copies"
    sep = balls.separated(info["bound"], prob)
    return CheckResult(name, Verdict.REFUTED, det,
                       Witness(f"exact {what} exceeds the bound (expected = enclosure of the "
                               f"bound, got = exact {what})",
                               expected=sep[0] if sep else None, got=prob))


def seed_tail(seed: int = 0, max_examples: int = 50, bound: Callable = seed_bound,
              label: str = "Pr(T >= sqrt t) <= 2N exp(-t/(2(8nR^2 + (4R^2/(3r)) sqrt t)))") -> CheckResult:
    return _run_search(f"G.2 on these exact small cases: {label}", check_instance, seed, max_examples,
                       ["union bound over j checked as N * Pr(S >= sqrt t) (every coupling) and "
                        "1 - (1 - p)^N (independent copies)"], bound)


def bernstein(seed: int = 0, max_examples: int = 40) -> CheckResult:
    return _run_search("G.2 on these exact small cases: the seed's Bernstein Pr(|mean| > eps) <= "
                       "2 exp(-n eps^2/(2 sigma^2 + (2M/3) eps)), exact sigma^2 and M",
                       check_bernstein, seed, max_examples, ["eps = sqrt(t)/n"])


def run(dataset=None, seed: int = 0):
    """G.2: sympy algebra, Bernstein and the seed's tail on exact small-case laws
    (``dataset`` ignored)."""
    return [symbolic(), bernstein(seed), seed_tail(seed + 1)]
