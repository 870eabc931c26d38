"""The kernel's own reader (proofcheck.kernel.reader; issue 28 item 4): it and the published JSON
Schemas accept the same documents and refuse the same ones at the same JSON path; every number
is parsed once into a Fraction; strict JSON (no NaN or Infinity anywhere, provenance included);
a digest followed by a newline is malformed, not "altered after sealing"; `verify` loads no
jsonschema, `--route plain` no fast tier, and nothing changes CPython's int <-> str digit limit."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.frontend.cli import main
from proofcheck.frontend.io.certificate_writer import seal
from proofcheck.frontend.io.schemas import FORMATS, schema, schema_error
from proofcheck.kernel import numbers, reader
from proofcheck.kernel.documents import loads_strict, read_json
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.reader import read_certificate, read_dataset
from proofcheck.kernel.serialize import canonical
from proofcheck.kernel.verify import verify_certificate

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted((ROOT / "reports" / "certificates").glob("*.json")) + sorted(
    (ROOT / "tests" / "data").glob("*.json"))
SCHEMA_OF = {v: k for k, (_, v) in FORMATS.items()}


def _load(name: str) -> dict:
    folder = "tests/data" if "format1" in name else "reports/certificates"
    return json.loads((ROOT / folder / name).read_text())


def _multi_head(doc: dict) -> dict:
    """A /2 theorem certificate whose first SA layer has two heads and a causal mask."""
    doc = copy.deepcopy(doc)
    sa = doc["network"]["blocks"][0]["sa"]
    head = {"A": sa.pop("A"), "V": sa.pop("V")}
    sa.update(heads=[head, copy.deepcopy(head)], causal=True)
    return doc


def _plugin(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    doc["claim"] = {"statement": "my-lemma", "source": "plugin:my-dist", "text": "a map",
                    "hypotheses": ["none"], "scope": "instances"}
    for inst in doc["instances"]:
        inst.pop("data", None)
    return doc


DATASET = {"format": "proofcheck-dataset/1", "name": "t", "source": "made by hand", "d": 2,
           "pairs": [{"input": [[0, "1/2"], [1.5, "-3"]], "output": [["1e-3", 7]]}]}

BASES = {
    "T6": lambda: _load("theorem-1.6-generated-7.json"),
    "T8": lambda: _load("theorem-1.8-generated-7.json"),
    "L3": lambda: _load("lemma-3.2.json"),
    "L4": lambda: _load("lemma-4.1.json"),
    "H": lambda: _multi_head(_load("theorem-1.8-generated-7.json")),
    "P": lambda: _plugin(_load("lemma-3.2.json")),
    "T1": lambda: _load("theorem-1.8-format1.json"),
    "L1": lambda: _load("lemma-4.1-format1.json"),
    "DS": lambda: copy.deepcopy(DATASET),
}


def _check(base: str, doc):
    """``(reader's BadInput or None, schema's BadInput or None)`` of ``doc``."""
    if base == "DS":
        name, read = "dataset", read_dataset
    else:
        fmt = _load_base(base)["format"]
        name, read = SCHEMA_OF[fmt], read_certificate
    try:
        read(doc)
        mine = None
    except BadInput as e:
        mine = e
    return mine, schema_error(doc, name)


_CACHE: dict = {}


def _load_base(base: str) -> dict:
    if base not in _CACHE:
        _CACHE[base] = BASES[base]()
    return copy.deepcopy(_CACHE[base])


# ------------------------------------------------------------------ accepted by both

@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_every_committed_certificate_is_accepted_by_reader_and_schema(path):
    doc = read_json(path)
    assert schema_error(doc, SCHEMA_OF[doc["format"]]) is None
    read = read_certificate(doc)
    assert read["digest"] == doc["digest"] and read["kind"] == doc["kind"]


@pytest.mark.parametrize("base", sorted(BASES))
def test_every_base_of_the_corpus_is_accepted_by_both(base):
    mine, theirs = _check(base, _load_base(base))
    assert mine is None and theirs is None, (mine, theirs)


# ------------------------------------------------------------------ refused by both, same path

_B1 = ["network", "blocks", 1]  # block 2 of the theorem certificates
_SA_BOUND = ["bounds", "layers", 1]  # block 1 SA of theorem-1.8-generated-7
_FF_BOUND = ["bounds", "layers", 0]  # block 1 FF


def _path_text(keys) -> str:
    out = "$"
    for k in keys:
        out += f"[{k}]" if isinstance(k, int) else f".{k}"
    return out


#: (base, operation, keys, value, expected JSON path or None: the keys' own path)
MALFORMED = [
    # top level
    ("T6", "set", [], [], "$"),
    ("T6", "set", ["format"], "proofcheck-certificate/3", None),
    ("T6", "del", ["format"], None, None),
    ("T6", "set", ["kind"], "poem", None),
    ("T6", "set", ["kind"], 1, None),
    ("T6", "del", ["kind"], None, None),
    ("T6", "set", ["extra"], 1, None),
    ("T6", "set", ["instances"], [5], None),
    ("T6", "del", ["network"], None, None),
    ("T6", "del", ["dataset"], None, None),
    ("T6", "set", ["provenance"], 5, None),
    ("T6", "set", ["verdict"], "PASSED", None),
    ("T6", "set", ["verdict"], "verified", None),
    ("T6", "del", ["verdict"], None, None),
    ("T6", "set", ["digest"], "", None),
    ("T6", "set", ["digest"], 5, None),
    ("T6", "set", ["digest"], "0" * 64 + "\n", None),
    ("T6", "set", ["digest"], "0" * 63 + "\n", None),
    ("T6", "set", ["digest"], "A" * 64, None),
    ("T6", "del", ["digest"], None, None),
    # the claim
    ("T6", "set", ["claim"], None, None),
    ("T6", "set", ["claim", "statement"], "1.7", None),
    ("T6", "set", ["claim", "d"], 0, None),
    ("T6", "set", ["claim", "d"], "6", None),
    ("T6", "set", ["claim", "d"], 2.0, None),
    ("T6", "set", ["claim", "d"], True, None),
    ("T6", "set", ["claim", "d"], 100_001, None),
    ("T6", "del", ["claim", "d"], None, None),
    ("T6", "set", ["claim", "extra"], 1, None),
    ("T6", "set", ["claim", "dataset", "sha256"], "0" * 64 + "\n", None),
    ("T6", "set", ["claim", "dataset", "sha256"], "0" * 63, None),
    ("T6", "set", ["claim", "dataset", "name"], "a\x1bb", None),
    ("T6", "set", ["claim", "dataset", "name"], "n" * 121, None),
    ("T6", "set", ["claim", "constants", "P"], 189.0, None),
    ("T6", "set", ["claim", "constants", "L"], True, None),
    ("T6", "set", ["claim", "constants", "Q"], 1, None),
    ("T6", "set", ["claim", "constants", "N"], "1/0", None),
    ("T6", "set", ["claim", "constants"], [1], None),
    # semantics and number spellings
    ("T8", "set", ["semantics"], {"attention": "softmax"}, "$.semantics.tau"),
    ("T8", "set", ["semantics"], {}, "$.semantics.attention"),
    ("T8", "set", ["semantics", "attention"], "argmax", None),
    ("T6", "set", ["semantics", "tau"], "1", None),
    ("T8", "set", ["semantics", "tau"], "1/0", None),
    ("T8", "set", ["semantics", "tau"], "0x1", None),
    ("T8", "set", ["semantics", "tau"], " 1", None),
    ("T8", "set", ["semantics", "tau"], "1\n", None),
    ("T8", "set", ["semantics", "tau"], "1e999999", None),
    ("T8", "set", ["semantics", "tau"], "+-1", None),
    ("T8", "set", ["semantics", "tau"], "NaN", None),
    ("T8", "set", ["semantics", "tau"], "-Infinity", None),
    ("T8", "set", ["semantics", "tau"], "1_0", None),
    ("T8", "set", ["semantics", "tau"], "1/2/3", None),
    ("T8", "set", ["semantics", "tau"], "", None),
    ("T8", "set", ["semantics", "tau"], "\u0661", None),
    ("T8", "set", ["semantics", "tau"], "1" * 100_001, None),
    ("T8", "set", ["semantics", "tau"], 0.5, None),
    # the network
    ("T6", "set", ["network", "d"], -1, None),
    ("T6", "set", ["network", "blocks"], {}, None),
    ("T6", "set", _B1 + ["foo"], 1, None),
    ("T6", "del", _B1 + ["sa"], None, None),
    ("T6", "set", _B1 + ["phase"], "S\n", None),
    ("T6", "set", _B1 + ["ff", "eta"], 1.0, None),
    ("T6", "set", _B1 + ["ff", "eta"], True, None),
    ("T6", "set", _B1 + ["ff", "eta"], None, None),
    ("T6", "set", _B1 + ["ff", "eta"], [1], None),
    ("T6", "set", _B1 + ["ff", "eta"], "1e-10001", None),
    ("T6", "set", _B1 + ["ff", "W", 0, 1], "x", None),
    ("T6", "set", _B1 + ["ff", "U"], [["1", "0"]] * 1025, None),
    ("T6", "set", _B1 + ["ff", "b"], "1", None),
    ("T6", "set", _B1 + ["ff", "label"], 5, None),
    ("T6", "set", _B1 + ["ff", "label"], "a\u202eb", None),
    ("T6", "del", _B1 + ["ff", "W"], None, None),
    ("T6", "set", _B1 + ["sa", "A", "lam"], "1.2.3", None),
    ("T6", "set", _B1 + ["sa", "A", "left"], [["1", "0"], 2], "$.network.blocks[1].sa.A.left[1]"),
    ("T6", "del", _B1 + ["sa", "V"], None, "$.network.blocks[1].sa"),
    ("T6", "set", _B1 + ["sa", "heads"], [], "$.network.blocks[1].sa"),
    ("T6", "set", _B1 + ["sa", "causal"], "yes", None),
    ("T6", "set", _B1 + ["sa", "rho"], False, None),
    ("H", "set", ["network", "blocks", 0, "sa", "heads"], [], None),
    ("H", "del", ["network", "blocks", 0, "sa", "heads", 0, "V"], None, None),
    ("H", "set", ["network", "blocks", 0, "sa", "A"], {"lam": "1", "left": [], "right": []},
     "$.network.blocks[0].sa"),
    # the embedded dataset
    ("T6", "set", ["dataset", "format"], "x", None),
    ("T6", "set", ["dataset", "name"], 3, None),
    ("T6", "set", ["dataset", "name"], "a\x00", None),
    ("T6", "set", ["dataset", "d"], 0, None),
    ("T6", "set", ["dataset", "pairs"], [], None),
    ("T6", "set", ["dataset", "pairs", 0, "input"], [], None),
    ("T6", "set", ["dataset", "pairs", 0, "input", 0], [], None),
    ("T6", "set", ["dataset", "pairs", 0, "input", 0, 0], 0.5, None),
    ("T6", "set", ["dataset", "pairs", 0, "output", 0, 1], "1e", None),
    ("T6", "set", ["dataset", "pairs", 0, "outputs"], [], None),
    ("T6", "set", ["dataset", "source"], "x", None),
    # softmax bounds (format 2)
    ("T8", "set", ["bounds", "exp_floor_bits"], 0, None),
    ("T8", "set", ["bounds", "exp_floor_bits"], 65_537, None),
    ("T8", "set", ["bounds", "exp_floor_bits"], "256", None),
    ("T8", "set", ["bounds", "extra"], 1, None),
    ("T8", "set", _SA_BOUND + ["radius", 1], "x", None),
    ("T8", "set", _SA_BOUND + ["min_gap"], "-", None),
    ("T8", "del", _SA_BOUND + ["max_eps"], None, "$.bounds.layers[1]"),
    ("T8", "set", _SA_BOUND + ["block"], 0, None),
    ("T8", "set", _FF_BOUND + ["min_gap"], "1", None),
    ("T8", "set", _FF_BOUND + ["sublayer"], "XX", None),
    ("T8", "del", _FF_BOUND + ["radius"], None, None),
    # lemma certificates
    ("L3", "set", ["instances"], [], None),
    ("L3", "set", ["instances", 0], 5, None),
    ("L3", "set", ["instances", 0, "kind"], "XX", None),
    ("L3", "del", ["instances", 0, "d"], None, None),
    ("L3", "set", ["instances", 0, "d"], 0, None),
    ("L3", "set", ["instances", 0, "inputs"], [], None),
    ("L3", "set", ["instances", 0, "inputs", 0], [], None),
    ("L3", "set", ["instances", 0, "inputs", 0, 0, 0], True, None),
    ("L3", "set", ["instances", 0, "expected", 0, 0, 0], 1.0, None),
    ("L3", "set", ["instances", 0, "verdict"], "x", None),
    ("L3", "set", ["instances", 0, "data", "p"], [1.5], "$.instances[0].data.p[0]"),
    ("L3", "set", ["instances", 0, "data", "x y"], "1_0", '$.instances[0].data["x y"]'),
    ("L3", "set", ["instances", 0, "data"], 5, None),
    ("L3", "set", ["instances", 0, "name"], "n" * 501, None),
    ("L3", "set", ["instances", 0, "name"], "a\x00b", None),
    ("L3", "set", ["instances", 0, "layer", "eta"], "inf", None),
    ("L3", "set", ["instances", 0, "layer"], {}, "$.instances[0].layer.eta"),
    ("L4", "del", ["instances", 0, "layer", "A"], None, "$.instances[0].layer"),
    ("L3", "set", ["dataset"], {}, None),
    ("L3", "set", ["claim", "text"], "x", None),
    ("L3", "set", ["claim", "statement"], "", None),
    ("L3", "set", ["claim", "statement"], "s" * 41, None),
    ("L3", "set", ["claim", "statement"], "3.2\x1b", None),
    # a plugin's claim
    ("P", "set", ["claim", "source"], "plugin:x\n", None),
    ("P", "set", ["claim", "source"], "pypi:x", None),
    ("P", "del", ["claim", "text"], None, None),
    ("P", "set", ["claim", "scope"], "all", None),
    ("P", "set", ["claim", "hypotheses"], ["h"] * 51, None),
    ("P", "set", ["instances", 0, "expected", 0, 0], None, None),
    # format 1
    ("T1", "set", ["claim", "d"], 2, None),
    ("T1", "set", ["bounds", 0, "straddles"], -1, None),
    ("T1", "del", ["bounds", 0, "max_width"], None, None),
    ("T1", "set", ["bounds"], {"exp_floor_bits": 256, "layers": []}, None),
    ("T1", "set", _B1 + ["sa", "causal"], True, None),
    ("L1", "set", ["instances", 0, "d"], 0, None),
    # dataset files
    ("DS", "set", [], [1], "$"),
    ("DS", "del", ["format"], None, None),
    ("DS", "set", ["d"], "2", None),
    ("DS", "set", ["d"], 100_001, None),
    ("DS", "del", ["pairs"], None, None),
    ("DS", "set", ["pairs", 0, "input", 0, 0], "1/0", None),
    ("DS", "set", ["pairs", 0, "input", 0, 0], True, None),
    ("DS", "set", ["pairs", 0, "input", 0, 0], "0x1", None),
    ("DS", "set", ["name"], "\x07", None),
    ("DS", "set", ["name"], "a\u2028b", None),
    ("DS", "set", ["pair"], [], None),
    ("DS", "set", ["source"], 5, None),
    ("DS", "set", ["pairs", 0, "outputs"], [], None),
    ("DS", "del", ["pairs", 0, "output"], None, None),
]


def _mutated(base, op, keys, value):
    doc = _load_base(base)
    if not keys:
        return value
    obj = doc
    for k in keys[:-1]:
        obj = obj[k]
    if op == "del":
        del obj[keys[-1]]
    else:
        obj[keys[-1]] = value
    return doc


@pytest.mark.parametrize("base, op, keys, value, expected", MALFORMED,
                         ids=[f"{i}:{b}:{op}:{_path_text(k)}" for i, (b, op, k, _, _)
                              in enumerate(MALFORMED)])
def test_reader_and_schema_refuse_the_same_file_at_the_same_path(base, op, keys, value,
                                                                  expected):
    mine, theirs = _check(base, _mutated(base, op, keys, value))
    want = expected or _path_text(keys)
    assert mine is not None, "the reader accepts it"
    assert theirs is not None, "the schema accepts it"
    assert (mine.path, theirs.path) == (want, want), (str(mine), str(theirs))


def test_the_corpus_is_large_and_covers_every_base():
    assert len(MALFORMED) >= 60
    assert {b for b, *_ in MALFORMED} == set(BASES)


#: values a random mutation puts in place: every JSON type, number spellings, discriminators
_VALUES = [None, True, False, 0, 1, -1, 2.5, "", "x", "1", "1/2", "1/0", " 1", "NaN", "0x1", [],
           [1], ["1"], {}, {"a": 1}, "0" * 64, "FF", "SA", "softmax", "hardmax", "theorem",
           "lemma", "VERIFIED", 10 ** 6, "a\x1b", [["1", "0"]],
           {"lam": "1", "left": [], "right": []}]
_KEYS = ["zz", "heads", "tau", "d", "name", "source", "min_gap", "A", "data"]


def _paths(x, p=()):
    if p:
        yield p
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _paths(v, p + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x[:3]):
            yield from _paths(v, p + (i,))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["L3", "L4", "T8", "P", "T1", "DS"]), st.data())
def test_reader_and_schema_agree_on_random_single_mutations(base, data):
    """One value replaced, deleted or one key added anywhere: both accept, or both refuse at
    the same JSON path."""
    doc = _load_base(base)
    keys = data.draw(st.sampled_from(sorted(_paths(doc), key=str)))
    obj = doc
    for k in keys[:-1]:
        obj = obj[k]
    op = data.draw(st.sampled_from(["set", "del", "add"] if isinstance(obj, dict) else ["set"]))
    if op == "del":
        del obj[keys[-1]]
    else:
        obj[data.draw(st.sampled_from(_KEYS)) if op == "add" else keys[-1]] = copy.deepcopy(
            data.draw(st.sampled_from(_VALUES)))
    mine, theirs = _check(base, doc)
    assert (mine and mine.path) == (theirs and theirs.path), (str(mine), str(theirs))


def test_the_reader_allows_the_constants_the_schemas_allow():
    for name in ("certificate", "certificate-2"):
        assert set(schema(name)["$defs"]["constants"]["properties"]) == set(reader.CONSTANTS)


def test_malformed_certificates_are_exit_2_with_the_path_through_verify(tmp_path, capsys):
    """Not only the reader: ``verify`` itself refuses a sealed malformed certificate with
    exit 2 at the reader's path (a sample of the corpus)."""
    for base, op, keys, value, expected in MALFORMED[1:40:3]:
        doc = _mutated(base, op, keys, value)
        f = tmp_path / "c.json"
        f.write_text(json.dumps(doc))
        assert main(["verify", str(f)]) == 2
        err = capsys.readouterr().err
        assert f"(at {expected or _path_text(keys)})" in err, err


