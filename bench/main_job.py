"""The main job and the kernel's share of it, side by side in one run: each command a whole
process of its own, timed from outside (wall seconds; CPU seconds from the children's
``getrusage``, which counts the forked re-check too), repeated alternately.

* ``theorem 1.6 --example digits`` (1797 pairs, 3824 blocks): whole process, and its own
  time line (construct, the construction's exact check, the kernel's re-check, which runs in
  a forked process beside the exact check);
* ``verify`` of that run's certificate (8.1 MB, the default ``auto`` route);
* ``verify`` of a certificate of about 1 MB (``--limit 450``): the whole process against
  the kernel's evaluation alone (timed inside a child by wrapping the evaluation step);
* ``theorem 1.6`` on a generated dataset with ``--workers 1`` and ``--workers 2`` (Dask,
  the kernel's re-check sharded too; ``--tokens``: its size).

The package's modules are compiled to bytecode first (``compileall``: what an installed
package and every later run of a source checkout have), so that no timed run compiles them.

    python -m bench.main_job                     # writes bench/results-main-job.json
    python -m bench.main_job --repeat 1 --tokens 20000
    python -m bench.main_job --markdown          # the table docs/measurements prints
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.processes import run_child

OUT = Path(__file__).with_name("results-main-job.json")
PC = [sys.executable, "-m", "proofcheck"]


def timed(cmd: list[str], cwd: Path | None = None) -> dict:
    """Run ``cmd`` as a child process (in ``cwd``); wall and CPU seconds, exit code, stdout."""
    r = run_child(cmd, cwd)
    return {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "exit_code": r["exit_code"],
            "load": r["load_before"], "stdout": r["stdout"]}


def time_line(stdout: str) -> dict[str, float]:
    """The run's ``time:`` line as {phase: seconds}."""
    line = next((ln for ln in stdout.splitlines() if ln.startswith("time: ")), "time: ")
    return {k.strip(): float(v) for k, v in re.findall(r"([a-zA-Z|*^ 0-9.-]+?) ([0-9.]+) s(?:,|$)",
                                                line[6:])}


def child_verify(path: str) -> int:
    """``verify path`` in this process; the seconds of the kernel's evaluation step on stderr."""
    import proofcheck.kernel.theorem as kt
    from proofcheck.frontend.cli import main
    real, spent = kt.evaluate, []  # the pairs' evaluation (proofcheck.kernel.shards.evaluate)

    def evaluate(*a, **k):
        t0 = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            spent.append(time.perf_counter() - t0)
    kt.evaluate = evaluate
    code = main(["verify", path])
    print(f"EVALUATION {sum(spent)}", file=sys.stderr)
    return code


def verify_split(path: Path) -> dict:
    """One ``verify`` in a child: whole process and its evaluation step."""
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "bench.main_job", "--child", str(path)],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    ev = next(float(ln.split()[1]) for ln in p.stderr.splitlines() if ln.startswith("EVALUATION"))
    return {"wall_s": wall, "evaluation_s": ev, "exit_code": p.returncode}


def med(rows: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in rows), 2)


def main_job(tmp: Path, repeat: int) -> dict:
    """``theorem 1.6 --example digits`` and ``verify`` of its certificate, alternately."""
    cert = tmp / "digits.json"
    runs, verifies = [], []
    for _ in range(repeat):
        r = timed(PC + ["theorem", "1.6", "--example", "digits", "--certificate", str(cert)],
                  cwd=tmp)  # the command as a user types it: the run report too (in tmp)
        r["phases"] = time_line(r.pop("stdout"))
        runs.append(r)
        v = timed(PC + ["verify", str(cert)])
        v.pop("stdout")
        verifies.append(v)
    ph = [r["phases"] for r in runs]
    producer = statistics.median(p.get("construct total", 0) + p.get("exact check", 0) for p in ph)
    recheck = statistics.median(p.get("kernel re-check", 0) for p in ph)
    return {"theorem": {"wall_s": med(runs, "wall_s"), "cpu_s": med(runs, "cpu_s"),
                        "exit_codes": [r["exit_code"] for r in runs],
                        "construct_plus_exact_check_s": round(producer, 2),
                        "kernel_recheck_s": round(recheck, 2),
                        "recheck_over_producer": round(recheck / producer, 2),
                        "loads": [round(r["load"], 2) for r in runs], "phases": ph},
            "verify": {"bytes": cert.stat().st_size, "wall_s": med(verifies, "wall_s"),
                       "cpu_s": med(verifies, "cpu_s"),
                       "exit_codes": [v["exit_code"] for v in verifies],
                       "loads": [round(v["load"], 2) for v in verifies]}}


def one_megabyte(tmp: Path, repeat: int) -> dict:
    """``verify`` of a certificate of about 1 MB: whole process against its evaluation."""
    cert = tmp / "digits-450.json"
    subprocess.run(PC + ["theorem", "1.6", "--example", "digits", "--limit", "450",
                         "--no-report", "--certificate", str(cert)],
                   check=True, stdout=subprocess.DEVNULL)
    rows = [verify_split(cert) for _ in range(repeat)]
    return {"bytes": cert.stat().st_size, "wall_s": med(rows, "wall_s"),
            "evaluation_s": med(rows, "evaluation_s"),
            "beyond_evaluation_s": round(statistics.median(r["wall_s"] - r["evaluation_s"]
                                                           for r in rows), 2),
            "exit_codes": [r["exit_code"] for r in rows]}


