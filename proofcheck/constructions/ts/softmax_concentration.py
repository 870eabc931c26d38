"""C.1 (Takakura–Suzuki Lemma C.1): softmax concentration under a gap.

Statement checked.  Let ``theta`` in Q^n (n >= 2), ``p = softmax(theta)``, ``i*`` the
argmax with gap ``delta > 0``: ``theta_{i*} >= theta_j + delta`` for every ``j != i*``.
With ``x = e^{-delta}`` and ``m = n - 1`` competitors,

    ||e_{i*} - p||_1 = 2 (1 - p_{i*}) = 2 sum_{j != i*} p_j
                     <= 2 m x / (1 + m x)          (sharp form)
                     <= 2 m x = 2 (n - 1) e^{-delta}  (the reconstructed form).

**Reconstruction.**  The seed gives the lemma's number and ONE proof step,
``sum_j e^{theta_j} >= e^{theta_{i*}}``, which gives ``p_j <= e^{theta_j - theta_{i*}}
<= x``; the statement itself is not in the seed.  The form ``2(n-1)e^{-delta}`` is
reconstructed from that step and from the way the seed uses C.1 in App. E
(``2U e^{-chi/U^2}``), the sharp form and the conventions below are the project's.
Every output marks them so.

Proof of the sharp form (checked with sympy for all parameter values).  Put
``u_j = e^{theta_j - theta_{i*}}`` in (0, x] and ``S = sum_{j != i*} u_j`` in (0, m x].
Then ``p_{i*} = 1/(1+S)``, ``sum_{j != i*} p_j = S/(1+S)``, and
``f(S) = 2S/(1+S)`` is increasing: ``f(S + h) - f(S) = 2h/((1+S)(1+S+h)) >= 0``.
Hence ``f(S) <= f(m x)``; equality iff ``S = m x`` iff every competitor sits exactly
``delta`` below the top (the bound is attained, so it cannot be improved).  Finally
``2 m x - f(m x) = 2 m^2 x^2/(1 + m x) > 0``.

Conventions (decided here; the seed states none): ``||.||_1`` is the l1 norm on R^n;
temperature 1; ``delta`` is the largest admissible gap
``theta_{i*} - max_{j != i*} theta_j`` (a smaller ``delta`` only weakens the bound);
ties for the maximum are excluded by ``delta > 0``; ``n`` counts all entries, so there
are ``n - 1`` competitors.

Rigorous numerics: instances have rational ``theta``; every exponential is an arb
enclosure of ``exp(theta_j - theta_max)`` with a non-positive argument (no overflow);
``1 - p_{i*}`` is never formed by subtraction: the l1 distance is computed as
``2S/(1+S)`` from the small terms (the identity is the sympy step above).  A
comparison decides only when the balls are disjoint (``balls.decide`` raises the
precision up to 4096 bits); the tight instances, where both sides are the same
number, are decided by the exact identity (all competitor gaps equal ``delta``
exactly, as rationals), never by overlapping balls.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from flint import arb

from proofcheck.constructions.ts.search import search
from proofcheck.constructions.ts import balls
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness, combine, fmt_value

ID = "C.1"

CONVENTIONS = [
    "convention: ||.||_1 = l1 norm on R^n; p = softmax(theta) at temperature 1",
    "convention: n entries, i* the unique argmax, n - 1 competitors",
    "convention: delta = theta_{i*} - max_{j != i*} theta_j > 0 (the best admissible gap); "
    "x = e^{-delta}",
    "convention: sharp form 2(n-1)x/(1+(n-1)x); reconstructed form 2(n-1)x",
    "reconstruction: the seed gives only the number C.1 and the step sum_j e^theta_j >= "
    "e^theta_i*; the statement (both forms) is reconstructed from that step and from its use "
    "in App. E",
]


def sharp_bound(n: int, x: arb) -> arb:
    """``2(n-1)x / (1 + (n-1)x)``."""
    m = n - 1
    return 2 * m * x / (1 + m * x)


def weak_bound(n: int, x: arb) -> arb:
    """The reconstructed form ``2(n-1)x``."""
    return 2 * (n - 1) * x


def gap(theta) -> tuple[int, Fraction]:
    """``(i*, delta)``: the argmax and the exact gap to the runner-up.
    Raises ``ValueError`` if the maximum is not unique (delta = 0)."""
    theta = [Fraction(t) for t in theta]
    i = max(range(len(theta)), key=lambda k: theta[k])
    delta = theta[i] - max(t for k, t in enumerate(theta) if k != i)
    if delta <= 0:
        raise ValueError("the maximum of theta is not unique (gap 0)")
    return i, delta


def l1_distance(theta) -> arb:
    """Ball enclosing ``||e_{i*} - softmax(theta)||_1 = 2S/(1+S)``,
    ``S = sum_{j != i*} exp(theta_j - theta_{i*})`` (small terms summed directly)."""
    i, _ = gap(theta)
    top = Fraction(theta[i])
    S = sum((balls.exp_q(Fraction(t) - top) for k, t in enumerate(theta) if k != i), arb(0))
    return 2 * S / (1 + S)


def check_instance(theta, bound: Callable[[int, arb], arb] = sharp_bound,
                   tie_rule: bool | None = None) -> tuple[bool | None, dict]:
    """Three-valued ``||e_{i*} - softmax(theta)||_1 <= bound(n, e^{-delta})``.

    ``tie_rule`` (default: on for ``sharp_bound`` only): when every competitor is
    exactly ``delta`` below the top, lhs and the sharp bound are the same number
    ``2(n-1)x/(1+(n-1)x)`` (exact identity), so the comparison holds with equality."""
    theta = tuple(Fraction(t) for t in theta)
    n = len(theta)
    i, delta = gap(theta)
    if tie_rule is None:
        tie_rule = bound is sharp_bound
    tight = all(theta[i] - t == delta for k, t in enumerate(theta) if k != i)
    info = {"theta": theta, "n": n, "i*": i, "delta": delta, "tight": tight}
    if tie_rule and tight:
        info["decided_by"] = "exact identity (every competitor exactly delta below)"
        return True, info
    state = {}

    def cmp():
        lhs = l1_distance(theta)
        rhs = bound(n, balls.exp_q(-delta))
        state["lhs"], state["rhs"] = lhs, rhs
        return balls.le(lhs, rhs)
    t, bits = balls.decide(cmp)
    info.update(lhs=state["lhs"], rhs=state["rhs"], bits=bits,
                decided_by=f"disjoint arb balls at {bits} bits" if t is not None else "undecided")
    return t, info


def gen_theta(d) -> tuple[Fraction, ...]:
    """Random rational theta with a unique maximum: the top, n - 1 competitors at
    ``delta + extra_j`` below it (extra_j = 0 often, so tight cases occur)."""
    n = d.integer(2, 8)
    top = d.fraction(-20, 20, 10)
    delta = d.fraction(Fraction(1, 50), 30, 20)
    comp = [top - delta - (d.fraction(0, 10, 10) if d.boolean() else 0) for _ in range(n - 1)]
    pos = d.integer(0, n - 1)
    return tuple(comp[:pos] + [top] + comp[pos:])


EDGE_CASES = [
    (Fraction(0), Fraction(-1, 1000)),                      # n = 2, tiny gap
    (Fraction(0),) + (Fraction(-1, 1000),) * 9,             # tight, tiny gap, n = 10
    (Fraction(200), Fraction(0), Fraction(-5)),             # huge gap, x ~ e^-200
    (Fraction(0),) + (Fraction(-3),) * 49,                  # tight, n = 50
    (Fraction(1), Fraction(0)) + (Fraction(-40),) * 20,     # one close, many far
    (Fraction(7, 3), Fraction(7, 3) - Fraction(1, 10**12), Fraction(-1)),  # near-tie
]


def symbolic() -> CheckResult:
    """sympy: the l1 identity, monotonicity of f(S) = 2S/(1+S), the sharp and the
    seed's bound, and equality in the tight case — for all m >= 1, 0 < x, 0 < S <= m x."""
    import sympy as sp

    from proofcheck.constructions.provers.symbolic import ProofSteps, is_zero
    S, x, m = sp.symbols("S x m", positive=True)
    h = sp.Symbol("h", nonnegative=True)
    f = lambda s: 2 * s / (1 + s)  # noqa: E731
    proof = ProofSteps()
    need = proof.need

    # (a) l1 identity, concretely for n = 4 (Abs resolved from positivity) and for general S
    u = sp.symbols("u1:4", positive=True)
    Z = 1 + sum(u)
    l1 = sp.Abs(sp.together(1 - 1 / Z)) + sum(sp.Abs(ui / Z) for ui in u)
    need(is_zero(l1 - 2 * sum(u) / Z),
         "n = 4: |1 - p_{i*}| + sum_j p_j = 2 sum_{j != i*} p_j  (u_j = e^{theta_j - theta_{i*}} > 0)")
    need(is_zero((1 - 1 / (1 + S)) - S / (1 + S)), "1 - p_{i*} = 1 - 1/(1+S) = S/(1+S) = sum_{j != i*} p_j")
    # (b) seed's step: p_j = u_j / (1 + S) <= u_j, and u_j <= x
    need(sp.factor(S - S / (1 + S)).is_nonnegative,
         "seed's step sum_j e^{theta_j} >= e^{theta_{i*}}: sum_{j != i*} p_j = S/(1+S) <= S <= m x")
    # (c) monotonicity: f(S + h) - f(S) = 2h / ((1+S)(1+S+h)) >= 0
    diff = f(S + h) - f(S)
    closed = 2 * h / ((1 + S) * (1 + S + h))
    need(is_zero(diff - closed) and closed.is_nonnegative,
         "f(S) = 2S/(1+S): f(S+h) - f(S) = 2h/((1+S)(1+S+h)) >= 0, so S <= m x gives f(S) <= f(m x)")
    # (d) sharp <= seed's form
    gapw = 2 * m * x - f(m * x)
    need(is_zero(gapw - 2 * m ** 2 * x ** 2 / (1 + m * x)) and
         (2 * m ** 2 * x ** 2 / (1 + m * x)).is_positive,
         "2 m x - 2 m x/(1 + m x) = 2 m^2 x^2/(1 + m x) > 0")
    # (e) tightness: S = m x (all competitors exactly delta below) gives equality
    need(is_zero(f(m * x) - 2 * m * x / (1 + m * x)),
         "u_j = x for every competitor: S = m x and ||e - p||_1 = 2 m x/(1 + m x) (attained)")
    return proof.result(
        "C.1 for all parameters (symbolic: sympy, all m = n - 1 >= 1, all delta > 0): "
        "||e_{i*} - p||_1 <= 2(n-1)x/(1+(n-1)x) <= 2(n-1)x, attained",
        CONVENTIONS + ["method: sympy proof for symbolic m, x, S (positivity assumptions)"])


