"""Exit codes never fail open (issue "Check what is built", item 6; SPEC §5): an
output error after a verdict (closed pipe, full disk) keeps the verdict's non-zero
exit code, or is exit 4 — never 0.  Run as real subprocesses."""
from __future__ import annotations

import copy
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import NAMED

from lemmas.afz.theorems.theorem_1_6 import verify as verify16
from proofcheck.cli import main
from proofcheck.io.certificate_writer import seal, theorem_certificate
from proofcheck.kernel.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[1]
CMD = [sys.executable, "-m", "proofcheck", "verify"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    ds = NAMED["square-builtin"]
    tc = verify16(ds)
    good = theorem_certificate("1.6", ds, tc.construction.net, Verdict.VERIFIED,
                               constants=tc.constants)
    bad = copy.deepcopy(good)
    bad["network"]["blocks"][-1]["ff"]["W"][0][0] = "12345"  # the last snap: REFUTED
    d = tmp_path_factory.mktemp("certs")
    (d / "verified.json").write_text(json.dumps(good))
    (d / "refuted.json").write_text(json.dumps(seal(bad)))
    return d


def _run_closed_pipe(path) -> subprocess.CompletedProcess:
    """Run ``verify path`` with standard output a pipe whose reading end is closed."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([*CMD, str(path)], cwd=ROOT, stdout=w, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    finally:
        os.close(w)


def test_exit_codes_with_normal_output(files):
    r = subprocess.run([*CMD, str(files / "refuted.json")], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 1 and "VERDICT: REFUTED" in r.stdout
    r = subprocess.run([*CMD, str(files / "verified.json")], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and "VERDICT: VERIFIED" in r.stdout


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("head") is None,
                    reason="needs bash and head")
def test_refuted_piped_into_head_is_non_zero_under_pipefail(files):
    """The issue's reproduction: ``verify refuted.json | head -1`` exited 0."""
    script = (f"set -o pipefail; {sys.executable} -m proofcheck verify "
              f"'{files / 'refuted.json'}' | head -1")
    r = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert len(r.stdout.splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_closed_pipe_keeps_the_verdict_or_exits_4(files):
    r = _run_closed_pipe(files / "refuted.json")
    assert r.returncode == 1, r.stderr
    assert "output could not be written" in r.stderr and "Traceback" not in r.stderr
    r = _run_closed_pipe(files / "verified.json")
    assert r.returncode == 4, r.stderr  # VERIFIED but not delivered: never 0


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_full_disk_keeps_the_verdict_or_exits_4(files):
    for name, code in (("refuted.json", 1), ("verified.json", 4)):
        with open("/dev/full", "w") as full:
            r = subprocess.run([*CMD, str(files / name)], cwd=ROOT, stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=300)
        assert r.returncode == code, (name, r.stderr)
        assert "Traceback" not in r.stderr


class _Broken(io.StringIO):
    def write(self, s):
        raise BrokenPipeError(32, "Broken pipe")


def test_in_process_output_error(files, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", _Broken())
    assert main(["verify", str(files / "refuted.json")]) == 1
    assert main(["verify", str(files / "verified.json")]) == 4
    monkeypatch.undo()
    assert "output could not be written" in capsys.readouterr().err
