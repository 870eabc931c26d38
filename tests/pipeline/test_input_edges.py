"""Input and command-line edges: an output path that names the input dataset or a
report file is refused before any work (exit 2, both options named, the file
intact); unknown dataset keys are refused at their JSON path; numbers with white
space are refused; error texts name a directory, a non-printable character of a
name (its code point and index), an invalid .npz and a NaN array entry; a missing
certificate folder is created like a missing --out folder; counts agree with
their nouns."""
from __future__ import annotations

import json
import os
import re

import pytest

from proofcheck.frontend.cli import main
from proofcheck.frontend.io.datasets import load_dataset
from proofcheck.kernel.errors import BadInput

DATASET = {"format": "proofcheck-dataset/1", "name": "edge", "d": 2,
           "pairs": [{"input": [["1", "0"], ["0", "1"]], "output": [["1", "1"]]}]}


def _write(path, obj=DATASET):
    path.write_text(json.dumps(obj))
    return path


def _bad(capsys, argv):
    """Run ``argv``; return stderr's ``BAD INPUT`` line, asserting exit 2 and that no
    check ran (nothing on stdout says a check passed)."""
    capsys.readouterr()
    code = main(argv)
    out = capsys.readouterr()
    assert code == 2, out
    assert "[VERIFIED]" not in out.out and "VERDICT" not in out.out
    return out.err


def _at(err: str) -> str:
    """The path of a ``BAD INPUT: ... (at PATH)`` line."""
    m = re.search(r"\(at (.*)\)$", err.strip())
    assert m, err
    return m.group(1)


# ---------------------------------------------------------------- 1. same file twice

SAME = {
    "theorem --certificate = --dataset":
        lambda d, tmp: ["theorem", "1.6", "--dataset", str(d), "--no-report",
                        "--certificate", f"{tmp}/./{d.name}"],
    "theorem --certificate = report json":
        lambda d, tmp: ["theorem", "1.6", "--dataset", str(d), "--out", str(tmp / "r"),
                        "--certificate", str(tmp / "r" / "theorem-1.6-edge.json")],
    "theorem 1.8 --certificate = report png":
        lambda d, tmp: ["theorem", "1.8", "--dataset", str(d), "--out", str(tmp / "r"),
                        "--certificate", str(tmp / "r" / "theorem-1.8-edge.png")],
    "theorem --dataset = report json":
        lambda d, tmp: ["theorem", "1.6", "--dataset", str(d), "--out", str(d.parent)],
    "lemma --certificate = --dataset":
        lambda d, tmp: ["lemma", "3.2", "--dataset", str(d), "--certificate", str(d)],
    "export --out = --dataset":
        lambda d, tmp: ["export", "1.6", "--dataset", str(d), "--format", "safetensors",
                        "--out", str(d)],
    "export --certificate = --dataset":
        lambda d, tmp: ["export", "1.6", "--dataset", str(d), "--format", "onnx",
                        "--out", str(tmp / "n.onnx"), "--certificate", str(d)],
    "audit --json = --dataset":
        lambda d, tmp: ["audit", "1.6", "--dataset", str(d), "--json", str(d)],
    "audit --plot = --json":
        lambda d, tmp: ["audit", "1.6", "--dataset", str(d), "--json", str(tmp / "a.json"),
                        "--plot", str(tmp / "a.json")],
}


@pytest.mark.parametrize("case", SAME)
def test_an_output_naming_an_input_or_another_output_is_refused(tmp_path, capsys, case):
    name = "theorem-1.6-edge.json" if "report json" in case and "--dataset" in case \
        else "my.json"
    d = _write(tmp_path / name)
    before = d.read_bytes()
    argv = SAME[case](d, tmp_path)
    err = _bad(capsys, argv)
    options = re.findall(r"(--[a-z]+)", err.split(" name the same file")[0])
    assert len(options) == 2, err  # both options named
    assert set(options) <= set(a for a in argv if a.startswith("--")) | {"--out"}
    assert d.read_bytes() == before
    assert not (tmp_path / "r").exists() and not (tmp_path / "a.json").exists()


def test_a_hard_link_or_symlink_to_the_dataset_is_the_same_file(tmp_path, capsys):
    d = _write(tmp_path / "my.json")
    os.link(d, tmp_path / "hard.json")
    (tmp_path / "soft.json").symlink_to(d)
    for other in ("hard.json", "soft.json"):
        err = _bad(capsys, ["theorem", "1.6", "--dataset", str(d), "--no-report",
                            "--certificate", str(tmp_path / other)])
        assert _at(err) == str(tmp_path / other)
    assert json.loads(d.read_text()) == DATASET


