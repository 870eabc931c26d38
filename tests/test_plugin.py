"""The example plugin package (examples/proofcheck-example-clamp) installs, shows up
in ``list``, runs with ``lemma``, writes a certificate that ``verify`` re-checks,
and a broken layer in it is REFUTED; broken plugins are skipped with a warning."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "proofcheck-example-clamp"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    target = tmp_path_factory.mktemp("plugin-site")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                        "--no-build-isolation", "--target", str(target), str(EXAMPLE)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"the example plugin does not install: {r.stderr[-2000:]}")
    return target


def run(site, *args, extra_path=()):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), *extra_path])}
    return subprocess.run([sys.executable, "-m", "proofcheck", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT)


def test_plugin_listed_and_runs(site, tmp_path):
    r = run(site, "list")
    assert r.returncode == 0 and "x.clamp" in r.stdout, r.stderr
    r = run(site, "lemma", "x.clamp", "--certificate", str(tmp_path / "c.json"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "source: plugin package proofcheck-example-clamp" in r.stdout
    assert "VERDICT: VERIFIED" in r.stdout
    cert = json.loads((tmp_path / "c.json").read_text())
    assert cert["claim"]["statement"] == "x.clamp"
    r = run(site, "verify", str(tmp_path / "c.json"))
    assert r.returncode == 0 and "VERDICT: VERIFIED" in r.stdout, r.stdout + r.stderr
    assert "not re-derived" in r.stdout  # the kernel says what it did not check


def test_plugin_certificate_with_a_wrong_layer_is_refuted(site, tmp_path):
    from proofcheck.io.certificate_writer import seal
    r = run(site, "lemma", "x.clamp", "--certificate", str(tmp_path / "c.json"))
    assert r.returncode == 0
    cert = json.loads((tmp_path / "c.json").read_text())
    cert["instances"][0]["layer"]["b"] = ["0"]  # clamp at 0 instead of c: outputs differ
    cert = seal({k: v for k, v in cert.items() if k != "digest"})
    (tmp_path / "bad.json").write_text(json.dumps(cert))
    r = run(site, "verify", str(tmp_path / "bad.json"))
    assert r.returncode == 1 and "REFUTED" in r.stdout, r.stdout + r.stderr


def test_broken_plugin_is_skipped_with_a_warning(tmp_path):
    dist = tmp_path / "broken_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[proofcheck.statements]\nbad = no_such_module_xyz:STATEMENT\n"
        "clash = proofcheck.api:FLAGS\n")
    r = run(tmp_path, "list")
    assert r.returncode == 0 and "3.1" in r.stdout
    assert "plugin 'bad'" in r.stderr and "could not be loaded" in r.stderr
    assert "plugin 'clash'" in r.stderr and "StatementSpec" in r.stderr