# ------------------------------------------------------------------ what the reader returns

def test_numbers_become_fractions_parsed_once(monkeypatch):
    doc = _load_base("T8")
    strings: list = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k not in ("format", "kind", "verdict", "digest", "provenance", "claim",
                             "semantics", "label", "phase", "name", "sublayer"):
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            strings.append(x)
    walk({k: doc[k] for k in ("network", "dataset", "bounds")})
    calls: list = []
    real = reader.parse_string
    monkeypatch.setattr(reader, "parse_string", lambda s, *a: calls.append(s) or real(s, *a))
    read = read_certificate(doc)
    assert sorted(calls) == sorted(set(strings) | {"5/2"} | {
        v for v in doc["claim"]["constants"].values() if isinstance(v, str)})
    ff = read["network"]["blocks"][0]["ff"]
    assert all(type(x) is Fraction for row in ff["U"] for x in row)
    assert type(read["semantics"]["tau"]) is Fraction and read["semantics"]["tau"] == Fraction(5, 2)
    assert type(read["network"]["d"]) is int and type(read["bounds"]["exp_floor_bits"]) is int
    assert read["provenance"] is doc["provenance"]


def test_dataset_floats_stay_floats_and_exact_strings_become_fractions():
    read = read_dataset(copy.deepcopy(DATASET))
    x = read["pairs"][0]["input"]
    assert x[0] == [Fraction(0), Fraction(1, 2)] and x[1][0] == 1.5 and type(x[1][0]) is float
    assert read["pairs"][0]["output"][0] == [Fraction(1, 1000), Fraction(7)]


