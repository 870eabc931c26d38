"""The published JSON Schemas (proofcheck/schemas/*.json) and the strict reading of
certificates (issue "Check what is built", item 5): one number parser everywhere,
schema validation before any arithmetic, every malformed certificate exit 2 with
its JSON path, never a traceback or a hang."""
from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import NAMED, certificate_16
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.layers import hat
from proofcheck.frontend.cli.schema_messages import worded
from proofcheck.frontend.cli import main
from proofcheck.frontend.io.certificate_writer import lemma_certificate, seal
from proofcheck.frontend.io.datasets import dataset_from_json
from proofcheck.kernel.dataset import dataset_to_json
from proofcheck.frontend.io.schemas import FORMATS, schema, schema_error
from proofcheck.kernel.documents import loads_strict
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import NUMBER_PATTERN, parse_number
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cert():
    return certificate_16("square-builtin")


@pytest.fixture(scope="module")
def lemma_cert():
    return lemma_certificate("3.2", hat.run(), Verdict.VERIFIED)


# ------------------------------------------------------------------ the schema files

@pytest.mark.parametrize("name", sorted(FORMATS))
def test_schema_files_are_valid_draft_2020_12(name):
    sch = schema(name)
    jsonschema.Draft202012Validator.check_schema(sch)
    assert sch["title"] == FORMATS[name][1]
    path = ROOT / "proofcheck" / "schemas" / FORMATS[name][0]
    assert json.loads(path.read_text()) == sch


def _patterns(node):
    if isinstance(node, dict):
        if node.get("format") == "proofcheck-number":
            yield node["pattern"]
        for v in node.values():
            yield from _patterns(v)
    elif isinstance(node, list):
        for v in node:
            yield from _patterns(v)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_schemas_use_the_parsers_grammar(name):
    pats = list(_patterns(schema(name)))
    assert pats and set(pats) == {NUMBER_PATTERN}


_ALPHABET = "0123456789+-./eE _\t\n\x1c\u00a0\u2003xn١"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=12))
def test_pattern_and_parser_accept_the_same_strings(s):
    """A third party validating with the published pattern accepts exactly what the
    parser accepts, up to the value checks (zero denominator, exponent size)."""
    matches = re.search(NUMBER_PATTERN, s) is not None
    try:
        parse_number(s, "$")
        parsed = True
    except BadInput as e:
        parsed = False
        value_check = "zero denominator" in e.message or "exponent" in e.message
        assert not (matches and not value_check), (s, e.message)
    assert not (parsed and not matches), s


def test_writers_output_conforms_to_the_published_schemas(cert, lemma_cert):
    """Plain jsonschema with the published files (the pattern, not our format
    checker): what proofcheck writes is valid."""
    cv = jsonschema.Draft202012Validator(schema("certificate-2"))
    cv.validate(json.loads(json.dumps(cert)))
    cv.validate(json.loads(json.dumps(lemma_cert)))
    dv = jsonschema.Draft202012Validator(schema("dataset"))
    for ds in NAMED.values():
        dv.validate(dataset_to_json(ds))


def test_committed_certificates_conform():
    for path in sorted((ROOT / "reports" / "certificates").glob("*.json")):
        assert schema_error(json.loads(path.read_text()), "certificate-2") is None, path


def test_lemma_data_is_allowed_and_checked(lemma_cert):
    c = copy.deepcopy(lemma_cert)
    c["instances"][0]["data"] = {"S": [["0", "1/2"], [3, "-4"]], "p": ["1", "2"],
                                 "box": {"lo": "0", "hi": "1e3", "open": True}, "t": None}
    assert schema_error(c, "certificate-2") is None
    for bad, path in [(1.5, "$.instances[0].data.p"), ("1_0", "$.instances[0].data.p"),
                      ("1e999999999", "$.instances[0].data.p"), ("x", "$.instances[0].data.p"),
                      ([["0", 0.5]], "$.instances[0].data.p")]:
        c["instances"][0]["data"]["p"] = bad
        err = schema_error(c, "certificate-2")
        assert err is not None and err.path.startswith(path), (bad, err)


# -------------------------------------------------- malformed certificates: exit 2

def _set(path, value):
    def f(c):
        obj = c
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return f


