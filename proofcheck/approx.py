"""Short decimal approximations of exact rationals, for terminal and report text.

Parameter norms ``||theta*||^2`` of constructed networks are rationals with
hundreds or thousands of bits; ``float()`` of such a number overflows or loses
its exponent.  :func:`sig_digits` rounds an exact ``Fraction`` to a few
significant decimal digits with integer arithmetic only; the exact value always
goes into the JSON (reports, certificates) as a ``"p/q"`` string.  Used for
``||theta*||^2`` (SPEC §2, statement ``tikhonov``).  :func:`exponent_interval` turns a
reading off a log-scale plot into an exact interval of exponents (the published
Tikhonov figure, :mod:`proofcheck.io.figure_reader`; the rigorous enclosure of the
values is :func:`lemmas.ts.balls.value_interval`).
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product

from proofcheck.kernel.numbers import approx

def sig_digits(q, digits: int = 6) -> str:
    """``q`` rounded to ``digits`` significant decimal digits, written like ``%g``:
    the kernel's one formatter, :func:`proofcheck.kernel.numbers.approx`."""
    return approx(q, digits)


def size_text(q) -> str:
    """``"260-bit numerator / 175-bit denominator"`` (or ``"integer of 12 bits"``)."""
    q = Fraction(q)
    if q.denominator == 1:
        return f"integer of {abs(q.numerator).bit_length()} bits"
    return (f"{abs(q.numerator).bit_length()}-bit numerator / "
            f"{q.denominator.bit_length()}-bit denominator")


def approx_text(q, digits: int = 6) -> str:
    """``"≈ 1.63709e+25 (exact rational: 259-bit numerator / 175-bit denominator)"``;
    small values (at most 40 characters of ``p/q``) are printed exactly instead."""
    q = Fraction(q)
    if max(q.numerator.bit_length(), q.denominator.bit_length()) > 200:  # over 40 characters
        return f"≈ {sig_digits(q, digits)} (exact rational: {size_text(q)})"
    exact = str(q)
    if len(exact) <= 40:
        return f"= {exact}" + ("" if q.denominator == 1 else f" ≈ {sig_digits(q, digits)}")
    return f"≈ {sig_digits(q, digits)} (exact rational: {size_text(q)})"


THETA_CONVENTION = ("sum of squares of every stored scalar (the P counted ones: eta and rho "
                    "of every layer, U, b, W, and A, V as their factored entries lam, left, "
                    "right)")


def theta_line(net) -> str:
    """The ``||theta*||^2`` line printed next to P by ``theorem 1.6`` / ``1.8``
    (SPEC §2, tikhonov): ``net.sq_norm()`` of the network that was checked."""
    return (f"||theta*||^2 {approx_text(net.sq_norm())}  [sum of squares of the P stored "
            "scalars; with J(theta*) = 0: min J + eps ||theta||^2 <= eps ||theta*||^2]")


def theta_json(net) -> dict:
    """``||theta*||^2`` of ``net`` for a JSON report: the exact ``"p/q"`` string, a
    6-digit approximation, the bit sizes and the convention (SPEC §2, tikhonov)."""
    from proofcheck.kernel.numbers import format_q
    q = net.sq_norm()
    return {"exact": format_q(q), "approx": sig_digits(q), "numerator_bits":
            q.numerator.bit_length(), "denominator_bits": q.denominator.bit_length(),
            "convention": THETA_CONVENTION}


def theta_markdown(t: dict) -> str:
    """One Markdown phrase for the ``theta_sq_norm`` entry of a JSON report."""
    return (f"||θ*||² ≈ {t['approx']} (exact rational in the JSON report: "
            f"{t['numerator_bits']}-bit numerator / {t['denominator_bits']}-bit denominator; "
            f"{t['convention']})")


def exponent_interval(ka, ya, kb, yb, y, h) -> tuple[Fraction, Fraction]:
    """Exact interval of ``ka + (y - ya)(kb - ka)/(yb - ya)`` over every coordinate
    ``y, ya, yb`` moved by at most ``h`` (the function is monotone in each, so the
    extremes are at the corners).  Raises ``ZeroDivisionError`` if the ticks coincide."""
    vals = [ka + (y + e1 - ya - e2) * (kb - ka) / (yb + e3 - ya - e2)
            for e1, e2, e3 in product((-h, h), repeat=3)]
    return min(vals), max(vals)
