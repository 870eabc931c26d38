"""Statement ``tikhonov`` (docs/spec.md §2; project label): Tikhonov-regularised training.

If ``theta*`` interpolates exactly, ``J(theta*) = 0``, then for every ``eps > 0``
``min_theta J(theta) + eps ||theta||^2 <= J(theta*) + eps ||theta*||^2 =
eps ||theta*||^2``: at a global optimum the training loss is at most linear in
eps.  The exact part checked here is ``J(theta*) = 0`` with the project's exact
evaluator and the exact value of ``||theta*||^2``:

* for the authors' own setting (:mod:`proofcheck.frontend.io.synthetic`: their
  ``torch.manual_seed(0)`` draw, reproduced exactly; N = 10, d = 16, n = 100,
  m = 1; one block with Q = K = 0, V = I, rho = 0, then an FF with eta = 1 and
  drawn width-4 U, b, W; target = FF of the sequence mean);
* for the Theorem 1.6 construction on any dataset (``lemma tikhonov --dataset``),
  and on the authors' data for comparison.

``J`` is the authors' loss: the mean over pairs of the squared Hausdorff distance
between the output tokens and the target tokens (for m = 1: the largest squared
distance from an output token to the target).

**Block order.**  The authors' block applies self-attention first, then the FF
(their ``models.py``: ``x = rho x + attn(x); x = eta x + ff(x)``), so the target is
FF of the mean.  The project's block is FF then SA (docs/spec.md §1).  The authors' block
is therefore represented by TWO project blocks: block 1 = (identity FF, the
uniform SA), block 2 = (the drawn FF, identity SA).  (One project block, FF then
SA, would output the mean of FF, a different function: ReLU is not linear.)

**Three numbers for the authors' seed-0 draw, each with its source:**

* ``||theta*||^2`` in the authors' trained parametrisation — the correct threshold,
  since the bound compares points of the space that is trained:
  ``rho^2 + ||q||^2 + ||k||^2 + ||V||_F^2 + eta^2 + ||U||_F^2 + ||b||^2 + ||W||_F^2``
  with ``q = k = 0`` (the least-norm factors of A = q k^T = 0) and ``||V||_F^2 = d``;
  read off the two built blocks (:func:`authors_parameters`).  ≈ 62.53.
* what the committed script computes on the same draw
  (``tikhonov/src/generateData.py``: line 20 sets V = I, line 25 overwrites V with
  the value tensor ``inputs @ V``, line 43 adds ``torch.norm(V)**2``): the same sum
  with ``||V||^2`` replaced by the squared norm of the value tensor, ``||X||_F^2``
  for V = I (:func:`script_sq_norm`).  ≈ 5402.77 — a bug in the committed code.
* the published figure's line: the red "Tikhonov threshold" of the authors'
  ``figs/figure1a.pdf`` (``eps = 10^-4``, ``tikhonovTrainLoss.py`` line 53), read
  from the PDF's geometry by :mod:`proofcheck.frontend.io.figure_reader` (the coordinates
  are recorded in :data:`FIGURE_1A`; the file itself is not shipped).  It sits at
  ``eps x 62.5316``: the published figure shows the correct threshold.

``Transformer.sq_norm()`` of the two-block network (the project's stored-scalar
convention, as printed by ``theorem 1.6``: it counts V = 1·I as one scalar and the
eta / rho of the identity sub-layers) is printed too.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

from proofcheck.constructions.layers import identity_ff, identity_sa
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict

ID = "tikhonov"


def authors_network(setting) -> Transformer:
    """The authors' block as two project blocks (see the module docstring):
    ``[(identity FF, SA: A = 0, V = I, rho = 0), (FF: eta, U, b, W; identity SA)]``.
    ``setting``: :class:`proofcheck.frontend.io.synthetic.SyntheticSetting`."""
    d = setting.dataset.d
    sa = SA(Fraction(0), Factored(Fraction(0)), Factored(Fraction(1)),
            label="uniform attention (Q = K = 0, V = I, rho = 0)")
    ff = FF(setting.eta, setting.U, setting.b, setting.W, label="drawn FF (width 4)")
    return Transformer(d, [Block(identity_ff(), sa, phase="authors' SA"),
                           Block(ff, identity_sa(), phase="authors' FF")])


def _sq(xs) -> Fraction:
    return sum((Fraction(x) * x for x in xs), Fraction(0))


def authors_parameters(net: Transformer) -> dict:
    """The authors' parameters ``{rho, q, k, V, eta, U, b, W}`` (flat lists of
    exact scalars; V dense ``d x d``) read off a network shaped as
    :func:`authors_network` builds it.  Raises ``ValueError`` if the network has
    another shape or if A is not 0 (the authors' A = q k^T; for A = 0 the
    least-norm factors are q = k = 0)."""
    if net.L != 2 or not (net.blocks[0].ff.is_identity and net.blocks[0].ff.width == 0
                          and net.blocks[1].sa.is_identity):
        raise ValueError("not the authors' block: expected [(identity FF, SA), (FF, identity SA)]")
    sa, ff, d = net.blocks[0].sa, net.blocks[1].ff, net.d
    if not sa.A.is_zero:
        raise ValueError("A is not 0: the authors' setting has Q = K = 0")
    return {"rho": [sa.rho], "q": [Fraction(0)] * d, "k": [Fraction(0)] * d,
            "V": [x for row in sa.V.dense(d) for x in row], "eta": [ff.eta],
            "U": [x for u in ff.U for x in u], "b": list(ff.b),
            "W": [x for w in ff.W for x in w]}


def authors_sq_norm(net: Transformer) -> tuple[Fraction, dict]:
    """``(||theta*||^2, parts)`` in the authors' trained parametrisation, from the
    built network (:func:`authors_parameters`); ``parts`` maps each parameter name
    to its exact squared norm."""
    parts = {k: _sq(v) for k, v in authors_parameters(net).items()}
    return sum(parts.values(), Fraction(0)), parts


def script_sq_norm(net: Transformer, inputs) -> tuple[Fraction, dict]:
    """The committed script's value for the same draw (a code bug, see the module docstring): ``||V||^2`` taken on the
    value tensor — the built V applied to every input token of every sequence —
    plus ``eta^2 + ||W||^2 + ||U||^2 + ||b||^2`` (the script omits rho, q, k).
    ``inputs[j]``: ``(n_j, d)`` tokens."""
    p = authors_parameters(net)
    V = net.blocks[0].sa.V
    value = sum((_sq(V.apply(x)) for X in inputs for x in X), Fraction(0))
    parts = {"value tensor X V": value, **{k: _sq(p[k]) for k in ("eta", "W", "U", "b")}}
    return sum(parts.values(), Fraction(0)), parts


def squared_hausdorff(out, tgt) -> Fraction:
    """Exact squared Hausdorff distance between two finite sets of tokens
    (``(n, d)`` and ``(m, d)``, both non-empty)."""
    def d2(x, y):
        return sum(((a - b) ** 2 for a, b in zip(x, y, strict=True)), Fraction(0))
    a = max(min(d2(x, y) for y in tgt) for x in out)
    b = max(min(d2(x, y) for x in out) for y in tgt)
    return max(a, b)


def exact_loss(outputs, targets) -> Fraction:
    """``J = (1/N) sum_j d_H(T(X_j), Y_j)^2`` (the authors' training loss, exact).
    ``outputs[j]``: ``(n_j, d)`` exact output tokens; ``targets[j]``: ``(m_j, d)``."""
    if not outputs:
        raise ValueError("no pairs")
    return sum((squared_hausdorff(o, t) for o, t in zip(outputs, targets, strict=True)),
               Fraction(0)) / len(outputs)


def loss_check(name: str, net: Transformer, inputs, targets, backend: str = "flint"):
    """``J(theta*) = 0``: exact evaluation of ``net`` (hardmax), exact set
    equality per pair (witness on failure) and the exact value of J.  Returns
    ``(CheckResult, J or None)``."""
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.numbers import fmt_num
    nc = check_network(net, inputs, targets, None, backend=backend)
    if nc.verdict == Verdict.ERROR:
        return CheckResult(name, Verdict.ERROR,
                           [d for r in nc.results for d in r.details]), None
    J = exact_loss(nc.outputs, targets)
    ok = nc.verdict == Verdict.VERIFIED and J == 0
    details = [f"exact evaluation ({backend}, hardmax) of {net.L} block(s) on "
               f"{sum(len(X) for X in inputs)} tokens; J(theta*) {fmt_num(J)}",
               "every output token equals its pair's target and every target is hit"
               if nc.verdict == Verdict.VERIFIED else "exact interpolation fails"]
    v = Verdict.VERIFIED if ok else Verdict.REFUTED
    return CheckResult(name, v, details, witness=nc.witness,
                       data={"J": J}), J


def _bent(setting) -> int:
    """Number of input tokens with some negative FF pre-activation ``U x + b``."""
    return sum(1 for p in setting.dataset.pairs for x in p.inputs
               if any(sum((a * c for a, c in zip(u, x)), bk) < 0
                      for u, bk in zip(setting.U, setting.b)))


# The published figure's line, read from the geometry of the authors' figs/figure1a.pdf
# (repository DCN-FAU-AvH/exactInterpTF, commit 1f633bb2, blob b053ee22; MIT licence)
# with proofcheck.frontend.io.figure_reader (`python -m proofcheck.frontend.io.figure_reader figure1a.pdf`):
# page coordinates in points as written in the file (6 decimals: +-5e-7 each); the
# outermost labelled y ticks 10^-3 and 10^3 and the red dashed line.  eps = 1e-4 is the
# script's weight_decay (tikhonovTrainLoss.py line 30; the line is eps * exact_L2norm,
# line 53).  Only these numbers are recorded; the PDF is not part of proofcheck.
FIGURE_1A = {
    "file": "figs/figure1a.pdf (DCN-FAU-AvH/exactInterpTF, blob b053ee22)",
    "tick_low": (-3, Fraction("58.034969")), "tick_high": (3, Fraction("192.485748")),
    "line_y": Fraction("75.87434"), "half_unit": Fraction(5, 10 ** 7),
    "eps": Fraction(1, 10 ** 4),
}
# the script stores ||theta||^2 and eps * ||theta||^2 in float32 (two roundings of
# relative size <= 2^-24): |log10 change| <= log10(1 + 2^-23 + 2^-48) < 6e-8
FLOAT32_LOG10_SLACK = Fraction(6, 10 ** 8)


def _admissible_check(setting) -> CheckResult:
    from proofcheck.kernel.dataset import check_admissible
    from proofcheck.kernel.errors import Inadmissible
    ds = setting.dataset
    ns = sorted({len(p.inputs) for p in ds.pairs})
    first = [str(x) for x in ds.pairs[0].inputs[0][:3]]
    name = (f"authors' setting: their torch.manual_seed({setting.seed}) draw, reproduced "
            "exactly, is admissible (on this instance)")
    try:
        check_admissible(ds)
    except Inadmissible as e:
        return CheckResult(name, Verdict.REFUTED, [str(e)])
    return CheckResult(name, Verdict.VERIFIED, [
        f"N = {ds.N}, d = {ds.d}, n = {'/'.join(map(str, ns))}, m = 1; inputs = torch.rand(N, n, "
        f"d), then W, U, b = torch.rand(4, d), torch.rand(d, 4), torch.rand(4); FF width "
        f"{len(setting.U)}, eta = {setting.eta}",
        "values: MT19937 (init_genrand(seed)) outputs masked to 24 bits, exactly k/2^24 (the "
        f"float32 values torch returns); first input values {', '.join(first)}",
        "block order: the authors' SA-then-FF block = project blocks "
        "[(identity FF, SA), (FF, identity SA)] (project order is FF then SA)",
        f"pre-activations U x + b < 0 at {_bent(setting)} of the {ds.n_tokens} input "
        "tokens (0: ReLU is linear on this draw, so mean(FF(x)) = FF(mean x) and the "
        "order happens not to matter here)"])


def drawn_sq_norms(setting) -> tuple[Fraction, Fraction]:
    """``(threshold, script value)`` computed from the DRAW alone (not from a network):
    ``d + eta^2 + ||U||^2 + ||b||^2 + ||W||^2`` (V = I, rho = 0, Q = K = 0) and the same
    with ``d`` replaced by ``||X||_F^2`` (the value tensor ``inputs @ I``)."""
    ds = setting.dataset
    drawn = (setting.eta ** 2 + _sq(x for u in setting.U for x in u) + _sq(setting.b)
             + _sq(x for w in setting.W for x in w))
    sq_x = _sq(x for p in ds.pairs for t in p.inputs for x in t)
    return ds.d + drawn, sq_x + drawn


def _norms_check(net: Transformer, setting) -> CheckResult:
    """(1) and (2) read off ``net``, checked against :func:`drawn_sq_norms` of the draw
    (REFUTED, with both values, when the network does not carry the drawn parameters)."""
    from proofcheck.kernel.verdicts import Witness
    from proofcheck.kernel.numbers import approx as sig_digits, fmt_num
    inputs = [list(p.inputs) for p in setting.dataset.pairs]
    th, parts = authors_sq_norm(net)
    sc, sparts = script_sq_norm(net, inputs)
    want = drawn_sq_norms(setting)
    ok = (th, sc) == want
    details = [
        f"(1) correct threshold ||theta*||^2 (authors' parametrisation rho, q, k, V, eta, U, b, "
        f"W; read off the built network) = {fmt_num(th)}",
        "   parts: " + ", ".join(f"||{k}||^2 = {fmt_num(v)}"
                                 for k, v in parts.items()),
        f"(2) the committed script on the same draw (tikhonov/src/generateData.py: line 25 "
        f"replaces V by the value tensor inputs @ V, line 43 adds its squared norm): "
        f"{fmt_num(sc)}, {sig_digits(sc / th, 4)} times (1) — a code bug",
        f"   ||X V||^2 = {sig_digits(sparts['value tensor X V'])} where ||V||_F^2 = "
        f"{parts['V']} (= d)",
        f"Transformer.sq_norm() of the two-block network (stored-scalar convention): "
        f"{fmt_num(net.sq_norm())}",
        f"bound: for every eps > 0, min J + eps ||theta||^2 <= eps * {sig_digits(th)}",
        "cross-check: (1) and (2) read off the network equal d + eta^2 + ||U||^2 + ||b||^2 + "
        "||W||^2 and ||X||_F^2 + eta^2 + ... computed from the draw itself: "
        + ("yes" if ok else "NO")]
    return CheckResult(f"authors' setting (seed {setting.seed}): ||theta*||^2 exact, next to "
                       "the committed script's value for the same draw (on this instance)",
                       Verdict.VERIFIED if ok else Verdict.REFUTED, details,
                       None if ok else Witness("the network's parameters are not the draw's: "
                                               "(||theta*||^2, script value) differ",
                                               expected=want, got=(th, sc)),
                       data={"theta_sq_norm": th, "script_value": sc,
                             "stored_scalar_sq_norm": net.sq_norm(),
                             **{f"part_{k}": v for k, v in parts.items()}})


def figure_exponent(fig=None) -> tuple[Fraction, Fraction]:
    """Exact interval of log10 of the value of the recorded figure line
    (:data:`FIGURE_1A`), read linearly between its two ticks
    (:func:`exponent_interval`)."""
    f = FIGURE_1A if fig is None else fig
    (ka, ya), (kb, yb) = f["tick_low"], f["tick_high"]
    return exponent_interval(Fraction(ka), ya, Fraction(kb), yb, f["line_y"], f["half_unit"])


def _log10_in(x: Fraction, lo: Fraction, hi: Fraction) -> bool | None:
    """Three-valued ``lo <= log10(x) <= hi`` (python-flint arb balls)."""
    from flint import arb

    from proofcheck.constructions.ts.balls import decide, le, q

    def cmp():
        v = arb(q(x)).log() / arb(10).log()
        a, b = le(arb(q(lo)), v), le(v, arb(q(hi)))
        return None if None in (a, b) else (a and b)
    return decide(cmp)[0]


def _yes(t: bool | None) -> str:
    return "undecided" if t is None else ("yes" if t else "no")


def figure_check(th: Fraction, sc: Fraction, fig=None) -> CheckResult:
    """(3) of the module docstring: the recorded line of the published figure is
    ``eps * th`` (within the reading's resolution, widened by the script's float32
    rounding) and is not ``eps * sc``."""
    from proofcheck.constructions.ts.balls import value_interval
    from proofcheck.kernel.numbers import approx

    def dec(x):
        return approx(x, 12)
    f = FIGURE_1A if fig is None else fig
    lo, hi = figure_exponent(f)
    lo_w, hi_w = lo - FLOAT32_LOG10_SLACK, hi + FLOAT32_LOG10_SLACK
    shows_th = _log10_in(f["eps"] * th, lo_w, hi_w)
    shows_sc = _log10_in(f["eps"] * sc, lo_w, hi_w)
    vlo, vhi = value_interval((lo, hi))
    (ka, ya), (kb, yb) = f["tick_low"], f["tick_high"]
    # display only: where the committed script's value would have drawn the line
    y_sc = float(ya) + (math.log10(float(f["eps"] * sc)) - ka) * float(yb - ya) / (kb - ka)
    details = [
        f"(3) the published figure: {f['file']}, red 'Tikhonov threshold' line at y = "
        f"{dec(f['line_y'])} pt between the ticks 10^{ka} (y = {dec(ya)}) and 10^{kb} "
        f"(y = {dec(yb)}); coordinates as written, +-{dec(f['half_unit'])} pt",
        f"   line = eps ||theta||^2 with eps = {f['eps']} (the script's weight_decay): "
        f"||theta||^2 in [{dec(vlo / f['eps'])}, {dec(vhi / f['eps'])}]",
        "   method: proofcheck.frontend.io.figure_reader (log axis read linearly between the outermost "
        "labelled ticks; exact rational interval of the exponent; python-flint arb for "
        "10^x); widened by 6e-8 in log10 for the script's float32 rounding",
        f"   contains (1), the correct threshold: {_yes(shows_th)}; contains (2), the committed "
        f"script's value: {_yes(shows_sc)} (that line would sit at y ≈ {y_sc:.1f} pt)",
        "the published figure shows the correct threshold; only the committed code is wrong"]
    ok = shows_th is True and shows_sc is False
    undecided = shows_th is None or shows_sc is None
    return CheckResult("published figure 1a: its threshold line is eps x the correct "
                       "||theta*||^2 of the seed-0 draw, not the committed script's value "
                       "(on this instance)",
                       Verdict.INCONCLUSIVE if undecided else
                       (Verdict.VERIFIED if ok else Verdict.REFUTED), details,
                       data={"figure_exponent": (lo, hi)})


def authors_checks(setting, net: Transformer | None = None, backend: str = "flint"):
    """The exact checks of the authors' setting on ``net`` (default: the network
    :func:`authors_network` builds for ``setting``); with the authors' own sizes and
    seed 0 also the published figure's line (:func:`figure_check`)."""
    net = authors_network(setting) if net is None else net
    ds = setting.dataset
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    lc, _ = loss_check("authors' setting: J(theta*) = 0 (target = FF of the sequence mean; "
                       "A = 0 so attention is uniform, under hardmax and softmax alike; on "
                       "this instance)", net, inputs, targets, backend)
    try:
        nc = _norms_check(net, setting)
    except ValueError as e:
        return [_admissible_check(setting), lc,
                CheckResult("authors' setting: ||theta*||^2", Verdict.ERROR, [str(e)])]
    out = [_admissible_check(setting), lc, nc]
    if setting.seed == 0 and setting.authors_sizes:
        out.append(figure_check(nc.data["theta_sq_norm"], nc.data["script_value"]))
    return out


