"""Tests for proofcheck.dataset (docs/spec.md §1 admissibility, §3 data formats)."""
import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from conftest import CASES
from hypothesis import given, settings

from strategies import admissible_datasets

from proofcheck.kernel.dataset import (
    Dataset,
    Pair,
    canonical_bytes,
    check_admissible,
    dataset_to_json,
    digest,
)
from proofcheck.frontend.io.datasets import dataset_from_json, load_dataset
from proofcheck.frontend.reporting.run_report import dataset_max_bits
from proofcheck.kernel.errors import BadInput, Inadmissible

# file -> (exception class or None, message fragment, JSON path)
EXPECTED = {
    "overlap-2d.json": (None, None, None),
    "nested-chain.json": (None, None, None),
    "square-and-centre.json": (None, None, None),
    "singleton-and-full.json": (None, None, None),
    "number-spellings.json": (None, None, None),
    "shared-targets.json": (None, None, None),
    "big-rationals.json": (None, None, None),
    "permuted-duplicate.json": (Inadmissible, "input sequences 0 and 1 are equal as sets",
                                "$.pairs[1].input"),
    "repeated-token.json": (Inadmissible, "repeated token in input 0: tokens 0 and 2",
                            "$.pairs[0].input[2]"),
    "m-greater-than-n.json": (Inadmissible, "output longer than input in pair 0",
                              "$.pairs[0]"),
    "dimension-one.json": (Inadmissible, "d must be at least 2", "$.d"),
    "ragged-token.json": (BadInput, "token 1 of input 0 has 1 coordinate, expected 2",
                          "$.pairs[0].input[1]"),
    "not-a-number.json": (BadInput, "input 0 token 0 coordinate 0 is not a finite number",
                          "$.pairs[0].input[0][0]"),
    "empty-sequence.json": (BadInput, "input 0 is empty", "$.pairs[0].input"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_handed_case(name):
    exc, fragment, path = EXPECTED[name]
    file = CASES / name
    if exc is None:
        ds = load_dataset(file)
        assert ds.N >= 1 and ds.name == name[:-5]
        return
    with pytest.raises(exc) as e:
        load_dataset(file)
    assert fragment in e.value.message
    assert e.value.path == path
    assert path in str(e.value)


def test_all_handed_cases_are_listed():
    assert {p.name for p in CASES.glob("*.json")} == set(EXPECTED)


def test_number_spellings_exact():
    ds = load_dataset(CASES / "number-spellings.json")
    x0 = ds.pairs[0].inputs
    assert x0[0] == (Fraction(1, 10), Fraction(1, 3))
    assert x0[1] == (Fraction(2), Fraction(-7))
    assert x0[2] == (Fraction(1, 1000), Fraction(1, 2))
    assert ds.pairs[0].outputs[0] == (Fraction(3, 10), Fraction(2, 3))
    assert ds.pairs[1].outputs[0] == (Fraction(1), Fraction(2))
    assert len(ds.notes) == 1 and "$.pairs[0].input[2][1]" in ds.notes[0]
    assert "3602879701896397/36028797018963968" in ds.notes[0]


def test_big_rationals_exact():
    ds = load_dataset(CASES / "big-rationals.json")
    assert ds.pairs[0].inputs[0][0] == Fraction(10 ** 40, 3)
    assert ds.pairs[0].outputs[0][1] == 10 ** 50
    assert dataset_max_bits(ds) == (10 ** 50).bit_length()


def _obj(pairs, d=2, **extra):
    return {"format": "proofcheck-dataset/1", "name": "t", "d": d, "pairs": pairs, **extra}


def _p(inp, out):
    return {"input": inp, "output": out}


def test_properties_and_source_key():
    """``source`` (provenance text) is the one key beside docs/spec.md §3's; the others are
    refused (tests/pipeline/test_input_edges.py)."""
    ds = dataset_from_json(_obj([_p([[0, 0], [1, 0]], [[1, 1]]),
                                 _p([["1/2", 3]], [[0, 0]])], source="x.json"))
    assert (ds.N, ds.M, ds.n_tokens, ds.d) == (2, 2, 3, 2)
    assert dataset_max_bits(ds) == 2
    assert ds.notes == ()
    check_admissible(ds)


def test_name_defaults_to_stem():
    obj = _obj([_p([[0, 0]], [[1, 1]])])
    del obj["name"]
    assert dataset_from_json(obj, source="/a/b/my-data.json").name == "my-data"


@pytest.mark.parametrize("mutate, exc, fragment, path", [
    (lambda o: o.update(format="other"), BadInput, "format", "$.format"),
    (lambda o: o.pop("format"), BadInput, "missing", "$.format"),
    (lambda o: o.update(name=3), BadInput, "name", "$.name"),
    (lambda o: o.update(d=0), BadInput, "positive integer", "$.d"),
    (lambda o: o.update(d=True), BadInput, "positive integer", "$.d"),
    (lambda o: o.update(d="2"), BadInput, "positive integer", "$.d"),
    (lambda o: o.update(pairs=[]), BadInput, "pairs is empty", "$.pairs"),
    (lambda o: o.pop("pairs"), BadInput, "missing", "$.pairs"),
    (lambda o: o["pairs"].append(3), BadInput, "pair 1 is a number", "$.pairs[1]"),
    (lambda o: o["pairs"][0].pop("output"), BadInput, "no key 'output'", "$.pairs[0]"),
    (lambda o: o["pairs"][0].update(input="x"), BadInput, "input 0 is a string",
     "$.pairs[0].input"),
    (lambda o: o["pairs"][0]["input"].append(5), BadInput, "token 2 of input 0 is a number",
     "$.pairs[0].input[2]"),
    (lambda o: o["pairs"][0]["output"][0].append(5), BadInput,
     "token 0 of output 0 has 3 coordinates, expected 2", "$.pairs[0].output[0]"),
    (lambda o: o["pairs"][0]["output"][0].__setitem__(1, "x"), BadInput,
     "output 0 token 0 coordinate 1 is not a number", "$.pairs[0].output[0][1]"),
    (lambda o: o["pairs"][0]["input"][1].__setitem__(0, float("inf")), BadInput,
     "input 0 token 1 coordinate 0 is not a finite number", "$.pairs[0].input[1][0]"),
    (lambda o: o["pairs"][0]["input"][1].__setitem__(0, True), BadInput,
     "boolean", "$.pairs[0].input[1][0]"),
    (lambda o: o["pairs"][0]["input"][1].__setitem__(0, None), BadInput,
     "null", "$.pairs[0].input[1][0]"),
    (lambda o: o["pairs"][0].update(output=[]), Inadmissible, "output 0 is empty",
     "$.pairs[0].output"),
])
def test_shape_errors(mutate, exc, fragment, path):
    obj = _obj([_p([[0, 0], [1, 0]], [[1, 1]])])
    mutate(obj)
    with pytest.raises(exc) as e:
        dataset_from_json(obj)
    assert type(e.value) is exc
    assert fragment in e.value.message
    assert e.value.path == path


def test_top_level_not_object():
    with pytest.raises(BadInput) as e:
        dataset_from_json([1, 2])
    assert "expected an object" in e.value.message


def _ds(pairs, d=2):
    q = lambda t: tuple(Fraction(v) for v in t)  # noqa: E731
    return Dataset("t", d, tuple(Pair(tuple(map(q, x)), tuple(map(q, y))) for x, y in pairs))


@pytest.mark.parametrize("pairs, d, fragment, path", [
    ([([(0,)], [(1,)])], 1, "d must be at least 2 (got 1)", "$.d"),
    ([([(0, 0)], [(1, 1), (2, 2)])], 2, "output longer than input in pair 0 (m=2 > n=1)",
     "$.pairs[0]"),
    ([([(0, 0), (1, 1)], [(1, 1)]), ([(0, 0), (1, 1), (0, 0)], [(1, 1)])], 2,
     "repeated token in input 1: tokens 0 and 2 are equal", "$.pairs[1].input[2]"),
    ([([(0, 0), (1, 1)], [(1, 1)]), ([(0, 0), (1, 1), (2, 0)], [(5, 5), (5, 5)])], 2,
     "repeated token in output 1: tokens 0 and 1 are equal", "$.pairs[1].output[1]"),
    ([([(0, 0)], [(1, 1)]), ([(1, 1), (0, 0)], [(1, 1)]), ([(0, 0), (1, 1)], [(2, 2)])], 2,
     "input sequences 1 and 2 are equal as sets", "$.pairs[2].input"),
    ([([], [(1, 1)])], 2, "input 0 is empty", "$.pairs[0].input"),
    ([([(0, 0)], [])], 2, "output 0 is empty", "$.pairs[0].output"),
    # order of checks: repeated tokens before m > n, per pair before set equality
    ([([(0, 0), (0, 0)], [(1, 1), (2, 2), (3, 3)])], 2, "repeated token in input 0",
     "$.pairs[0].input[1]"),
    ([([(0, 0)], [(1, 1)]), ([(0, 0)], [(1, 1), (2, 2)])], 2, "output longer than input in pair 1",
     "$.pairs[1]"),
])
def test_inadmissible(pairs, d, fragment, path):
    with pytest.raises(Inadmissible) as e:
        check_admissible(_ds(pairs, d))
    assert fragment in e.value.message
    assert e.value.path == path


def test_fraction_equality_is_exact_for_repeats():
    # "0.5" and 1/2 are the same rational: a repeated token
    obj = _obj([_p([["0.5", 0], ["1/2", "0"]], [[1, 1]])])
    with pytest.raises(Inadmissible, match="repeated token in input 0: tokens 0 and 1"):
        check_admissible(dataset_from_json(obj))


def test_admissibility_on_many_pairs_finds_a_far_duplicate():
    """20000 distinct pairs pass; the same set (in another order) as pair 19999 as at
    pair 3 is found and named.  How the cost grows with N is a benchmark row
    (``python -m bench.admissibility``, bench/results-admissibility.json)."""
    pairs = [([(i, 0), (i, 1)], [(0, 0)]) for i in range(20000)]
    check_admissible(_ds(pairs))
    pairs[19999] = ([(3, 1), (3, 0)], [(0, 0)])
    with pytest.raises(Inadmissible, match="input sequences 3 and 19999 are equal as sets"):
        check_admissible(_ds(pairs))


def test_float_note_lists_at_most_five_paths():
    toks = [[0.5 + i, 0.25] for i in range(4)]
    ds = dataset_from_json(_obj([_p(toks, [[0.5, 1]])]))
    (note,) = ds.notes
    assert "JSON floats were read as the exact binary value" in note
    assert note.count("$.pairs") == 5 and "and 4 more" in note


# ------------------------------------------------------------------ files

def test_load_json_errors(tmp_path):
    with pytest.raises(BadInput, match="cannot read file"):
        load_dataset(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "proofcheck-dataset/1",\n "d": 2,, }')
    with pytest.raises(BadInput) as e:
        load_dataset(bad)
    assert "invalid JSON" in e.value.message and "line 2 column" in e.value.message
    lst = tmp_path / "list.json"
    lst.write_text("[1, 2]")
    with pytest.raises(BadInput, match="top-level JSON value is a list"):
        load_dataset(lst)
    other = tmp_path / "x.csv"
    other.write_text("1,2")
    with pytest.raises(BadInput, match="unsupported file type"):
        load_dataset(other)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(BadInput, match="UTF-8"):
        load_dataset(binary)


def test_load_json_huge_integer(tmp_path):
    # JSON integers beyond CPython's 4300-digit int() limit are read exactly
    big = 10 ** 5000
    f = tmp_path / "big.json"
    f.write_text('{"format": "proofcheck-dataset/1", "d": 2, "pairs": [{"input": [[%s, 0]], '
                 '"output": [[1, 1]]}]}' % ("1" + "0" * 5000))
    ds = load_dataset(f)
    assert ds.pairs[0].inputs[0][0] == big and ds.name == "big"


def test_load_json_nan_literal(tmp_path):
    f = tmp_path / "nan.json"
    f.write_text('{"format": "proofcheck-dataset/1", "d": 2, "pairs": '
                 '[{"input": [[0, NaN]], "output": [[1, 1]]}]}')
    with pytest.raises(BadInput) as e:
        load_dataset(f)
    assert "is not a finite number" in e.value.message
    assert e.value.path == "$.pairs[0].input[0][1]"


def test_canonical_digest_stable(tmp_path):
    ds = dataset_from_json(_obj([_p([["0.5", "2/4"], [1, "-0"]], [["1e2", 3]]),
                                 _p([[1, 0]], [[0, 0]])]))
    obj = dataset_to_json(ds)
    assert obj["pairs"][0]["input"][0] == ["1/2", "1/2"]
    assert obj["pairs"][0]["output"][0] == ["100", "3"]
    f = tmp_path / "re.json"
    f.write_text(json.dumps(obj, indent=3))
    ds2 = load_dataset(f)
    assert digest(ds2) == digest(ds)
    assert canonical_bytes(ds2) == canonical_bytes(ds)
    assert b" " not in canonical_bytes(ds)
    # the name does not enter the digest; the data does
    renamed = Dataset("other", ds.d, ds.pairs)
    assert digest(renamed) == digest(ds)
    changed = copy.deepcopy(obj)
    changed["pairs"][1]["output"][0][0] = "1/3"
    assert digest(dataset_from_json(changed)) != digest(ds)


@settings(max_examples=30, deadline=None)
@given(admissible_datasets(max_N=5, max_n=4))
def test_json_round_trip_property(ds):
    ds2 = dataset_from_json(json.loads(json.dumps(dataset_to_json(ds))))
    assert ds2.pairs == ds.pairs and ds2.d == ds.d
    assert digest(ds2) == digest(ds)
    check_admissible(ds2)


# ------------------------------------------------------------------ npz


def test_npz_round_trip(tmp_path):
    f = tmp_path / "data.npz"
    np.savez(f, X_0=np.array([[0, 0], [1, 2]]), Y_0=np.array([[3, 3]]),
             X_1=np.array([[0.5, 0.1]]), Y_1=np.array([["1/3", "0.1"]]))
    ds = load_dataset(f)
    assert ds.name == "data" and ds.d == 2 and ds.N == 2
    assert ds.pairs[0].inputs == ((0, 0), (1, 2))
    assert ds.pairs[1].inputs[0] == (Fraction(1, 2), Fraction(0.1))
    assert ds.pairs[1].outputs[0] == (Fraction(1, 3), Fraction(1, 10))
    assert any("X_1[0][1]" in n for n in ds.notes)
    # npz -> json -> dataset keeps the exact values
    ds2 = dataset_from_json(dataset_to_json(ds))
    assert ds2.pairs == ds.pairs and digest(ds2) == digest(ds)


def test_npz_object_array_needs_opt_in(tmp_path):
    f = tmp_path / "obj.npz"
    np.savez(f, X_0=np.array([["1/2", 0], [1, "2"]], dtype=object),
             Y_0=np.array([[3, 3]]))
    with pytest.raises(BadInput, match="allow_pickle"):
        load_dataset(f)
    ds = load_dataset(f, allow_pickle=True)
    assert ds.pairs[0].inputs == ((Fraction(1, 2), 0), (1, 2))


@pytest.mark.parametrize("arrays, fragment", [
    ({"X_0": [[0, 0]]}, "array Y_0 is missing"),
    ({"X_0": [[0, 0]], "Y_0": [[1, 1]], "Y_1": [[1, 1]]}, "array X_1 is missing"),
    ({"A": [[0, 0]]}, "no arrays X_0"),
    ({"X_0": [0, 0], "Y_0": [[1, 1]]}, "array X_0 has 1 dimension"),
    ({"X_0": [[0, 0]], "Y_0": [[1, 1, 1]]}, "array Y_0 has 3 columns, expected d=2"),
    ({"X_0": [[0, 0]], "Y_0": [[1, 1]], "X_1": [[0, 1]], "Y_1": [[1.0, float("nan")]]},
     "output 1 token 0 coordinate 1 is not a finite number"),
    ({"X_0": [[True, False]], "Y_0": [[1, 1]]}, "dtype bool"),
    ({"X_0": [["a", "0"]], "Y_0": [[1, 1]]}, "is not a number"),
])
def test_npz_errors(tmp_path, arrays, fragment):
    f = tmp_path / "e.npz"
    np.savez(f, **{k: np.array(v) for k, v in arrays.items()})
    with pytest.raises(BadInput) as e:
        load_dataset(f)
    assert fragment in e.value.message


def test_npz_empty_and_inadmissible(tmp_path):
    f = tmp_path / "e.npz"
    np.savez(f, X_0=np.zeros((0, 2)), Y_0=np.array([[1, 1]]))
    with pytest.raises(Inadmissible, match="input 0 is empty"):
        load_dataset(f)
    np.savez(f, X_0=np.array([[0, 0], [0, 0]]), Y_0=np.array([[1, 1]]))
    with pytest.raises(Inadmissible, match="repeated token in input 0"):
        load_dataset(f)


def test_npz_unreadable(tmp_path):
    f = tmp_path / "junk.npz"
    f.write_bytes(b"not a zip")
    with pytest.raises(BadInput, match="not a valid .npz") as e:
        load_dataset(f)
    assert e.value.path == str(f)
    with pytest.raises(BadInput, match="cannot read file"):
        load_dataset(tmp_path / "absent.npz")


@pytest.mark.parametrize("second,how,targets", [
    ([(1, 2), (0, 0), (3, 1)], "in the order 1, 0, 2", "differ as sets"),
    ([(0, 0), (1, 2), (3, 1)], "identical sequences", "a duplicated pair")])
def test_equal_sets_message_names_the_strengthening_and_witness(second, how, targets):
    """The hypothesis 'distinct as sets' strengthens the seed's 'distinct': the error
    says so, why (permutation equivariance), and gives the permutation and whether the
    targets differ."""
    y2 = [(5, 5)] if targets == "differ as sets" else [(1, 1)]
    with pytest.raises(Inadmissible) as e:
        check_admissible(_ds([([(0, 0), (1, 2), (3, 1)], [(1, 1)]), (second, y2)], 2))
    msg = e.value.message
    assert e.value.path == "$.pairs[1].input"
    assert "strengthening of the seed's" in msg and "permutation equivariant" in msg
    assert how in msg and targets in msg
