"""Named check results of the constructions and provers (untrusted; ``verify`` needs neither):
:class:`CheckResult`, and :func:`check_layer` (the one layer check), the exact check of one layer against the outputs a
statement predicts, decided by the kernel (:func:`proofcheck.kernel.layercheck.layer_check`)."""
import re
from dataclasses import dataclass, field

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.layercheck import layer_check
from proofcheck.kernel.verdicts import Scope, Verdict, Witness


@dataclass
class CheckResult:
    """Outcome of one named check: verdict, human-readable lines, optional witness."""

    name: str
    verdict: Verdict
    details: list[str] = field(default_factory=list)
    witness: Witness | None = None
    data: dict | None = None  # a lemma's data for a certificate instance (docs/spec.md §3)
    # what a passing check established; None: not said (a construction's own check)
    scope: Scope | None = None
    # the provers that decided it and each one's verdict value, e.g. {"sympy": "VERIFIED",
    # "z3": "VERIFIED"} (proofcheck.constructions.provers.smt); None: no prover, or one not named
    provers: dict | None = None
    # a prover's counterexample, exact and re-checked (name -> Fraction), for a REFUTED
    counterexample: dict | None = None
    # inequalities the check substitutes into without proving them (its scope holds
    # assuming them): printed with the scope and in the run's VERDICT line
    assumes: tuple[str, ...] = ()

    def scope_text(self) -> str | None:
        """The scope in words, with the dimension a symbolic check fixed (the ``d = k`` its
        name states: "for all parameters, d = 2") and the assumptions (``None``: not said)."""
        if self.scope is None:
            return None
        fixed = self.fixed_dimensions()
        dims = f", d = {', '.join(map(str, fixed))}" if fixed else ""
        return self.scope.value + dims + (f", assuming {' and '.join(self.assumes)}"
                                          if self.assumes else "")

    def fixed_dimensions(self) -> list[int]:
        """The dimensions an all-parameter check fixed: the ``d = k`` its name states
        (``[]`` for another scope, or when the name fixes none)."""
        if self.scope is not Scope.ALL_PARAMETERS:
            return []
        return sorted({int(k) for k in re.findall(r"\bd = (\d+)\b", self.name)})

    def lines(self) -> list[str]:
        tail = ""
        if self.scope is not None and self.verdict.passed:
            agree = (f"; {' and '.join(self.provers)} agree"
                     if self.provers and len(self.provers) > 1 else "")
            tail = f"  [{self.scope_text()}{agree}]"
        out = [f"[{self.verdict.value}] {self.name}{tail}"]
        out += ["    " + d for d in self.details]
        if self.witness is not None:
            out.append("    witness: " + self.witness.describe())
        return out


def check_layer(name: str, layer, sequences, expected, rule=HARDMAX,
                details: list[str] | None = None) -> CheckResult:
    """VERIFIED iff the layer maps ``sequences`` exactly to ``expected`` (``(n_j, d)``
    per sequence; an entry ``None`` marks a token the statement says nothing about).
    The result keeps ``instance = (layer, sequences, expected)`` for certificates."""
    v, lines, w = layer_check(layer, sequences, expected, rule, details)
    res = CheckResult(name, v, lines, w, scope=Scope.INSTANCES if v is Verdict.VERIFIED else None)
    res.instance = (layer, sequences, expected)
    return res
