"""The public API for adding a statement to proofcheck (a plugin): the one stable
import.  Names not in ``__all__`` are not part of it.  Tutorial: docs/howto/plugins.md.

A plugin is an installed package whose ``pyproject.toml`` declares::

    [project.entry-points."proofcheck.statements"]
    clamp = "my_package:STATEMENT"        # a Statement, or a tuple of them

:class:`Statement` is the declaration the built-in statements use
(``proofcheck/frontend/registry/builtin.py``): id, title, kind, paper number and flag,
hypotheses, the datasets it admits, its checks, default instances and scope.

**Semantics** (docs/spec.md §1).  ``FF(eta, U, b, W)`` is ``x -> eta x + sum_k W[k]
relu(<U[k], x> + b[k])`` (``U``, ``W`` given row by row / column by column: ``width``
vectors of length d).  ``SA(rho, A, V)`` is ``x_i -> rho x_i + V sum_l pi_il x_l``
with bilinear scores ``s_il = <A x_i, x_l>`` (no bias) and ``pi_i`` = hardmax (uniform
on the argmax set) or softmax at temperature tau.  ``Factored(lam, left, right)`` is
the ``d x d`` matrix ``lam I + sum_r left[r] right[r]^T``.  A :class:`Block` is an FF
then an SA; a :class:`Transformer` a sequence of blocks.

**Checks** return :class:`CheckResult` objects marked as computed; a result a
plugin builds by hand is printed as ARGUED (not computed) and never counts as
VERIFIED; say an argued step with :func:`argued`.  Bad input to a plugin's routine:
raise :class:`BadInput` (exit 2, message and location printed).
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.dataset import Dataset, Pair
from proofcheck.kernel.errors import BadInput
from proofcheck.constructions.layers import vec
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness
from proofcheck.frontend.registry import (
    ANY_DATASET,
    FLAGS,
    NO_DATASET,
    SCOPES,
    THEOREM,
    Admissibility,
    Statement,
)
from proofcheck.frontend.registry.instances import digits_sample, generated
from proofcheck.constructions.provers.symbolic import prove_profile as profile_proof
from proofcheck.constructions.provers.sa_proofs import Proof, score, symbols, value

__all__ = ["Statement", "Admissibility", "ANY_DATASET", "NO_DATASET", "THEOREM", "FLAGS",
           "SCOPES", "generated", "digits_sample", "FF", "SA", "Factored", "Block",
           "Transformer", "vec", "HARDMAX", "Softmax", "Dataset", "Pair", "CheckResult",
           "Verdict", "Witness", "BadInput", "check_layer", "check_stack", "evaluate_layer",
           "prove_profile", "prove_attention", "symbols", "score", "value", "argued",
           "is_computed"]


class Softmax:
    """Softmax attention at temperature ``tau > 0`` (a rational), for
    :func:`check_stack`: the weights are irrational, so the check is a certificate
    (every tau' in (0, tau]) that each output set is exactly the expected one."""

    def __init__(self, tau):
        self.tau = Fraction(tau)
        if self.tau <= 0:
            raise BadInput(f"softmax temperature must be positive (got {tau})")


def _computed(res: CheckResult, by: str) -> CheckResult:
    res.computed = by
    return res


def is_computed(res: CheckResult) -> bool:
    """True for a result made by one of the checks here (or by proofcheck itself)."""
    return bool(getattr(res, "computed", None))


def argued(name: str, *argument: str) -> CheckResult:
    """A step of the proof argued in words, not computed: printed as ARGUED with its
    argument; it never makes a verdict VERIFIED."""
    res = CheckResult(name, Verdict.INCONCLUSIVE, list(argument))
    res.argued = True
    return res


class LayerOutputs(list):
    """Outputs computed by :func:`evaluate_layer`: handing them to a check as the
    expected outputs would make it circular (the layer compared with itself)."""


def evaluate_layer(layer, sequences) -> LayerOutputs:
    """The exact outputs of one FF or SA layer (hardmax) on ``sequences`` (list of
    ``(n_j, d)`` tokens).  For looking, not for expected outputs: a check whose
    expected outputs come from here compares the layer with itself and is refused."""
    from proofcheck.kernel.layercheck import evaluate_layer as evaluate
    return LayerOutputs(evaluate(layer, [list(s) for s in sequences]))


def _circular(name, expected):
    if isinstance(expected, LayerOutputs):
        return CheckResult(name, Verdict.INCONCLUSIVE, [
            "the expected outputs were computed by evaluate_layer: comparing a layer with its "
            "own outputs checks nothing; state them from the statement's conclusion"])
    return None


def check_layer(name: str, layer, sequences, expected) -> CheckResult:
    """VERIFIED iff the FF or SA ``layer`` (hardmax) maps ``sequences`` exactly to
    ``expected`` (``(n_j, d)`` per sequence; ``None`` for a token the statement says
    nothing about), by the kernel's plain evaluator
    (:func:`proofcheck.constructions.results.check_layer`, the one layer check); REFUTED with
    the sequence, token, coordinate and exact values otherwise (code ``layer-output``);
    INCONCLUSIVE when ``expected`` came from :func:`evaluate_layer` (circular).  The result
    is a certificate instance when it states every output."""
    from proofcheck.constructions.results import check_layer as check
    bad = _circular(name, expected)
    if bad is not None:
        return _computed(bad, "check_layer")
    res = check(name, layer, [list(s) for s in sequences], [list(e) for e in expected])
    silent = sum(y is None for e in expected for y in e)
    if silent and getattr(res, "instance", None) is not None:
        res.instance = None  # a certificate states every output (the kernel refuses nulls)
        res.details.append(f"not certified: the statement says nothing about {silent} "
                           "token(s); a certificate instance states every output")
    return _computed(res, "check_layer")


def check_stack(name: str, layers, sequences, expected, semantics=HARDMAX) -> CheckResult:
    """Check a stack of layers (a list of FF/SA layers applied in order, or a
    :class:`Transformer`) on ``sequences`` against ``expected``.  Hardmax: exact
    evaluation by the kernel's plain evaluator, layer after layer, compared token by token
    with ``expected`` (the final outputs); the witness (code ``stack-output``) names the
    sequence, token and coordinate.
    :class:`Softmax`: a certificate that every output set equals the expected set
    for every temperature in (0, tau] (order inside a sequence is not compared)."""
    bad = _circular(name, expected)
    if bad is not None:
        return _computed(bad, "check_stack")
    net = layers if isinstance(layers, Transformer) else _as_network(list(layers))
    seqs = [list(s) for s in sequences]
    if isinstance(semantics, Softmax):
        return _computed(_certified_stack(name, net, seqs, expected, semantics.tau),
                         "check_stack")
    return _computed(_exact_stack(name, net, seqs, expected), "check_stack")


def _exact_stack(name, net: Transformer, seqs, expected) -> CheckResult:
    from proofcheck.kernel.layercheck import evaluate_layer as evaluate
    layers = [x for b in net.blocks for x in (b.ff, b.sa)]
    try:
        got = seqs
        for x in layers:
            got = evaluate(x, got)
    except Exception as exc:  # noqa: BLE001  (fail closed)
        return CheckResult(name, Verdict.ERROR, [f"{type(exc).__name__}: {exc}"])
    det = [f"{len(net.blocks)} block(s) on {sum(map(len, seqs))} tokens in {len(seqs)} "
           "sequence(s), exact evaluation by the kernel's plain evaluator"]
    for j, (gs, es) in enumerate(zip(got, expected, strict=True)):
        for i, (g, e) in enumerate(zip(gs, es, strict=True)):
            e = None if e is None else tuple(Fraction(c) for c in e)
            if e is not None and g != e:
                c = next(k for k in range(len(e)) if g[k] != e[k])
                return CheckResult(name, Verdict.REFUTED, det, Witness(
                    "the stack's output differs from the stated one", sequence=j, token=i,
                    coordinate=c, expected=e[c], got=g[c], code="stack-output"))
    return CheckResult(name, Verdict.VERIFIED, det)


def _as_network(layers) -> Transformer:
    """One block per layer (an FF with the identity SA, an identity FF with an SA)."""
    from proofcheck.constructions.layers import identity_ff, identity_sa
    if not layers or not all(isinstance(x, (FF, SA)) for x in layers):
        raise BadInput("check_stack: layers must be a non-empty list of FF and SA layers "
                       "(or a Transformer)")
    d = _dim(layers)
    blocks = [Block(x, identity_sa()) if isinstance(x, FF) else Block(identity_ff(), x)
              for x in layers]
    return Transformer(d, blocks)


def _dim(layers) -> int:
    for x in layers:
        vecs = (x.U or x.W) if isinstance(x, FF) else (x.A.left or x.V.left)
        if vecs:
            return len(vecs[0])
    raise BadInput("check_stack: cannot tell the dimension d from layers without vectors; "
                   "pass a Transformer")


def _certified_stack(name, net, seqs, expected, tau) -> CheckResult:
    from proofcheck.constructions.afz.softmax_certifier import certify
    targets = [list(dict.fromkeys(tuple(Fraction(c) for c in t) for t in e)) for e in expected]
    cert = certify(net, seqs, targets, tau)
    return CheckResult(name, cert.verdict, [f"softmax certificate at tau = {tau} (when it "
                                            "passes: the output sets equal the expected ones "
                                            "for every tau' in (0, tau])"]
                       + ([cert.reason] if cert.reason else []), cert.witness)


def prove_profile(name: str, ff, direction, claims, hypotheses: str) -> CheckResult:
    """Prove, for all values of the symbols in ``ff`` (an FF built with sympy
    symbols whose assumptions carry the hypotheses), claims ``(lo, hi, L, text)``:
    every token x with ``lo <= <direction, x> <= hi`` (``None``: unbounded) has
    ``FF(x) = x + L(<direction, x>)``.  The profile is computed from the layer's own
    U, b, W; an undecided sign is INCONCLUSIVE, never a pass."""
    return _computed(profile_proof(name, ff, direction, claims, hypotheses), "prove_profile")


def prove_attention(name: str, sa, query, attends_to, competitors, output=None,
                    hypotheses: str = "") -> CheckResult:
    """Prove, for all values of the symbols in ``sa`` and the tokens, that ``query``
    attends (hardmax) to ``attends_to`` only: ``<A q, attends_to> - <A q, z> > 0`` for
    every ``z`` in ``competitors``, from the symbols' assumptions; with ``output``,
    also ``rho q + V attends_to = output``.  Scores and values come from the layer's
    own A, V, rho."""
    P = Proof()
    top = score(sa, query, attends_to)
    for k, z in enumerate(competitors):
        P.positive(top - score(sa, query, z), f"<A q, x*> > <A q, z_{k}>")
    if output is not None:
        P.zero([a - b for a, b in zip(value(sa, query, attends_to), output)],
               "rho q + V x* = the stated output")
    return _computed(P.result(name, [f"hypotheses: {hypotheses}"] if hypotheses else []),
                     "prove_attention")
