"""Command line behaviour: catalogue, lemma and theorem runs, usage errors."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from proofcheck.frontend.registry import load
from proofcheck.frontend.cli import main


def run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_list_prints_catalogue(capsys):
    rc, out, _ = run(["list"], capsys)
    assert rc == 0
    for s in load():
        assert s.id in out
    from proofcheck.frontend.registry import FLAGS
    assert set(FLAGS) == {"seed-numbered", "seed-step", "spec-numbered", "project"}
    assert {s.flag for s in load()} <= set(FLAGS)
    for flag, meaning in FLAGS.items():  # the legend says what each flag means
        assert f"{flag}  " in out and meaning in out


@pytest.mark.parametrize("sid", ["3.2", "4.2"])
def test_lemma_prints_checks_and_verdict(sid, capsys):
    rc, out, _ = run(["lemma", sid], capsys)
    assert rc == 0
    assert "exact" in out and "symbolic" in out
    assert out.rstrip().splitlines()[-1].startswith("VERDICT: VERIFIED")


def test_lemma_on_dataset_file(tmp_path, capsys):
    ds = {"format": "proofcheck-dataset/1", "name": "t", "d": 2,
          "pairs": [{"input": [["0", "0"], ["1", "1/2"]], "output": [["3", "3"]]}]}
    f = tmp_path / "t.json"
    f.write_text(json.dumps(ds))
    rc, out, _ = run(["lemma", "3.3", "--dataset", str(f), "--seed", "2"], capsys)
    assert rc == 0 and "VERDICT: VERIFIED" in out


@pytest.mark.parametrize("argv,frag", [
    (["lemma", "9.9"], "unknown statement"),
    (["theorem", "4.2"], "not a theorem"),
    (["theorem", "1.8", "--tau", "-1"], "--tau must be positive"),
    (["theorem", "1.8", "--tau", "abc"], "BAD INPUT"),
    (["theorem", "1.6", "--tau", "1"], "--tau applies to theorem 1.8"),
    (["theorem", "1.6", "--example", "nope"], "unknown example"),
    (["theorem", "1.6", "--example", "digits-sample", "--limit", "0"], "--limit"),
    (["theorem", "1.6", "--dataset", "/nonexistent.json"], "BAD INPUT"),
    (["theorem", "1.6", "--dataset", "x.json", "--example", "digits"], "either"),
])
def test_usage_errors_exit_2(argv, frag, capsys, tmp_path):
    rc, out, err = run(argv + ["--out", str(tmp_path / "r")] if argv[0] == "theorem" else argv,
                       capsys)
    assert rc == 2
    assert frag in err
    assert not (tmp_path / "r").exists()


def test_argparse_errors_exit_2(capsys):
    assert main(["theorem"]) == 2
    assert main(["frobnicate"]) == 2


def test_default_theorem_run_writes_report(tmp_path, capsys):
    rc, out, _ = run(["theorem", "1.6", "--out", str(tmp_path)], capsys)
    assert rc == 0 and out.rstrip().splitlines()[-1].startswith("VERDICT: VERIFIED")
    assert "digits-sample" in out and "2M + 2N + 1" in out
    rep = json.loads((tmp_path / "theorem-1.6-digits-sample.json").read_text())
    assert rep["verdict"] == "VERIFIED"
    c = rep["constants"]
    assert c["L"] == c["L_construction"] and c["P"] == c["P_formula"] <= c["P_bound"]
    md = (tmp_path / "theorem-1.6-digits-sample.md").read_text()
    assert "Constants (claimed vs measured)" in md and rep["dataset"]["sha256"] in md


def test_module_entry_point_runs():
    r = subprocess.run([sys.executable, "-m", "proofcheck", "list"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "1.6" in r.stdout


def test_console_script_installed():
    exe = shutil.which("proofcheck")
    if exe is None:
        pytest.skip("package not installed with its console script")
    r = subprocess.run([exe, "lemma", "3.1"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "VERIFIED" in r.stdout


def test_every_option_and_positional_has_help_and_subcommands_a_description():
    import argparse

    from proofcheck.frontend.cli import build_parser
    p = build_parser()
    subs = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    assert subs.choices
    for name, q in subs.choices.items():
        assert q.description, f"{name} has no description"
        assert q.epilog and "python -m proofcheck" in q.epilog, f"{name} has no example"
        for a in q._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            assert a.help, f"{name}: {a.option_strings or a.dest} has no help text"


def test_missing_command_names_the_commands(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "a command is expected" in err and "theorem" in err and "required: cmd" not in err


def test_symbols_fall_back_to_ascii_on_an_ascii_terminal():
    import os
    import subprocess
    import sys
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    r = subprocess.run([sys.executable, "-m", "proofcheck", "theorem", "--help"],
                       capture_output=True, text=True, env=env,
                       cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert r.returncode == 0, r.stderr
    assert "temperature tau" in r.stdout and "τ" not in r.stdout


def test_whole_number_options_read_numbers_strictly(capsys):
    assert main(["lemma", "3.1", "--seed", "1_0"]) == 2
    assert "whole number" in capsys.readouterr().err
    assert main(["theorem", "1.6", "--limit", " 5", "--no-report"]) == 2


def test_dataset_group_says_what_runs_by_default():
    """lemma runs its built-in instance, theorem/export the shipped digits sample."""
    from proofcheck.frontend.cli import build_parser
    sub = next(a for a in build_parser()._actions if a.dest == "cmd").choices
    titles = {name: [g.title for g in sub[name]._action_groups if g.title.startswith("dataset")]
              for name in ("lemma", "theorem", "export")}
    assert "built-in instance" in titles["lemma"][0] and "digits" not in titles["lemma"][0]
    assert titles["theorem"] == titles["export"] == ["dataset (default: the shipped digits sample)"]


def test_verify_dataset_mismatches_bad_input_2_and_self_contradiction_error_4(tmp_path, capsys):
    """A user's --dataset that is not the certificate's: exit 2 (bad input); a re-sealed
    certificate whose embedded dataset has another SHA-256 than its claim: ERROR, exit 4,
    with no route (and no lemma wording) since nothing was evaluated."""
    import json

    from proofcheck.kernel.serialize import sha256
    cert = tmp_path / "t.json"
    assert main(["theorem", "1.6", "--no-report", "--certificate", str(cert)]) == 0
    other = tmp_path / "other.json"
    c = json.loads(cert.read_text())
    ds = c["dataset"]
    ds["pairs"] = ds["pairs"][:-1]
    other.write_text(json.dumps(ds))
    capsys.readouterr()
    assert main(["verify", "--dataset", str(other), str(cert)]) == 2
    assert "$.claim.dataset.sha256" in capsys.readouterr().err
    c["digest"] = sha256({k: v for k, v in c.items() if k != "digest"})
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(c))
    assert main(["verify", str(forged)]) == 4
    routes = [x for x in capsys.readouterr().out.splitlines() if x.startswith("route: ")]
    assert routes == ["route: none (the kernel stopped with ERROR before a verdict)"]


def test_every_option_taking_a_value_shows_an_example():
    """The README: every option that takes a value shows one in its help ('e.g.')."""
    import argparse

    from proofcheck.frontend.cli import build_parser
    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [(name, a.dest) for name, q in subs.choices.items() for a in q._actions
               if not isinstance(a, argparse._HelpAction) and a.nargs != 0
               and "e.g." not in (a.help or "")]
    assert missing == []
