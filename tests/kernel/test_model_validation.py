"""Input validation of the model classes and helpers (proofcheck.kernel.model):
every malformed argument is rejected at entry with a ParameterError naming the
routine, the parameter and what was expected; every generic scalar type the
constructions use (Fraction, int, sympy expressions, python-flint fmpq) passes."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from proofcheck.constructions.claims import Collapse
from proofcheck.constructions.layers import vec
from proofcheck.kernel.model import FF, SA, Block, Factored, ParameterError, dot

Z2 = (F(0), F(0))
E0 = (F(1), F(0))


def _ff(**kw):
    args = dict(eta=F(1), U=(E0, E0), b=(F(0), F(1)), W=(E0, Z2))
    args.update(kw)
    return FF(**args)


BAD = [
    (lambda: _ff(eta=None), "FF: eta must be a scalar (rational or symbolic), got None"),
    (lambda: _ff(eta=(F(1),)), "FF: eta must be a scalar (rational or symbolic), got (Fraction(1, 1),)"),
    (lambda: _ff(U=None), "FF: U must be a tuple of vectors, got None"),
    (lambda: _ff(U=(E0, None)), "FF: U[1] must be a vector (tuple of scalars) of length d = 2, got None"),
    (lambda: _ff(U=(E0, (F(1),))), "FF: U[1] must be a vector of length d = 2, got (Fraction(1, 1),)"),
    (lambda: _ff(b=None), "FF: b must be a vector (tuple of scalars), got None"),
    (lambda: _ff(b=(F(0), None)), "FF: b must be a vector of scalars (rational or symbolic), got (Fraction(0, 1), None)"),
    (lambda: _ff(b=(F(0),)), "FF: b must be 2 scalars (the width of U), got (Fraction(0, 1),)"),
    (lambda: _ff(W=None), "FF: W must be a tuple of vectors, got None"),
    (lambda: _ff(W=(E0,)), "FF: W must be 2 vectors (as many as U has rows), got ((Fraction(1, 1), Fraction(0, 1)),)"),
    (lambda: _ff(W=(E0, ("1", F(0)))), "FF: W[1] must be a vector of scalars (rational or symbolic), got ('1', Fraction(0, 1))"),
    (lambda: _ff(label=None), "FF: label must be a string (the lemma instance's name), got None"),
    (lambda: Factored(None), "Factored: lam must be a scalar (rational or symbolic), got None"),
    (lambda: Factored((E0,), (E0,)), "Factored: lam must be a scalar (rational or symbolic), got ((Fraction(1, 1), Fraction(0, 1)),)"),
    (lambda: Factored(F(0), None, (E0,)), "Factored: left must be a tuple of vectors, got None"),
    (lambda: Factored(F(0), (E0,)), "Factored: right must be 1 vectors (as many as left), got ()"),
    (lambda: SA(None, Factored(F(1)), Factored(F(1))), "SA: rho must be a scalar (rational or symbolic), got None"),
    (lambda: SA(F(0), None, Factored(F(1))), "SA: A must be a Factored matrix (lam I + sum_r left_r right_r^T), got None"),
    (lambda: SA(F(0), Factored(F(1)), F(1)), "SA: V must be a Factored matrix (lam I + sum_r left_r right_r^T), got Fraction(1, 1)"),
    (lambda: SA(F(0), Factored(F(0), (E0,), (E0,)), Factored(F(0), ((F(1),),), ((F(1),),))),
     "SA: A, V must be factors of one common length d, got [1, 2]"),
    (lambda: SA(F(0), Factored(F(1)), Factored(F(1)), label=None),
     "SA: label must be a string (the lemma instance's name), got None"),
    (lambda: Block(None, SA(F(0), Factored(F(1)), Factored(F(1)))), "Block: ff must be an FF layer, got None"),
    (lambda: dot(None, E0), "dot: x, y must be two vectors, got (None, (Fraction(1, 1), Fraction(0, 1)))"),
    (lambda: dot((1, 2, 3), (1, 2)), "dot: x, y must be two vectors of the same length, got ((1, 2, 3), (1, 2))"),
    (lambda: vec(None), "vec: xs must be an iterable of rationals (ints, Fractions, numeric strings), got None"),
    (lambda: vec(("1", "x")), "vec: xs must be an iterable of rationals (ints, Fractions, numeric strings), got ('1', 'x')"),
    (lambda: Collapse(None, [0]), "Collapse: k must be a vector (tuple of scalars), got None"),
    (lambda: Collapse((F(1), F(2)), None), "Collapse: leader must be a list of row indices (ints), got None"),
]


@pytest.mark.parametrize("call,message", BAD, ids=[m.split(",")[0][:40] for _, m in BAD])
def test_malformed_argument_is_rejected_naming_the_parameter(call, message):
    with pytest.raises(ParameterError) as exc:
        call()
    assert str(exc.value) == message
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, TypeError)


def test_generic_scalars_pass():
    sp = pytest.importorskip("sympy")
    flint = pytest.importorskip("flint")
    x = sp.Symbol("x", real=True)
    row = (x, F(1, 2), 3, flint.fmpq(2, 3), sp.Rational(1, 3) * x)
    ff = FF(sp.Integer(1), U=(row,), b=(x + 1,), W=(row,))
    assert ff.width == 1 and ff.U[0][3] == flint.fmpq(2, 3)
    sa = SA(x, Factored(flint.fmpq(1), (row,), (row,)), Factored(sp.Integer(0)))
    assert sa.rho == x
    assert dot((1, 2), (F(1, 2), 3)) == F(13, 2)


def test_valid_layers_unchanged():
    ff = _ff()
    assert ff.width == 2 and ff.n_params() == 1 + 2 * 5
    assert FF(F(1)).width == 0 and FF(F(1), U=[E0], b=[F(0)], W=[E0]).width == 1
