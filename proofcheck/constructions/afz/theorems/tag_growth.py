"""Statement *tag-growth* (proofcheck's; issue 24 item 4): in the default construction's
phase S (proofcheck's reconstruction; the tag rule is not the seed's) the largest
projection at least doubles every round.

Class of constructions: phase S as in docs/spec.md §4 — every coordinate >= 1 after block 1,
``u > 0``, and each round lifts a point p above the largest u-projection ``g`` of
all tokens (a probe) and then tags ``x -> x + lam_r M(X)`` with ``lam_r >= 1``, so the
lifted point, now the top of its sequences, gains ``lam_r <u, p> > lam_r g``.
Statement: the largest u-projection after round r is ``> (1 + lam_r) g_{r-1} >= 2
g_{r-1}``, hence ``g_R > 2^R g_0``, while the gaps a hat must resolve stay the
original ones: in this construction a hat's centre over its half-width grows like
``2^R`` (measured in docs/measurements/float-audit.md: above ``2^23`` from round 1 on full digits).

:func:`run` checks the inequality exactly on the network the default construction
returns for a dataset: the tokens after every block of phase S come from the exact
kernel backend, ``g_r`` is their exact largest projection, and every round must
satisfy ``g_r > 2 g_{r-1}``.  This holds on the instance only (the general statement
is the argument above); a witness names the first round where it fails.
"""
from __future__ import annotations

from fractions import Fraction

ID = "tag-growth"


def growth(net, inputs, u, rounds: int):
    """``[g_0, ..., g_R]``: the exact largest ``<u, x>`` over all tokens after block
    1 (``g_0``) and after each of the next ``rounds`` blocks (flint backend).

    Each maximum is decided exactly: the float64 projections of the tokens (their
    nearest floats, ``to_float64``) with the error bound ``2^-45 sum_c |u_c| |x_c|``
    (conversion, d products and sums: well below that) filter the candidates, and
    the exact projections of the candidates decide."""
    import numpy as np

    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.fast import get_backend
    be = get_backend("flint")
    state = be.load(inputs)
    uf = np.array([float(x) for x in u])
    out = []
    for blk in net.blocks[:rounds + 1]:
        state, _, _ = be.ff(blk.ff, state)
        state, _, _ = be.sa(blk.sa, state, HARDMAX)
        E = be.to_float64(state)
        with np.errstate(all="ignore"):
            t = E @ uf
            err = (np.abs(E) @ np.abs(uf)) * 2.0 ** -45
        if not (np.isfinite(t).all() and np.isfinite(err).all()):
            cand = range(state.n)      # no usable filter: every row exactly
        else:
            cand = np.nonzero(t + err >= np.max(t - err))[0]
        out.append(max(sum((Fraction(int(v.p), int(v.q)) * a
                            for v, a in zip(be.row(state, int(i)), u)), Fraction(0))
                       for i in cand))
    return out


def check(net, inputs, info, g=None):
    """The exact check on one default network (``info``: its construction info;
    ``g``: :func:`growth` if already computed)."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness
    R = info["R"]
    g = growth(net, inputs, info["u"], R) if g is None else g
    lam_ok = all(lam >= 1 for lam in info["lambdas"])
    for r in range(1, R + 1):
        if not g[r] > 2 * g[r - 1]:
            return CheckResult("tag-growth: g_r > 2 g_(r-1) in every separation round",
                               Verdict.REFUTED, [f"R = {R}"],
                               Witness("the largest projection did not double", block=r + 1,
                                       sublayer="SA", expected=2 * g[r - 1], got=g[r]))
    ratio = g[R] / g[0] if g[0] else None
    bits = None if ratio is None else ratio.numerator.bit_length() - ratio.denominator.bit_length()
    return CheckResult(
        f"tag-growth (on this dataset): the largest u-projection more than doubles in each "
        f"of the R = {R} separation rounds", Verdict.VERIFIED if lam_ok else Verdict.REFUTED,
        [f"every lam_r >= 1: {lam_ok}; g_0 = {float(g[0]):.4g}, g_R = {float(g[R]):.4g}, "
         f"log2(g_R / g_0) ~ {bits} >= R = {R}",
         "holds on this instance only; the general statement is the argument in the module "
         "docstring"])


def run(dataset, seed: int = 0):
    """``lemma tag-growth``: the check on the default network of ``dataset`` (the
    registry's default: a seeded random one that needs separation rounds)."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    ds = dataset
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    res = check(c.net, inputs, c.info)
    res.name = f"'{ds.name}': {res.name}"  # the dataset it ran on (the default or --dataset)
    return [res]
