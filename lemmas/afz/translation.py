"""Lemma 3.1 (translation): a width-1 FF equals ``x -> x + c``.

Parameters (SPEC §2, 3.1): ``U = 0`` (1 x d), ``b = 1``, ``W = c`` (d x 1),
``eta = 1``; since ``relu(1) = 1`` the output is ``x + c`` for every x.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import FF, vec

ID = "3.1"


def translation_ff(c) -> FF:
    """FF of width 1 with ``FF(x) = x + c``; ``c``: ``(d,)`` rationals."""
    c = vec(c)
    return FF(Fraction(1), U=(tuple(Fraction(0) for _ in c),), b=(Fraction(1),), W=(c,),
              label="translation (3.1)")


def symbolic():
    """sympy: ``eta x + W relu(U x + b) = x + c`` for symbolic x, c (d = 3)."""
    import sympy as sp

    from proofcheck.symbolic import prove_identity, relu
    x = sp.symbols("x0:3", real=True)
    c = sp.symbols("c0:3", real=True)
    u_dot_x = sum(0 * xi for xi in x)
    out = [xi + ci * relu(u_dot_x + 1) for xi, ci in zip(x, c)]
    return prove_identity("3.1 symbolic: FF(x) = x + c for all x, c (d = 3)",
                          sp.Matrix(out), sp.Matrix([xi + ci for xi, ci in zip(x, c)]))


def run(dataset=None, seed: int = 0):
    """Check Lemma 3.1 on the dataset's input tokens (or a built-in set) with a
    seeded translation vector.  Returns a list of CheckResult."""
    import random

    from lemmas.afz.instances import input_sequences
    from proofcheck.kernel.layercheck import check_layer
    seqs, d = input_sequences(dataset)
    rng = random.Random(seed)
    c = tuple(Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(d))
    ff = translation_ff(c)
    expected = [[tuple(a + b for a, b in zip(x, c)) for x in s] for s in seqs]
    return [check_layer(f"3.1 exact: FF(x) = x + c on every token, c = {_fmt(c)}", ff, seqs,
                        expected, details=[f"width {ff.width}, eta = 1"]),
            symbolic()]


def _fmt(v):
    from proofcheck.kernel.verdicts import fmt_value
    return fmt_value(v)
