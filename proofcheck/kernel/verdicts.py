"""Typed verdicts, witnesses and exit codes (SPEC §5).

A verdict is never derived from a floating-point comparison.  ``VERIFIED`` means
an exact check passed; ``REFUTED`` always carries a replayable witness.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


class Verdict(enum.Enum):
    VERIFIED = "VERIFIED"
    VERIFIED_CERTIFIED = "VERIFIED-CERTIFIED"
    REFUTED = "REFUTED"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self]

    @property
    def passed(self) -> bool:
        return self in (Verdict.VERIFIED, Verdict.VERIFIED_CERTIFIED)


EXIT_CODES = {
    Verdict.VERIFIED: 0,
    Verdict.VERIFIED_CERTIFIED: 0,
    Verdict.REFUTED: 1,
    Verdict.INCONCLUSIVE: 3,
    Verdict.ERROR: 4,
}
EXIT_BAD_INPUT = 2


def combine(verdicts) -> Verdict:
    """The verdict of a conjunction of checks: the worst one wins.

    Order (worst first): ERROR, REFUTED, INCONCLUSIVE, VERIFIED-CERTIFIED, VERIFIED.
    An empty conjunction is ERROR (nothing was checked: fail closed).
    """
    order = [Verdict.ERROR, Verdict.REFUTED, Verdict.INCONCLUSIVE,
             Verdict.VERIFIED_CERTIFIED, Verdict.VERIFIED]
    vs = list(verdicts)
    if not vs:
        return Verdict.ERROR
    return min(vs, key=order.index)


def fmt_value(v: Any) -> str:
    """Exact text of a number or token: ``p/q`` strings, tuples as ``(a, b)``."""
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(fmt_value(x) for x in v) + ")"
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return str(v)


@dataclass
class Witness:
    """Where an exact check failed.

    ``block`` is 1-based, ``sublayer`` is ``"FF"`` or ``"SA"`` (or ``None`` for a
    check on the final outputs), ``sequence``/``token``/``coordinate`` are 0-based
    indices; ``expected``/``got`` are exact values (Fractions or tuples of them).
    """

    reason: str
    block: int | None = None
    sublayer: str | None = None
    sequence: int | None = None
    token: int | None = None
    coordinate: int | None = None
    expected: Any = None
    got: Any = None

    def describe(self) -> str:
        parts = []
        if self.block is not None:
            parts.append(f"block {self.block}")
        if self.sublayer is not None:
            parts.append(f"sub-layer {self.sublayer}")
        if self.sequence is not None:
            parts.append(f"sequence {self.sequence}")
        if self.token is not None:
            parts.append(f"token {self.token}")
        if self.coordinate is not None:
            parts.append(f"coordinate {self.coordinate}")
        loc = ", ".join(parts)
        s = self.reason + (f" at {loc}" if loc else "")
        if self.expected is not None or self.got is not None:
            s += f": expected {fmt_value(self.expected)}, got {fmt_value(self.got)}"
        return s

    def to_json(self) -> dict:
        return {k: (fmt_value(v) if k in ("expected", "got") and v is not None else v)
                for k, v in self.__dict__.items()}


@dataclass
class CheckResult:
    """Outcome of one named check: verdict, human-readable lines, optional witness."""

    name: str
    verdict: Verdict
    details: list[str] = field(default_factory=list)
    witness: Witness | None = None
    # a lemma's own data for a certificate instance (exact values; SPEC §3), see
    # proofcheck.kernel.lemma_checks
    data: dict | None = None

    def lines(self) -> list[str]:
        out = [f"[{self.verdict.value}] {self.name}"]
        out += ["    " + d for d in self.details]
        if self.witness is not None:
            out.append("    witness: " + self.witness.describe())
        return out
