"""Lemma 3.1 (translation): a width-1 FF equals ``x -> x + c``.

Parameters (docs/spec.md §2, 3.1): ``U = 0`` (1 x d), ``b = 1``, ``W = c`` (d x 1),
``eta = 1``; since ``relu(1) = 1`` the output is ``x + c`` for every x.
``translation_ff`` is generic in its scalars (rationals or sympy expressions);
``symbolic()`` proves the conclusion on the layer it returns.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.constructions.afz.scalars import scalars
from proofcheck.kernel.model import FF

ID = "3.1"


def translation_ff(c) -> FF:
    """FF of width 1 with ``FF(x) = x + c``; ``c``: ``(d,)`` rationals or sympy
    expressions."""
    c = scalars(c)
    return FF(Fraction(1), U=(tuple(Fraction(0) for _ in c),), b=(Fraction(1),), W=(c,),
              label="translation (3.1)")


def symbolic(d: int = 3):
    """sympy and z3 proofs, on the layer ``translation_ff`` returns for a symbolic ``c`` in
    R^d: ``FF(x) = x + c`` for every x (its U is 0, so the profile along any
    direction is constant; checked from the returned U, b, W)."""
    import sympy as sp

    from proofcheck.constructions.provers.smt import Z3Prover
    from proofcheck.constructions.provers.symbolic import prove_profile
    c = sp.symbols(f"c0:{d}", real=True)
    w = [int(i == 0) for i in range(d)]
    return prove_profile(f"3.1 for all parameters (symbolic): the returned layer is x -> x + c for every x (all c, d = {d})",
                         translation_ff(c), w, [(None, None, lambda t: list(c), "FF(x) = x + c")],
                         f"c in R^{d}", second=Z3Prover())


def run(dataset=None, seed: int = 0):
    """Check Lemma 3.1 on the dataset's input tokens (or the built-in instances of
    :func:`proofcheck.constructions.afz.instances.lemma_instances`) with seeded translation vectors
    (integers at odd seeds: every rational spelling).  Returns a list of CheckResult."""
    from proofcheck.constructions.afz.instances import each_instance, user_dimension
    from proofcheck.constructions.provers.sa_proofs import guarded
    d = user_dimension(dataset)
    return (each_instance(_instance, dataset, seed) + [rejections_check()]
            + guarded("3.1 symbolic", symbolic, max(2, min(d, 3))))


def rejections_check():
    """The exact scalars of the FF constructions (:mod:`proofcheck.constructions.afz.scalars`):
    ``translation_ff`` accepts integers, Fractions and numeric strings, and rejects
    None, floats, booleans and non-vectors with the helpers' messages."""
    from proofcheck.constructions.afz.instances import rejections_check as check
    R = "scalar: x must be a rational number or a sympy expression, got "
    V = "scalars: xs must be a vector (list or tuple of scalars), got "
    cases = [("c = (1, -2)", lambda: translation_ff((1, -2)), None),
             ("c = ('7/3', 1/2)", lambda: translation_ff(["7/3", Fraction(1, 2)]), None),
             ("c = (None, 1)", lambda: translation_ff((None, 1)), R + "None"),
             ("c = (0.5, 1)", lambda: translation_ff((0.5, 1)), R + "0.5"),
             ("c = (True, 1)", lambda: translation_ff((True, 1)), R + "True"),
             ("c = ('x', 1)", lambda: translation_ff(("x", 1)), R + "'x'"),
             ("c = None", lambda: translation_ff(None), V + "None"),
             ("c = '12'", lambda: translation_ff("12"), V + "'12'")]
    return check("3.1", cases)


def _instance(dataset, seed):
    import random

    from proofcheck.constructions.afz.instances import input_sequences
    from proofcheck.constructions.results import check_layer
    seqs, d = input_sequences(dataset)
    rng = random.Random(seed)
    c = tuple(Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(d))
    ff = translation_ff([int(x) if x.denominator == 1 and seed % 2 else x for x in c])
    expected = [[tuple(a + b for a, b in zip(x, c)) for x in s] for s in seqs]
    res = check_layer(f"3.1 exact, on this instance: FF(x) = x + c on every token, c = {_fmt(c)}", ff, seqs,
                      expected, details=[f"width {ff.width}"])
    res.data = {"c": c}
    return res


def _fmt(v):
    from proofcheck.kernel.verdicts import fmt_value
    return fmt_value(v)
