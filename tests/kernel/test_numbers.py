"""Tests for proofcheck.numbers (docs/spec.md §3, numbers)."""
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import (
    format_q,
    parse_exact,
    parse_number,
)


@pytest.mark.parametrize("value, expected", [
    (0, Fraction(0)),
    (-12, Fraction(-12)),
    (10 ** 60, Fraction(10 ** 60)),
    ("1/3", Fraction(1, 3)),
    ("-4/6", Fraction(-2, 3)),
    ("-7", Fraction(-7)),
    ("+7", Fraction(7)),
    ("0.125", Fraction(1, 8)),
    ("0.1", Fraction(1, 10)),
    (".5", Fraction(1, 2)),
    ("2.", Fraction(2)),
    ("1e-3", Fraction(1, 1000)),
    ("-2.5E+3", Fraction(-2500)),
    ("1.5e2", Fraction(150)),
    ("1e10000", Fraction(10 ** 10000)),
    (Fraction(5, 7), Fraction(5, 7)),
])
def test_exact_spellings(value, expected):
    q, was_float = parse_number(value, "$.x")
    assert q == expected and isinstance(q, Fraction)
    assert was_float is False


def test_float_is_exact_binary_value():
    q, was_float = parse_number(0.1, "$.x")
    assert q == Fraction(3602879701896397, 36028797018963968)
    assert was_float is True
    assert parse_number(0.5, "$")[0] == Fraction(1, 2)


def test_numpy_scalars():
    np = pytest.importorskip("numpy")
    assert parse_number(np.int64(-3), "$") == (Fraction(-3), False)
    assert parse_number(np.float32(0.25), "$") == (Fraction(1, 4), True)
    with pytest.raises(BadInput):
        parse_number(np.True_, "$")


@pytest.mark.parametrize("value", [
    float("nan"), float("inf"), float("-inf"), "nan", "NaN", "inf", "-inf",
    "Infinity", "-Infinity",
])
def test_non_finite(value):
    with pytest.raises(BadInput) as e:
        parse_number(value, "$.pairs[0].input[0][0]", "input 0 token 0 coordinate 0")
    assert "is not a finite number" in e.value.message
    assert "input 0 token 0 coordinate 0" in e.value.message
    assert e.value.path == "$.pairs[0].input[0][0]"


@pytest.mark.parametrize("value, fragment", [
    (True, "boolean"), (False, "boolean"), (None, "null"), ([1], "list"), ({}, "object"),
    ("abc", "not a number"), ("", "not a number"), (".", "not a number"), ("1/0", "zero denominator"),
    ("1/2/3", "not a number"), ("0x10", "not a number"), ("1e", "not a number"),
    ("1e999999999", "exponent"), ("1e-10001", "exponent"), ("1e" + "9" * 5000, "exponent"),
    ("1" * 100_001, "characters"), ("١", "not a number"), (1 + 2j, "unsupported"),
])
def test_rejected(value, fragment):
    with pytest.raises(BadInput) as e:
        parse_number(value, "$.a[1]")
    assert fragment in e.value.message
    assert e.value.path == "$.a[1]"


def test_huge_digit_strings_beyond_int_limit():
    s = "7" * 20_000
    q, _ = parse_number(s + "/" + "3" * 9_000, "$")
    assert format_q(q).startswith(format_q(q).split("/")[0])
    q2, _ = parse_number(format_q(q), "$")
    assert q2 == q
    assert parse_number("0." + "0" * 9000 + "1", "$")[0] == Fraction(1, 10 ** 9001)


def test_format_and_bits():
    assert format_q(Fraction(3)) == "3"
    assert format_q(Fraction(-6, 4)) == "-3/2"
    assert format_q(Fraction(0)) == "0"


@given(st.fractions())
def test_round_trip(q):
    assert parse_number(format_q(q), "$") == (q, False)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_round_trip(x):
    q, was_float = parse_number(x, "$")
    assert was_float and float(q) == x and q == Fraction(x)


# ------------------------------------------------ exact values (certificates, constants)

@pytest.mark.parametrize("value, expected", [
    ("1/3", Fraction(1, 3)), (7, Fraction(7)), ("0.5", Fraction(1, 2)), ("2/4", Fraction(1, 2)),
    ("-3", Fraction(-3)), ("1e3", Fraction(1000)), (Fraction(2, 3), Fraction(2, 3)),
])
def test_parse_exact(value, expected):
    assert parse_exact(value, "$.x") == expected


@pytest.mark.parametrize("value, fragment", [
    (1.0, "JSON float"), (0.5, "JSON float"), (float("nan"), "JSON float"),
    (True, "boolean"), (None, "null"), ("1_0", "not a number"), ("1e999999999", "exponent"),
    ("\u00a01", "not a number"), ("1\u20032", "not a number"), ([1], "list"),
])
def test_parse_exact_rejects(value, fragment):
    with pytest.raises(BadInput) as e:
        parse_exact(value, "$.claim.constants.P", "P")
    assert fragment in e.value.message and e.value.path == "$.claim.constants.P"


def test_parse_exact_rejects_numpy_floats():
    np = pytest.importorskip("numpy")
    with pytest.raises(BadInput, match="JSON float"):
        parse_exact(np.float64(2.0), "$")
    assert parse_exact(np.int64(2), "$") == 2


def test_underscores_are_never_numbers():
    """Python's Fraction, int and float accept "1_0"; the one parser does not."""
    assert Fraction("1_0") == 10
    for s in ("1_0", "1_0/3", "1/1_0", "1.0_0", "1e1_0"):
        with pytest.raises(BadInput):
            parse_number(s, "$")
