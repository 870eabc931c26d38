"""Lemma 4.1 (hyperplane clustering) with ``A = u u^T``, and the *tag* layer.

Scores ``s_il = <A x_i, x_l>``: a token with ``<u,x_i> > 0`` attends to the
u-maximal token(s) of its sequence, with ``< 0`` to the u-minimal ones, with
``= 0`` to all (mean).  With ``V = I, rho = 0`` each sequence collapses to at most
three points.  The *tag* (docs/spec.md §4, phase S) uses ``V = lam I, rho = 1``:
``x -> x + lam M(X)`` with M(X) the mean of the u-maximal tokens (the unique
u-maximal token when there is one) for every token with ``<u,x> > 0``.

The layer routines are generic in their scalars (``Fraction`` or sympy); the
proofs in :func:`symbolic` and :func:`symbolic_tag` evaluate the returned layers.
Source: Alcalde–Fantuzzi–Zuazua, Lemma 4.1 (spec-numbered: the number is docs/spec.md §2's;
no source available here confirms it).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import SA, Factored, dot
from proofcheck.constructions.provers.sa_proofs import guarded, kernel_recheck, scalar, vector

ID = "4.1"


def cluster_sa(u) -> SA:
    """Lemma 4.1 layer: ``A = u u^T``, ``V = I``, ``rho = 0``.  ``u``: ``(d,)``
    rationals or sympy expressions."""
    u = vector(u)
    return SA(Fraction(0), Factored(Fraction(0), (u,), (u,)), Factored(Fraction(1)),
              label="hyperplane clustering (4.1)")


def tag_sa(u, lam) -> SA:
    """Tag layer: ``A = u u^T``, ``V = lam I``, ``rho = 1``.  ``u``: ``(d,)``,
    ``lam``: scalar (rational or sympy)."""
    u = vector(u)
    return SA(Fraction(1), Factored(Fraction(0), (u,), (u,)), Factored(scalar(lam)),
              label="tag (4.1)")


def _mean(seq, idx):
    return tuple(sum((seq[i][c] for i in idx), Fraction(0)) / len(idx) for c in range(len(seq[0])))


def attended(seq, u):
    """Lemma 4.1's attention sets: for each token the indices of the u-maximal
    (``<u,x_i> > 0``), u-minimal (``< 0``) or all (``= 0``) tokens."""
    pr = [dot(u, x) for x in seq]
    hi, lo = max(pr), min(pr)
    top = [i for i, v in enumerate(pr) if v == hi]
    bot = [i for i, v in enumerate(pr) if v == lo]
    every = list(range(len(seq)))
    return [top if v > 0 else bot if v < 0 else every for v in pr]


def predicted(seq, u):
    """Lemma 4.1's conclusion for ``V = I, rho = 0``: each token's image (the mean of
    the u-maximal / u-minimal / all tokens by the sign of ``<u, x_i>``)."""
    return [_mean(seq, C) for C in attended(seq, u)]


def predicted_tag(seq, u, lam):
    """The tag's conclusion: ``x_i + lam * mean(C_i)`` with ``C_i`` as in Lemma 4.1."""
    lam = Fraction(lam)
    return [tuple(a + lam * b for a, b in zip(x, _mean(seq, C))) for x, C in zip(seq, attended(seq, u))]


# --------------------------------------------------------------------------- proofs

def prove_scores(layer, u, P, label: str) -> None:
    """Add to ``P`` (a :class:`proofcheck.constructions.provers.sa_proofs.Proof`) the score facts of
    Lemma 4.1 for ``layer`` (built with the symbolic direction ``u``), computed
    from the layer's own ``A``: with ``p(x) = <u, x>`` and
    ``D = <A x_i, x_l> - <A x_i, x_k>``,

    * ``D = p(x_i) (p(x_l) - p(x_k))`` as polynomials in every coordinate;
    * for each coordinate c with ``u_c != 0`` (one exists since u != 0), solving
      ``p(x_i) = a`` and ``p(x_l) = p(x_k) + g`` for the c-th coordinates, with
      symbols a, g > 0: ``D > 0`` (positive side prefers larger p); with
      ``p(x_i) = -a``, ``p(x_l) = p(x_k) - g``: ``D > 0`` (negative side prefers
      smaller p); with ``p(x_i) = 0``: ``D = 0`` (all tied); with
      ``p(x_l) = p(x_k)``: ``D = 0`` (equal projections tie)."""
    import sympy as sp

    from proofcheck.constructions.provers.sa_proofs import score, symbols
    d = len(u)
    xi, xl, xk = (symbols(n, d, real=True) for n in ("xi", "xl", "xk"))
    p = lambda x: dot(u, x)  # noqa: E731  (the hyperplane functional of the statement)
    D = score(layer, xi, xl) - score(layer, xi, xk)
    P.zero(D - p(xi) * (p(xl) - p(xk)), f"{label}: <A x_i, x_l - x_k> = <u,x_i>(<u,x_l> - <u,x_k>)")
    a, g = sp.Symbol("a", positive=True), sp.Symbol("g", positive=True)
    for c in range(d):
        uc = sp.Symbol(f"w{c}", nonzero=True)  # u with a nonzero c-th coordinate
        uu = tuple(uc if i == c else u[i] for i in range(d))
        sub = {u[c]: uc}
        Lc = layer_with(layer, sub)

        def solve(x, target):
            rest = sum((uu[i] * x[i] for i in range(d) if i != c), sp.Integer(0))
            return {x[c]: (target - rest) / uc}
        pk = dot(uu, xk)
        Dc = score(Lc, xi, xl) - score(Lc, xi, xk)
        for name, si, sl, want in (("<u,x_i> > 0, <u,x_l> = <u,x_k> + g", a, pk + g, "pos"),
                                   ("<u,x_i> < 0, <u,x_l> = <u,x_k> - g", -a, pk - g, "pos"),
                                   ("<u,x_i> = 0", sp.Integer(0), pk + g, "zero"),
                                   ("<u,x_l> = <u,x_k>", a, pk, "zero")):
            s = {**solve(xi, si), **solve(xl, sl)}
            e = sp.together(Dc.subs(s))
            txt = f"{label}, u_{c} != 0, {name}: D " + ("> 0" if want == "pos" else "= 0")
            (P.positive if want == "pos" else P.zero)(e, txt)


