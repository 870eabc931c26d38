"""The ONE number parser (docs/spec.md §3 "Numbers"; the schemas' ``proofcheck-number`` format calls it)
and the ONE display form of a number (:func:`fmt_num`).  Accepted: JSON integers (any size),
strings ``"p/q"``, ``"-7"``, ``"0.125"``, ``".5"``, ``"1e-3"`` (no white space, neither around nor
inside), JSON floats as their exact binary value (flagged), Fractions.  ``BadInput`` with the JSON
path: booleans, null, containers, NaN/inf in any spelling, ``"1_0"``, zero denominators, exponents
above 10000, strings over 100000 characters.  :data:`NUMBER_PATTERN` is the schemas' grammar
(tested to match).  Digit strings beyond Python's 4300-digit limit are converted by
:func:`digits_to_int` and printed by :func:`int_to_digits` (divide and conquer, charged to the
work budget): the process-wide limit is never lifted."""
import math
import numbers
import re
from fractions import Fraction

from flint import fmpz

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.limits import charge

MAX_STRING_LENGTH = 100_000
MAX_EXPONENT = 10_000

_RATIONAL = re.compile(r"([+-]?[0-9]+)(?:/([0-9]+))?")  # an integer or p/q
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?", re.ASCII)
_NONFINITE = re.compile(r"[+-]?(nan|snan|qnan|inf|infinity)", re.IGNORECASE)