def _witness(inst, info, label) -> Witness:
    lhs, rhs = info.get("lhs"), info.get("rhs")
    sep = balls.separated(rhs, lhs) if lhs is not None else None
    exp_, got = (sep[0], sep[1]) if sep else (None, None)
    return Witness(f"{label}: theta = {fmt_value(inst)} (i* = {info['i*']}, delta = "
                   f"{fmt_value(info['delta'])}); ||e - p||_1 enclosure exceeds the bound's "
                   "(expected = enclosure of the bound, got = enclosure of ||e - p||_1)",
                   expected=exp_, got=got)


def numeric(seed: int = 0, max_examples: int = 60, bound=sharp_bound,
            label: str = "sharp form 2(n-1)x/(1+(n-1)x)") -> CheckResult:
    """arb check of ``||e - p||_1 <= bound`` on edge cases and on searched instances."""
    details = ["method: python-flint arb, three-valued (disjoint balls or exact identity); "
               "exponents theta_j - theta_max <= 0; l1 distance = 2S/(1+S) from the small terms"]
    tight = 0
    for th in EDGE_CASES:
        t, info = check_instance(th, bound)
        if t is not True:
            v = balls.verdict(t)
            return CheckResult(f"C.1 rigorous numerics on these instances: {label}", v, details +
                               [f"edge case theta = {fmt_value(th)}: {info['decided_by']}"],
                               _witness(th, info, label) if t is False else None)
        tight += info["tight"]
    details.append(f"{len(EDGE_CASES)} edge cases (tiny gap, huge gap e^-200, n = 50, near-tie "
                   f"1e-12) hold; in {tight} of them every competitor is exactly delta below")
    out = search(gen_theta, lambda th: check_instance(th, bound), seed, max_examples)
    details.append(f"search: {out.method}; {out.checked} instances checked")
    if out.t is True:
        details.append("no counterexample: every instance certified")
        return CheckResult(f"C.1 rigorous numerics on these instances: {label}", Verdict.VERIFIED, details)
    inst = out.counterexample if out.counterexample is not None else out.undecided
    details.append(f"instance theta = {fmt_value(inst)}: {out.info.get('decided_by')}")
    return CheckResult(f"C.1 rigorous numerics on these instances: {label}", balls.verdict(out.t), details,
                       _witness(inst, out.info, label) if out.t is False else None)


