"""Lemma 3.2 (single-token relocation, hat) and its plateau variant 3.2p.

3.2: for a finite ``S`` in Q^d, ``p`` in S and ``q`` in Q^d, a width-3 FF with
``eta = 1`` maps ``p -> q`` and fixes ``S \\ {p}``:  with a direction ``w`` that
separates ``p`` (``<w,p> != <w,x>`` for the other x) and
``h(t) = (relu(t-t_p+delta) - 2 relu(t-t_p) + relu(t-t_p-delta)) / delta``,
``FF(x) = x + h(<w,x>) (q - p)``; ``h(t_p) = 1`` and ``h = 0`` outside
``(t_p - delta, t_p + delta)``.

3.2p (width 4, trapezoid): ``h = 1`` on ``|t - t_p| <= delta1`` and ``h = 0`` on
``|t - t_p| >= delta2`` (``0 < delta1 < delta2``), so every x in the plateau moves
by exactly ``q - p``.

``hat_ff`` and ``plateau_ff`` are generic in their scalars (Fractions, or sympy
symbols whose assumptions carry the hypotheses); ``symbolic()`` proves the
conclusions on the layers they return (``proofcheck.constructions.provers.symbolic.prove_profile``).
"""
from __future__ import annotations

import functools
from fractions import Fraction

from proofcheck.constructions.afz.scalars import require, scalar, scalars
from proofcheck.constructions.layers import vec
from proofcheck.kernel.model import FF, dot

ID = "3.2"
ID_PLATEAU = "3.2p"


def hat_ff(w, t_p, delta, shift, label="hat (3.2)") -> FF:
    """Width-3 FF ``x -> x + h(<w,x>) shift`` with the triangular hat of half-width
    ``delta > 0`` centred at ``t_p``.  ``w``, ``shift``: ``(d,)``; scalars are
    rationals or sympy expressions.  Raises ``ValueError`` if ``delta <= 0`` (or
    its sign is not decided by the symbols' assumptions)."""
    w, shift = scalars(w), scalars(shift)
    t_p, delta = scalar(t_p), scalar(delta)
    require(delta > 0, "hat: delta must be positive")
    b = (-t_p + delta, -t_p, -t_p - delta)
    coef = (1 / delta, -2 / delta, 1 / delta)
    return FF(Fraction(1), U=(w, w, w), b=b,
              W=tuple(tuple(c * s for s in shift) for c in coef), label=label)


def plateau_ff(w, t_p, delta1, delta2, shift, label="plateau hat (3.2p)") -> FF:
    """Width-4 FF ``x -> x + h(<w,x>) shift`` with ``h = 1`` on
    ``[t_p - delta1, t_p + delta1]`` and ``h = 0`` outside ``(t_p - delta2, t_p + delta2)``.
    Scalars: rationals or sympy expressions.  Raises ``ValueError`` unless
    ``0 < delta1 < delta2`` (decidably)."""
    w, shift = scalars(w), scalars(shift)
    t_p, d1, d2 = scalar(t_p), scalar(delta1), scalar(delta2)
    require(d1 > 0, "plateau hat: need 0 < delta1 < delta2")
    require(d1 < d2, "plateau hat: need 0 < delta1 < delta2")
    s = d2 - d1
    kinks = (t_p - d2, t_p - d1, t_p + d1, t_p + d2)
    up = tuple(x / s for x in shift)       # columns (1, -1, -1, 1) / s times shift
    down = tuple(-x for x in up)
    return FF(Fraction(1), U=(w,) * 4, b=tuple(-k for k in kinks),
              W=(up, down, down, up), label=label)


def separating_direction(S, p):
    """A small-integer direction ``w = (1, k, k^2, ...)`` with ``<w,p> != <w,x>`` for
    every x in S other than p: the first k = 1, 2, ... that works.  Each other x
    rules out at most d - 1 values of k (a non-zero polynomial of degree < d), so
    one of the first ``(d - 1) |S| + 1`` candidates works and the search is bounded.
    ``S``: list of ``(d,)`` points containing ``p``.  The lemma checks re-check that
    the returned w separates p (a non-separating w moves a point of S)."""
    p = vec(p)
    others = [vec(x) for x in S if vec(x) != p]
    d = len(p)
    for k in range(1, (d - 1) * len(others) + 2):
        w = tuple(Fraction(k) ** i for i in range(d))
        tp = dot(w, p)
        if all(dot(w, x) != tp for x in others):
            break
    return w


