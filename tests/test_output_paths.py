"""Output paths that exist and are not regular files (a FIFO standing in for
/dev/null, a folder) are never replaced: ``atomic_write`` raises ``NotAFile``;
``export`` refuses them up front (exit 2 naming the option, nothing written); a
``theorem`` certificate to such a path is exit 4 with the reason, the FIFO intact."""
from __future__ import annotations

import os
import stat

import pytest

from proofcheck.cli import main
from proofcheck.io.files import NotAFile, atomic_write



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


def test_theorem_certificate_to_a_fifo_is_exit_4_and_leaves_it(tmp_path, capsys):
    f = _fifo(tmp_path)
    assert main(["theorem", "1.6", "--limit", "2", "--no-report", "--certificate", str(f)]) == 4
    assert "is a FIFO" in capsys.readouterr().err
    assert _is_fifo(f)