def tight_instance(seed: int = 0) -> CheckResult:
    """A seeded tight instance: the sharp bound is attained exactly, the seed's form is
    strict (certified by disjoint balls)."""
    n = 2 + seed % 6
    delta = Fraction(1 + seed % 5, 2)
    theta = (Fraction(0),) + (-delta,) * (n - 1)
    t1, i1 = check_instance(theta, sharp_bound)
    state = {}

    def cmp():
        state["lhs"] = l1_distance(theta)
        state["w"] = weak_bound(n, balls.exp_q(-delta))
        return balls.lt(state["lhs"], state["w"])
    t2, bits = balls.decide(cmp)
    sep = balls.separated(state["lhs"], state["w"])
    det = ["method: exact identity (sharp form) + python-flint arb, three-valued "
           "(reconstructed form)",
           f"theta = {fmt_value(theta)}: n = {n}, delta = {fmt_value(delta)}, every competitor "
           "exactly delta below",
           f"sharp form: equality, {i1['decided_by']}"]
    if sep:
        det.append(f"reconstructed form strict: ||e - p||_1 in {balls.fmt_interval(sep[0])} < "
                   f"2(n-1)e^-delta in {balls.fmt_interval(sep[1])} ({bits} bits)")
    v = combine([balls.verdict(t1), balls.verdict(t2)])
    return CheckResult("C.1 on this instance (tight): the sharp form is attained", v, det)


def run(dataset=None, seed: int = 0):
    """C.1: sympy proof of the sharp form, tight instance, and arb checks of the sharp
    form and of the seed's form on edge cases and searched instances (``dataset``
    ignored)."""
    return [symbolic(),
            tight_instance(seed),
            numeric(seed),
            numeric(seed + 1000, 30, weak_bound, "reconstructed form 2(n-1)e^-delta")]
