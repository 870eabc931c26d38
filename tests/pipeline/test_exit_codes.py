"""Exit codes never fail open (issue "Check what is built", item 6; docs/spec.md §5): an
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
from conftest import certificate_16

from proofcheck.frontend.cli import main
from proofcheck.frontend.io.certificate_writer import seal

ROOT = Path(__file__).resolve().parents[2]
CMD = [sys.executable, "-m", "proofcheck", "verify"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    good = certificate_16("square-builtin")
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


#: a command run with one step slowed: the step prints "slow step" and sleeps, so that
#: the test can send SIGINT while it runs (argv[1]: what to slow; the rest: the command)
SLOWED = """import sys, time
def slow(real):
    def call(*a, **k):
        print("slow step", flush=True)
        time.sleep(120)
        return real(*a, **k)
    return call
what = sys.argv[1]
if what == "run":  # the theorem's construction and checks
    import proofcheck.frontend.runs.theorem as m
    m.run_theorem = slow(m.run_theorem)
elif what == "write":  # inside atomic_write: the temporary file written, not yet renamed
    import proofcheck.frontend.io.files as m
    m.os.chmod = slow(m.os.chmod)
elif what == "report":  # the report's statement runs
    import proofcheck.frontend.runs.site as m
    m._statements = slow(m._statements)
from proofcheck.frontend.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _interrupted(tmp_path, what: str, *args) -> subprocess.CompletedProcess:
    import signal
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-c", SLOWED, what, *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        for line in p.stdout:
            if line.strip() == "slow step":
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


@pytest.mark.parametrize("what", ["run", "write"])
def test_ctrl_c_exits_130_with_nothing_half_written(tmp_path, what):
    """SIGINT while ``theorem 1.6`` runs (in its checks; inside the first file write):
    exit 130 (not 4, the internal-error code), no traceback, no VERDICT line, and no
    file in the output folder — neither a report nor a certificate nor a temporary."""
    out = tmp_path / "out"
    r = _interrupted(tmp_path, what, "theorem", "1.6", "--limit", "3", "--out", str(out),
                     "--certificate", str(out / "c.json"))
    assert r.returncode == 130, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "VERDICT" not in r.stdout
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert left == []


def test_ctrl_c_during_report_leaves_the_folder_as_it_was(tmp_path):
    out = tmp_path / "reports"
    (out / "statements").mkdir(parents=True)
    (out / "statements" / "a.md").write_text("old page\n")
    r = _interrupted(tmp_path, "report", "report", "--out", str(out))
    assert r.returncode == 130, r.stdout + r.stderr
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "reports", "reports/statements", "reports/statements/a.md"]
    assert (out / "statements" / "a.md").read_text() == "old page\n"
