"""Binary floating-point formats and exact nearest-rounding of rationals to them.

``round_q(q, fmt)`` rounds a rational to the NEAREST value of a binary floating
point format (IEEE 754 round-half-to-even, gradual underflow), computed in exact
integer arithmetic — never through a float64 intermediate, so there is no double
rounding for binary32 or bfloat16 — and returns the exact ``Fraction`` of the float.
Used by the float-safe construction options (``proofcheck.constructions.afz.options``) and
by the exporters and the certified-rounding check (``proofcheck.frontend.export.rounding``).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: ``precision`` significand bits (hidden bit
    included), exponent range ``[emin, emax]`` of normal numbers (value
    ``1.f * 2^e``)."""

    name: str
    precision: int
    emin: int
    emax: int

    @property
    def max_finite(self) -> Fraction:
        return Fraction((1 << self.precision) - 1) * Fraction(2) ** (self.emax - self.precision + 1)

    @property
    def min_subnormal(self) -> Fraction:
        return Fraction(2) ** (self.emin - self.precision + 1)


FORMATS = {
    "float64": FloatFormat("float64", 53, -1022, 1023),
    "float32": FloatFormat("float32", 24, -126, 127),
    "bfloat16": FloatFormat("bfloat16", 8, -126, 127),
    "float16": FloatFormat("float16", 11, -14, 15),
}

class FormatOverflow(ArithmeticError):
    """A rational whose nearest-rounding in the format is infinite."""


def get_format(name: str) -> FloatFormat:
    """The format named ``name`` (``float64``, ``float32``, ``bfloat16``, ``float16``);
    raises ``KeyError``."""
    return FORMATS[name]


def round_q(q, fmt: FloatFormat) -> Fraction:
    """Nearest ``fmt`` value of the rational ``q`` (ties to even), as an exact Fraction.

    Raises :class:`FormatOverflow` when the rounded magnitude exceeds
    ``fmt.max_finite`` (IEEE: the result would be infinite)."""
    q = q if type(q) is Fraction else Fraction(q)
    n, d = q.numerator, q.denominator
    if n == 0:
        return Fraction(0)
    negative = n < 0
    n = -n if negative else n
    # e = floor(log2 |q|)
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    e = max(e, fmt.emin)                      # subnormal range: fixed quantum
    shift = fmt.precision - 1 - e             # |q| * 2^shift has < 2^precision integer part
    if shift >= 0:
        num, den = n << shift, d
    else:
        num, den = n, d << (-shift)
    m, rem = divmod(num, den)
    if 2 * rem > den or (2 * rem == den and m & 1):
        m += 1
    if m == 0:
        return Fraction(0)
    # the value m * 2^-shift has exponent bit_length(m) - 1 - shift; beyond emax
    # it exceeds the largest finite value (m < 2^precision after rounding up to
    # a power of two just moves to the next binade)
    if m.bit_length() - 1 - shift > fmt.emax:
        raise FormatOverflow(f"{'-' if negative else ''}{short_decimal(abs(q))} overflows "
                             f"{fmt.name} (largest finite {short_decimal(fmt.max_finite)})")
    r = Fraction(m, 1 << shift) if shift >= 0 else Fraction(m << (-shift))
    return -r if negative else r


def is_representable(q, fmt: FloatFormat) -> bool:
    """True iff the rational ``q`` is exactly a finite ``fmt`` value."""
    try:
        return round_q(q, fmt) == Fraction(q)
    except FormatOverflow:
        return False


def to_float(q, fmt: FloatFormat) -> float:
    """``round_q(q, fmt)`` as a Python float (exact: every format here is a subset of
    binary64); ``+-inf`` on overflow."""
    try:
        return float(round_q(q, fmt))
    except FormatOverflow:
        return float("inf") if Fraction(q) > 0 else float("-inf")


def short_decimal(q: Fraction) -> str:
    """A short decimal approximation of a (possibly huge) positive rational."""
    n, d = q.numerator, q.denominator
    e10 = len(str(n)) - len(str(d))
    try:
        return f"{float(q):.6g}"
    except OverflowError:
        return f"~1e{e10}"