THEOREM_MALFORMED = [
    (_set(["claim"], None), "$.claim", "null"),
    (_set(["claim", "constants"], [1]), "$.claim.constants", ""),
    (_set(["claim", "constants", "L"], True), "$.claim.constants.L", "boolean"),
    (_set(["claim", "constants", "P"], 189.0), "$.claim.constants.P", "float"),
    (_set(["claim", "constants", "Q"], 1), "$.claim.constants", "'Q'"),
    (_set(["claim", "statement"], "1.7"), "$.claim.statement", "1.7"),
    (_set(["semantics"], {"attention": "softmax", "tau": "1e999999999"}),
     "$.semantics.tau", "exponent"),
    (_set(["semantics"], {"attention": "softmax", "tau": "1_0"}), "$.semantics.tau",
     "not a number"),
    (_set(["semantics"], {"attention": "softmax"}), "$.semantics", "tau"),
    (_set(["semantics"], {"attention": "softmax", "tau": "-1"}), "$.semantics", ""),
    (_set(["network", "blocks", 0, "ff", "eta"], 1.0), "$.network.blocks[0].ff.eta", "float"),
    (_set(["network", "blocks", 0, "ff", "eta"], True), "$.network.blocks[0].ff.eta", "boolean"),
    (_set(["network", "blocks", 0, "ff", "eta"], "NaN"), "$.network.blocks[0].ff.eta",
     "not a finite number"),
    (_set(["network", "blocks", 0, "ff", "eta"], "1_0"), "$.network.blocks[0].ff.eta",
     "not a number"),
    (_set(["network", "blocks", 0, "ff", "U", 0], ["1"]), "$.network.blocks[0].ff.U[0]",
     "d = 2"),
    (_set(["network", "d"], 3), "$.network", ""),
    (_set(["network", "blocks", 0, "sa", "A", "left"], [["1", "1"]] * 5),
     "$.network.blocks[0].sa.A", "equal length"),
    (_set(["dataset", "pairs", 0, "input", 0, 0], "1e999999999"), "$.dataset.pairs[0].input[0][0]",
     "exponent"),
    (_set(["dataset", "pairs", 0, "input", 0, 0], 0.5), "$.dataset.pairs[0].input[0][0]", "float"),
    (_set(["dataset", "pairs", 0, "input", 0], ["1"]), "$.dataset.pairs[0].input[0]", ""),
    (_set(["dataset", "pairs", 0, "input", 1], ["2", "2"]), "$.dataset.pairs[0].input[1]",
     "repeated token"),
    (_set(["bounds"], {"exp_floor_bits": 256, "layers": [
        {"block": 1, "sublayer": "SA", "min_gap": "1", "max_eps": "NaN", "radius": ["0", "0"]}]}),
     "$.bounds.layers[0].max_eps", "finite"),
    (_set(["verdict"], "PASSED"), "$.verdict", "PASSED"),
    (_set(["kind"], "poem"), "$.kind", "poem"),
    (_set(["extra"], 1), "$", "extra"),
    (lambda c: c.pop("network"), "$", "network"),
    (_set(["instances"], [5]), "$", "instances"),
]


@pytest.mark.parametrize("mutate, path, fragment", THEOREM_MALFORMED,
                         ids=[f"{i}:{p}" for i, (_, p, _) in enumerate(THEOREM_MALFORMED)])
def test_malformed_theorem_certificate_is_bad_input_with_path(cert, mutate, path, fragment):
    c = copy.deepcopy(cert)
    mutate(c)
    with pytest.raises(BadInput) as e:
        verify_certificate(seal(c))
    assert e.value.path is not None and e.value.path.startswith(path), str(e.value)
    assert fragment in str(worded(e.value)), str(e.value)  # as the command line words it


LEMMA_MALFORMED = [
    (_set(["instances"], [5]), "$.instances[0]"),
    (_set(["instances"], []), "$.instances"),
    (_set(["instances", 0, "inputs", 0, 0, 0], "1e999999999"), "$.instances[0].inputs[0][0][0]"),
    (_set(["instances", 0, "inputs", 0, 0, 0], "1_0"), "$.instances[0].inputs[0][0][0]"),
    (_set(["instances", 0, "inputs", 0, 0, 0], True), "$.instances[0].inputs[0][0][0]"),
    (_set(["instances", 0, "expected", 0, 0, 0], 1.0), "$.instances[0].expected[0][0][0]"),
    (_set(["instances", 0, "layer", "eta"], "inf"), "$.instances[0].layer.eta"),
    (_set(["instances", 0, "kind"], "XX"), "$.instances[0].kind"),
    (_set(["claim"], None), "$.claim"),
    (_set(["semantics", "tau"], "1"), "$.semantics"),
]


@pytest.mark.parametrize("mutate, path", LEMMA_MALFORMED,
                         ids=[p for _, p in LEMMA_MALFORMED])
def test_malformed_lemma_certificate_is_bad_input_with_path(lemma_cert, mutate, path):
    c = copy.deepcopy(lemma_cert)
    mutate(c)
    with pytest.raises(BadInput) as e:
        verify_certificate(seal(c))
    assert e.value.path is not None and e.value.path.startswith(path), str(e.value)


def test_deep_nesting_is_bad_input(lemma_cert):
    """Nesting that the JSON reader accepts but that would exhaust the validator's
    recursion: exit 2, never a RecursionError."""
    c = copy.deepcopy(lemma_cert)
    c["instances"][0]["data"] = {"x": "PLACEHOLDER"}
    deep = "[" * 900 + '"1"' + "]" * 900
    c = loads_strict(json.dumps(c).replace('"PLACEHOLDER"', deep), "x.json")
    assert "data" in c["instances"][0]
    with pytest.raises(BadInput):
        verify_certificate(c)
    with pytest.raises(BadInput, match="nested too deeply"):
        loads_strict("[" * 100_000 + "]" * 100_000, "x.json")


