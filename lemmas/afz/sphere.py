"""Lemma 4.3 (sphere leaders), ``A = I``.

Distinct tokens on the sphere ``|x| = r`` attend only to themselves when every
other token z of the sequence has ``<s, z> < r^2``: for two sphere points
``r^2 - <s, s'> = |s - s'|^2 / 2 > 0``.  Rational sphere points come from the
inverse stereographic projection ``v -> r (2v, |v|^2 - 1) / (1 + |v|^2)``
(``v`` in Q^(d-1)); with all ``v_i < 0`` and ``|v| < 1`` the point lies in the open
negative orthant.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import SA, Factored, vec

ID = "4.3"


def sphere_point(v, r) -> tuple[Fraction, ...]:
    """Inverse stereographic projection of ``v`` (``(d-1,)``) onto the sphere of
    radius ``r`` in Q^d; exact, ``|result|^2 = r^2``."""
    v, r = vec(v), Fraction(r)
    n2 = sum(x * x for x in v)
    den = 1 + n2
    return tuple(r * 2 * x / den for x in v) + (r * (n2 - 1) / den,)


def negative_orthant_points(count: int, d: int, r):
    """``count`` distinct rational points of the sphere of radius ``r`` in the open
    negative orthant of Q^d (``d >= 2``), spread along a curve of the cap.
    Deterministic.  Raises ``ValueError`` if ``d < 2``."""
    if d < 2:
        raise ValueError("sphere points in the negative orthant need d >= 2")
    pts = []
    eps = Fraction(1, 2 * d)
    for k in range(1, count + 1):
        a = Fraction(k, count + 1) * Fraction(3, 4) + Fraction(1, 8)  # in (1/8, 7/8)
        v = (-a,) + (-eps,) * (d - 2)
        pts.append(sphere_point(v, r))
    return pts


def sphere_sa() -> SA:
    """``A = I``, ``V = I``, ``rho = 0``: sphere leaders are fixed points."""
    return SA(Fraction(0), Factored(Fraction(1)), Factored(Fraction(1)),
              label="sphere leaders (4.3)")


def symbolic(d: int = 3):
    """sympy: the stereographic image has ``|s|^2 = r^2``; and for sphere points
    ``r^2 - <s, s'> = |s - s'|^2 / 2`` (so > 0 when s != s')."""
    import sympy as sp

    from proofcheck.kernel.verdicts import CheckResult, combine
    from proofcheck.symbolic import prove_identity
    v = sp.symbols(f"v0:{d - 1}", real=True)
    r = sp.Symbol("r", positive=True)
    n2 = sum(x * x for x in v)
    s = [r * 2 * x / (1 + n2) for x in v] + [r * (n2 - 1) / (1 + n2)]
    r1 = prove_identity("|stereo(v)|^2 = r^2", sum(x * x for x in s), r ** 2)
    a = sp.symbols(f"a0:{d}", real=True)
    b = sp.symbols(f"b0:{d}", real=True)
    na, nb = sum(x * x for x in a), sum(x * x for x in b)
    lhs = sum((x - y) ** 2 for x, y in zip(a, b)) / 2
    rhs = (na + nb) / 2 - sum(x * y for x, y in zip(a, b))  # = r^2 - <a,b> when |a| = |b| = r
    r2 = prove_identity("|s - s'|^2 / 2 = (|s|^2 + |s'|^2)/2 - <s, s'>", lhs, rhs)
    return CheckResult(f"4.3 symbolic (d = {d}): rational sphere points; self-score beats others",
                       combine([r1.verdict, r2.verdict]), r1.details[:1] + r2.details[:1])


def run(dataset=None, seed: int = 0):
    """Lemma 4.3: sphere leaders in the negative orthant next to the dataset's
    tokens moved into the positive orthant are fixed by ``A = I, V = I, rho = 0``."""
    from lemmas.afz.instances import input_sequences
    from proofcheck.kernel.layercheck import check_layer
    seqs, d = input_sequences(dataset)
    lo = min(x[c] for s in seqs for x in s for c in range(d))
    shifted = [[tuple(v - lo + 1 for v in x) for x in s] for s in seqs]
    r = Fraction(3 + seed % 7)
    pts = negative_orthant_points(3, d, r)
    assert all(sum(x * x for x in p) == r * r for p in pts)
    ins = [pts + s for s in shifted]
    # the lemma claims the sphere tokens are fixed; it says nothing about the others
    exp = [[x if x in pts else None for x in s] for s in ins]
    return [check_layer(f"4.3 exact: 3 sphere leaders (r = {r}) attend only to themselves",
                        sphere_sa(), ins, exp,
                        details=["every sphere point has |s|^2 = r^2 exactly",
                                 "other tokens lie in the positive orthant (score < 0 < r^2)"]),
            symbolic(d)]