# ------------------------------------------------------------------ strict JSON

def _sealed_text(base: str, edit=lambda c: c) -> str:
    return json.dumps(seal(edit(_load_base(base))))


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("value, literal, path", [({"x": NAN}, None, "$.provenance.x"),
                                                  ({"y": [1, INF]}, None, "$.provenance.y[1]"),
                                                  ({"x": -INF}, None, "$.provenance.x"),
                                                  ({"x": {"z": INF}}, "1e999", "$.provenance.x.z")])
def test_nan_and_infinity_are_refused_in_provenance(tmp_path, capsys, value, literal, path):
    """Sealed with the literal in place, so the digest matches: before the reader,
    provenance was never looked at and this file VERIFIED (exit 0)."""
    doc = _load_base("L3")
    doc["provenance"] = value
    text = json.dumps(seal(doc))
    f = tmp_path / "c.json"
    f.write_text(text if literal is None else text.replace("Infinity", literal))
    assert main(["verify", str(f)]) == 2
    assert f"(at {path})" in capsys.readouterr().err


def test_a_float_literal_beyond_the_double_range_is_not_a_finite_coordinate():
    doc = loads_strict('{"format": "proofcheck-dataset/1", "d": 2, "pairs": [{"input": '
                       '[[1e999, 0]], "output": [[1, 1]]}]}', "x.json")
    with pytest.raises(BadInput, match="not a finite number") as e:
        read_dataset(doc)
    assert e.value.path == "$.pairs[0].input[0][0]"


