"""Statement ``1.8-collapse`` (project flag; the seed's remark in its proof of
Theorem 1.8, docs/spec.md §2 row 1.8): a softmax average is a STRICT convex combination,
so the softmax collapse layer cannot send a non-leader exactly onto its leader —
which is why the seed's construction adds O(N) blocks of non-residual ReLU FF
layers (budget 2M + 3N), and why proofcheck's construction snaps whole certified
intervals with plateau FF layers instead.

Two readings (``READINGS``; :mod:`proofcheck.constructions.ts.readings`):

* **construction** (default; its hypotheses are proofcheck's reading — the seed states
  none): on the collapse SA layer
  (phase C) of the Theorem 1.8 network built for a dataset,

  - *hardmax*: every non-leader is mapped EXACTLY onto its leader's image
    ``rho x_i + V x_c`` (exact rationals);
  - *softmax, for every tau > 0* (sympy, ``tau`` a positive symbol), on the rows that
    enter the layer when the earlier layers are evaluated with hardmax (exact; a
    softmax network feeds it rows moved by the earlier layers' error, on which the
    hypotheses below are not checked; every check line says so): the output
    minus that image is ``sum_l pi_l V (x_l - x_c)`` with ``pi_l = exp(s_l/tau)/Z``
    computed from the returned layer's own A, V, rho (:func:`proofcheck.constructions.provers.sa_proofs.score`,
    :func:`~proofcheck.constructions.provers.sa_proofs.value`).  The hypotheses are checked exactly on
    the layer's data: there is a coordinate r in which the leader's value is
    extreme (``V(x_l - x_c)_r <= 0`` for every l, ``< 0`` for some; for the
    construction r = 1, ``kappa`` of the region-P leader is the strict maximum of its
    sequence).  Then ``Z (out - image)_r = sum_l exp(s_l/tau) V(x_l - x_c)_r`` is a
    sum of non-positive terms with a negative one, and sympy proves it negative for
    all tau > 0 (every softmax weight is positive).  So no non-leader lands on its
    leader's image, at any temperature.
* **general** (a variant): "no softmax SA layer collapses a cluster exactly".
  False, exactly and for every tau > 0, shown by two layers built with the
  project's SA type and evaluated symbolically in tau: A = 0, V = I, rho = 0 (the
  layer of the authors' own ``generateData.py``) sends every token of
  {(-1,0), (0,0), (1,0)} onto (0,0); A = e1 e1^T, V = I, rho = 0 sends
  {(0,0), (0,1), (1,0), (1,1)} onto two points.  There the leader's value is not
  extreme (the mean of the set), so the reading's hypothesis fails — consistent with
  the default reading.  The default run prints this as a note with its witness;
  ``--reading general`` gives it as the verdict (REFUTED, exit 1).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.constructions.ts.readings import note, resolve
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness, combine

ID = "1.8-collapse"

READINGS = {
    "construction": "the construction's collapse layer under proofcheck's reading of the "
                    "remark (the seed states no hypothesis; ours: all softmax weights "
                    "positive, the leader's value extreme): no non-leader lands on its "
                    "leader's image, for every tau > 0 (default)",
    "general": "no softmax SA layer collapses a cluster exactly",
}


def collapse_input(c, inputs):
    """``(collapse SA layer, exact rows entering it, spans)`` along the hardmax
    trajectory of the built network ``c`` (flint backend)."""
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.fast import get_backend
    be = get_backend("flint")
    state = be.load(inputs)
    cb = c.phases["C"][0]
    for bi, blk in enumerate(c.net.blocks, start=1):
        state, _, _ = be.ff(blk.ff, state)
        if bi == cb:
            return blk.sa, be.to_fractions(state), state.spans
        state, _, _ = be.sa(blk.sa, state, HARDMAX)
    raise ValueError("no collapse block")


def _nonleaders(sa, rows, spans):
    """``[(j, i, c, X)]``: token i of sequence j attends (hardmax) uniquely to c != i.
    Returns ``(list, None)`` or ``(None, Witness)`` on a hardmax tie."""
    from proofcheck.constructions.provers.sa_proofs import score
    out = []
    for j, (lo, hi) in enumerate(spans):
        X = rows[lo:hi]
        for i, x in enumerate(X):
            sc = [score(sa, x, y) for y in X]
            top = max(sc)
            C = [l for l, s in enumerate(sc) if s == top]
            if len(C) != 1:
                return None, Witness("hardmax tie in the collapse layer", sequence=j, token=i)
            if C[0] != i:
                out.append((j, i, C[0], X))
    return out, None


def hardmax_exact(sa, nonleaders, block: int) -> CheckResult:
    """Every non-leader's hardmax output equals its leader's image exactly."""
    from proofcheck.constructions.provers.sa_proofs import value
    for j, i, c, X in nonleaders:
        got, want = tuple(value(sa, X[i], X[c])), tuple(value(sa, X[c], X[c]))
        if got != want:
            return CheckResult("hardmax collapses every non-leader exactly", Verdict.REFUTED,
                               witness=Witness("non-leader not mapped onto its leader's image",
                                               block=block, sublayer="SA", sequence=j,
                                               token=i, expected=want, got=got))
    return CheckResult(f"hardmax collapse is exact: {len(nonleaders)} non-leader(s) land "
                       f"exactly on their leaders' images (block {block})", Verdict.VERIFIED)


def extreme_coordinate(sa, X, c) -> tuple[int, int] | None:
    """``(r, sign)``: a coordinate r where every ``sign * V(x_l - x_c)_r`` is ``<= 0``
    and some is ``< 0`` (the leader's value is extreme there), or ``None``."""
    d = len(X[0])
    g = [sa.V.apply([a - b for a, b in zip(x, X[c])]) for x in X]
    for r in range(d):
        for sign in (1, -1):
            col = [sign * v[r] for v in g]
            if all(v <= 0 for v in col) and any(v < 0 for v in col):
                return r, sign
    return None


def softmax_gap_expr(sa, X, i, c, r: int, w):
    """``(SA(X)_i - image)_r`` with the softmax weights of token i replaced by the
    positive symbols ``w`` (one per token; ``w_l`` stands for ``exp(s_l / tau)``),
    computed from the returned layer (value map), as ``(numerator, denominator)``
    of one fraction (sympy ``together``)."""
    import sympy as sp

    from proofcheck.constructions.provers.sa_proofs import value
    q = lambda v: sp.Rational(v.numerator, v.denominator)  # noqa: E731
    Z = sp.Add(*w)
    mean = [sp.Add(*[wl * q(y[k]) for wl, y in zip(w, X)]) / Z for k in range(len(X[0]))]
    out = value(sa, [q(v) for v in X[i]], mean)
    image = value(sa, X[c], X[c])
    return sp.fraction(sp.together(out[r] - q(image[r])))


def weights_positive(sa, X, i, tau) -> bool:
    """sympy: every softmax weight ``exp(s_l / tau)`` of token i (scores from the
    layer) is positive for every ``tau > 0``."""
    import sympy as sp

    from proofcheck.constructions.provers.sa_proofs import score
    return all(sp.exp(sp.Rational(str(score(sa, X[i], y))) / tau).is_positive is True for y in X)


def softmax_never_exact(sa, nonleaders, block: int, label: str) -> CheckResult:
    """The default reading's proof for all tau > 0 on one instance's collapse layer."""
    import sympy as sp
    tau = sp.Symbol("tau", positive=True)
    if sa.rho != 0:
        return CheckResult(f"{label}: hypothesis rho = 0 of the collapse layer", Verdict.INCONCLUSIVE,
                           witness=Witness("rho != 0: the proof does not apply", block=block,
                                           sublayer="SA", got=sa.rho))
    for j, i, c, X in nonleaders:
        ext = extreme_coordinate(sa, X, c)
        if ext is None:
            return CheckResult(f"{label}: the reading's hypothesis (leader's value extreme)",
                               Verdict.INCONCLUSIVE, witness=Witness(
                                   "no coordinate in which the leader's value is extreme: the "
                                   "proof does not apply", block=block, sublayer="SA",
                                   sequence=j, token=i))
        r, sign = ext
        w = sp.symbols(f"w0:{len(X)}", positive=True)
        num, den = softmax_gap_expr(sa, X, i, c, r, w)
        if not (weights_positive(sa, X, i, tau) and den.is_positive is True
                and (sign * num).is_negative is True):
            return CheckResult(f"{label}: softmax output differs from the image",
                               Verdict.INCONCLUSIVE, witness=Witness(
                                   f"sympy did not decide sign(Z (out - image)_{r + 1}) for "
                                   "all tau > 0", block=block, sublayer="SA", sequence=j,
                                   token=i))
    return CheckResult(
        f"{label}: for all tau > 0 (symbolic), the collapse layer maps no non-leader of the "
        f"rows entering it (the exact hardmax trajectory) onto its leader's image "
        f"({len(nonleaders)} non-leaders, block {block})", Verdict.VERIFIED,
        ["rows: the exact rows entering the collapse layer when the earlier layers are "
         "evaluated with hardmax (the rows a softmax network feeds it differ from these by the "
         "earlier layers' softmax error; the hypotheses are checked on these rows only)",
         "hypotheses checked exactly on the returned layer: rho = 0; hardmax attends uniquely "
         "to the leader c; the leader's value is extreme in a coordinate r (V(x_l - x_c)_r <= 0 for "
         "all l, < 0 for some)",
         "sympy: every weight w_l = exp(s_l/tau) > 0 for tau > 0 (scores from the layer); "
         "with positive symbols w_l, (SA(X)_i - V x_c)_r = (sum_l w_l V(x_l - x_c)_r) / "
         "sum_l w_l has a negative numerator (positive for the minimum) and a positive "
         "denominator: the average is strict"], data={"rows": "hardmax trajectory",
                                                       "block": block})


def check_instance(dataset) -> list[CheckResult]:
    """Hardmax exactness and the all-tau proof on ``dataset``'s collapse layer."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES
    inputs = [list(p.inputs) for p in dataset.pairs]
    targets = [list(p.outputs) for p in dataset.pairs]
    c = construct(inputs, targets, dataset.d, **SCALES)
    sa, rows, spans = collapse_input(c, inputs)
    block = c.phases["C"][0]
    label = f"'{dataset.name}' (d = {dataset.d})"
    nl, wit = _nonleaders(sa, rows, spans)
    if wit is not None:
        return [CheckResult(f"{label}: unique attended token", Verdict.INCONCLUSIVE,
                            witness=wit)]
    if not nl:  # neither half has anything to check: no line may pass vacuously
        return [CheckResult(f"{label}: no non-leader (every token is a leader); nothing "
                            "to prove, for hardmax or softmax", Verdict.INCONCLUSIVE)]
    hard = hardmax_exact(sa, nl, block)
    hard.name = f"{label}: {hard.name} (on this instance)"
    return [hard, softmax_never_exact(sa, nl, block, label)]


# ------------------------------------------------------------------ the general reading

def _sa(A):
    from proofcheck.kernel.model import SA, Factored
    return SA(Fraction(0), A, Factored(Fraction(1)), label="counterexample")


def counterexamples():
    """The two layers and sets of the general reading's witness:
    ``[(description, SA, tokens, expected number of distinct outputs)]``."""
    from proofcheck.kernel.model import Factored
    F = Fraction
    e1 = (F(1), F(0))
    return [("A = 0, V = I, rho = 0 on {(-1,0), (0,0), (1,0)}", _sa(Factored(F(0))),
             [(F(-1), F(0)), (F(0), F(0)), (F(1), F(0))], 1),
            ("A = e1 e1^T, V = I, rho = 0 on {(0,0), (0,1), (1,0), (1,1)}",
             _sa(Factored(F(0), (e1,), (e1,))),
             [(F(0), F(0)), (F(0), F(1)), (F(1), F(0)), (F(1), F(1))], 2)]


def symbolic_outputs(sa, X, tau) -> list[tuple]:
    """``SA_tau(X)_i`` for every i, sympy expressions in ``tau`` (from the layer)."""
    import sympy as sp

    from proofcheck.constructions.provers.sa_proofs import score, value
    q = lambda v: sp.Rational(v.numerator, v.denominator)  # noqa: E731
    out = []
    for x in X:
        w = [sp.exp(q(score(sa, x, y)) / tau) for y in X]
        Z = sp.Add(*w)
        mean = [sp.Add(*[wl * q(y[k]) for wl, y in zip(w, X)]) / Z for k in range(len(x))]
        out.append(tuple(sp.simplify(v) for v in value(sa, [q(v) for v in x], mean)))
    return out


def general_refuted() -> CheckResult:
    """The general reading, REFUTED: both layers collapse their sets exactly for every
    tau > 0 (sympy: the outputs are equal as functions of tau)."""
    import sympy as sp
    tau = sp.Symbol("tau", positive=True)
    det, got = ["method: the layers built with proofcheck's SA type, softmax outputs "
                "computed symbolically in tau > 0 from their A, V, rho; equal outputs decided "
                "by sympy (difference simplifies to 0)"], []
    for desc, sa, X, want in counterexamples():
        outs = symbolic_outputs(sa, X, tau)
        distinct = []
        for o in outs:
            if not any(all(sp.simplify(a - b) == 0 for a, b in zip(o, p)) for p in distinct):
                distinct.append(o)
        if len(distinct) != want:
            return CheckResult("general reading: counterexample", Verdict.ERROR,
                               det + [f"{desc}: {len(distinct)} distinct outputs, expected "
                                      f"{want} (internal error)"])
        det.append(f"{desc}: for every tau > 0 the {len(X)} tokens land on {want} point(s): "
                   + ", ".join(f"({', '.join(map(str, p))})" for p in distinct))
        got.append(distinct)
    det.append("there the leader's value is not extreme (it is the mean), so the hypothesis "
               "of proofcheck's reading fails; the default reading is not contradicted")
    return CheckResult("1.8-collapse general reading: 'no softmax SA layer collapses a cluster "
                       "exactly' is FALSE, for all tau > 0 (symbolic)", Verdict.REFUTED, det,
                       Witness("A = 0, V = I, rho = 0 maps (-1,0), (0,0), (1,0) all onto (0,0) "
                               "for every tau > 0", sublayer="SA", sequence=0, token=0,
                               expected="an output other than the cluster's point",
                               got="(0, 0)"))


def run(dataset, seed: int = 0, reading: str | None = None):
    """``lemma 1.8-collapse`` under ``reading`` (default ``construction``): the
    hardmax and all-tau checks on every instance (``dataset``, or the registry's
    default instances: the first images of the packaged digits sample and seeded
    generated datasets in d = 2, 3, 4), then the general reading as a note;
    ``general``: that reading's REFUTED verdict."""
    from proofcheck.constructions.afz.instances import datasets_of
    reading = resolve(READINGS, reading)
    if reading == "general":
        return [general_refuted()]
    sets = datasets_of(dataset)
    out = [r for ds in sets for r in check_instance(ds)]
    n = len(sets)
    summary = CheckResult(f"1.8-collapse (construction reading) on these {n} instances: "
                          "hardmax exact, softmax never exact for all tau > 0 (symbolic) on the "
                          "rows entering the collapse along the hardmax trajectory",
                          combine(r.verdict for r in out), [])
    return [summary] + out + [note(ID, "general", READINGS["general"], general_refuted())]