# ---------------------------------------------------------------- 2. unknown keys

@pytest.mark.parametrize("edit, path", [
    (lambda o: o.update(pair=[]), "$.pair"),
    (lambda o: o.update(description="x"), "$.description"),
    (lambda o: o["pairs"][0].update(outputs=[]), "$.pairs[0].outputs"),
    (lambda o: o["pairs"][0].update({"in put": 1}), '$.pairs[0]["in put"]'),
])
def test_unknown_dataset_keys_are_refused_at_their_path(tmp_path, capsys, edit, path):
    obj = json.loads(json.dumps(DATASET))
    edit(obj)
    d = _write(tmp_path / "k.json", obj)
    err = _bad(capsys, ["theorem", "1.6", "--dataset", str(d), "--no-report"])
    assert _at(err) == path
    with pytest.raises(BadInput) as e:
        load_dataset(d)
    assert e.value.path == path


def test_source_is_the_one_extra_key_and_the_shipped_datasets_load():
    from proofcheck.frontend.io.examples import sample
    assert sample()[0].N > 1  # the shipped sample carries "source"


def test_the_schema_refuses_unknown_keys_too():
    import jsonschema

    from proofcheck.frontend.io.schemas import schema
    v = jsonschema.Draft202012Validator(schema("dataset"))
    assert v.is_valid({**DATASET, "source": "s"})
    assert not v.is_valid({**DATASET, "pair": []})
    assert not v.is_valid({**DATASET, "pairs": [{**DATASET["pairs"][0], "outputs": []}]})


# ---------------------------------------------------------------- 3. error texts

@pytest.mark.parametrize("name, index, code", [("ab\u202ec", 2, "U+202E"),
                                               ("x\x1b[31m", 1, "U+001B")])
def test_a_non_printable_name_character_is_named(tmp_path, capsys, name, index, code):
    d = _write(tmp_path / "n.json", {**DATASET, "name": name})
    err = _bad(capsys, ["theorem", "1.6", "--dataset", str(d), "--no-report"])
    assert _at(err) == "$.name"
    assert f"{code} at index {index}" in err
    assert "\x1b" not in err and "\u202e" not in err


@pytest.mark.parametrize("folder", ["adir", "dir.json", "dir.npz"])
def test_a_directory_is_named_a_directory(tmp_path, folder):
    (tmp_path / folder).mkdir()
    with pytest.raises(BadInput, match="is a directory") as e:
        load_dataset(tmp_path / folder)
    assert e.value.path == str(tmp_path / folder)


def test_a_non_zip_npz_and_a_nan_entry(tmp_path):
    np = pytest.importorskip("numpy")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"\x80\x04not a pickle")
    with pytest.raises(BadInput, match="not a valid .npz") as e:
        load_dataset(junk)
    assert "pickle" not in e.value.message and e.value.path == str(junk)
    f = tmp_path / "nan.npz"
    np.savez(f, X_0=np.array([[0.0, 1.0], [np.nan, 2.0]]), Y_0=np.array([[0.0, 1.0]]))
    with pytest.raises(BadInput) as e:
        load_dataset(f)
    assert e.value.path == "X_0[1][0]"
    assert "(nan)" in e.value.message and "np." not in e.value.message


# ---------------------------------------------------------------- 4. small things

@pytest.mark.parametrize("spelling", [" 1", "1 ", "1 /2", "1/ 2", "\t1", "1\n"])
def test_numbers_with_white_space_are_refused(tmp_path, capsys, spelling):
    obj = json.loads(json.dumps(DATASET))
    obj["pairs"][0]["input"][1][0] = spelling
    d = _write(tmp_path / "w.json", obj)
    err = _bad(capsys, ["theorem", "1.6", "--dataset", str(d), "--no-report"])
    assert _at(err) == "$.pairs[0].input[1][0]"
    err = _bad(capsys, ["theorem", "1.8", "--dataset", str(_write(tmp_path / "ok.json")),
                        "--no-report", "--tau", spelling.replace("1", "1/8", 1)])
    assert _at(err) == "--tau"


