"""Lemma 4.2 (corner collapse): ``A = I, V = I, rho = 0``.

If every token lies in the positive box ``(0, R]^d`` and ``R 1`` is a token, every
token maps to ``R 1``; more generally a token ``t 1`` with ``t >= `` every
coordinate of the box tokens dominates: for ``x > 0`` and ``x' != t 1`` in the
box, ``<A x, t 1> - <A x, x'> = sum_c x_c (t - x'_c) > 0``.

The proof in :func:`symbolic` evaluates the layer returned by :func:`corner_sa`
(or any layer handed to :func:`prove_dominance`, e.g. the collapse).
Source: Alcalde–Fantuzzi–Zuazua, Lemma 4.2 (spec-numbered: the number is docs/spec.md §2's;
no source available here confirms it).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import SA, Factored
from proofcheck.constructions.provers.sa_proofs import guarded, kernel_recheck

ID = "4.2"


def corner_sa() -> SA:
    """``A = I``, ``V = I``, ``rho = 0`` (dimension-free)."""
    return SA(Fraction(0), Factored(Fraction(1)), Factored(Fraction(1)),
              label="corner collapse (4.2)")


def prove_dominance(layer, d: int, P, label: str) -> None:
    """Add to ``P`` the attention facts of Lemma 4.2 for ``layer``'s own ``A`` in
    dimension ``d``: for a query ``x`` with positive coordinates (symbols) and a key
    ``x' = t 1 - g`` of the box ``(0, t]^d`` (``g >= 0``), the score gap
    ``<A x, t 1> - <A x, x'>`` is ``> 0`` whenever some ``g_c > 0`` (one proof per
    c, the other g's only ``>= 0``): ``t 1`` is the unique argmax of every query
    of the positive box, itself included."""
    import sympy as sp

    from proofcheck.constructions.provers.sa_proofs import score, symbols
    x = symbols("x", d, positive=True)
    t = sp.Symbol("t", positive=True)
    T = (t,) * d
    for c in range(d):
        g = tuple(sp.Symbol(f"g{i}", positive=True) if i == c else sp.Symbol(f"g{i}", nonnegative=True)
                  for i in range(d))
        xp = tuple(t - gi for gi in g)
        P.positive(score(layer, x, T) - score(layer, x, xp),
                   f"{label}: <A x, t1> - <A x, t1 - g> > 0 for x > 0, g >= 0, g_{c} > 0")


def symbolic(d: int = 3):
    """sympy and z3 on ``corner_sa()`` in dimension ``d``: :func:`prove_dominance` and the
    value map ``rho x + V (t 1) = t 1`` for every token ``x`` — every token of the
    positive box maps to ``t 1`` (for all t > 0 and all box tokens)."""
    import sympy as sp

    from proofcheck.constructions.provers.smt import Z3Prover
    from proofcheck.constructions.provers.sa_proofs import Proof, symbols, value
    layer = corner_sa()
    P = Proof(second=Z3Prover())
    prove_dominance(layer, d, P, "A of corner_sa()")
    x = symbols("x", d, positive=True)
    t = sp.Symbol("t", positive=True)
    P.zero([a - t for a in value(layer, x, (t,) * d)], "rho x + V (t1) = t1 (every token -> t1)")
    return P.result(f"4.2 for all parameters (symbolic, d = {d}, all t > 0, all tokens of (0, t]^d): t 1 is the unique "
                    "argmax and every token maps to t 1", [])


def box_probes(d: int, R: Fraction):
    """Tokens at the edges of the box ``(0, R]^d``: one just below the corner in
    each coordinate (``R 1 - eps e_c``), the corner of the lower face region
    (``eps 1``), and ``R`` in one coordinate with ``eps`` elsewhere."""
    eps = R / 64
    out = [tuple(R - eps if i == c else R for i in range(d)) for c in range(d)]
    out.append((eps,) * d)
    out += [tuple(R if i == c else eps for i in range(d)) for c in range(d)]
    return out


def run(dataset=None, seed: int = 0):
    """Lemma 4.2: each sequence translated into ``(0, R]^d`` (plus box-edge probes)
    with the token ``t 1`` (``t = R`` and ``t > R``) maps entirely to ``t 1``; in
    the dataset's dimension and in seeded instances of dimensions 2, 3, 5."""
    import random

    from proofcheck.constructions.afz.layers.clustering import random_instances
    from proofcheck.constructions.afz.instances import input_sequences, naming_dataset
    seqs, d0 = input_sequences(dataset)
    rng = random.Random(seed)
    cases = [(d0, seqs)] + [(d, random_instances(rng, d)) for d in (2, 3, 5) if d != d0]
    out = []
    for k, (d, ss) in enumerate(cases):
        res = guarded(f"4.2 instance (d = {d})", _instance, d, ss, R_shift(seed))
        out += naming_dataset(res, dataset) if k == 0 else res
    return (out + guarded("4.2 symbolic (d = 2)", symbolic, 2)
            + guarded("4.2 symbolic (d = 3)", symbolic, 3))


def R_shift(seed: int) -> Fraction:
    """How far above R the second dominating token sits (seeded)."""
    return Fraction(1 + seed % 5, 3)


def _instance(d, ss, above):
    """The exact checks of Lemma 4.2 on one instance: ``t = R`` and ``t = R + above``."""
    from proofcheck.constructions.results import check_layer
    out = []
    from proofcheck.constructions.afz.instances import into_positive_box
    shifted = into_positive_box(ss)
    R = max(v for s in shifted for x in s for v in x)
    probes = box_probes(d, R)
    shift = shifted[0][0][0] - ss[0][0][0]  # the common translation into the box
    moved = (f"the {sum(map(len, ss))} tokens translated by {shift} in every coordinate into (0, {R}]^{d}, "
             f"with {len(probes)} box-edge probes and t 1 added to each sequence")
    for name, t in (("R 1 is a token (t = R)", R), ("t > R", R + above)):
        T = (t,) * d
        ins = [list(dict.fromkeys(s + probes + [T])) for s in shifted]
        res = check_layer(f"4.2 exact on this instance (d = {d}; {moved}): {name}: every token "
                          "-> t 1", corner_sa(), ins,
                          [[T] * len(s) for s in ins],
                          details=[f"positive box (0, {R}]^{d}, t = {t}; probes just below the "
                                   "corner and near the lower faces"])
        res.data = {"box": {"lower": (Fraction(0),) * d, "upper": (R,) * d}, "t": t}
        out += [res, kernel_recheck("4.2", res)]
    return out