def construction_checks(dataset, title: str = "Theorem 1.6 construction"):
    """``J(theta*) = 0`` and ``||theta*||^2`` (stored-scalar convention) for the
    Theorem 1.6 network built for ``dataset``."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.kernel.numbers import fmt_num
    inputs = [list(p.inputs) for p in dataset.pairs]
    targets = [list(p.outputs) for p in dataset.pairs]
    c = construct(inputs, targets, dataset.d)
    net = c.net
    lc, _ = loss_check(f"{title} on '{dataset.name}': J(theta*) = 0", net, inputs, targets)
    q = net.sq_norm()
    lc.details.append(f"L = {net.L} blocks, P = {net.n_params()} parameters, ||theta*||^2 "
                      f"{fmt_num(q)} (sum of squares of the P stored scalars)")
    lc.data = {**(lc.data or {}), "theta_sq_norm": q, "P": net.n_params(), "L": net.L}
    return [lc]


def run(dataset=None, seed: int = 0, setting=None):
    """``lemma tikhonov``: with a dataset, the Theorem 1.6 construction on it;
    without, the authors' ``setting`` (:class:`proofcheck.frontend.io.synthetic.SyntheticSetting`,
    drawn with the seed: the registry's default instance) and, for comparison, the
    Theorem 1.6 construction on the same data."""
    if dataset is not None:
        return construction_checks(dataset)
    if setting is None:
        raise ValueError("tikhonov needs a dataset or the authors' setting")
    return authors_checks(setting) + construction_checks(
        setting.dataset, "Theorem 1.6 construction (for comparison)")


def exponent_interval(ka, ya, kb, yb, y, h) -> tuple[Fraction, Fraction]:
    """Exact interval of ``ka + (y - ya)(kb - ka)/(yb - ya)`` over every coordinate
    ``y, ya, yb`` moved by at most ``h`` (the function is monotone in each, so the
    extremes are at the corners).  Raises ``ZeroDivisionError`` if the ticks coincide."""
    vals = [ka + (y + e1 - ya - e2) * (kb - ka) / (yb + e3 - ya - e2)
            for e1, e2, e3 in itertools.product((-h, h), repeat=3)]
    return min(vals), max(vals)
