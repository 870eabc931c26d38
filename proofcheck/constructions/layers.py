"""Layer builders of the constructions (untrusted; ``verify`` needs none): exact vectors
(:func:`vec`) and the identity sub-layers."""
from fractions import Fraction

from proofcheck.kernel.model import FF, SA, Factored, Vec, reject


def vec(xs) -> Vec:
    """Tuple of Fractions from any iterable of ints/Fractions/strings.  Raises
    :class:`ParameterError` if ``xs`` is not an iterable of such numbers."""
    try:
        return tuple(Fraction(x) for x in xs)
    except (TypeError, ValueError):
        raise reject("vec", "xs", "an iterable of rationals (ints, Fractions, numeric strings)",
                      xs) from None


def identity_ff() -> FF:
    return FF(Fraction(1), label="identity")


def identity_sa() -> SA:
    return SA(Fraction(1), Factored(Fraction(0)), Factored(Fraction(0)), label="identity")
