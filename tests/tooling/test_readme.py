"""The README's quick start has exactly two set-up commands, and .ci/run runs both
verbatim, in that order, in a new virtual environment outside the checkout."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.findall(r"```\n(.*?)```", section, re.S)]


def test_two_setup_commands():
    cmds = quick_start_commands()
    assert len(cmds) == 2
    assert all("\n" not in c for c in cmds)
    assert "theorem 1.6" in cmds[0] and "pytest" in cmds[1]


def test_ci_runs_the_readme_commands_in_a_fresh_venv():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    first, second = quick_start_commands()
    assert first in ci and second in ci and ci.index(first) < ci.index(second)
    assert any(line.startswith("set -e") and "pipefail" in line for line in ci)
    venv = next(i for i, line in enumerate(ci) if "-m venv" in line)
    activate = next(i for i, line in enumerate(ci) if line.startswith(". ") and "activate" in line)
    assert venv < activate < ci.index(first)
    assert "mktemp -d" in "\n".join(ci[:venv])  # the venv lives outside the checkout


def test_trusted_base_table_is_what_its_command_prints():
    """The trust model's table of the kernel's own lines per route is the output of the
    script that counts them on this checkout (no line count is typed by hand)."""
    r = subprocess.run([sys.executable, "scripts/trusted_base.py", "--markdown"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout in (ROOT / "docs" / "architecture" / "trust-model.md").read_text()


def test_admissibility_table_is_the_results_file():
    import json
    res = json.loads((ROOT / "bench" / "results-admissibility.json").read_text())
    text = (ROOT / "docs" / "measurements" / "benchmark.md").read_text()
    n_row = "| N | " + " | ".join(f"{r['N']:,}" for r in res["rows"]) + " |"
    t_row = "| CPU s | " + " | ".join(str(r["cpu_s"]) for r in res["rows"]) + " |"
    assert n_row in text and t_row in text
    assert f"log-log slope in N: {res['slope']} " in text
