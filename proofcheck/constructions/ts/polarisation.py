"""G.1 (Takakura–Suzuki, proof of Theorem 5.2, Appendix G, "式変形1"): polarisation
identity for squared distances.

The seed states

    | ||x - y||^2 - ||z - y||^2 | = <x - z, x + z - 2y>        (with absolute value)

and then proves, by expanding both sides, the identity WITHOUT the absolute value:

    ||x - y||^2 - ||z - y||^2 = <x - z, x + z - 2y>.

Decisions:

* The identity without absolute value is VERIFIED by sympy in every dimension: the
  difference of the two sides is a sum over coordinates of
  ``(x_i - y_i)^2 - (z_i - y_i)^2 - (x_i - z_i)(x_i + z_i - 2 y_i)``, and that summand
  expands to 0 (so the sum vanishes for every d); also checked on explicit symbolic
  vectors in R^3 and on seeded exact rational vectors.
* The displayed form with the absolute value on the left only is FALSE in general:
  the right side changes sign when x and z are swapped, the left does not.  REFUTED
  with an exact rational witness (seeded vectors with ``<x - z, x + z - 2y> < 0``).
* What holds with absolute values is ``| ||x-y||^2 - ||z-y||^2 | = |<x - z, x + z - 2y>|``
  and hence (Cauchy–Schwarz) ``<= ||x - z|| ||x + z - 2y||`` — presumably the use made
  of it in the paper.  VERIFIED (sympy; Cauchy–Schwarz through Lagrange's identity in
  R^3, and exactly on the seeded vectors, squared to stay rational).

Readings (``READINGS``, docs/spec.md §2): the default is the identity without absolute value
(the note's own expansion proves exactly that; the one-sided ``|.|`` of its display is
a transcription slip): ``lemma G.1`` is VERIFIED and prints the literal display as a
note with its witness.  ``lemma G.1 --reading literal`` checks the display as written:
REFUTED with the witness (exit 1).

Conventions: Euclidean inner product ``<a, b> = sum_i a_i b_i`` on R^d and
``||a||^2 = <a, a>``; vectors with rational entries for the exact checks.
"""
from __future__ import annotations

import random
from fractions import Fraction

from proofcheck.constructions.ts.readings import note, resolve
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value

ID = "G.1"

READINGS = {
    "identity": "||x-y||^2 - ||z-y||^2 = <x-z, x+z-2y>, the note's expansion (default)",
    "literal": "the note's display | ||x-y||^2 - ||z-y||^2 | = <x-z, x+z-2y>, |.| on the "
               "left only",
}

CONVENTIONS = [
    "convention: Euclidean inner product <a, b> = sum_i a_i b_i on R^d, ||a||^2 = <a, a>",
    "convention: reading 'identity' (default): the identity without absolute value, as the "
    "note's expansion proves it; reading 'literal': the note's display with |.| on the left "
    "only (false); what holds with |.| is |lhs| = |rhs| (verified)",
]


def dot(a, b) -> Fraction:
    return sum((Fraction(p) * q for p, q in zip(a, b)), Fraction(0))


def sub(a, b):
    return tuple(Fraction(p) - q for p, q in zip(a, b))


def sides(x, y, z) -> tuple[Fraction, Fraction]:
    """Exact ``(||x-y||^2 - ||z-y||^2, <x - z, x + z - 2y>)``."""
    xy, zy = sub(x, y), sub(z, y)
    lhs = dot(xy, xy) - dot(zy, zy)
    rhs = dot(sub(x, z), tuple(Fraction(a) + c - 2 * b for a, b, c in zip(x, y, z)))
    return lhs, rhs


def symbolic() -> CheckResult:
    import sympy as sp

    from proofcheck.constructions.provers.symbolic import ProofSteps, is_zero
    proof = ProofSteps()
    need = proof.need
    i = sp.Symbol("i", integer=True)
    d = sp.Symbol("d", integer=True, positive=True)
    X, Y, Z = sp.IndexedBase("x"), sp.IndexedBase("y"), sp.IndexedBase("z")
    summand = (X[i] - Y[i]) ** 2 - (Z[i] - Y[i]) ** 2 - (X[i] - Z[i]) * (X[i] + Z[i] - 2 * Y[i])
    need(sp.expand(summand) == 0,
         "every d: sum_{i<=d} [(x_i-y_i)^2 - (z_i-y_i)^2 - (x_i-z_i)(x_i+z_i-2y_i)], "
         "summand expands to 0")
    need(sp.Sum(sp.expand(summand), (i, 1, d)).doit() == 0, "so the sum over i = 1..d is 0")
    x = sp.Matrix(sp.symbols("x1:4", real=True))
    y = sp.Matrix(sp.symbols("y1:4", real=True))
    z = sp.Matrix(sp.symbols("z1:4", real=True))
    lhs = (x - y).dot(x - y) - (z - y).dot(z - y)
    rhs = (x - z).dot(x + z - 2 * y)
    need(is_zero(lhs - rhs), "d = 3, explicit vectors: ||x-y||^2 - ||z-y||^2 = <x-z, x+z-2y>")
    need(is_zero(sp.Abs(lhs) - sp.Abs(sp.expand(rhs))) or sp.expand(lhs) == sp.expand(rhs),
         "hence |lhs| = |<x-z, x+z-2y>|")
    a, b = x - z, x + z - 2 * y
    lag = sum((a[p] * b[q] - a[q] * b[p]) ** 2 for p in range(3) for q in range(p + 1, 3))
    need(is_zero(a.dot(a) * b.dot(b) - rhs ** 2 - lag),
         "Lagrange: ||a||^2 ||b||^2 - <a,b>^2 = sum_{p<q} (a_p b_q - a_q b_p)^2 >= 0, so "
         "|lhs| <= ||x-z|| ||x+z-2y|| (Cauchy-Schwarz)")
    return proof.result("G.1 for all parameters (symbolic: sympy, every dimension d): ||x-y||^2 - ||z-y||^2 = "
                       "<x - z, x + z - 2y>",
                       CONVENTIONS + ["method: sympy; coordinatewise expansion (IndexedBase, "
                                      "symbolic d) and explicit vectors in R^3"])


