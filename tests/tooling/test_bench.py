"""Smoke run of the benchmark harness (the real runs are `python -m bench`), and
the README timing tables as a rendering of bench/results.json."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_smoke(tmp_path):
    pytest.importorskip("sklearn")
    from bench.__main__ import main
    out = tmp_path / "bench.json"
    assert main(["--quick", "--images", "4", "8", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert [r["images"] for r in res["rows"]] == [4, 8]
    for r in res["rows"]:
        assert r["exact_check_s"] > 0 and r["float_dense_s"] > 0 and r["peak_rss_mb"] > 0
        assert r["exact_check_cpu_s"] > 0 and r["construct_cpu_s"] > 0
        assert r["L"] == 2 * r["images"] + r["R"] + 1
    assert set(res["slopes"]) >= {"slope_exact_vs_T", "slope_exact_vs_L"}


def test_bench_scale_row_smoke(tmp_path):
    """A tiny scale row (generated digits-like data) in its own process."""
    from bench.__main__ import main
    out = tmp_path / "scale.json"
    assert main(["--scale", "320", "640", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert [r["T"] for r in res["scale"]] == [320, 640]
    for r in res["scale"]:
        assert r["N"] == r["T"] // 16 and r["L"] == 2 * r["M"] + r["R"] + 1
        assert r["construct_plus_check_cpu_s"] > 0 and r["peak_rss_mb"] > 0
    assert set(res["scale_slopes"]) == {"time (construct + check, wall)", "time (CPU)", "peak RSS"}


def test_render_readme_exact_lines():
    from bench.__main__ import render_readme
    res = {"machine": {"python": "3.11", "platform": "test"},
           "rows": [{"T": 16, "L": 3, "R": 0, "construct_s": 0.5, "exact_check_s": 0.25,
                     "float_dense_s": 2.0, "exact_over_float": 0.125,
                     "reference_over_flint": 100.4, "max_bits": 9, "peak_rss_mb": 99.6}],
           "scale": [{"T": 1000, "N": 62, "M": 120, "R": 2, "L": 243, "construct_s": 1.04,
                      "exact_check_s": 2.0, "construct_plus_check_s": 3.04,
                      "construct_plus_check_cpu_s": 2.96, "peak_rss_mb": 150.2,
                      "dask": [{"workers": 1, "transport": "fork", "exact_check_s": 4.0},
                               {"workers": 2, "transport": "fork", "exact_check_s": 2.5},
                               {"workers": 1, "transport": "broadcast", "exact_check_s": 5.0},
                               {"workers": 2, "transport": "broadcast", "exact_check_s": 4.0}]}]}
    text = render_readme(res)
    lines = text.splitlines()
    assert lines[0] == "<!-- bench:begin -->" and lines[-1] == "<!-- bench:end -->"
    assert "| 16 | 3 | 0 | 0.50 | 0.25 | 2.00 | 0.12 | 100 | 9 | 100 |" in lines
    assert "| 1000 | 62 | 120 | 2 | 243 | 1.0 | 2.0 | 3.0 | 3.0 | 150 |" in lines
    assert "| 1000 | 2 | fork | 2.5 | 1.60 |" in lines  # vs 1 worker of the same transport
    assert "| 1000 | 2 | broadcast | 4.0 | 1.25 |" in lines


def test_readme_tables_equal_bench_results():
    """The README's timing tables are exactly what bench/results.json renders
    (`python -m bench --readme`), between the markers <!-- bench:begin --> and
    <!-- bench:end -->: a table edited by hand or left stale fails here."""
    from bench.__main__ import render_readme
    readme = (ROOT / "docs" / "measurements" / "benchmark.md").read_text()
    m = re.search(r"<!-- bench:begin -->.*?<!-- bench:end -->\n", readme, re.S)
    assert m is not None, ("docs/measurements/benchmark.md has no <!-- bench:begin --> ... "
                           "<!-- bench:end --> block: paste the output of `python -m bench --readme`")
    expected = render_readme(json.loads((ROOT / "bench" / "results.json").read_text()))
    assert m.group(0) == expected


def test_bench_scale_hard_rows_beside_the_R0_family(tmp_path):
    """Tiny R ~ N rows (every sequence shares its top token: R = N - 1) each beside
    the R = 0 row of the same T, per-phase seconds and ||theta*||^2 recorded,
    slopes in N, rendered side by side in the README table."""
    from bench.__main__ import main, render_readme
    out = tmp_path / "hard.json"
    assert main(["--scale-hard", "320", "640", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert "scale" not in res
    hard, zero = res["scale_hard"], res["scale_hard_r0"]
    assert [r["T"] for r in hard] == [r["T"] for r in zero] == [320, 640]
    for r, z in zip(hard, zero):
        assert r["R"] == r["N"] - 1 and r["top_share"] == 1.0 and z["top_share"] == 0.0
        assert set(r["exact_check_phase_s"]) == set(r["construct_phase_s"]) == {"S", "L", "C", "I"}
        assert r["total_cpu_s"] == pytest.approx(r["construct_cpu_s"] + r["exact_check_cpu_s"]
                                                 + r["theta_sq_norm_cpu_s"])
    assert set(res["scale_hard_slopes"]) == {"R ≈ N total (wall)", "R ≈ N total (CPU)",
                                             "R = 0 total (wall)", "R = 0 total (CPU)",
                                             "R ≈ N parameter bits"}
    r, z = hard[0], zero[0]
    line = (f"| 320 | {r['N']} | {r['R']} | {r['L']} | {r['construct_s']:.1f} | "
            f"{r['exact_check_s']:.1f} | {r['theta_sq_norm_s']:.1f} | {r['total_s']:.1f} | "
            f"{r['total_cpu_s']:.1f} | {r['max_bits']} | {r['network_bits'] / 1e6:.1f} | "
            f"{r['peak_rss_mb']:.0f} | {z['R']} | "
            f"{z['total_s']:.1f} | {z['total_cpu_s']:.1f} | "
            f"{r['total_cpu_s'] / z['total_cpu_s']:.1f} |")
    assert line in render_readme(res).splitlines()


def test_bench_rows_only_merges_the_digits_rows(tmp_path):
    """--rows-only re-measures the digits rows (median of the repeated construct +
    exact check runs, every run kept) and keeps the file's other families."""
    pytest.importorskip("sklearn")
    import statistics

    from bench.__main__ import REPEATS, main
    out = tmp_path / "r.json"
    out.write_text(json.dumps({"scale": [{"T": 1}], "rows": [],
                               "slopes": {"split_slope_exact_vs_T_at_fixed_L": 0.5}}))
    assert main(["--quick", "--images", "4", "8", "--rows-only", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["scale"] == [{"T": 1}] and [r["images"] for r in res["rows"]] == [4, 8]
    assert res["slopes"]["split_slope_exact_vs_T_at_fixed_L"] == 0.5
    assert "slope_exact_vs_T" in res["slopes"]
    for r in res["rows"]:
        assert len(r["runs"]) == REPEATS
        assert r["construct_s"] == statistics.median(x["construct_s"] for x in r["runs"])
        assert r["exact_check_s"] == statistics.median(x["exact_check_s"] for x in r["runs"])


def test_bench_plain_quick_smoke(tmp_path):
    """`python -m bench.plain --quick`: verify --route plain of a 40-image certificate in a child
    process, its wall and CPU seconds, peak RSS and work units recorded."""
    pytest.importorskip("sklearn")
    from bench.plain import make_certificate, measure
    cert = tmp_path / "c.json"
    make_certificate(cert, 40)
    row = measure(cert)
    assert row["exit_code"] == 0 and row["verdict"].startswith("VERDICT: VERIFIED")
    assert row["cpu_s"] > 0 and row["peak_rss_mb"] > 0
    assert 0 < row["units_used"] <= row["units_budget"]


def test_readme_plain_route_numbers_are_the_results_file():
    r = json.loads((ROOT / "bench" / "results-plain.json").read_text())["rows"][0]
    text = " ".join((ROOT / "docs" / "measurements" / "benchmark.md").read_text().split())
    assert r["exit_code"] == 0 and r["verdict"].startswith("VERDICT: VERIFIED")
    assert (f"is VERIFIED in {r['wall_s']} s wall, {r['cpu_s']} s CPU, {r['peak_rss_mb']} MB "
            f"peak RSS, using {r['units_used']:,} of its {r['units_budget']:,} work units") in text


def test_main_job_table_is_the_results_file():
    """docs/measurements/benchmark.md prints bench/results-main-job.json, rendered."""
    from bench.main_job import OUT, markdown
    block = markdown(json.loads(OUT.read_text()))
    assert block in (ROOT / "docs" / "measurements" / "benchmark.md").read_text()


def test_main_job_reads_every_phase_of_the_time_line():
    from bench.main_job import time_line
    out = ("x\ntime: load dataset 0.84 s, construct total 1.39 s, ||theta*||^2 0.07 s, end to "
           "end 8.93 s\n      (wall seconds; the two overlap)\nVERDICT: VERIFIED")
    assert time_line(out) == {"load dataset": 0.84, "construct total": 1.39,
                              "||theta*||^2": 0.07, "end to end": 8.93}


def test_the_perfect_sharding_bound_is_amdahls():
    """The bound of the ``--workers`` row: the shards twice as fast, the rest unchanged."""
    from bench.main_job import in_shards, perfect_sharding_bound
    phases = {"exact check": 120.0, "exact check shards": 100.0, "kernel re-check": 140.0,
              "kernel re-check shards": 100.0, "end to end": 400.0}
    assert in_shards(phases) == 200.0
    assert perfect_sharding_bound(400.0, 200.0) == 1.33  # 400 / (200 + 100)
    assert perfect_sharding_bound(400.0, 400.0) == 2.0 and perfect_sharding_bound(400.0, 0) == 1.0
