"""Tests for proofcheck.examples (docs/spec.md §3, real data)."""
import json
from fractions import Fraction
from importlib import resources

import pytest

from proofcheck.frontend.io.examples import EXAMPLES, digits, sample
from proofcheck.frontend.io.datasets import dataset_from_json
from proofcheck.kernel.dataset import check_admissible
from proofcheck.kernel.errors import BadInput


def test_sample_loads_without_sklearn():
    ds, info = sample()
    assert ds.name == "digits-sample" and ds.d == 6 and ds.N == 40
    assert info["used"] == 40 and info["task"] == "label"
    assert "load_digits" in info["source"]
    check_admissible(ds)
    assert len({frozenset(p.inputs) for p in ds.pairs}) == ds.N
    for p in ds.pairs:
        assert len(p.inputs) == 16 and len(p.outputs) == 1
        label = p.outputs[0]
        assert label[1:] == (0,) * 5 and 0 <= label[0] <= 9
        assert {(t[4], t[5]) for t in p.inputs} == {(r, c) for r in range(4) for c in range(4)}
        assert all(0 <= v <= 16 and isinstance(v, Fraction) for t in p.inputs for v in t[:4])
    assert [p.outputs[0][0] for p in ds.pairs[:10]] == list(range(10))


def test_sample_file_is_valid_dataset_with_source():
    obj = json.loads((resources.files("proofcheck") / "data" / "digits-sample.json")
                     .read_text(encoding="utf-8"))
    assert obj["format"] == "proofcheck-dataset/1" and "source" in obj
    ds = dataset_from_json(obj)
    check_admissible(ds)


def test_sample_inpaint_and_limit():
    ds, info = sample(task="inpaint", limit=10)
    assert ds.N == 10 and ds.name == "digits-sample-inpaint-10"
    for p in ds.pairs:
        assert len(p.inputs) == 12 and len(p.outputs) == 4
        assert {(t[4], t[5]) for t in p.outputs} == {(1, 1), (1, 2), (2, 1), (2, 2)}


def test_examples_registry():
    assert set(EXAMPLES) == {"digits", "digits-sample"}
    ds, _ = EXAMPLES["digits-sample"]()
    assert ds.N == 40


@pytest.mark.parametrize("kwargs", [{"task": "segment"}, {"limit": 0}, {"limit": "5"}])
def test_bad_arguments(kwargs):
    with pytest.raises(BadInput):
        sample(**kwargs)


def test_sample_matches_sklearn():
    pytest.importorskip("sklearn")
    ds, _ = digits(limit=40)
    s, _ = sample()
    assert ds.pairs == s.pairs


def test_digits_label():
    pytest.importorskip("sklearn")
    ds, info = digits(limit=50)
    assert ds.N == 50 and ds.d == 6 and ds.name == "digits-50"
    assert info["used"] == 50 and info["images_total"] == 1797 and info["task"] == "label"
    assert info["duplicates_dropped"] >= 0
    check_admissible(ds)
    for p in ds.pairs:
        assert len(p.outputs) == 1 and p.outputs[0][1:] == (0,) * 5


def test_digits_inpaint():
    pytest.importorskip("sklearn")
    ds, info = digits(limit=200, task="inpaint")
    assert ds.N == 200 and ds.name == "digits-inpaint-200" and info["task"] == "inpaint"
    check_admissible(ds)
    assert all(ds.pairs[j].outputs and len(ds.pairs[j].inputs) == 12 for j in range(ds.N))


def test_duplicates_are_dropped():
    from proofcheck.frontend.io.examples import _build
    img = [[(r * 8 + c) % 17 for c in range(8)] for r in range(8)]
    other = [row[:] for row in img]
    other[3][3] = 16 - other[3][3]  # differs only inside the inpainting mask
    ds, info = _build([img, img, other], [1, 2, 3], "label", "t", None)
    assert ds.N == 2 and info["duplicates_dropped"] == 1 and info["identical_images"] == 1
    ds, info = _build([img, img, other], [1, 2, 3], "inpaint", "t", None)
    assert ds.N == 1 and info["duplicates_dropped"] == 2
