"""Shared steps of the SA lemma re-derivations (4.1-4.3): semantics and the layer's
form as dense exact matrices; a failed step raises :class:`Refuted` (:func:`run_check`)."""
from fractions import Fraction

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.limits import charge
from proofcheck.kernel.low_rank import rank_of as rank  # noqa: F401 (the SA lemma checks' rank)
from proofcheck.kernel.model import SA
from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value  # noqa: F401


class Refuted(Exception):
    """A hypothesis, form or conclusion check failed; carries the witness."""

    def __init__(self, witness: Witness):
        self.witness = witness
        super().__init__(witness.describe())


def require_hardmax(statement: str, semantics, path: str) -> None:
    """Hardmax passes; softmax refutes (every weight positive: no token attends *only*
    to its argmax set); anything else is malformed."""
    att = semantics.get("attention") if isinstance(semantics, dict) else None
    if att == "hardmax":
        return
    if att == "softmax":
        raise Refuted(Witness(f"Lemma {statement} is a hardmax statement: under softmax every "
                              "key gets a positive weight, so the conclusion (attention on the "
                              "argmax set only) fails for any sequence with a non-maximal key",
                              expected="hardmax", got="softmax"))
    raise BadInput(f"unknown attention {att!r} (expected 'hardmax')", "$.semantics.attention")


def require_sa(layer, d: int) -> SA:
    """``layer`` if it is an SA layer with factors of length ``d``, else :class:`Refuted`."""
    if not isinstance(layer, SA):
        raise Refuted(Witness("the instance's layer is not an SA layer", expected="SA",
                              got=type(layer).__name__, code="form"))
    if layer.H != 1 or layer.causal:
        raise Refuted(Witness("the lemma's layer has one head and no mask", expected="1, no mask",
                              got=f"{layer.H}{', causal' * layer.causal}", code="form"))
    for name, f in (("A", layer.A), ("V", layer.V)):
        bad = next((v for v in f.left + f.right if len(v) != d), None)
        if bad is not None:
            raise Refuted(Witness(f"{name} has factors of length {len(bad)} but the instance "
                                  f"is in dimension {d}", expected=d, got=len(bad), code="form"))
    return layer


def dense(f, d: int) -> list[list[Fraction]]:
    """The ``(d, d)`` matrix of a ``Factored``."""
    charge(d * d * (len(f.left) + 1), "a dense matrix of a lemma check")
    return [[Fraction(x) for x in row] for row in f.dense(d)]


def expect_matrix(name: str, got, want) -> None:
    """Refute at the first entry where ``got != want`` (both ``(d, d)``)."""
    for a, (gr, wr) in enumerate(zip(got, want)):
        for b, (g, w) in enumerate(zip(gr, wr)):
            if g != w:
                raise Refuted(Witness(f"layer form: {name}[{a}][{b}] differs from the lemma's "
                                      f"{name}", token=a, coordinate=b, expected=w, got=g,
                                      code="form"))


def expect_value(name: str, got, want) -> None:
    if got != want:
        raise Refuted(Witness(f"layer form: {name} differs from the lemma's", expected=want,
                              got=got, code="form"))


def identity(d: int, lam=Fraction(1)):
    return [[lam if a == b else Fraction(0) for b in range(d)] for a in range(d)]


def run_check(body):
    """Call ``body() -> lines``; ``Refuted`` becomes ``(REFUTED, lines, witness)``."""
    lines: list[str] = []
    try:
        body(lines)
    except Refuted as r:
        lines.append("REFUTED: " + r.witness.describe())
        return Verdict.REFUTED, lines, r.witness
    return Verdict.VERIFIED, lines, None