def relocate(S, p, q, plateau=False) -> FF:
    """Lemma 3.2 (or 3.2p): FF mapping ``p -> q`` and fixing ``S \\ {p}``.
    ``delta`` = distance from ``t_p`` to the nearest other projection (halved for
    the plateau's outer radius, quartered for its inner one)."""
    p, q = vec(p), vec(q)
    w = separating_direction(S, p)
    tp = dot(w, p)
    gaps = [abs(dot(w, vec(x)) - tp) for x in S if vec(x) != p]
    delta = min(gaps) if gaps else Fraction(1)
    shift = tuple(b - a for a, b in zip(p, q))
    if plateau:
        return plateau_ff(w, tp, delta / 4, delta / 2, shift)
    return hat_ff(w, tp, delta, shift)


def symbolic(d: int = 3):
    """See :func:`_symbolic`; computed once per process and argument (the proof
    depends only on them), returned as fresh copies."""
    import copy
    return copy.deepcopy(_symbolic(d))


@functools.lru_cache(maxsize=None)
def _symbolic(d: int = 3):
    """sympy and z3 proofs, on the layers ``hat_ff`` / ``plateau_ff`` return for symbolic
    ``w, p, q`` in R^d, ``t_p = <w,p>`` and ``delta > 0`` (``0 < delta1 < delta2``,
    written ``delta2 = delta1 + s`` with ``s > 0``): p -> q (the plateau moves every
    token within ``delta1`` by ``q - p``) and every token outside the support is
    fixed.  The profile comes from the returned U, b, W; z3 decides every claim
    again from the same layer (``proofcheck.constructions.provers.smt``)."""
    import sympy as sp

    from proofcheck.constructions.provers.smt import Z3Prover
    from proofcheck.constructions.provers.symbolic import prove_profile
    w = sp.symbols(f"w0:{d}", real=True)
    p = sp.symbols(f"p0:{d}", real=True)
    q = sp.symbols(f"q0:{d}", real=True)
    dl, d1, s = sp.symbols("delta delta1 s", positive=True)
    tp = sum(a * b for a, b in zip(w, p))
    shift = [b - a for a, b in zip(p, q)]
    zero = lambda t: [0] * d  # noqa: E731
    moved = lambda t: shift  # noqa: E731
    hyp = f"w, p, q in R^{d}, t_p = <w,p>"
    r1 = prove_profile(
        f"3.2 for all parameters (symbolic): the returned hat layer maps p -> q and fixes every x with "
        f"|<w,x> - t_p| >= delta (all parameters, d = {d})",
        hat_ff(w, tp, dl, shift), w,
        [(None, tp - dl, zero, "FF(x) = x when <w,x> <= t_p - delta"),
         (tp, tp, moved, "FF(x) = x + (q - p) when <w,x> = t_p, so FF(p) = q"),
         (tp + dl, None, zero, "FF(x) = x when <w,x> >= t_p + delta")], hyp + ", delta > 0",
        second=Z3Prover())
    d2 = d1 + s
    r2 = prove_profile(
        f"3.2p for all parameters (symbolic): the returned plateau layer moves every x with |<w,x> - t_p| <= delta1 "
        f"by q - p and fixes every x with |<w,x> - t_p| >= delta2 (all parameters, d = {d})",
        plateau_ff(w, tp, d1, d2, shift), w,
        [(None, tp - d2, zero, "FF(x) = x when <w,x> <= t_p - delta2"),
         (tp - d1, tp + d1, moved, "FF(x) = x + (q - p) when |<w,x> - t_p| <= delta1"),
         (tp + d2, None, zero, "FF(x) = x when <w,x> >= t_p + delta2")],
        hyp + ", 0 < delta1 < delta2 (delta2 = delta1 + s, s > 0)", second=Z3Prover())
    return [r1, r2]


def _instance(dataset, seed):
    import random

    from proofcheck.constructions.afz.instances import distinct_points, input_sequences, targets
    seqs, d = input_sequences(dataset)
    S = distinct_points(seqs)
    rng = random.Random(seed)
    p = S[rng.randrange(len(S))]
    q = targets(dataset)[rng.randrange(len(targets(dataset)))]
    if q in S or q == p:  # q must not collide with a point of S
        q = tuple(x + Fraction(1, 7) for x in q)
    return S, p, q, d


