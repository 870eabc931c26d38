"""Certificate numbers as Coq literals, by transcription only (docs/architecture/coq.md, "Spellings").

The spellings of docs/spec.md §3 map to literals of ``cert_scope`` (coq/theories/Semantics.v), whose
parser keeps every digit; Coq computes their values:

* a JSON integer ``-12``: its decimal digits, ``(-12)``;
* ``"p/q"``: ``(p/q)`` with a leading ``+`` dropped (``"+3/6"`` -> ``(3/6)``); a denominator
  of zeros only is refused;
* ``"-7"``, ``"0.125"``, ``"1.5e-3"``, ``"2E+4"``: the same characters, except a leading ``+``
  dropped, ``"0"`` written before a bare fraction (``".5"`` -> ``0.5``) and a dot without
  fractional digits dropped (``"5."`` -> ``5``, ``"5.e3"`` -> ``5e3``);

a negative literal is written in parentheses (``(-7)``), as every fraction is; a zero is
written without its sign (``"-0.0"`` -> ``0.0``: the value is 0, and Coq has no negative-zero
literal); a JSON integer is written by the kernel's digit routine (any length).

Anything else (a JSON float, a boolean, white space, another character) is ``BadInput``
(exit 2) with its JSON path: nothing is converted by arithmetic."""
import re

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import int_to_digits

_FRACTION = re.compile(r"([+-]?)([0-9]+)/([0-9]+)", re.ASCII)
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:([eE])([+-]?[0-9]+))?", re.ASCII)
#: longest number string transcribed (the project's limit, docs/spec.md §3)
MAX_CHARS = 100_000


def _sign(sign: str, digits: str) -> str:
    """The sign written: ``-`` for a negative number; nothing for ``+`` and for a zero
    (``"-0"``, ``"-0.0e5"``, ``"-00/3"`` are 0, and Coq reads no negative zero literal)."""
    return "-" if sign == "-" and digits.strip("0") else ""


def _signed(text: str) -> str:
    """A negative literal in parentheses: as an argument, ``f -1`` would read as ``f - 1``."""
    return f"({text})" if text.startswith("-") else text


def literal(value, path: str) -> str:
    """The Coq literal of one certificate number (see the module docstring)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        kind = "a JSON float" if isinstance(value, float) else type(value).__name__
        raise BadInput(f"{kind} cannot be transcribed to Coq syntactically (an exact integer "
                       "or a number string is required)", path)
    if isinstance(value, int):  # the JSON reader's int; any length (not str(): 4300 digits)
        return _signed(int_to_digits(value))
    if len(value) > MAX_CHARS:
        raise BadInput(f"a number string of {len(value)} characters (limit {MAX_CHARS})", path)
    m = _FRACTION.fullmatch(value)
    if m:
        sign, p, q = m.groups()
        if set(q) == {"0"}:
            raise BadInput(f"zero denominator in {value[:40]!r}", path)
        return f"({_sign(sign, p)}{p}/{q})"
    m = _DECIMAL.fullmatch(value)
    if m and (m.group(2) or m.group(3)):
        sign, whole, frac, e, exp = m.groups()
        text = _sign(sign, (whole or "") + (frac or "")) + (whole or "0") + (f".{frac}" if frac else "")
        return _signed(text + (e + exp if e else ""))
    raise BadInput(f"{value[:40]!r} is not a number spelling this route transcribes "
                   "(integer, 'p/q' or decimal)", path)
