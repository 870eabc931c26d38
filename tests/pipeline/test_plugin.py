"""The example plugin packages (examples/proofcheck-example-clamp, one statement;
examples/proofcheck-example-pointer, two statements) install, show up in ``list``,
run with ``lemma``, write certificates that ``verify`` re-checks; a broken layer is
REFUTED; hand-built passing results are ARGUED and never VERIFIED; circular expected
outputs, bad input, a statement's own admissibility; broken or clashing plugins are
skipped with a warning."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [ROOT / "examples" / "proofcheck-example-clamp",
            ROOT / "examples" / "proofcheck-example-pointer"]
PLUGIN_IDS = ["x.clamp", "x.memorise", "x.pointer-shift"]


def pip_install(target: Path, examples, scratch: Path) -> subprocess.CompletedProcess:
    """``pip install --target`` of copies of ``examples`` made under ``scratch``: a
    build writes ``build/`` and ``*.egg-info`` beside the sources, never into the
    source tree."""
    import shutil
    copies = [shutil.copytree(ex, scratch / ex.name,
                              ignore=shutil.ignore_patterns("build", "*.egg-info"))
              for ex in examples]
    return subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                           "--no-build-isolation", "--target", str(target), *map(str, copies)],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    target = tmp_path_factory.mktemp("plugin-site")
    r = pip_install(target, EXAMPLES, tmp_path_factory.mktemp("plugin-src"))
    if r.returncode != 0:
        pytest.fail(f"the example plugins do not install: {r.stderr[-2000:]}")
    return target


def run(site, *args, extra_path=()):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), *extra_path])}
    return subprocess.run([sys.executable, "-m", "proofcheck", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT)


def test_examples_are_short():
    for ex in EXAMPLES:
        src = next((ex / "src").glob("*/__init__.py"))
        assert len(src.read_text().splitlines()) < 60, src


def test_plugins_listed(site):
    r = run(site, "list")
    assert r.returncode == 0, r.stderr
    listed = {line.split()[0] for line in r.stdout.splitlines() if line.strip()}
    assert set(PLUGIN_IDS) <= listed


@pytest.mark.parametrize("sid", PLUGIN_IDS)
def test_plugin_runs_certifies_and_verifies(site, tmp_path, sid):
    cert = tmp_path / "c.json"
    r = run(site, "lemma", sid, "--certificate", str(cert))
    assert r.returncode == 0, r.stdout + r.stderr
    c = json.loads(cert.read_text())
    assert c["claim"]["statement"] == sid and c["claim"]["source"].startswith("plugin:")
    assert c["verdict"] == "VERIFIED" and c["instances"]
    r = run(site, "verify", str(cert))
    assert r.returncode == 0, r.stdout + r.stderr


def test_plugin_certificate_with_a_wrong_layer_is_refuted(site, tmp_path):
    from proofcheck.frontend.io.certificate_writer import seal
    r = run(site, "lemma", "x.clamp", "--certificate", str(tmp_path / "c.json"))
    assert r.returncode == 0
    cert = json.loads((tmp_path / "c.json").read_text())
    cert["instances"][0]["layer"]["b"] = ["0"]  # clamp at 0 instead of c: outputs differ
    cert = seal({k: v for k, v in cert.items() if k != "digest"})
    (tmp_path / "bad.json").write_text(json.dumps(cert))
    assert run(site, "verify", str(tmp_path / "bad.json")).returncode == 1


def test_a_statement_admits_its_own_datasets(site, tmp_path):
    """x.memorise admits a one-dimensional set of one-token pairs (Theorem 1.6 would
    refuse d = 1) and refuses the digits sample with exit 2."""
    f = tmp_path / "line.json"
    f.write_text(json.dumps({"format": "proofcheck-dataset/1", "d": 1, "pairs": [
        {"input": [[t]], "output": [[y]]} for t, y in [("0", "5"), ("1", "-2"), ("1/2", "3")]]}))
    assert run(site, "lemma", "x.memorise", "--dataset", str(f)).returncode == 0
    assert run(site, "lemma", "x.memorise", "--example", "digits-sample").returncode == 2
    assert run(site, "theorem", "1.6", "--dataset", str(f), "--no-report").returncode == 2


def _plugin(tmp_path, name: str, source: str) -> Path:
    """A plugin distribution ``name`` whose module ``<name>_mod`` is ``source``."""
    (tmp_path / f"{name}_mod.py").write_text(source)
    dist = tmp_path / f"{name}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[proofcheck.statements]\ns = {name}_mod:S\n")
    return tmp_path


HEAD = ("from fractions import Fraction as F\nfrom proofcheck.api import *\n"
        "from proofcheck.api import Statement\n"
        "FFX = FF(F(1), U=((F(1),),), b=(F(0),), W=((F(1),),))  # x -> x + relu(x)\n")


def _statement(check: str, sid: str = "y.t") -> str:
    return HEAD + check + (f"\nS = Statement({sid!r}, 'FF lemma', 't', '-', 'project', "
                           "checks=(run,))\n")


def test_hand_built_verified_is_argued_not_verified(tmp_path):
    src = _statement("def run(ds, seed=0):\n    return [CheckResult('trust me', "
                     "Verdict.VERIFIED, ['by inspection'])]\n")
    r = run(_plugin(tmp_path, "handmade", src), "lemma", "y.t")
    assert r.returncode == 3, r.stdout + r.stderr  # nothing computed: INCONCLUSIVE
    assert "[ARGUED, not computed] trust me" in r.stdout.splitlines()


def test_argued_step_beside_a_computed_check(tmp_path):
    src = _statement("def run(ds, seed=0):\n    return [check_layer('x', FFX, [[(F(2),)]], "
                     "[[(F(4),)]]), argued('general case', 'by induction')]\n")
    r = run(_plugin(tmp_path, "argues", src), "lemma", "y.t")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "[ARGUED, not computed] general case" in r.stdout.splitlines()


def test_expected_outputs_from_the_layer_are_circular(tmp_path):
    src = _statement("def run(ds, seed=0):\n    xs = [[(F(2),), (F(-1),)]]\n"
                     "    return [check_layer('x', FFX, xs, evaluate_layer(FFX, xs))]\n")
    assert run(_plugin(tmp_path, "circular", src), "lemma", "y.t").returncode == 3


def test_bad_input_from_a_plugin_is_exit_2(tmp_path):
    src = _statement("def run(ds, seed=0):\n    raise BadInput('seed out of range', '--seed')\n")
    r = run(_plugin(tmp_path, "strict", src), "lemma", "y.t")
    assert r.returncode == 2 and "Traceback" not in r.stderr


@pytest.mark.parametrize("sid", ["Lemma 3.2", "HAT", "3.2\u200b", "ｈａｔ"])
def test_plugin_posing_as_a_builtin_is_skipped(tmp_path, sid):
    src = _statement("def run(ds, seed=0):\n    return []\n", sid=sid)
    r = run(_plugin(tmp_path, "poser", src), "list")
    assert r.returncode == 0 and "is skipped: its name(s)" in r.stderr
    assert run(tmp_path, "lemma", "3.2").returncode == 0  # still the built-in one


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
    assert "plugin 'clash'" in r.stderr and "not a proofcheck.api.Statement" in r.stderr