def _exact(statement, S, p, q, ff, w, table, data, claim):
    """Exact check of ``ff`` on S (the lemma's conclusion: p -> q, S \\ {p} fixed)
    plus probes generated from the layer (``proofcheck.constructions.afz.probes``)."""
    from proofcheck.constructions.afz.probes import probes
    from proofcheck.constructions.results import check_layer
    from proofcheck.kernel.lemma_checks.profile import NotAlong
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value
    try:
        tokens, expected = probes(ff, w, p, table)
    except NotAlong as e:
        return CheckResult(f"{statement} exact", Verdict.REFUTED, [],
                           Witness(f"the layer does not act along w = {fmt_value(w)}: {e}"))
    exp_S = [q if x == p else x for x in S]
    res = check_layer(
        f"{statement} exact: p = {fmt_value(p)} -> q = {fmt_value(q)}, S \\ {{p}} fixed; {claim}",
        ff, [list(S) + tokens], [exp_S + expected],
        details=[f"|S| = {len(S)}, width {ff.width}, direction w = {fmt_value(w)}",
                 f"{len(tokens)} probes generated from the layer: every kink, inside every "
                 "linear piece, two on each tail, on and off the line through p",
                 "S \\ {p} fixed holds on this instance only: w and delta are chosen "
                 "from the finite S (the profile itself is proved for all parameters)"])
    res.data = data
    return res


def run(dataset=None, seed: int = 0):
    """Lemma 3.2: relocate a seeded point p of the dataset's points S to a target q
    (on every instance of :func:`proofcheck.constructions.afz.instances.lemma_instances`); exact
    check on S and on probes of every piece, the direction search at its bound,
    plus the symbolic proof."""
    from proofcheck.constructions.afz.instances import each_instance, user_dimension
    from proofcheck.constructions.provers.sa_proofs import guarded
    d = user_dimension(dataset)
    return (each_instance(_hat_instance, dataset, seed) + direction_search_check()
            + [rejections_check("3.2")]
            + guarded("3.2 symbolic", lambda: symbolic(d=max(2, min(d, 3)))[0]))


def _hat_instance(dataset, seed):
    S, p, q, d = _instance(dataset, seed)
    ff = relocate(S, p, q)
    w = separating_direction(S, p)
    tp = dot(w, p)
    delta = min((abs(dot(w, x) - tp) for x in S if x != p), default=Fraction(1))
    shift = tuple(b - a for a, b in zip(p, q))
    zero = (Fraction(0),) * d
    table = [(tp - delta, zero), (tp, shift), (tp + delta, zero)]
    return _exact("3.2", S, p, q, ff, w, table, {"S": list(S), "p": p, "q": q},
                  f"hat of half-width delta = {delta} along w")


def run_plateau(dataset=None, seed: int = 0):
    """Lemma 3.2p (``relocate(..., plateau=True)``): every token with
    ``|<w,x> - t_p| <= delta1`` moves by ``q - p``, every token with
    ``|<w,x> - t_p| >= delta2`` is fixed; exact on S and probes (every instance
    of :func:`proofcheck.constructions.afz.instances.lemma_instances`), plus the symbolic proof."""
    from proofcheck.constructions.afz.instances import each_instance, user_dimension
    from proofcheck.constructions.provers.sa_proofs import guarded
    d = user_dimension(dataset)
    return (each_instance(_plateau_instance, dataset, seed) + [rejections_check("3.2p")]
            + guarded("3.2p symbolic", lambda: symbolic(d=max(2, min(d, 3)))[1]))


def _plateau_instance(dataset, seed):
    S, p, q, d = _instance(dataset, seed)
    ff = relocate(S, p, q, plateau=True)
    w = separating_direction(S, p)
    tp = dot(w, p)
    gap = min((abs(dot(w, x) - tp) for x in S if x != p), default=Fraction(1))
    d1, d2 = gap / 4, gap / 2
    shift = tuple(b - a for a, b in zip(p, q))
    zero = (Fraction(0),) * d
    table = [(tp - d2, zero), (tp - d1, shift), (tp + d1, shift), (tp + d2, zero)]
    data = {"S": list(S), "p": p, "q": q, "delta1": d1, "delta2": d2}
    return _exact("3.2p", S, p, q, ff, w, table, data,
                  f"plateau delta1 = {d1}, delta2 = {d2} along w")


