"""Typed verdicts, witnesses and exit codes (docs/spec.md §5).  A verdict is never derived from a
floating-point comparison: ``VERIFIED`` means an exact check passed; ``REFUTED`` always carries
a replayable witness."""
import enum
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from proofcheck.kernel.numbers import fmt_num, format_q


class Verdict(enum.Enum):
    VERIFIED = "VERIFIED"
    VERIFIED_CERTIFIED = "VERIFIED-CERTIFIED"
    REFUTED = "REFUTED"
    INCONCLUSIVE = "INCONCLUSIVE"
    ERROR = "ERROR"
    # the check stopped at a resource bound (proofcheck.kernel.limits): nothing decided
    RESOURCE_LIMIT = "RESOURCE-LIMIT"

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self]

    @property
    def passed(self) -> bool:
        return self in (Verdict.VERIFIED, Verdict.VERIFIED_CERTIFIED)


class Scope(enum.Enum):
    """What a passing check established (README "Scopes", docs/spec.md §5)."""

    ALL_PARAMETERS = "for all parameters"  # symbolic, on the returned layer
    EVERY_TOKEN = "for every token of the stated layers"  # conclusion re-derived from data
    DATASET = "on this dataset"  # exact evaluation of every pair of the dataset
    INSTANCES = "on these instances only"  # the stated maps, not the statement

    @property
    def rederived(self) -> bool:
        """True when the statement's conclusion itself was established."""
        return self is not Scope.INSTANCES


EXIT_CODES = {Verdict.VERIFIED: 0, Verdict.VERIFIED_CERTIFIED: 0, Verdict.REFUTED: 1,
              Verdict.INCONCLUSIVE: 3, Verdict.ERROR: 4, Verdict.RESOURCE_LIMIT: 4}
EXIT_BAD_INPUT = 2
#: worst first: the verdict of a conjunction of checks is its worst one
ORDER = [Verdict.ERROR, Verdict.RESOURCE_LIMIT, Verdict.REFUTED, Verdict.INCONCLUSIVE,
         Verdict.VERIFIED_CERTIFIED, Verdict.VERIFIED]


def combine(verdicts) -> Verdict:
    """The worst of ``verdicts`` (:data:`ORDER`); an empty conjunction is ERROR
    (nothing was checked: fail closed)."""
    return min(verdicts, key=ORDER.index, default=Verdict.ERROR)


def plural(k: int, word: str) -> str:
    """``"1 pair"``, ``"3 pairs"``: a count with its noun in agreement (regular plurals)."""
    return f"{k} {word}" + ("" if k == 1 else "s")


def fmt_value(v: Any) -> str:
    """Exact text of a number or token: ``p/q`` strings, tuples as ``(a, b)``."""
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(fmt_value(x) for x in v) + ")"
    return format_q(v) if isinstance(v, Fraction) else str(v)


def escape(s, limit: int = 200) -> str:
    """An input's string as printable text: control, format and separator characters
    (newline, ESC, zero-width space, ...) escaped, cut at ``limit`` characters, so no
    input can start a line or hide text on a terminal."""
    s = str(s)
    out = "".join(ch.encode("unicode_escape").decode("ascii")
                  if ch == "\\" or (unicodedata.category(ch)[0] in "CZ" and ch != " ") else ch
                  for ch in s[:limit])
    return out + ("..." if len(s) > limit else "")


@dataclass
class Witness:
    """Where an exact check failed: ``block`` 1-based, ``sublayer`` ``"FF"``/``"SA"``,
    ``sequence``/``token``/``coordinate`` 0-based, exact ``expected``/``got``; ``code``
    the stable name of the kind of failure (``"output-not-target"``, ...): the reason
    is prose and may change; ``head`` 1-based, for a multi-head SA layer (last field)."""

    reason: str
    block: int | None = None
    sublayer: str | None = None
    sequence: int | None = None
    token: int | None = None
    coordinate: int | None = None
    expected: Any = None
    got: Any = None
    code: str = ""
    head: int | None = None

    def describe(self) -> str:
        loc = ", ".join(f"{name} {v}" for name, v in (
            ("block", self.block), ("sub-layer", self.sublayer), ("head", self.head),
            ("sequence", self.sequence),
            ("token", self.token), ("coordinate", self.coordinate)) if v is not None)
        s = self.reason + (f" at {loc}" if loc else "")
        vals = [f"{k} {fmt_num(v)}" for k, v in (("expected", self.expected), ("got", self.got))
                if v is not None]
        s += (": " + ", ".join(vals)) if vals else ""
        return s


class Stop(Exception):
    """A check ends here with ``verdict`` and ``witness`` (a failed step of the softmax pass, of
    an SA lemma's re-derivation)."""

    def __init__(self, verdict: Verdict, witness: Witness):
        super().__init__(witness.reason)
        self.verdict, self.witness = verdict, witness
