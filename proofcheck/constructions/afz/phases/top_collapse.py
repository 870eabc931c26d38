"""Collapse onto each sequence's top (phase C of the ``peel`` construction; a
project reconstruction, not the seed's).

After phase S every coordinate is >= 1, ``<u, .>`` is injective on the points and
each sequence j has a unique u-maximal token ``T_j`` (its *top*); the tops of
different sequences are different points.  The SA layer

    A = mu I + u u^T,   rho = 0,   V = e_1 k^T

sends every token of sequence j to ``kappa e_1`` of the token it attends to
(``kappa = <k, .>``), where, under hardmax:

* every positive token x (all coordinates in [1, beta]) attends to ``T_j``:
  ``s(x, T_j) - s(x, l) = <u,x> <u, T_j - l> + mu <x, T_j - l>
  >= sum(u) g - mu d beta^2 > 0`` for every other positive token l, with g the
  smallest gap between a top's projection and the next one of its sequence, when
  ``mu < sum(u) g / (d beta^2)`` (Lemma 4.1 when ``mu = 0``);
* the extra leaders of a sequence (``m_j > 1``) lie on one ellipsoid
  ``Q(s) = s^T A s = q`` in the open negative orthant: ``s(s, s) - s(s, s') =
  Q(s - s') / 2 > 0`` for another extra leader s' of the sequence (A is positive
  definite for ``mu > 0``) and ``s(s, l) < 0 < Q(s)`` for a positive l, so s
  attends to itself; and ``s(x, s) < 0 < s(x, T_j)`` for a positive x.  (Sequences
  never compete, so each may use its own ellipsoid: the construction scales one
  set of points by 1, 2, 3, ....)

So sequence j becomes its ``m_j`` leader images ``kappa_l e_1``.  ``k`` is
:func:`proofcheck.constructions.afz.phases.collapse.choose_k`'s vector scaled by a positive integer so
that every ``|kappa|`` exceeds every target's ``|y_1|`` (the peel phase needs the
targets strictly between the positive and the negative kappas).  With every
``m_j = 1`` no extra leader exists and ``mu = 0``.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.constructions.afz.phases.collapse import choose_k
from proofcheck.constructions.claims import Collapse
from proofcheck.kernel.model import SA, Factored, dot

ID = "top-collapse"


def tops_of(proj, spans) -> list[int]:
    """Row of the largest projection of each sequence (``proj[row]``, exact);
    ``ValueError`` if a sequence has a tie at its top."""
    out = []
    for j, (lo, hi) in enumerate(spans):
        best = max(range(lo, hi), key=proj.__getitem__)
        if sum(1 for i in range(lo, hi) if proj[i] == proj[best]) != 1:
            raise ValueError(f"top collapse: sequence {j} has no unique u-maximal token")
        out.append(best)
    return out


def choose_mu(proj, spans, tops, beta, u) -> Fraction:
    """The largest power of two ``mu <= sum(u) g / (2 d beta^2)``, g = the smallest
    gap ``<u, T_j> - <u, x>`` over the other tokens x of each sequence (``beta``: the
    largest coordinate, ``>= 1``).  ``1`` when no sequence has two tokens."""
    gaps = [proj[t] - max(proj[i] for i in range(lo, hi) if i != t)
            for (lo, hi), t in zip(spans, tops) if hi - lo >= 2]
    if not gaps:
        return Fraction(1)
    bound = Fraction(sum(u)) * min(gaps) / (2 * len(u) * Fraction(beta) ** 2)
    if not bound > 0:  # unique tops give positive gaps
        raise ValueError(f"top collapse: the bound on mu must be positive, got {bound}")
    e = max(0, bound.denominator.bit_length() - bound.numerator.bit_length())
    mu = Fraction(1, 2 ** e)
    steps = range(bound.denominator.bit_length() + 64)  # 2^-e is within a few halvings
    for _ in steps:
        if not mu > bound:
            break
        mu /= 2
    for _ in steps:
        if not (mu * 2 <= bound and mu < 1):
            break
        mu *= 2
    if not 0 < mu <= bound:
        raise RuntimeError(f"top collapse: the search for mu ended outside (0, {bound}]")
    return mu


def ellipsoid_points(u, mu):
    """Distinct rational points s in the open negative orthant with ``Q(s) = Q(s0)``,
    ``Q(x) = mu |x|^2 + <u,x>^2``, ``s0 = -1`` (``mu > 0``, ``d >= 2``), yielded lazily.

    Each is the second intersection of the line ``s0 + t v`` with the ellipsoid,
    ``t = -2 B(s0, v) / Q(v)``, for ``v = w + eps s0`` with ``w = B(s0,e_2) e_1 -
    B(s0,e_1) e_2`` tangent at s0 (``B(s0, w) = 0``); distinct eps give distinct
    lines through s0, hence distinct points.  eps starts at the first power of two
    whose point is in the orthant with every coordinate below -1/2 and then runs
    over ``eps_0 / n``; a point outside the orthant is skipped (checked exactly)."""
    d = len(u)
    if mu <= 0 or d < 2:
        raise ValueError("ellipsoid points need mu > 0 and d >= 2")
    su = sum(u)

    def B(x, y):
        return mu * dot(x, y) + dot(u, x) * dot(u, y)
    s0 = tuple(Fraction(-1) for _ in range(d))
    c = B(s0, s0)
    b1, b2 = -mu - su * u[0], -mu - su * u[1]
    w = (b2, -b1) + (Fraction(0),) * (d - 2)
    qw = B(w, w)

    def point(eps):
        t = -2 * eps * c / (qw + eps * eps * c)
        return tuple(a + t * (wi + eps * a) for a, wi in zip(s0, w))
    eps0 = Fraction(1)
    for _ in range(256):  # point(eps) -> s0 = -1 as eps -> 0: a few halvings suffice
        if not any(x >= Fraction(-1, 2) for x in point(eps0)):
            break
        eps0 /= 2
    else:
        raise RuntimeError("ellipsoid points: no eps = 2^-k, k < 256, puts the point below -1/2")
    for n in range(1, 1 << 20):  # points near s0 = -1 for every small eps: all but a few qualify
        s = point(eps0 / n)
        if all(x < 0 for x in s):
            yield s
    raise RuntimeError("ellipsoid points: 2^20 candidates tried")


def scaled_k(leader_points, targets, d: int):
    """``(k, kappas)``: :func:`choose_k`'s k (pairwise distinct kappas) times the least
    positive integer making every ``|kappa| > max |y_1|`` over ``targets``.  No
    leader may have ``kappa = 0`` (tops are positive, extra leaders negative)."""
    k, kap = choose_k(leader_points, set(), d)
    low = min(abs(x) for x in kap)
    if low == 0:
        raise ValueError("top collapse: a leader has kappa = 0")
    big = max(abs(y[0]) for y in targets)
    s = int(big / low) + 1
    return tuple(s * x for x in k), [s * x for x in kap]


def top_collapse_sa(u, mu, k) -> SA:
    """``A = mu I + u u^T``, ``rho = 0``, ``V = e_1 k^T``.  ``u``, ``k``: ``(d,)``."""
    d = len(k)
    e1 = tuple(Fraction(int(i == 0)) for i in range(d))
    return SA(Fraction(0), Factored(Fraction(mu), (tuple(u),), (tuple(u),)),
              Factored(Fraction(0), (e1,), (tuple(k),)), label="top collapse (4.1 + ellipsoid)")


def top_collapse_claim(k, spans, tops, extra) -> Collapse:
    """Row -> the row it attends to: itself for an extra leader (``extra``: a set of
    rows), else its sequence's top."""
    leader = []
    for (lo, hi), t in zip(spans, tops):
        leader += [i if i in extra else t for i in range(lo, hi)]
    return Collapse(tuple(k), leader)