def workers(tmp: Path, tokens: int, repeat: int) -> dict:
    """``theorem 1.6`` on a generated dataset of ``tokens`` tokens, ``--workers`` 1 and 2."""
    data = tmp / "gen.json"
    subprocess.run(PC + ["generate", "--sequences", str(tokens // 16), "--out", str(data)],
                   check=True, stdout=subprocess.DEVNULL)
    rows: dict[int, list] = {1: [], 2: []}
    for _ in range(repeat):
        for k in (1, 2):
            r = timed(PC + ["theorem", "1.6", "--dataset", str(data), "--no-report",
                            "--workers", str(k)])
            r["phases"] = time_line(r.pop("stdout"))
            rows[k].append(r)
    one, two = med(rows[1], "wall_s"), med(rows[2], "wall_s")
    return {"tokens": tokens, "workers_1_wall_s": one, "workers_2_wall_s": two,
            "speed_up": round(one / two, 2), **sharding_bound(rows[1]),
            "exit_codes": [r["exit_code"] for k in (1, 2) for r in rows[k]],
            "phases": {str(k): [r["phases"] for r in rows[k]] for k in (1, 2)}}


def in_shards(phases: dict) -> float:
    """Seconds a ``--workers`` run spent in shards (the time line's ``... shards`` entries)."""
    return sum(v for k, v in phases.items() if k.endswith(" shards"))


def sharding_bound(rows: list[dict]) -> dict:
    """Of the one-worker runs (medians): their own end to end and seconds in shards (both from
    the time line, so both measured by the run itself), and the speed-up perfect sharding of
    those seconds would allow (:func:`perfect_sharding_bound`)."""
    ends = [r["phases"]["end to end"] for r in rows]
    shards = [in_shards(r["phases"]) for r in rows]
    return {"workers_1_end_to_end_s": round(statistics.median(ends), 2),
            "workers_1_in_shards_s": round(statistics.median(shards), 2),
            "speed_up_bound": statistics.median(
                perfect_sharding_bound(e, s) for e, s in zip(ends, shards))}


def perfect_sharding_bound(wall_1: float, sharded_1: float, workers: int = 2) -> float:
    """The most ``--workers K`` can speed up a one-worker run of ``wall_1`` seconds of which
    ``sharded_1`` ran in shards: the shards K times faster, the rest as it was (Amdahl)."""
    return round(wall_1 / (wall_1 - sharded_1 + sharded_1 / workers), 2)


def markdown(res: dict) -> str:
    """The measurement table of docs/measurements/benchmark.md."""
    t, v, m, w = res["theorem"], res["verify"], res["one_megabyte"], res["workers"]
    return "\n".join([
        "<!-- main-job:begin -->",
        "<!-- generated by `python -m bench.main_job --markdown` from "
        "bench/results-main-job.json; do not edit by hand -->",
        f"Median of {res['repeat']} alternating runs; {res['cpus']} cores; load average "
        f"(1 min) at the starts: {', '.join(map(str, t['loads']))}.",
        "",
        "| what | wall s | CPU s | notes |",
        "|---|---|---|---|",
        f"| `theorem 1.6 --example digits` (whole process) | {t['wall_s']} | {t['cpu_s']} | "
        f"construct + exact check {t['construct_plus_exact_check_s']} s; kernel re-check "
        f"{t['kernel_recheck_s']} s (in a forked process beside the exact check): "
        f"{t['recheck_over_producer']}× |",
        f"| `verify` of its certificate ({v['bytes'] / 1e6:.1f} MB, auto route) | {v['wall_s']} "
        f"| {v['cpu_s']} | |",
        f"| `verify` of a {m['bytes'] / 1e6:.1f} MB certificate | {m['wall_s']} | | evaluation "
        f"{m['evaluation_s']} s; everything else {m['beyond_evaluation_s']} s |",
        f"| `theorem 1.6`, {w['tokens']:,} generated tokens, `--workers 1` / `--workers 2` | "
        f"{w['workers_1_wall_s']} / {w['workers_2_wall_s']} | | speed-up {w['speed_up']}× "
        "(the kernel's re-check sharded too)" + (
            f"; {w['workers_1_in_shards_s']} s of the one-worker run's {w['workers_1_end_to_end_s']} "
            f"s end to end in shards: at most {w['speed_up_bound']}× with perfect sharding"
            if "speed_up_bound" in w else "")
        + " |",
        "<!-- main-job:end -->"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.main_job",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command (default 3)")
    ap.add_argument("--tokens", type=int, default=100_000,
                    help="tokens of the generated dataset of the workers rows (default 10^5)")
    ap.add_argument("--out", default=str(OUT), help="JSON output")
    ap.add_argument("--markdown", action="store_true", help="print the table and exit")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        return child_verify(a.child)
    if a.markdown:
        print(markdown(json.loads(Path(a.out).read_text())))
        return 0
    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "proofcheck"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        res = {**main_job(Path(tmp), a.repeat), "one_megabyte": one_megabyte(Path(tmp), a.repeat),
               "workers": workers(Path(tmp), a.tokens, a.repeat), "repeat": a.repeat,
               "python": platform.python_version(), "machine": platform.machine(),
               "cpus": os.cpu_count()}
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    print(markdown(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