def test_duplicate_keys_are_refused_inside_provenance_too():
    text = _sealed_text("L3").replace('"provenance": {', '"provenance": {"a": 1, "a": 2, ')
    with pytest.raises(BadInput, match="duplicate key 'a'"):
        loads_strict(text, "c.json")


def test_a_digest_followed_by_a_newline_is_malformed_not_altered(tmp_path, capsys):
    """Python's ``$`` matches before a final newline: the published pattern let such a digest
    through, and ``verify`` then said ERROR "altered after sealing" (exit 4)."""
    doc = seal(_load_base("L3"))
    doc["digest"] += "\n"
    with pytest.raises(BadInput) as e:
        verify_certificate(doc)
    assert e.value.path == "$.digest"
    f = tmp_path / "c.json"
    f.write_text(json.dumps(doc))
    assert main(["verify", str(f)]) == 2
    err = capsys.readouterr().err
    assert "(at $.digest)" in err and "\n'" not in err


def test_every_anchored_schema_pattern_refuses_a_final_newline():
    def patterns(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield node["pattern"]
            for v in node.values():
                yield from patterns(v)
        elif isinstance(node, list):
            for v in node:
                yield from patterns(v)
    for name in FORMATS:
        for p in patterns(schema(name)):
            assert "$" not in p or p.endswith("$(?!\\n)"), (name, p)


def test_input_strings_are_escaped_in_messages():
    doc = _load_base("T6")
    doc["claim"]["\x1b[31mred"] = 1
    doc["verdict"] = "\x1b[2J"
    with pytest.raises(BadInput) as e:
        read_certificate(doc)
    assert "\x1b" not in str(e.value)
    del doc["claim"]["\x1b[31mred"]
    with pytest.raises(BadInput) as e:
        read_certificate(doc)
    assert e.value.path == "$.verdict" and "\x1b" not in str(e.value)


def test_deep_nesting_is_bad_input_not_a_crash():
    doc = _load_base("L3")
    deep = ["1"]
    for _ in range(3000):
        deep = [deep]
    doc["instances"][0]["data"]["p"] = deep
    with pytest.raises(BadInput, match="nested too deeply"):
        read_certificate(doc)


# ------------------------------------------------------------------ long integers

@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=40_000), st.integers(min_value=1, max_value=10 ** 9),
       st.booleans())
