"""Example plugin statement ``x.clamp``: for c ∈ ℚ, the width-1 FF layer
``FF(x) = x − e₁ σ(x₁ − c)`` maps every token x to (min(x₁, c), x₂, …, x_d)."""
from fractions import Fraction

import sympy as sp

from proofcheck.api import FF, Statement, check_layer, prove_profile


def clamp_ff(c, d: int) -> FF:
    """The layer, generic in its scalar ``c`` (a Fraction or a sympy symbol); d ≥ 1."""
    one = c - c + 1  # 1 in c's own scalar type (Fraction, or sympy Integer)
    e1 = tuple([one] + [one - 1] * (d - 1))
    return FF(one, U=(e1,), b=(-c,), W=(tuple(-x for x in e1),), label="clamp")


def run(dataset, seed: int = 0):
    d = dataset.d if dataset is not None else 3
    c = Fraction(seed % 7 - 3, 2)
    tokens = [t for p in dataset.pairs for t in p.inputs] if dataset is not None else []
    for x1 in (c - 1, c, c + Fraction(1, 3), c + 5):     # both sides of the kink and on it
        tokens.append((x1,) + tuple(Fraction(k + 1) for k in range(d - 1)))
    expected = [(min(t[0], c),) + t[1:] for t in tokens]  # the conclusion, from the statement
    results = [check_layer(f"clamp at c = {c} on {len(tokens)} tokens", clamp_ff(c, d),
                           [tokens], [expected])]
    # for every c at once: the profile of the RETURNED symbolic layer along e1
    cs = sp.Symbol("c", real=True)
    e1 = [1] + [0] * (d - 1)
    results.append(prove_profile(
        "the returned layer clamps x1 at c, for every c", clamp_ff(cs, d), e1,
        [(None, cs, lambda t: [0] * d, "FF(x) = x when x1 <= c"),
         (cs, None, lambda t: [cs - t] + [0] * (d - 1), "FF(x) = x + (c - x1) e1 when x1 >= c")],
        "c rational"))
    return results


STATEMENT = Statement(
    "x.clamp", "FF lemma", "Clamp of the first coordinate by one ReLU", "-", "project",
    checks=(run,), scope="all-parameters", hypotheses=("c is rational", "tokens in ℚ^d, d ≥ 1"))