def test_a_missing_certificate_folder_is_created_like_a_missing_out_folder(tmp_path, capsys):
    d = _write(tmp_path / "my.json")
    cert = tmp_path / "new" / "deeper" / "c.json"
    out = tmp_path / "r" / "s"
    assert main(["theorem", "1.6", "--dataset", str(d), "--out", str(out),
                 "--certificate", str(cert)]) == 0
    assert json.loads(cert.read_text())["format"].startswith("proofcheck-certificate/")
    assert (out / "theorem-1.6-edge.json").is_file()
    capsys.readouterr()
    assert main(["verify", str(cert)]) == 0


def test_counts_agree_with_their_nouns(tmp_path, capsys):
    d = _write(tmp_path / "my.json", {**DATASET, "pairs": [
        {"input": [["1", "0"]], "output": [["1", "1"]]}]})
    capsys.readouterr()
    assert main(["theorem", "1.6", "--dataset", str(d), "--no-report"]) == 0
    out = capsys.readouterr().out
    assert "1 input token\n" in out or "1 input token" in out.splitlines()[0]
    assert not re.search(r"\b1 (pairs|tokens|input tokens)\b",
                         "\n".join(x for x in out.splitlines() if not x.startswith("VERDICT")))


def test_report_says_created_for_a_new_folder(tmp_path, monkeypatch, capsys):
    from proofcheck.frontend.runs import site
    monkeypatch.setattr(site, "_build", lambda build, quick, seconds: 0)
    out = tmp_path / "new"
    assert site.regenerate(out, quick=True) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"created {out}/"
    assert site.regenerate(out, quick=True) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"replaced {out}/"


def test_the_examples_stay_free_of_build_output():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "examples"
    left = [p for p in root.rglob("*") if p.name == "build" or p.name.endswith(".egg-info")]
    assert left == []


# ---------------------------------------------------------------- --dataset - (stdin)

def _stdin_run(tmp_path, data: bytes, *args):
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-m", "proofcheck", *args, "--dataset", "-"],
                          input=data, capture_output=True, env=env, cwd=tmp_path, timeout=300)


def test_dataset_from_stdin_runs_like_the_file(tmp_path):
    """``--dataset -`` reads the JSON dataset piped in: the theorem verifies it, with the
    same dataset SHA-256 in its report as the file gives."""
    r = _stdin_run(tmp_path, json.dumps(DATASET).encode(), "theorem", "1.6", "--out", "r")
    assert r.returncode == 0, (r.stdout + r.stderr).decode()
    piped = json.loads((tmp_path / "r" / "theorem-1.6-edge.json").read_text())
    assert main(["theorem", "1.6", "--dataset", str(_write(tmp_path / "edge.json")),
                 "--out", str(tmp_path / "f")]) == 0
    from_file = json.loads((tmp_path / "f" / "theorem-1.6-edge.json").read_text())
    assert piped["dataset"]["sha256"] == from_file["dataset"]["sha256"]
    assert piped["verdict"] == from_file["verdict"] == "VERIFIED"


@pytest.mark.parametrize("data,path", [
    (json.dumps({**DATASET, "pairs": [{"input": [["1", "x"]], "output": [["1", "1"]]}]}),
     "$.pairs[0].input[0][1]"),
    ('{"format": "proofcheck-dataset/1", "d": 2, "pairs": [', "<stdin>"),
    ("", "<stdin>"),
])
def test_a_bad_dataset_on_stdin_is_exit_2_at_its_path(tmp_path, data, path):
    r = _stdin_run(tmp_path, data.encode(), "lemma", "3.1")
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err, err
    assert err.rstrip().endswith(f"(at {path})"), err
    assert r.stdout == b"" and sorted(tmp_path.iterdir()) == []


def test_stdin_that_is_a_terminal_a_zip_or_too_large_is_refused(monkeypatch):
    import io

    import proofcheck.kernel.documents as documents
    from proofcheck.frontend.io.datasets import load_stdin

    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True
    with pytest.raises(BadInput, match="terminal") as e:
        load_stdin(Terminal(io.BytesIO(json.dumps(DATASET).encode())))
    assert e.value.path == "<stdin>"
    with pytest.raises(BadInput, match="zip archive"):
        load_stdin(io.TextIOWrapper(io.BytesIO(b"PK\x03\x04rest of an npz")))
    monkeypatch.setattr(documents, "MAX_FILE_BYTES", 64)
    with pytest.raises(BadInput, match="larger than 64 bytes"):
        load_stdin(io.TextIOWrapper(io.BytesIO(json.dumps(DATASET).encode())))
    monkeypatch.undo()
    assert load_stdin(io.TextIOWrapper(io.BytesIO(json.dumps(DATASET).encode()))).name == "edge"
