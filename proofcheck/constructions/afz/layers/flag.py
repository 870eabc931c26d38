"""Layers of the *bounded* construction (proofcheck's own; docs/spec.md §4 variant, issue 24 item 4).

Tokens carry two extra pieces of state in coordinates the layout frees: a *flag*
``x_F`` (0 on every token between rounds) and a *signature* ``s`` along a fixed
direction ``z`` (``z = e_Z`` for a freed coordinate Z, or ``z = S e_i`` stacked above
a content coordinate).  Every layer reads or writes one of them with integer
weights, so no magnitude compounds:

* :func:`layout_ff` — an affine FF (every ReLU active on every token): scale to
  integers, translate contents to >= 1, fold coordinates into others to free F (and Z);
* :func:`lift_ff` — triangular hat (Lemma 3.2, half-width 1) adding ``a e_F`` to the
  tokens at one projection; or, with the one token whose flag is 1 moved next to
  that projection by a multiple of ``e_F`` in the direction, a four-kink profile
  that also resets that flag: width <= 4, rank-one ``U``, bounded support;
* :func:`flag_tag_sa` — hardmax, ``A = e_F b^T`` (attend to the flag-maximal tokens,
  ``<b, x> > 0`` on every token), ``V = g z e_F^T``, ``rho = 1``: a sequence holding
  a token with flag 1 moves by ``g z``; a sequence whose flags are all 0 attends to
  the mean of tokens with flag 0 and does not move;
* :func:`signature_tag_sa` — the first tag: ``V = lam z v^T`` and ``A = 0`` (every
  token attends to the sequence mean) or ``A = v b^T`` (to the v-maximal tokens);
* :func:`flag_collapse_sa` — ``A = e_F b^T``, ``V = e_axis e_F^T``, ``rho = 0``: every
  token becomes ``(flag of its sequence's flag-maximal token) e_axis``.

Every claim about what these layers do to a dataset is checked exactly by the kernel
(:mod:`proofcheck.constructions.claim_check`) on the layer returned.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import FF, SA, Factored

ID = "bounded-layers"


def unit(i: int, d: int, scale=1) -> tuple[Fraction, ...]:
    """``scale e_i`` in Q^d."""
    return tuple(Fraction(scale) if k == i else Fraction(0) for k in range(d))


def layout_ff(D: int, units, translation, label="layout (3.1 + folds)") -> FF:
    """``x -> D x + sum_k W_k relu(U_k x + b_k) + translation``: ``units`` are
    ``(U_k, b_k, W_k)`` whose pre-activation is >= 0 on every token (so the FF is the
    affine map of :class:`proofcheck.constructions.claims.Affine`), ``translation`` a
    ``(d,)`` vector added through a constant unit ``relu(1)``."""
    d = len(translation)
    U = tuple(tuple(Fraction(x) for x in u) for u, _, _ in units) + ((Fraction(0),) * d,)
    b = tuple(Fraction(bk) for _, bk, _ in units) + (Fraction(1),)
    W = tuple(tuple(Fraction(x) for x in w) for _, _, w in units) + \
        (tuple(Fraction(x) for x in translation),)
    return FF(Fraction(D), U=U, b=b, W=W, label=label)


def lift_ff(w, t_p, a, F: int, reset_gamma=None, label="flag lift (3.2)") -> FF:
    """Flag lift along ``w`` (``(d,)``, ``w_F = 0``; ``U`` rank one, bounded support):
    adds ``a e_F`` to the tokens with ``<w', x> = t_p`` and fixes every token with
    ``<w', x> <= t_p - 1`` or ``>= t_p + 2``.

    Without ``reset_gamma``: ``w' = w``, the triangular hat of Lemma 3.2 with
    half-width 1 (width 3).  With it: ``w' = w + reset_gamma e_F`` and the profile
    with kinks ``t_p - 1, t_p, t_p + 1, t_p + 2`` and values ``0, a, -1, 0`` (width 4,
    slope changes ``a, -(2a + 1), a + 2, -1``): the token with flag 1 that the caller
    puts at ``<w', x> = t_p + 1`` (the other tokens' projections being even, so none
    lies strictly between ``t_p - 1`` and ``t_p + 2`` but ``t_p``) gets its flag reset."""
    d = len(w)
    t_p, a = Fraction(t_p), Fraction(a)
    w = tuple(Fraction(x) for x in w)
    eF = unit(F, d)
    if reset_gamma is None:
        kinks, slopes = (t_p - 1, t_p, t_p + 1), (a, -2 * a, a)
    else:
        w = tuple(x + Fraction(reset_gamma) if k == F else x for k, x in enumerate(w))
        kinks, slopes = (t_p - 1, t_p, t_p + 1, t_p + 2), (a, -(2 * a + 1), a + 2, Fraction(-1))
    return FF(Fraction(1), U=(w,) * len(kinks), b=tuple(-k for k in kinks),
              W=tuple(tuple(c * x for x in eF) for c in slopes), label=label)


def flag_tag_sa(F: int, b_axis: int, g, z, label="flag tag (4.1)") -> SA:
    """``A = e_F e_b^T`` (score ``x_b(i) x_F(l)``), ``V = g z e_F^T``, ``rho = 1``."""
    d = len(z)
    eF = unit(F, d)
    return SA(Fraction(1), Factored(Fraction(0), (eF,), (unit(b_axis, d),)),
              Factored(Fraction(0), (tuple(Fraction(g) * Fraction(x) for x in z),), (eF,)),
              label=label)


def signature_tag_sa(kind: str, v, lam, z, b_axis: int, label="signature tag (4.1)") -> SA:
    """The first tag: ``V = lam z v^T``, ``rho = 1``; ``kind == "mean"``: ``A = 0``
    (every token attends to its whole sequence), ``kind == "max"``: ``A = v e_b^T``
    (to the v-maximal tokens when ``x_b > 0``)."""
    d = len(z)
    v = tuple(Fraction(x) for x in v)
    A = Factored(Fraction(0)) if kind == "mean" else \
        Factored(Fraction(0), (v,), (unit(b_axis, d),))
    return SA(Fraction(1), A, Factored(Fraction(0), (tuple(Fraction(lam) * Fraction(x)
                                                             for x in z),), (v,)), label=label)


def flag_collapse_sa(F: int, b_axis: int, axis: int, d: int, label="flag collapse (4.1)") -> SA:
    """``A = e_F e_b^T``, ``V = e_axis e_F^T``, ``rho = 0``."""
    eF = unit(F, d)
    return SA(Fraction(0), Factored(Fraction(0), (eF,), (unit(b_axis, d),)),
              Factored(Fraction(0), (unit(axis, d),), (eF,)), label=label)