def test_digits_to_int_and_int_to_digits_are_exact_beyond_4300_digits(k, m, negative):
    n = (-1) ** negative * (m * 10 ** k + 7 ** (k // 3))
    s = numbers.int_to_digits(n)
    assert Decimal(s) == Decimal(n)  # decimal writes any size without the limit
    assert numbers.digits_to_int(s) == n == numbers.digits_to_int(("+" if n >= 0 else "") + s)


def test_long_digit_strings_are_charged_to_the_work_budget(monkeypatch):
    charged = []
    monkeypatch.setattr(numbers, "charge", lambda units, where, bits=0: charged.append(units))
    numbers.digits_to_int("9" * 4000)
    assert charged == []  # within CPython's limit: int() itself
    numbers.digits_to_int("9" * 50_000)
    assert charged == [50_000 * 3322 // 1000]


def test_a_json_integer_of_5000_digits_in_a_dataset_file(tmp_path):
    doc = loads_strict('{"format": "proofcheck-dataset/1", "d": 2, "pairs": [{"input": [[1%s, 0]],'
                       ' "output": [[1, 1]]}]}' % ("0" * 5000), "x.json")
    assert read_dataset(doc)["pairs"][0]["input"][0][0] == 10 ** 5000


_PROBE = """
import json, sys
before = sys.get_int_max_str_digits()
import proofcheck
from proofcheck.frontend.cli import main
rc = main(sys.argv[1:])
print(json.dumps([rc, before, sys.get_int_max_str_digits(),
                  sorted(m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'referencing')
                         or m.startswith('proofcheck.kernel.fast'))]))
"""


def _probe(*argv):
    r = subprocess.run([sys.executable, "-c", _PROBE, *argv], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    return json.loads(r.stdout.strip().splitlines()[-1]), r


def test_verify_leaves_the_digit_limit_and_loads_no_jsonschema(tmp_path):
    """A certificate with a 5000-digit number, as a JSON integer and as a string: read,
    digested and printed without lifting CPython's limit (``import proofcheck`` used to set it
    to 0 for the whole process), and no jsonschema loaded on the trusted path."""
    def edit(c):
        c["claim"]["constants"]["theta_sq_norm"] = "1" + "0" * 4999 + "1"  # wrong: REFUTED
        c["claim"]["constants"]["N"] = 10 ** 5000  # wrong too, a JSON integer
        return c
    f = tmp_path / "big.json"
    f.write_bytes(canonical(seal(edit(_load_base("T6")))))
    (rc, before, after, loaded), r = _probe("verify", str(f))
    assert before == after == 4300, r.stderr
    assert rc == 1 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert "claimed N" in r.stdout
    assert not [m for m in loaded if not m.startswith("proofcheck")], loaded


def test_verify_route_plain_loads_no_fast_tier():
    (rc, _, _, loaded), r = _probe("verify", "--route", "plain",
                                   str(ROOT / "reports/certificates/theorem-1.8-generated-7.json"))
    assert rc == 0, r.stdout + r.stderr
    assert loaded == [], loaded
    (rc, _, _, loaded), r = _probe("verify", str(
        ROOT / "reports/certificates/theorem-1.6-generated-7.json"))
    assert rc == 0 and "proofcheck.kernel.fast" in loaded, r.stderr  # the auto route may use it


def test_no_module_lifts_the_digit_limit():
    hits = [str(p.relative_to(ROOT)) for p in (ROOT / "proofcheck").rglob("*.py")
            if "set_int_max_str_digits" in p.read_text()]
    assert hits == []