#: the accepted string spellings as one regular expression (used verbatim in
#: proofcheck/schemas/*.json; a test keeps both in step with the parser)
# no white space anywhere (" 1", "1 /2", "1\n"; (?!\n): Python's $ also matches before a final \n)
NUMBER_PATTERN = (r"^[+-]?(?:[0-9]+/[0-9]+|"
                  r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$(?!\n)")

#: digit strings up to this length go to ``int`` directly (CPython refuses more than 4300)
_CHUNK_DIGITS = 4000
#: integers up to this many bits go to ``str`` directly (13000 bits < 3914 digits)
_CHUNK_BITS = 13000


def digits_to_int(s: str) -> int:
    """The integer of ``s``, ASCII digits with an optional sign (the caller's grammar matched
    it: ``[+-]?[0-9]+``), without CPython's 4300-digit limit and without lifting it: a long
    string is converted by FLINT (``fmpz``, subquadratic; CPython's own conversion is
    quadratic).  A string over 4000 digits charges its bits to the work budget
    (:func:`proofcheck.kernel.limits.charge`)."""
    if len(s) <= _CHUNK_DIGITS:
        return int(s)
    charge(len(s) * 3322 // 1000, "the value of a long digit string")
    n = int(fmpz(s.lstrip("+-")))
    return -n if s[0] == "-" else n


_SHORT_INT = 1 << _CHUNK_BITS  # |n| below it: str(n) has fewer than 3914 digits


def int_to_digits(n: int) -> str:
    """``str(n)`` for any integer, without CPython's 4300-digit limit and without lifting it:
    a long integer is written by FLINT (``fmpz.str``, subquadratic; CPython's ``str`` and
    ``divmod`` are quadratic in the size)."""
    if n.bit_length() <= _CHUNK_BITS:
        return str(n)
    return fmpz(n).str()


if hasattr(Fraction, "_from_coprime_ints"):  # Python >= 3.12
    coprime_fraction = Fraction._from_coprime_ints
else:  # Python 3.11: the same constructor without the gcd
    def coprime_fraction(p: int, q: int) -> Fraction:
        """``Fraction(p, q)`` for ``p``, ``q`` already coprime with ``q > 0`` (an ``fmpq``'s
        numerator and denominator), without recomputing their gcd (quadratic in CPython)."""
        return Fraction(p, q, _normalize=False)


def parse_string(raw: str, path: str | None = None, what: str = "value") -> Fraction:
    """The rational a number string spells (docs/spec.md §3: ``"p/q"``, an integer, a decimal with an
    optional exponent; the grammar :data:`NUMBER_PATTERN`); ``BadInput`` at ``path`` (``what``
    names the value) for any other string, a zero denominator, an exponent over
    :data:`MAX_EXPONENT` or more than :data:`MAX_STRING_LENGTH` characters."""
    if len(raw) > MAX_STRING_LENGTH:
        raise BadInput(f"{what} is a string of {len(raw)} characters "
                       f"(limit {MAX_STRING_LENGTH})", path)
    m = _RATIONAL.fullmatch(raw)
    if m:
        if m.group(2) is None:
            return Fraction(digits_to_int(raw))
        den = digits_to_int(m.group(2))
        if den == 0:
            raise BadInput(f"{what} has a zero denominator ({_short(raw)})", path)
        return Fraction(digits_to_int(m.group(1)), den)
    m = _DECIMAL.fullmatch(raw)
    if m and (m.group(2) or m.group(3)):
        return _decimal(m, raw, path, what)
    raise _not_a_number(raw, path, what)


def _short(raw: str) -> str:
    return repr(raw if len(raw) <= 40 else raw[:40] + "...")


def _decimal(m, raw: str, path: str | None, what: str) -> Fraction:
    """The value of a decimal string matched by ``_DECIMAL``."""
    sign, ipart, fpart, exp = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    e = 0
    if exp is not None:
        digits = exp.lstrip("+-").lstrip("0")
        if len(digits) > 6 or int(digits or "0") > MAX_EXPONENT:
            raise BadInput(f"{what} has a decimal exponent larger than {MAX_EXPONENT} "
                           f"in absolute value ({_short(raw)})", path)
        e = int(exp)  # "1e-9999": 33,000 bits from 7 characters, charged to the check
        charge(abs(e) * 3322 // 1000, "the value of a decimal exponent")
    mant = digits_to_int((ipart + fpart) or "0")
    if sign == "-":
        mant = -mant
    scale = e - len(fpart)
    return Fraction(mant * 10 ** scale) if scale >= 0 else Fraction(mant, 10 ** -scale)


def _not_a_number(raw: str, path: str | None, what: str) -> BadInput:
    if _NONFINITE.fullmatch(raw):
        return BadInput(f"{what} is not a finite number ({_short(raw)})", path)
    space = next((i for i, ch in enumerate(raw) if ch.isspace()), None)
    return BadInput(f"{what} is not a number ({_short(raw)}); " + (
        "expected an integer, 'p/q' or a decimal such as '0.125' or '1e-3'" if space is None
        else f"white space at index {space} (numbers are written without it)"), path)


def parse_number(value, path: str, what: str = "value") -> tuple[Fraction, bool]:
    """``(q, was_float)``: one JSON number or numeric string exactly (``was_float``:
    a binary float, read as its exact value); ``what`` names it in messages."""
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):
        raise BadInput(f"{what} is a boolean ({value!r}), expected a number", path)
    if isinstance(value, Fraction):
        return value, False
    if isinstance(value, numbers.Integral):
        return Fraction(int(value)), False
    if isinstance(value, str):
        return parse_string(value, path, what), False
    if isinstance(value, float) or (isinstance(value, numbers.Real)
                                    and hasattr(value, "as_integer_ratio")):
        if not math.isfinite(value):
            raise BadInput(f"{what} is not a finite number ({value!r})", path)
        p, q = value.as_integer_ratio()
        return Fraction(int(p), int(q)), True
    kind = ("is null" if value is None else "is a list" if isinstance(value, (list, tuple)) else
            "is an object" if isinstance(value, dict) else
            f"has unsupported type {type(value).__name__}")
    raise BadInput(f"{what} {kind}, expected a number", path)


def parse_exact(value, path: str, what: str = "value") -> Fraction:
    """A value that must be exact (JSON integer, number string, Fraction): a JSON
    float is ``BadInput`` too (a certificate never carries one)."""
    if type(value) is Fraction:  # read already (proofcheck.kernel.reader)
        return value
    if isinstance(value, float) or (not isinstance(value, (int, str, Fraction))
                                    and isinstance(value, numbers.Real)
                                    and not isinstance(value, numbers.Integral)):
        raise BadInput(f"{what} is a JSON float ({value!r}); an exact value is required "
                       "(a JSON integer or a string such as '1/3')", path)
    q, _ = parse_number(value, path, what)
    return q


def format_q(q: Fraction) -> str:
    """Exact text ``"p"`` or ``"p/q"`` (``q > 0``), inverse of ``parse_number``; any size
    (:func:`int_to_digits`)."""
    if type(q) is not Fraction:
        q = Fraction(q)
    n, d = q.numerator, q.denominator
    if -_SHORT_INT < n < _SHORT_INT and d < _SHORT_INT:  # str() writes them (the usual case)
        return str(n) if d == 1 else f"{n}/{d}"
    p = int_to_digits(n)
    return p if d == 1 else f"{p}/{int_to_digits(d)}"


# ------------------------------------------------------------------ display
#: values whose exact text has at most this many characters are printed exactly
SHORT = 24


def approx(q, sig: int = 6) -> str:
    """``q`` rounded to ``sig`` significant digits, half away from zero, written like
    ``%g`` (``1.23457e+45``, ``61.2345``): an exactly rounded ``decimal`` quotient, so
    no overflow and no float."""
    if sig < 1:
        raise ValueError(f"sig must be at least 1 (got {sig})")
    q = Fraction(q)
    if q == 0:
        return "0"
    dg, e = _leading_digits(abs(q.numerator), q.denominator, sig)
    ds, sign = dg.rstrip("0") or "0", "-" * (q < 0)
    if -4 <= e < sig:
        whole, frac = (ds[:e + 1].ljust(e + 1, "0"), ds[e + 1:]) if e >= 0 else \
            ("0", "0" * (-e - 1) + ds)
        return sign + whole + ("." + frac if frac else "")
    return f"{sign}{ds[0]}{'.' + ds[1:] if ds[1:] else ''}e{'+' if e >= 0 else '-'}{abs(e):02d}"


def _leading_digits(p: int, q: int, sig: int) -> tuple[str, int]:
    """``(digits, e)``: ``p / q > 0`` rounded half up to ``sig`` significant digits is
    ``0.digits x 10^(e + 1)`` (``digits`` has ``sig`` characters).  In integers: ``e =
    floor(log10(p / q))`` from the bit lengths (``p / q`` lies in ``(2^(D-1), 2^(D+1))``, ``D``
    their difference), corrected by exact comparisons; then one division whose quotient has
    ``sig`` digits.  Big products and powers in FLINT (``fmpz``: subquadratic)."""
    e = math.floor((p.bit_length() - q.bit_length()) * 0.30102999566398120) - 2  # below it
    P, Q = fmpz(p), fmpz(q)
    while _scaled_ge(P, Q, e + 1):
        e += 1
    k = sig - 1 - e  # p / q * 10^k has sig digits before the point
    num, den = (P * fmpz(10) ** k, Q) if k >= 0 else (P, Q * fmpz(10) ** -k)
    n, r = divmod(num, den)
    if 2 * r >= den:  # half up
        n += 1
    if n == 10 ** sig:  # 9.99..95 rounded up to 10.0...
        n, e = fmpz(10) ** (sig - 1), e + 1
    return str(int(n)), e


def _scaled_ge(p, q, e: int) -> bool:
    """``p / q >= 10^e`` exactly (``fmpz``)."""
    return p >= q * fmpz(10) ** e if e >= 0 else p * fmpz(10) ** -e >= q


def _exact(v) -> Fraction:
    """Fraction of a Fraction, int, fmpq/fmpz, finite float or mpf; else ``TypeError``."""
    t = type(v).__name__
    if t == "fmpq":
        return Fraction(int(v.p), int(v.q))
    if t == "mpf":
        man, exp = map(int, v.man_exp)
        return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)
    if isinstance(v, float) and not math.isfinite(v):
        raise TypeError("not finite")
    return Fraction(int(v)) if t == "fmpz" else Fraction(v)


def fmt_num(v, sig: int = 6) -> str:
    """The ONE display form of a number (it decides nothing): the exact text when at
    most :data:`SHORT` characters, else ``≈`` :func:`approx` and the exact value's bit
    sizes; tuples elementwise; strings, ``None`` and non-numbers (an arb ball) as ``str``."""
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(fmt_num(x, sig) for x in v) + ")"
    if v is None or isinstance(v, (str, bool)):
        return str(v)
    try:
        v = _exact(v)
    except (TypeError, ValueError, OverflowError):
        return str(v)
    p, q = abs(v.numerator), v.denominator
    if p.bit_length() <= 80 and q.bit_length() <= 80:  # else the text has over 24 digits
        exact = format_q(v)
        if len(exact) <= SHORT:
            return exact
    size = (f"{p.bit_length()}-bit integer" if q == 1 else
            f"{p.bit_length()}-bit / {q.bit_length()}-bit rational")
    return f"≈{approx(v, sig)} (exact: {size})"


def positive_tau(sem) -> Fraction:
    """``sem["tau"]`` exactly; ``BadInput`` at ``$.semantics.tau`` unless it is positive."""
    tau = parse_exact(sem["tau"], "$.semantics.tau", "tau")
    if tau <= 0:
        raise BadInput(f"tau must be positive (got {fmt_num(tau)})", "$.semantics.tau")
    return tau