def layer_with(layer, sub):
    """``layer`` with the sympy substitution ``sub`` applied to every entry of A, V, rho."""
    from dataclasses import replace

    def s(x):
        return x.subs(sub) if hasattr(x, "subs") else x

    def fac(f):
        return Factored(s(f.lam), tuple(tuple(s(x) for x in a) for a in f.left),
                        tuple(tuple(s(x) for x in b) for b in f.right))
    return replace(layer, rho=s(layer.rho), A=fac(layer.A), V=fac(layer.V))


def symbolic(d: int = 2):
    """sympy and z3, on ``cluster_sa(u)`` for a symbolic ``u`` in dimension ``d``: the
    score facts of :func:`prove_scores`, and the value map ``rho x_i + V y = y``
    (so a token's image is the mean of its argmax set).  Consequence, for all u
    and all sequences: the argmax set of a token depends only on the sign of
    ``<u,x_i>`` (u-maximal / u-minimal / all), hence at most 3 images."""
    from proofcheck.constructions.provers.smt import Z3Prover
    from proofcheck.constructions.provers.sa_proofs import Proof, symbols, value
    u = symbols("u", d, real=True)
    layer = cluster_sa(u)
    P = Proof(second=Z3Prover())
    prove_scores(layer, u, P, "A of cluster_sa(u)")
    x, y = symbols("x", d, real=True), symbols("y", d, real=True)
    P.zero([a - b for a, b in zip(value(layer, x, y), y)], "rho x + V y = y (image = mean of argmax set)")
    return P.result(f"4.1 for all parameters (symbolic, d = {d}, all u != 0, all tokens): scores and value map of the "
                    "returned layer", ["hence C_i = u-max / u-min / all tokens by the sign of "
                                       "<u,x_i>, for every sequence: at most 3 images"])


def symbolic_tag(d: int = 2):
    """sympy and z3, on ``tag_sa(u, lam)`` for symbolic ``u``, ``lam``: the score facts of
    :func:`prove_scores` and ``rho x + V y = x + lam y``."""
    import sympy as sp

    from proofcheck.constructions.provers.sa_proofs import Proof, symbols, value
    u = symbols("u", d, real=True)
    from proofcheck.constructions.provers.smt import Z3Prover
    lam = sp.Symbol("lam", real=True)
    layer = tag_sa(u, lam)
    P = Proof(second=Z3Prover())
    prove_scores(layer, u, P, "A of tag_sa(u, lam)")
    x, y = symbols("x", d, real=True), symbols("y", d, real=True)
    P.zero([a - (xi + lam * b) for a, xi, b in zip(value(layer, x, y), x, y)], "rho x + V y = x + lam y")
    return P.result(f"tag for all parameters (symbolic, d = {d}, all u != 0, all lam): x -> x + lam mean(u-maximal) "
                    "for <u,x> > 0", [])


# --------------------------------------------------------------------------- instances

def perpendicular(u):
    """A nonzero rational vector ``w`` with ``<u, w> = 0`` (``d >= 2``, u != 0)."""
    d = len(u)
    c = next(i for i in range(d) if u[i] != 0)
    o = (c + 1) % d
    w = [Fraction(0)] * d
    w[c], w[o] = -u[o], u[c]
    if all(x == 0 for x in w):  # u_o = 0: move along e_o
        w[o] = Fraction(1)
    return tuple(w)


