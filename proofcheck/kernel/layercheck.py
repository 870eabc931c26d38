"""Exact check of one layer against a lemma's predicted outputs.

Used by the lemma modules: the lemma predicts every output token directly from
its statement (not through attention or ReLU), the layer is evaluated exactly by
BOTH backends, and the outputs must agree with each other and with the
prediction.  The witness names the sequence, token and coordinate.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.backends import get_backend
from proofcheck.kernel.errors import ResourceLimit
from proofcheck.kernel.limits import charge, check_bits
from proofcheck.kernel.model import FF
from proofcheck.kernel.verdicts import CheckResult, Scope, Verdict, Witness


def evaluate_layer(layer, sequences, backend: str = "flint", rule=HARDMAX):
    """Outputs of one FF or SA layer on ``sequences`` (list of ``(n_j, d)``)."""
    be = get_backend(backend)
    st = be.load(sequences)
    st, _, _ = be.ff(layer, st) if isinstance(layer, FF) else be.sa(layer, st, rule)
    rows = be.to_fractions(st)
    return [rows[lo:hi] for lo, hi in st.spans]


def check_layer(name: str, layer, sequences, expected, rule=HARDMAX,
                details: list[str] | None = None) -> CheckResult:
    """VERIFIED iff both backends give exactly ``expected`` (``(n_j, d)`` per sequence;
    an entry ``None`` marks a token the statement makes no claim about)."""
    res = _check_layer(name, layer, sequences, expected, rule, details)
    res.instance = (layer, sequences, expected)  # re-checkable by the certificate kernel
    return res


def _check_layer(name, layer, sequences, expected, rule, details):
    n = sum(len(s) for s in sequences)
    d = len(sequences[0][0]) if sequences and sequences[0] else 0
    terms = layer.width if isinstance(layer, FF) else len(layer.A.left) + len(layer.V.left) + 1
    charge(2 * n * d * (terms + 1), f"layer {name}")
    try:
        got = evaluate_layer(layer, sequences, "flint", rule)
        ref = evaluate_layer(layer, sequences, "fraction", rule)
    except ResourceLimit:
        raise
    except Exception as exc:  # fail closed
        return CheckResult(name, Verdict.ERROR, [f"{type(exc).__name__}: {exc}"])
    n = sum(len(s) for s in sequences)
    check_bits(max((max(x.numerator.bit_length(), x.denominator.bit_length())
                    for s in got for t in s for x in t), default=0), f"layer {name}")
    det = list(details or []) + [f"{n} tokens in {len(sequences)} sequence(s), "
                                 "exact evaluation by the flint and Fraction backends"]
    if got != ref:
        return CheckResult(name, Verdict.ERROR, det + ["backends disagree"])
    for j, (gs, es) in enumerate(zip(got, expected, strict=True)):
        for i, (g, e) in enumerate(zip(gs, es, strict=True)):
            if e is None:  # the statement says nothing about this token
                continue
            e = tuple(Fraction(x) for x in e)
            if g != e:
                c = next(k for k in range(len(e)) if g[k] != e[k])
                return CheckResult(name, Verdict.REFUTED, det, Witness(
                    "layer output differs from the lemma's conclusion", sequence=j, token=i,
                    coordinate=c, expected=e[c], got=g[c]))
    return CheckResult(name, Verdict.VERIFIED, det, scope=Scope.INSTANCES)
