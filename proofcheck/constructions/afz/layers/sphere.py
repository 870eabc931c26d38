"""Lemma 4.3 (sphere leaders), ``A = I``.

Distinct tokens on the sphere ``|x| = r`` attend only to themselves when every
other token z of the sequence has ``<s, z> < r^2``: for two sphere points
``r^2 - <s, s'> = |s - s'|^2 / 2 > 0``; a token z of the opposite (closed
positive) orthant has ``<s, z> <= 0 < r^2``.  Rational sphere points come from the
inverse stereographic projection ``v -> r (2v, |v|^2 - 1) / (1 + |v|^2)``
(``v`` in Q^(d-1)); with all ``v_i < 0`` and ``|v| < 1`` the point lies in the open
negative orthant.

The routines are generic in ``r`` and ``v`` (rational or sympy); the proofs in
:func:`symbolic` evaluate the returned points and layer.
Source: Alcalde–Fantuzzi–Zuazua, Lemma 4.3 (spec-numbered: the number is docs/spec.md §2's;
no source available here confirms it).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import SA, Factored, ParameterError
from proofcheck.constructions.provers.sa_proofs import guarded, kernel_recheck, scalar, vector

ID = "4.3"


def sphere_point(v, r) -> tuple:
    """Inverse stereographic projection of ``v`` (``(d-1,)``) onto the sphere of
    radius ``r`` in Q^d; exact, ``|result|^2 = r^2``.  Generic in the scalars."""
    v, r = vector(v), scalar(r)
    sq: dict = {}  # id -> (x, x^2): a coordinate object repeated in v is squared once
    for x in v:
        if id(x) not in sq:
            sq[id(x)] = (x, x * x)
    n2 = sum((sq[id(x)][1] for x in v), Fraction(0))
    den = 1 + n2
    c = r * 2 / den
    img = {k: c * x for k, (x, _) in sq.items()}  # the same value r 2 x / den
    return tuple(img[id(x)] for x in v) + (r * (n2 - 1) / den,)


def negative_orthant_points(count: int, d: int, r):
    """``count`` distinct points of the sphere of radius ``r`` in the open negative
    orthant of Q^d (``d >= 2``), spread along a curve of the cap (stereographic
    images of ``v = (-a, -eps, ..., -eps)`` with ``a`` in (1/8, 7/8),
    ``eps = 1/(2d)``, so ``|v| < 1``).  Deterministic; generic in ``r``.
    Raises ``ParameterError`` (a ``ValueError``) if ``d < 2``."""
    return list(iter_negative_orthant_points(count, d, r))


def iter_negative_orthant_points(count: int, d: int, r):
    """The points of :func:`negative_orthant_points`, in the same order, computed
    one at a time (phase L draws only as many as it needs).  Raises
    ``ParameterError`` (a ``ValueError``) if ``d < 2`` (at the first draw)."""
    if d < 2:
        raise ParameterError("sphere points in the negative orthant need d >= 2")
    eps = Fraction(1, 2 * d)
    for k in range(1, count + 1):
        a = Fraction(k, count + 1) * Fraction(3, 4) + Fraction(1, 8)  # in (1/8, 7/8)
        v = (-a,) + (-eps,) * (d - 2)
        yield sphere_point(v, r)


def sphere_sa() -> SA:
    """``A = I``, ``V = I``, ``rho = 0``: sphere leaders are fixed points."""
    return SA(Fraction(0), Factored(Fraction(1)), Factored(Fraction(1)),
              label="sphere leaders (4.3)")


def prove_self_attention(layer, d: int, P, label: str, count: int = 3) -> None:
    """Add to ``P`` the attention facts of Lemma 4.3 for ``layer``'s own ``A`` in
    dimension ``d``, for every ``r > 0``:

    * two stereographic points ``s = sphere_point(v, r)``, ``s' = sphere_point(v', r)``
      (v, v' symbolic): ``2 (<A s, s> - <A s, s'>) = |s - s'|^2`` (> 0 for s != s');
    * ``<A s, s> = r^2`` and ``<A s, z> = <s, z>`` for a symbolic z (so every z with
      ``<s, z> < r^2`` loses to s);
    * for the ``count`` points of :func:`negative_orthant_points` at symbolic r and
      every z of the closed positive orthant: ``<A s, s> - <A s, z> > 0``."""
    import sympy as sp

    from proofcheck.constructions.provers.sa_proofs import score, symbols
    r = sp.Symbol("r", positive=True)
    v, w = symbols("v", d - 1, real=True), symbols("w", d - 1, real=True)
    s, s2 = sphere_point(v, r), sphere_point(w, r)
    P.zero(2 * (score(layer, s, s) - score(layer, s, s2)) - sum((a - b) ** 2 for a, b in zip(s, s2)),
           f"{label}: 2(<A s, s> - <A s, s'>) = |s - s'|^2 for sphere points s, s'")
    z = symbols("z", d, real=True)
    P.zero(score(layer, s, s) - r ** 2, f"{label}: <A s, s> = r^2")
    P.zero(score(layer, s, z) - sum(a * b for a, b in zip(s, z)), f"{label}: <A s, z> = <s, z>")
    zp = symbols("z", d, nonnegative=True)
    for k, p in enumerate(negative_orthant_points(count, d, r)):
        P.positive(score(layer, p, p) - score(layer, p, zp),
                   f"{label}: point {k}: <A s, s> - <A s, z> > 0 for every z >= 0, r > 0")


def prove_points(count: int, d: int, P) -> list:
    """Add to ``P`` the facts about ``negative_orthant_points(count, d, r)`` at a
    symbolic ``r > 0``: exactly ``count`` pairwise distinct points, each on the
    sphere (``|s|^2 = r^2``) and in the open negative orthant.  Returns the points."""
    import sympy as sp
    r = sp.Symbol("r", positive=True)
    pts = negative_orthant_points(count, d, r)
    P.fact(len(pts) == count, f"negative_orthant_points returns {len(pts)} points (asked {count})")
    distinct = all(any(sp.simplify(a - b) != 0 for a, b in zip(p, q))
                   for i, p in enumerate(pts) for q in pts[i + 1:])
    P.fact(distinct, "the points are pairwise distinct (for every r > 0)")
    for k, p in enumerate(pts):
        P.zero(sum(x * x for x in p) - r ** 2, f"point {k}: |s|^2 = r^2")
        for c, x in enumerate(p):
            P.negative(x, f"point {k}, coordinate {c} < 0")
    return pts


def symbolic(d: int = 3, count: int = 3):
    """sympy and z3 on ``sphere_sa()`` and the stereographic points in dimension ``d``:
    ``|sphere_point(v, r)|^2 = r^2`` for all v, r; :func:`prove_points`;
    :func:`prove_self_attention`; the value map fixes every token."""
    import sympy as sp

    from proofcheck.constructions.provers.smt import Z3Prover
    from proofcheck.constructions.provers.sa_proofs import Proof, symbols, value
    P = Proof(second=Z3Prover())
    r = sp.Symbol("r", positive=True)
    v = symbols("v", d - 1, real=True)
    P.zero(sum(x * x for x in sphere_point(v, r)) - r ** 2, "|sphere_point(v, r)|^2 = r^2 for all v, r")
    prove_points(count, d, P)
    layer = sphere_sa()
    prove_self_attention(layer, d, P, "A of sphere_sa()", count)
    x = symbols("x", d, real=True)
    P.zero([a - b for a, b in zip(value(layer, x, x), x)], "rho s + V s = s (a token attending only "
           "to itself is fixed)")
    return P.result(f"4.3 for all parameters (symbolic, d = {d}, all r > 0): {count} sphere points in the negative orthant "
                    "attend only to themselves and are fixed", [])


def run(dataset=None, seed: int = 0):
    """Lemma 4.3: sphere leaders in the negative orthant next to the dataset's
    tokens moved into the positive orthant, competitors just inside the half-space
    ``<s, z> < r^2`` and, as a sharpness probe, a competitor on its boundary
    (a tie: s moves to the mean); dimensions of the dataset and 2, 3, 4."""
    import random

    from proofcheck.constructions.afz.layers.clustering import random_instances
    from proofcheck.constructions.afz.instances import input_sequences, naming_dataset
    seqs, d0 = input_sequences(dataset)
    rng = random.Random(seed)
    cases = [(d0, seqs)] + [(d, random_instances(rng, d)) for d in (2, 3, 4) if d != d0]
    out = []
    for k, (d, ss) in enumerate(cases):
        res = guarded(f"4.3 instance (d = {d})", _instance, d, ss, seed)
        out += naming_dataset(res, dataset) if k == 0 else res
    return (out + guarded("4.3 many points", many_points_check)
            + guarded("4.3 symbolic (d = 2)", symbolic, 2)
            + guarded("4.3 symbolic (d = 3)", symbolic, 3))


def _instance(d, ss, seed):
    """The exact checks of Lemma 4.3 on one instance (dimension ``d``)."""
    from proofcheck.constructions.results import check_layer
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness
    out = []
    from proofcheck.constructions.afz.instances import into_positive_box
    shifted = into_positive_box(ss)
    r = Fraction(3 + (seed + d) % 7, 1 + seed % 2)
    count = 2 + (seed + d) % 3
    pts = negative_orthant_points(count, d, r)
    bad = next((k for k, p in enumerate(pts)
                if len(p) != d or not all(isinstance(x, Fraction) for x in p)
                or sum(x * x for x in p) != r * r or max(p) >= 0), None)
    ok = len(pts) == count and len(set(pts)) == count and bad is None
    out.append(CheckResult(f"4.3 points on this instance (d = {d}, r = {r}): {count} distinct points on |s| = r "
                           "in the open negative orthant", Verdict.VERIFIED if ok else Verdict.REFUTED,
                           [f"{len(pts)} points, {len(set(pts))} distinct"],
                           None if ok else Witness(
                               "sphere point off the sphere or outside the open negative orthant"
                               if bad is not None else "wrong number of distinct sphere points",
                               token=bad, expected=f"|s|^2 = {r * r}, s < 0" if bad is not None else count,
                               got=pts[bad] if bad is not None else len(set(pts)))))
    # competitors just inside the half-space <s, z> < r^2 (same orthant as s)
    near = [tuple(x * Fraction(63, 64) for x in p) for p in pts]
    ins = [pts + near + s for s in shifted]
    exp = [[x if x in pts else None for x in s] for s in ins]
    res = check_layer(f"4.3 exact on this instance (d = {d}): {count} sphere leaders (r = {r}) attend only to "
                      "themselves", sphere_sa(), ins, exp,
                      details=["every sphere point has |s|^2 = r^2 exactly",
                               "competitors: tokens of the positive orthant, and (63/64) s just "
                               "inside <s, z> < r^2"])
    res.data = {"r": r, "points": pts}
    out.append(res)
    out.append(kernel_recheck("4.3", res))
    # sharpness: z = s + w with <s, w> = 0 has <s, z> = r^2: tie, s -> (s + z)/2
    s0 = pts[0]
    c = next(i for i in range(d) if s0[i] != 0)
    o = (c + 1) % d
    w = [Fraction(0)] * d
    w[c], w[o] = -s0[o], s0[c]
    z = tuple(a + b for a, b in zip(s0, w))
    tie = [[s0, z]]
    sharp = check_layer(f"4.3 boundary, on this instance (d = {d}): a competitor with <s, z> = r^2 ties with s "
                        "(hypothesis is sharp): s -> (s + z)/2", sphere_sa(), tie,
                        [[tuple((a + b) / 2 for a, b in zip(s0, z)), None]])
    sharp.instance = None  # outside the lemma's hypothesis: not a certificate instance
    out.append(sharp)
    return out


def _stated_parameter(p, r, d: int) -> bool:
    """``p`` is the stereographic image (radius ``r``) of ``v = (-a, -eps, ..., -eps)``
    with ``a`` in (1/8, 7/8) and ``eps = 1/(2d)``, as :func:`negative_orthant_points`
    states (``v = p[:-1] / (r - p[-1])``, the inverse of :func:`sphere_point`)."""
    if r - p[-1] == 0:
        return False
    v = [x / (r - p[-1]) for x in p[:-1]]
    return Fraction(-7, 8) < v[0] < Fraction(-1, 8) and all(x == Fraction(-1, 2 * d) for x in v[1:])


def many_points_check():
    """``negative_orthant_points`` at large counts (the parameters approach the ends
    of their ranges): 100 points in d = 2, 4, 7, each exactly on the sphere, in the
    open negative orthant, the image of the stated parameter (``a`` in (1/8, 7/8),
    ``eps = 1/(2d)``), pairwise distinct; and d = 1 is rejected clearly."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness
    r = Fraction(7, 2)
    for d in (2, 4, 7):
        pts = negative_orthant_points(100, d, r)
        for k, p in enumerate(pts):
            if len(p) != d or sum(x * x for x in p) != r * r or max(p) >= 0:
                return CheckResult("4.3 points at count 100", Verdict.REFUTED, [], Witness(
                    f"point off the sphere or outside the open negative orthant (d = {d})",
                    token=k, got=p))
        bad = next((k for k, p in enumerate(pts) if not _stated_parameter(p, r, d)), None)
        if bad is not None:
            w = Witness(f"point is not the stereographic image of (-a, -eps, ..., -eps) with "
                        f"a in (1/8, 7/8), eps = 1/(2d) (d = {d})", token=bad,
                        expected=f"eps = {Fraction(1, 2 * d)}",
                        got=tuple(x / (r - pts[bad][-1]) for x in pts[bad][:-1]),
                        code="sphere-parameter")
            return CheckResult("4.3 points at count 100", Verdict.REFUTED, [], w)
        if len(pts) != 100 or len(set(pts)) != 100:
            return CheckResult("4.3 points at count 100", Verdict.REFUTED, [], Witness(
                f"wrong number of distinct points (d = {d})", expected=100, got=len(set(pts))))
    want = "sphere points in the negative orthant need d >= 2"
    try:
        got = f"returned {negative_orthant_points(1, 1, r)}"
    except ValueError as exc:
        got = str(exc)
    if got != want:
        return CheckResult("4.3 points: d = 1 rejected", Verdict.REFUTED, [],
                           Witness("d = 1 not rejected with a clear error", expected=want, got=got))
    return CheckResult("4.3 points at count 100 on these 3 instances (d = 2, 4, 7): on the sphere, in the open negative "
                       "orthant, images of the stated parameter, distinct; d = 1 rejected", Verdict.VERIFIED, [])
