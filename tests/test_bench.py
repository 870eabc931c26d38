"""Smoke run of the benchmark harness (the real runs are `python -m bench`)."""
from __future__ import annotations

import json

import pytest


def test_bench_quick_smoke(tmp_path):
    pytest.importorskip("sklearn")
    from bench.__main__ import main
    out = tmp_path / "bench.json"
    assert main(["--quick", "--images", "4", "8", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert [r["images"] for r in res["rows"]] == [4, 8]
    for r in res["rows"]:
        assert r["exact_check_s"] > 0 and r["float_dense_s"] > 0 and r["peak_rss_mb"] > 0
        assert r["L"] == 2 * r["images"] + r["R"] + 1
    assert set(res["slopes"]) >= {"slope_exact_vs_T", "slope_exact_vs_L"}
