"""Lemma 4.2 (corner collapse): ``A = I, V = I, rho = 0``.

If every token lies in ``(0, R]^d`` and ``R 1`` is a token, every token maps to
``R 1``; more generally a token ``t 1`` with ``t`` above every coordinate of the
positive-box tokens dominates: ``<x, t 1> - <x, x'> = sum_i x_i (t - x'_i) > 0``.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import SA, Factored

ID = "4.2"


def corner_sa() -> SA:
    """``A = I``, ``V = I``, ``rho = 0``."""
    return SA(Fraction(0), Factored(Fraction(1)), Factored(Fraction(1)),
              label="corner collapse (4.2)")


def symbolic(d: int = 3):
    """sympy: ``<x, t 1> - <x, x'> = sum_i x_i (t - x'_i) > 0`` for positive x and
    ``t > x'_i``; and the dominating token attends to itself:
    ``<t1, t1> - <t1, x> = t sum_i (t - x_i) > 0``."""
    import sympy as sp

    from proofcheck.kernel.verdicts import CheckResult, combine
    from proofcheck.symbolic import prove_positive
    x = sp.symbols(f"x0:{d}", positive=True)
    g = sp.symbols(f"g0:{d}", positive=True)  # g_i = t - x'_i
    tt = sp.Symbol("t", positive=True)
    r1 = prove_positive("non-dominating token prefers t 1", sum(a * b for a, b in zip(x, g)))
    r2 = prove_positive("t 1 prefers itself", tt * sum(g))
    return CheckResult(f"4.2 symbolic (d = {d}): t 1 strictly dominates every score",
                       combine([r1.verdict, r2.verdict]), r1.details + r2.details)


def run(dataset=None, seed: int = 0):
    """Lemma 4.2: each sequence translated into ``(0, R]^d`` plus the token ``t 1``
    (``t`` = R, or above R for the general form) maps entirely to ``t 1``."""
    from lemmas.afz.instances import input_sequences
    from proofcheck.kernel.layercheck import check_layer
    seqs, d = input_sequences(dataset)
    lo = min(x[c] for s in seqs for x in s for c in range(d))
    shifted = [[tuple(v - lo + 1 for v in x) for x in s] for s in seqs]
    Rmax = max(v for s in shifted for x in s for v in x)
    out = []
    for name, t in (("R 1 is a token (t = R)", Rmax), ("t > R", Rmax + 1 + Fraction(seed % 5, 3))):
        T = (t,) * d
        ins = [s + [T] if T not in s else s for s in shifted]
        exp = [[T] * len(s) for s in ins]
        out.append(check_layer(f"4.2 exact: {name}: every token -> t 1", corner_sa(), ins, exp,
                               details=[f"positive box (0, {Rmax}]^{d}"]))
    return out + [symbolic(d)]