def test_duplicate_keys_and_non_objects_through_the_cli(cert, tmp_path, capsys):
    text = json.dumps(cert)
    f = tmp_path / "dup.json"
    f.write_text(text.replace('"kind": "theorem"', '"kind": "theorem", "kind": "lemma"'))
    assert main(["verify", str(f)]) == 2
    assert "duplicate key 'kind'" in capsys.readouterr().err
    for body in ("[1, 2]", "null", '"x"', "3"):
        f.write_text(body)
        assert main(["verify", str(f)]) == 2
        err = capsys.readouterr().err
        assert "BAD INPUT" in err and "Traceback" not in err
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
    assert "cannot read certificate" in capsys.readouterr().err


def test_malformed_certificates_through_the_cli_never_trace(cert, lemma_cert, tmp_path, capsys):
    for i, (mutate, path, _) in enumerate(THEOREM_MALFORMED[:8]):
        c = copy.deepcopy(cert)
        mutate(c)
        f = tmp_path / f"bad{i}.json"
        f.write_text(json.dumps(seal(c)))
        assert main(["verify", str(f)]) == 2
        err = capsys.readouterr().err
        assert f"(at {path}" in err and "Traceback" not in err, err


def test_huge_exponent_tau_is_exit_2_without_hanging(cert, tmp_path):
    """The issue's hang: tau = "1e999999999" used to be parsed by Fraction (minutes,
    gigabytes).  The timeout only guards against a hang; it measures nothing."""
    c = copy.deepcopy(cert)
    c["claim"]["statement"] = "1.8"
    c["semantics"] = {"attention": "softmax", "tau": "1e999999999"}
    f = tmp_path / "tau.json"
    f.write_text(json.dumps(seal(c)))
    r = subprocess.run([sys.executable, "-m", "proofcheck", "verify", str(f)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "$.semantics.tau" in r.stderr and "exponent" in r.stderr
    assert "Traceback" not in r.stderr


# ------------------------------------------------ one parser: the same rules everywhere

@pytest.mark.parametrize("spelling, ok", [("1_0", False), ("10", True), ("1e99999", False),
                                          ("0x10", False), (" 5/2 ", False), ("1 /2", False),
                                          ("5/2", True), ("1.5e1", True)])
def test_the_same_spellings_everywhere(spelling, ok, tmp_path, capsys):
    """Dataset coordinates, certificate values and --tau accept the same strings."""
    obj = {"format": "proofcheck-dataset/1", "d": 2,
           "pairs": [{"input": [[spelling, "0"], ["0", "1"]], "output": [["1", "1"]]}]}
    if ok:
        assert dataset_from_json(obj).pairs[0].inputs[0][0] == parse_number(spelling, "$")[0]
    else:
        with pytest.raises(BadInput) as e:
            dataset_from_json(obj)
        assert e.value.path == "$.pairs[0].input[0][0]"
    err = schema_error({"format": "proofcheck-certificate/1", "kind": "lemma",
                        "claim": {"statement": "3.1"},
                        "semantics": {"attention": "softmax", "tau": spelling},
                        "instances": [{"kind": "FF", "layer": {"eta": spelling, "U": [], "b": [],
                                                               "W": []},
                                       "inputs": [[["0"]]], "expected": [[["0"]]],
                                       "verdict": "VERIFIED"}],
                        "verdict": "VERIFIED", "digest": "0" * 64}, "certificate")
    assert (err is None) == ok, err
    if not ok:  # --tau is rejected before anything runs
        rc = main(["theorem", "1.8", "--tau", spelling, "--limit", "2", "--no-report",
                   "--no-simulation"])
        _, err_text = capsys.readouterr()
        assert rc == 2 and "--tau" in err_text and "Traceback" not in err_text


@pytest.mark.parametrize("value", [True, False, None, [1], {"a": 1}, float("nan")])
def test_dataset_rejects_non_numbers(value):
    obj = {"format": "proofcheck-dataset/1", "d": 2,
           "pairs": [{"input": [[value, "0"]], "output": [["1", "1"]]}]}
    with pytest.raises(BadInput) as e:
        dataset_from_json(obj)
    assert e.value.path == "$.pairs[0].input[0][0]"


def test_json_float_in_a_dataset_is_its_binary_value():
    obj = {"format": "proofcheck-dataset/1", "d": 2,
           "pairs": [{"input": [[0.1, "0"]], "output": [["1", "1"]]}]}
    ds = dataset_from_json(obj)
    assert ds.pairs[0].inputs[0][0].denominator == 2 ** 55 and ds.notes


def test_every_constant_the_schema_allows_is_re_derived_by_the_kernel(cert):
    from proofcheck.frontend.io.datasets import dataset_from_json
    from proofcheck.kernel.serialize import network_from_json
    from proofcheck.kernel.theorem import derived_constants
    derived = derived_constants(dataset_from_json(cert["dataset"]),
                                 network_from_json(cert["network"]), None)
    assert set(schema("certificate-2")["$defs"]["constants"]["properties"]) == set(derived)
    for k, v in cert["claim"]["constants"].items():  # what the writer states is re-derived
        assert derived[k][0]() == parse_number(v, "$")[0], k
