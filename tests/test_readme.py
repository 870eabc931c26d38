"""The README's quick start has exactly two set-up commands, and .ci/run runs the
README's test command verbatim."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.findall(r"```\n(.*?)```", section, re.S)]


def test_two_setup_commands():
    cmds = quick_start_commands()
    assert len(cmds) == 2
    assert all("\n" not in c for c in cmds)
    assert "theorem 1.6" in cmds[0] and "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert quick_start_commands()[1] in ci
    assert any(line.startswith("set -e") for line in ci)