def probe_sequences(seqs, u):
    """Boundary probes built from ``u``: every sequence gets a token tied with its
    u-maximal token, one tied with its u-minimal token (both shifted along a
    perpendicular w), and a token on the hyperplane ``<u,x> = 0``; plus a sequence
    lying entirely on the hyperplane and one whose tokens all share one projection."""
    w = perpendicular(u)
    out = []
    for s in seqs:
        pr = [dot(u, x) for x in s]
        top, bot = s[pr.index(max(pr))], s[pr.index(min(pr))]
        extra = [tuple(a + b for a, b in zip(top, w)), tuple(a - b for a, b in zip(bot, w)), w]
        out.append(list(dict.fromkeys(list(s) + extra)))
    out.append([w, tuple(2 * x for x in w), tuple(-x for x in w)])
    uu = dot(u, u)
    out.append([tuple(x / uu + k * y for x, y in zip(u, w)) for k in range(3)])
    return out


def random_instances(rng, d: int, count: int = 3):
    """``count`` seeded sequences of small rationals in dimension ``d``."""
    out = []
    for _ in range(count):
        n = rng.randint(2, 5)
        out.append(list(dict.fromkeys(tuple(Fraction(rng.randint(-6, 6), rng.choice([1, 2, 3]))
                                            for _ in range(d)) for _ in range(n))))
    return out


def random_direction(rng, d: int, positive: bool = False):
    """A seeded nonzero integer direction (all coordinates positive if asked)."""
    while True:
        u = tuple(Fraction(rng.choice([1, 2, 3] if positive else [-3, -2, -1, 0, 1, 2, 3]))
                  for _ in range(d))
        if any(u):
            return u


def run(dataset=None, seed: int = 0):
    """Lemma 4.1 and the tag on the dataset's sequences (or built-ins) plus seeded
    instances in dimensions 2, 3, 4, with boundary probes (ties at the top and the
    bottom, tokens on the hyperplane); the symbolic proofs in d = 2 and 3."""
    import random

    from proofcheck.constructions.afz.instances import input_sequences, naming_dataset
    seqs, d0 = input_sequences(dataset)
    rng = random.Random(seed)
    cases = [(d0, seqs)] + [(d, random_instances(rng, d)) for d in (2, 3, 4) if d != d0]
    out = []
    for k, (d, ss) in enumerate(cases):
        u = random_direction(rng, d)
        up = random_direction(rng, d, positive=True)
        lam = Fraction(rng.choice([1, 2, 3, 5]), rng.choice([1, 2]))
        res = guarded(f"4.1 instance (d = {d})", _instance, d, ss, u, up, lam)
        out += naming_dataset(res, dataset) if k == 0 else res
    out += guarded("4.1 symbolic (d = 2)", symbolic, 2) + guarded("4.1 symbolic (d = 3)", symbolic, 3)
    out += guarded("tag symbolic (d = 2)", symbolic_tag, 2)
    return out


def _instance(d, ss, u, up, lam):
    """The exact checks of Lemma 4.1 and the tag on one instance (dimension ``d``)."""
    from proofcheck.constructions.results import check_layer
    from proofcheck.kernel.layercheck import evaluate_layer
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value
    out = []
    ins = probe_sequences(ss, u)
    layer = cluster_sa(u)
    res = check_layer(f"4.1 exact on this instance (d = {d}): A = u u^T, u = {fmt_value(u)}: tokens go to the "
                      "mean of the u-max / u-min / all tokens", layer, ins,
                      [predicted(s, u) for s in ins],
                      details=["probes: ties at the top and bottom, tokens on <u,x> = 0"])
    res.data = {"u": u}
    out.append(res)
    out.append(kernel_recheck("4.1", res))
    # "at most 3 images" on this instance, counted from the evaluated layer
    got = evaluate_layer(layer, ins)
    sizes = [len(set(s)) for s in got]
    j = max(range(len(sizes)), key=sizes.__getitem__)
    ok = sizes[j] <= 3
    out.append(CheckResult(f"4.1 on this instance (d = {d}): at most 3 distinct images per sequence",
                           Verdict.VERIFIED if ok else Verdict.REFUTED,
                           [f"largest count of distinct outputs of the layer: {sizes[j]} "
                            f"(sequence {j}); holds on this instance only — the general "
                            "statement is the symbolic proof"],
                           None if ok else Witness("more than 3 distinct images", sequence=j,
                                                   expected=3, got=sizes[j])))
    # the tag on the same sequences moved into the positive orthant, positive u
    from proofcheck.constructions.afz.instances import into_positive_box
    pos = [list(dict.fromkeys(s)) for s in into_positive_box(ins)]
    tres = check_layer(f"tag exact on this instance (d = {d}): x -> x + lam M(X), u = {fmt_value(up)}, "
                       f"lam = {fmt_value(lam)}", tag_sa(up, lam), pos,
                       [predicted_tag(s, up, lam) for s in pos],
                       details=["every <u,x> > 0; probes with tied tops (M = their mean)"])
    tres.data = {"u": up, "lambda": lam}
    out.append(tres)
    out.append(kernel_recheck("4.1", tres))
    return out