def tight_direction_sets(d: int, n: int, first: int = 1):
    """``(S, p, k)``: p = 0 and n other points in Q^d whose polynomials
    ``sum_i x_i k^i`` have the d - 1 roots each of ``first, ..., first + (d-1) n - 1``,
    so those directions ``(1, k, ..., k^(d-1))`` fail to separate p; k is the
    answer: the last candidate (d - 1) n + 1 when ``first = 1``, k = 1 when
    ``first = 2`` (every later candidate fails)."""
    p = (Fraction(0),) * d
    roots = list(range(first, first + (d - 1) * n))
    S = [p]
    for i in range(n):
        poly = [Fraction(1)]  # coefficients of prod (k - r), lowest degree first
        for r in roots[i * (d - 1):(i + 1) * (d - 1)]:
            poly = [(poly[j - 1] if j else 0) - r * (poly[j] if j < len(poly) else 0)
                    for j in range(len(poly) + 1)]
        S.append(tuple(-c for c in poly))
    return S, p, (d - 1) * n + 1 if first == 1 else 1


def last_fails_sets(d: int):
    """``(S, p, k)``: p = 0 and one other point x = -(r^(d-1) - ..., 1) whose
    polynomial has the root r = d (the last candidate of the search, whose bound
    is d for one other point), so every k < d separates p and the least is 1."""
    p = (Fraction(0),) * d
    x = tuple(-Fraction(d) ** (d - 1) if i == 0 else Fraction(int(i == d - 1)) for i in range(d))
    return [p, x], p, 1


def direction_search_check():
    """``separating_direction`` on point sets where every candidate but the last
    fails (d = 2, 3, 4; it must return the last, which separates p), where only
    the first works, and where only the last fails (it must return k = 1)."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness
    cases = [tight_direction_sets(d, n, first) for d, n in ((2, 3), (3, 2), (4, 2))
             for first in (1, 2)]
    for S, p, k in cases + [last_fails_sets(2), last_fails_sets(3)]:
        d, n = len(p), len(S) - 1
        w = separating_direction(S, p)
        want = tuple(Fraction(k) ** i for i in range(d))
        if w != want or any(dot(w, x) == dot(w, p) for x in S if x != p):
            return [CheckResult("3.2 direction search at its bound", Verdict.REFUTED, [],
                                Witness(f"the search did not return its last candidate k = {k} "
                                        f"(d = {d}, {n} other points)", expected=want, got=w))]
    return [CheckResult(f"3.2 direction search on these {len(cases) + 2} instances (d = 2, 3, 4): "
                        "every candidate but the last fails / only the first works / only the last "
                        "fails: the least separating k is returned",
                        Verdict.VERIFIED, [])]


def rejections_check(statement: str):
    """``hat_ff`` / ``plateau_ff`` reject ``delta <= 0`` / ``not 0 < delta1 < delta2``
    (also undecided symbolic signs) with their messages, and accept the boundary
    cases just inside (integer and string spellings included)."""
    import sympy as sp

    from proofcheck.constructions.afz.instances import rejections_check as check
    x = sp.Symbol("x", real=True)
    H, P = "hat: delta must be positive", "plateau hat: need 0 < delta1 < delta2"
    w, s = (1, 0), (1, 1)
    if statement == "3.2":
        cases = [("delta = 0", lambda: hat_ff(w, 0, 0, s), H),
                 ("delta = -1", lambda: hat_ff(w, 0, -1, s), H),
                 ("delta symbolic, sign undecided", lambda: hat_ff(w, 0, x, s),
                  H + " (not decided by the symbols' assumptions)"),
                 ("delta = 1/1000", lambda: hat_ff(w, "-1/2", Fraction(1, 1000), s), None)]
    else:
        cases = [("delta1 = 0", lambda: plateau_ff(w, 0, 0, 1, s), P),
                 ("delta1 = -1", lambda: plateau_ff(w, 0, -1, 1, s), P),
                 ("delta1 = delta2", lambda: plateau_ff(w, 0, 1, 1, s), P),
                 ("delta1 > delta2", lambda: plateau_ff(w, 0, 2, 1, s), P),
                 ("0 < delta1 < delta2 tight", lambda: plateau_ff(w, -3, Fraction(999, 1000), 1, s),
                  None)]
    return check(statement, cases)
