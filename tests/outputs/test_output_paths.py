"""Output paths that exist and are not regular files (a FIFO standing in for
/dev/null, a folder) are never replaced: ``atomic_write`` raises ``NotAFile``;
``export``, ``theorem`` and ``lemma`` refuse them up front (exit 2 naming the option,
nothing written, the FIFO intact), and so a certificate path that cannot be written
(under a file, a folder that takes no file; a missing folder is created, as for
``--out``: tests/pipeline/test_input_edges.py); ``export`` writes nothing when the
network's check does not verify."""
from __future__ import annotations

import os
import stat

import pytest

from proofcheck.frontend.cli import main
from proofcheck.frontend.io.files import NotAFile, atomic_write



def _fifo(tmp_path):
    f = tmp_path / "fifo"
    os.mkfifo(f)
    return f


def _is_fifo(p) -> bool:
    return stat.S_ISFIFO(os.stat(p).st_mode)


def test_atomic_write_refuses_a_fifo_and_a_folder(tmp_path):
    f = _fifo(tmp_path)
    with pytest.raises(NotAFile, match="is a FIFO"):
        atomic_write(f, "x")
    assert _is_fifo(f)
    with pytest.raises(NotAFile, match="is a folder"):
        atomic_write(tmp_path, "x")
    link = tmp_path / "link"
    link.symlink_to(f)
    with pytest.raises(NotAFile):
        atomic_write(link, "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link"]


@pytest.mark.parametrize("fmt,which", [("onnx", "--certificate"), ("safetensors", "--out"),
                                       ("safetensors", "side")])
def test_export_refuses_a_fifo_before_any_work(tmp_path, capsys, fmt, which):
    pytest.importorskip(fmt)
    f = _fifo(tmp_path)
    out = tmp_path / f"net.{fmt}"
    args = ["export", "1.6", "--limit", "2", "--format", fmt, "--out", str(out)]
    if which == "--certificate":
        args += ["--certificate", str(f)]
    elif which == "--out":
        args[args.index(str(out))] = str(f)
    else:
        os.rename(f, tmp_path / f"net.{fmt}.json")
        f = tmp_path / f"net.{fmt}.json"
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr()
    assert "is a FIFO" in err.err and "Theorem 1.6" not in err.out  # before any work
    assert _is_fifo(f) and not out.exists()


def test_theorem_certificate_to_a_fifo_is_refused_before_the_run(tmp_path, capsys):
    f = _fifo(tmp_path)
    assert main(["theorem", "1.6", "--limit", "2", "--no-report", "--certificate", str(f)]) == 2
    err = capsys.readouterr()
    assert "is a FIFO" in err.err and "Theorem 1.6" not in err.out
    assert _is_fifo(f)


UNWRITABLE = {"under a file": lambda tmp: tmp / "file.txt" / "c.json",
              "a folder that takes no file": lambda tmp: "/proc/c.json"}


@pytest.mark.parametrize("case", UNWRITABLE)
@pytest.mark.parametrize("argv", [["theorem", "1.6", "--limit", "2", "--no-report"],
                                  ["lemma", "3.2"], ["lemma", "4.1"]], ids=" ".join)
def test_an_unwritable_certificate_path_is_refused_before_the_run(tmp_path, capsys, case, argv):
    (tmp_path / "file.txt").write_text("x")
    path = UNWRITABLE[case](tmp_path)
    capsys.readouterr()
    assert main(argv + ["--certificate", str(path)]) == 2
    err = capsys.readouterr()
    assert "--certificate" in err.err and "[VERIFIED]" not in err.out  # before any check ran
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_lemma_certificate_of_a_statement_without_kernel_form_is_refused_first(tmp_path, capsys):
    assert main(["lemma", "C.1", "--certificate", str(tmp_path / "c.json")]) == 2
    assert "[VERIFIED]" not in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_export_writes_nothing_when_the_check_is_refuted(tmp_path, capsys, monkeypatch):
    """A snap aimed one unit off its target: the exact check is REFUTED, exit 1, and
    neither the export nor its certificate is written."""
    pytest.importorskip("safetensors")
    from proofcheck.constructions.afz.phases import interpolation
    real = interpolation.snap_ff

    def off_target(axis, d, kappa, delta, y, *rest, **kw):
        return real(axis, d, kappa, delta, tuple(v + 1 for v in y), *rest, **kw)
    monkeypatch.setattr(interpolation, "snap_ff", off_target)
    out = tmp_path / "n.safetensors"
    assert main(["export", "1.6", "--limit", "2", "--format", "safetensors", "--out", str(out),
                 "--certificate", str(tmp_path / "c.json")]) == 1
    assert "exact check: REFUTED" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_reports_of_different_constructions_on_one_dataset_keep_their_own_files(tmp_path,
                                                                                 capsys):
    """``theorem 1.6`` with the default and the peel construction, into one folder:
    two reports (the default's name unchanged, ``-peel`` after the dataset's name),
    each recording its own construction; 1.8's seed construction likewise."""
    import json
    out = tmp_path / "r"
    for construction in ("default", "peel"):
        assert main(["theorem", "1.6", "--limit", "4", "--construction", construction,
                     "--out", str(out)]) == 0
    assert main(["theorem", "1.8", "--limit", "2", "--construction", "seed", "--no-simulation",
                 "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["theorem-1.6-digits-sample-4-peel.json", "theorem-1.6-digits-sample-4-peel.md",
                     "theorem-1.6-digits-sample-4.json", "theorem-1.6-digits-sample-4.md",
                     "theorem-1.8-digits-sample-2-seed.json", "theorem-1.8-digits-sample-2-seed.md",
                     "theorem-1.8-digits-sample-2-seed.png"]
    for name, construction in (("theorem-1.6-digits-sample-4", "default"),
                               ("theorem-1.6-digits-sample-4-peel", "peel")):
        rep = json.loads((out / f"{name}.json").read_text())
        assert rep["constants"]["construction"] == construction
