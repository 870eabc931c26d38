"""bench/softmax_seed.py: one configuration measured in process (4 images), and the
README block as a rendering of its results file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_measure_one_configuration():
    pytest.importorskip("sklearn")
    from bench.softmax_seed import measure
    r = measure("seed", 4)
    assert (r["construction"], r["N"], r["verdict"]) == ("seed", 4, "VERIFIED-CERTIFIED")
    assert r["L"] == 2 * r["M"] + r["R"] + 1 + r["K"] <= r["L_budget"]
    assert r["constant_checks"] == ["VERIFIED"] and r["total_cpu_s"] > 0


def test_readme_block_is_the_rendering_of_the_results_file():
    from bench.softmax_seed import RESULTS, render_readme
    block = render_readme(json.loads(RESULTS.read_text()))
    assert block in (ROOT / "docs" / "measurements" / "softmax-seed.md").read_text()
    rows = [r for r in json.loads(RESULTS.read_text())["rows"]]
    assert {r["construction"] for r in rows} == {"seed", "default"}
    assert all("error" not in r for r in rows)
