"""Lemma 4.1 (hyperplane clustering) with ``A = u u^T``, and the *tag* layer.

Scores ``s_il = <u,x_i><u,x_l>``: a token with ``<u,x_i> > 0`` attends to the
u-maximal token(s) of its sequence, with ``< 0`` to the u-minimal ones, with
``= 0`` to all (mean).  With ``V = I, rho = 0`` each sequence collapses to at most
three points.  The *tag* (SPEC §4, phase S) uses ``V = lam I, rho = 1``:
``x -> x + lam M(X)`` with M(X) the u-maximal token when every ``<u,x> > 0``.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import SA, Factored, vec

ID = "4.1"


def cluster_sa(u) -> SA:
    """Lemma 4.1 layer: ``A = u u^T``, ``V = I``, ``rho = 0``."""
    u = vec(u)
    return SA(Fraction(0), Factored(Fraction(0), (u,), (u,)), Factored(Fraction(1)),
              label="hyperplane clustering (4.1)")


def tag_sa(u, lam) -> SA:
    """Tag layer: ``A = u u^T``, ``V = lam I``, ``rho = 1``."""
    u = vec(u)
    return SA(Fraction(1), Factored(Fraction(0), (u,), (u,)), Factored(Fraction(lam)),
              label="tag (4.1)")


def predicted(seq, u):
    """Lemma 4.1's conclusion for ``V = I, rho = 0``: each token's image (the mean of
    the u-maximal / u-minimal / all tokens by the sign of ``<u, x_i>``)."""
    from proofcheck.kernel.model import dot
    pr = [dot(u, x) for x in seq]
    hi, lo = max(pr), min(pr)

    def mean(idx):
        return tuple(sum((seq[i][c] for i in idx), Fraction(0)) / len(idx) for c in range(len(seq[0])))
    top = mean([i for i, v in enumerate(pr) if v == hi])
    bot = mean([i for i, v in enumerate(pr) if v == lo])
    allm = mean(range(len(seq)))
    return [top if v > 0 else bot if v < 0 else allm for v in pr]


def symbolic():
    """sympy: for ``<u,x_i> > 0``, ``s_il = <u,x_i><u,x_l>`` is maximal exactly where
    ``<u,x_l>`` is: ``s_i,max - s_il = <u,x_i> (p_max - p_l)`` is positive when
    ``p_max > p_l``; symmetric for ``< 0``."""
    import sympy as sp

    from proofcheck.kernel.verdicts import CheckResult, combine
    from proofcheck.symbolic import prove_positive
    a = sp.Symbol("u_x_i", positive=True)
    g = sp.Symbol("p_max_minus_p_l", positive=True)
    r1 = prove_positive("positive side", a * g, "token attends to the u-maximal tokens")
    r2 = prove_positive("negative side", (-a) * (-g), "token attends to the u-minimal tokens")
    v = combine([r1.verdict, r2.verdict])
    return CheckResult("4.1 symbolic: score gaps <u,x_i>(p_max - p_l) > 0 for <u,x_i> > 0, and "
                       "(-<u,x_i>)(p_l - p_min) > 0 for < 0", v, r1.details + r2.details)


def run(dataset=None, seed: int = 0):
    """Lemma 4.1 on the dataset's sequences (or built-ins), with a seeded ``u`` and
    one extra token per sequence on the hyperplane ``<u,x> = 0`` (the mean case)."""
    import random

    from lemmas.afz.instances import input_sequences
    from proofcheck.kernel.layercheck import check_layer
    from proofcheck.kernel.verdicts import fmt_value
    seqs, d = input_sequences(dataset)
    rng = random.Random(seed)
    u = tuple(Fraction(rng.choice([-3, -2, -1, 1, 2, 3])) for _ in range(d))
    on_plane = tuple([-u[1], u[0]] + [Fraction(0)] * (d - 2))
    seqs = [s + [on_plane] if on_plane not in s else s for s in seqs]
    exp = [predicted(s, u) for s in seqs]
    sizes = max(len(set(e)) for e in exp)
    res = check_layer(f"4.1 exact: A = u u^T, u = {fmt_value(u)}: tokens go to the u-max / u-min "
                      "token(s) or the mean", cluster_sa(u), seqs, exp,
                      details=[f"largest number of distinct images in a sequence: {sizes} (<= 3)"])
    from proofcheck.kernel.verdicts import Verdict
    if sizes > 3 and res.verdict == Verdict.VERIFIED:
        res.verdict = Verdict.REFUTED
    return [res, symbolic()]
