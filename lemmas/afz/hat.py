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
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import FF, dot, vec

ID = "3.2"
ID_PLATEAU = "3.2p"


def hat_ff(w, t_p, delta, shift, label="hat (3.2)") -> FF:
    """Width-3 FF ``x -> x + h(<w,x>) shift`` with the triangular hat of half-width
    ``delta > 0`` centred at ``t_p``.  ``w``, ``shift``: ``(d,)``.
    Raises ``ValueError`` if ``delta <= 0``."""
    w, shift = vec(w), vec(shift)
    t_p, delta = Fraction(t_p), Fraction(delta)
    if delta <= 0:
        raise ValueError("hat: delta must be positive")
    b = (-t_p + delta, -t_p, -t_p - delta)
    coef = (1 / delta, -2 / delta, 1 / delta)
    return FF(Fraction(1), U=(w, w, w), b=b,
              W=tuple(tuple(c * s for s in shift) for c in coef), label=label)


def plateau_ff(w, t_p, delta1, delta2, shift, label="plateau hat (3.2p)") -> FF:
    """Width-4 FF ``x -> x + h(<w,x>) shift`` with ``h = 1`` on
    ``[t_p - delta1, t_p + delta1]`` and ``h = 0`` outside ``(t_p - delta2, t_p + delta2)``.
    Raises ``ValueError`` unless ``0 < delta1 < delta2``."""
    w, shift = vec(w), vec(shift)
    t_p, d1, d2 = Fraction(t_p), Fraction(delta1), Fraction(delta2)
    if not 0 < d1 < d2:
        raise ValueError("plateau hat: need 0 < delta1 < delta2")
    s = d2 - d1
    kinks = (t_p - d2, t_p - d1, t_p + d1, t_p + d2)
    coef = (1 / s, -1 / s, -1 / s, 1 / s)
    return FF(Fraction(1), U=(w,) * 4, b=tuple(-k for k in kinks),
              W=tuple(tuple(c * x for x in shift) for c in coef), label=label)


def separating_direction(S, p):
    """A small-integer direction ``w`` with ``<w,p> != <w,x>`` for every x in S other
    than p (deterministic search ``(1, k, k^2, ...)``, k = 1, 2, ...).  ``S``: list of
    ``(d,)`` points containing ``p``.  Raises ``ValueError`` if p is repeated in S."""
    p = vec(p)
    others = [vec(x) for x in S if vec(x) != p]
    d = len(p)
    k = 1
    while True:
        w = tuple(Fraction(k) ** i for i in range(d))
        tp = dot(w, p)
        if all(dot(w, x) != tp for x in others):
            return w
        k += 1
        if k > 10 * (len(others) + 2) * d:  # a polynomial of degree < d has < d roots
            raise ValueError("no separating direction: p occurs twice in S")


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


def symbolic():
    """sympy proofs, for all ``t_p`` and ``0 < delta`` (``0 < delta1 < delta2``), that
    the hat and the trapezoid have the claimed piecewise-linear profile."""
    import sympy as sp

    from proofcheck.symbolic import pl_certificate, relu
    t, tp = sp.symbols("t t_p", real=True)
    dl, d1, s = sp.symbols("delta delta1 s", positive=True)
    hat = (relu(t - tp + dl) - 2 * relu(t - tp) + relu(t - tp - dl)) / dl
    r1 = pl_certificate("3.2 symbolic: hat h(t_p) = 1, h = 0 outside (t_p - delta, t_p + delta)",
                        hat, t, [tp - dl, tp, tp + dl], [0, 1, 0], 0, 0)
    d2 = d1 + s
    trap = (relu(t - (tp - d2)) - relu(t - (tp - d1)) - relu(t - (tp + d1)) + relu(t - (tp + d2))) / s
    r2 = pl_certificate("3.2p symbolic: trapezoid = 1 on |t - t_p| <= delta1, 0 for |t - t_p| >= delta2",
                        trap, t, [tp - d2, tp - d1, tp + d1, tp + d2], [0, 1, 1, 0], 0, 0)
    return [r1, r2]


def _instance(dataset, seed):
    import random

    from lemmas.afz.instances import distinct_points, input_sequences, targets
    seqs, d = input_sequences(dataset)
    S = distinct_points(seqs)
    rng = random.Random(seed)
    p = S[rng.randrange(len(S))]
    q = targets(dataset)[rng.randrange(len(targets(dataset)))]
    if q in S and q != p:  # q must not collide with a point that stays
        q = tuple(x + Fraction(1, 7) for x in q)
    return S, p, q, d


def run(dataset=None, seed: int = 0):
    """Lemma 3.2: relocate a seeded point p of the dataset's points S to a target q."""
    from proofcheck.kernel.layercheck import check_layer
    from proofcheck.kernel.verdicts import fmt_value
    S, p, q, d = _instance(dataset, seed)
    ff = relocate(S, p, q)
    expected = [[q if x == p else x for x in S]]
    return [check_layer(f"3.2 exact: p = {fmt_value(p)} -> q = {fmt_value(q)}, S \\ {{p}} fixed",
                        ff, [S], expected,
                        details=[f"|S| = {len(S)}, width {ff.width}, direction w = {fmt_value(ff.U[0])}, "
                                 f"delta = {fmt_value(ff.b[0] - ff.b[1])}"]),
            symbolic()[0]]


def run_plateau(dataset=None, seed: int = 0):
    """Lemma 3.2p: the plateau moves every token with ``|<w,x> - t_p| <= delta1`` by
    ``q - p`` and fixes every token with ``|<w,x> - t_p| >= delta2``; probed with
    the dataset's points plus extra points at the plateau edges and the support edges."""
    from proofcheck.kernel.layercheck import check_layer
    from proofcheck.kernel.verdicts import fmt_value
    S, p, q, d = _instance(dataset, seed)
    w = separating_direction(S, p)
    tp = dot(w, p)
    gap = min((abs(dot(w, x) - tp) for x in S if x != p), default=Fraction(1))
    d1, d2 = gap / 4, gap / 2
    shift = tuple(b - a for a, b in zip(p, q))
    ff = plateau_ff(w, tp, d1, d2, shift)
    ww = dot(w, w)
    probe = [tuple(pi + th * wi / ww for pi, wi in zip(p, w))
             for th in (-d1, -d1 / 2, d1, -d2, d2, -2 * d2, 3 * d2)]
    pts = list(S) + probe
    exp = []
    for x in pts:
        off = abs(dot(w, x) - tp)
        exp.append(tuple(a + b for a, b in zip(x, shift)) if off <= d1 else x)
    return [check_layer(f"3.2p exact: plateau |<w,x> - t_p| <= {fmt_value(d1)} moves by q - p, "
                        f">= {fmt_value(d2)} fixed", ff, [pts], [exp],
                        details=[f"{len(S)} dataset points + {len(probe)} edge probes, width {ff.width}"]),
            symbolic()[1]]
