"""Inputs found by trying to break the tool: each is a clear exit 2 (or a correct
run), never a traceback or exit 4."""
from __future__ import annotations

import json

import numpy as np
import pytest

from proofcheck.frontend.cli import main


def _ds(name="t", d=2, inp=(("0", "0"), ("1", "2")), out=(("3", "3"),)):
    return {"format": "proofcheck-dataset/1", "name": name, "d": d,
            "pairs": [{"input": [list(x) for x in inp], "output": [list(y) for y in out]}]}


def _run(tmp_path, obj_or_text, capsys, extra=()):
    f = tmp_path / "x.json"
    f.write_text(obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text))
    rc = main(["theorem", "1.6", "--dataset", str(f), "--out", str(tmp_path / "r"), *extra])
    out, err = capsys.readouterr()
    return rc, out, err


def test_huge_integers_are_printed_exactly(tmp_path, capsys):
    big = "1" + "0" * 5000
    rc, out, err = _run(tmp_path, _ds(inp=((big, "1"), ("1", "2"))), capsys)
    assert rc == 0 and "VERDICT: VERIFIED" in out
    rep = json.loads((tmp_path / "r" / "theorem-1.6-t.json").read_text())
    assert len(rep["construction"]["beta"]) > 5000  # an exact 5000-digit number in the report


@pytest.mark.parametrize("obj,frag", [
    (_ds(name="\ud800"), "lone surrogate"),
    (_ds(name="a\nb"), "U+000A at index 1"),
    (_ds(name="n" * 300), "at most 120"),
    (json.dumps(_ds(d=0)).replace('"d": 0', '"d": 1' + "0" * 5000), "larger than 100000"),
])
def test_bad_names_and_sizes(tmp_path, capsys, obj, frag):
    rc, _, err = _run(tmp_path, obj, capsys)
    assert rc == 2 and frag in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_duplicate_keys_rejected_and_bom_accepted(tmp_path, capsys):
    text = json.dumps(_ds())
    rc, _, err = _run(tmp_path, text.replace('"d": 2', '"d": 2, "d": 3'), capsys)
    assert rc == 2 and "duplicate key" in err
    rc, out, _ = _run(tmp_path, "\ufeff" + text, capsys)
    assert rc == 0


def test_npz_keys_must_be_canonical(tmp_path, capsys):
    f = tmp_path / "x.npz"
    np.savez(f, X_00=np.array([[0, 0], [1, 1]]), Y_00=np.array([[2, 2]]))
    rc = main(["theorem", "1.6", "--dataset", str(f), "--no-report"])
    assert rc == 2 and "X_00" in capsys.readouterr().err


@pytest.mark.parametrize("argv,frag", [
    (["--out", "/dev/null/x"], "--out"),
    (["--dataset", ""], "--dataset is empty"),
    (["--example", ""], "--example is empty"),
])
def test_bad_options_fail_before_running(argv, frag, capsys):
    assert main(["theorem", "1.6", *argv]) == 2
    assert frag in capsys.readouterr().err


def test_out_is_an_existing_file(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["theorem", "1.6", "--out", str(f)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_limit_applies_to_the_default_sample(tmp_path, capsys):
    assert main(["theorem", "1.6", "--limit", "3", "--no-report"]) == 0
    assert "N = 3" in capsys.readouterr().out