def instances(seed: int = 0, count: int = 20, dim: int = 3):
    rng = random.Random(seed)
    r = lambda: Fraction(rng.randint(-9, 9), rng.randint(1, 5))  # noqa: E731
    return [tuple(tuple(r() for _ in range(dim)) for _ in range(3)) for _ in range(count)]


def exact_instances(seed: int = 0) -> CheckResult:
    name = "G.1 on these exact instances: identity, |lhs| = |rhs| and Cauchy-Schwarz on rational vectors"
    insts = instances(seed)
    for k, (x, y, z) in enumerate(insts):
        lhs, rhs = sides(x, y, z)
        a, b = sub(x, z), tuple(p + q - 2 * w for p, w, q in zip(x, y, z))
        if lhs != rhs or abs(lhs) != abs(rhs) or lhs ** 2 > dot(a, a) * dot(b, b):
            return CheckResult(name, Verdict.REFUTED, [f"x = {fmt_value(x)}, y = {fmt_value(y)}, "
                                                       f"z = {fmt_value(z)}"],
                               Witness("identity fails", sequence=k, expected=lhs, got=rhs))
    return CheckResult(name, Verdict.VERIFIED,
                       ["method: exact rational arithmetic (Fractions); Cauchy-Schwarz squared: "
                        "lhs^2 <= ||x-z||^2 ||x+z-2y||^2",
                        f"{len(insts)} seeded instances in Q^3 (seed {seed})"])


def absolute_value_witness(seed: int = 0):
    """Seeded rational vectors with ``<x - z, x + z - 2y> < 0`` (swap x and z if the
    first draw is positive; redraw if it is 0)."""
    for x, y, z in instances(seed, 50):
        _, rhs = sides(x, y, z)
        if rhs > 0:
            x, z = z, x
        if rhs != 0:
            return x, y, z
    return (Fraction(0),), (Fraction(0),), (Fraction(1),)  # pragma: no cover


def absolute_value_reading(seed: int = 0, witness=None) -> CheckResult:
    name = ("G.1 seed's displayed form | ||x-y||^2 - ||z-y||^2 | = <x - z, x + z - 2y> "
            "is FALSE (absolute value on one side only)")
    x, y, z = witness or absolute_value_witness(seed)
    lhs, rhs = sides(x, y, z)
    det = ["method: exact rational witness",
           "reading 'literal' is a variant: the identity holds without |.| (the default "
           "reading, VERIFIED) and with |.| on both sides",
           f"x = {fmt_value(x)}, y = {fmt_value(y)}, z = {fmt_value(z)}",
           f"||x-y||^2 - ||z-y||^2 = {fmt_value(lhs)}; <x-z, x+z-2y> = {fmt_value(rhs)}"]
    if abs(lhs) == rhs:
        return CheckResult(name.replace("is FALSE", "holds on this instance"), Verdict.VERIFIED, det)
    return CheckResult(name, Verdict.REFUTED, det,
                       Witness("| ||x-y||^2 - ||z-y||^2 | differs from <x-z, x+z-2y> "
                               "(expected = left side, got = right side)",
                               expected=abs(lhs), got=rhs))


def run(dataset=None, seed: int = 0, reading: str | None = None):
    """G.1 under ``reading`` (``READINGS``; default ``identity``): the sympy identity
    (every d) and exact instances, with the literal display as a note; or, for
    ``literal``, the display REFUTED with its witness (``dataset`` ignored).
    Raises ``ValueError`` for an unknown reading."""
    reading = resolve(READINGS, reading)
    if reading == "literal":
        return [symbolic(), absolute_value_reading(seed)]
    return [symbolic(), exact_instances(seed),
            note(ID, "literal", READINGS["literal"], absolute_value_reading(seed))]
