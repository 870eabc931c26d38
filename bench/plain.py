"""The plain route at full scale: ``python -m proofcheck verify --route plain`` on the Theorem 1.6
certificate of all 1797 digits images (about 12.5 MB), in a child process of its own; records its
wall and CPU seconds, peak RSS (the child's ``getrusage``), the verdict, exit code, the work units
it charged against its budget and the load average around it.

    python -m bench.plain                      # writes bench/results-plain.json
    python -m bench.plain --certificate F.json # an existing certificate (else it is made first)
    python -m bench.plain --quick              # 40 images (smoke run, no results file)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.processes import run_child

OUT = Path(__file__).with_name("results-plain.json")


def make_certificate(path: Path, limit: int | None) -> None:
    """``python -m proofcheck theorem 1.6 --example digits --no-report --certificate path``."""
    cmd = [sys.executable, "-m", "proofcheck", "theorem", "1.6", "--example", "digits",
           "--no-report", "--certificate", str(path)] + (["--limit", str(limit)] if limit else [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def child(path: str) -> int:
    """The verify command in this process, its work budget's use written to stderr as JSON."""
    from proofcheck.frontend.cli import main
    from proofcheck.kernel import limits, verify
    real = verify.budget
    seen = {}

    def watched(size, units=None):
        ctx = real(size, units)

        class Watch:
            def __enter__(self):
                ctx.__enter__()
                seen["total"] = limits._BUDGET.get()[1]

            def __exit__(self, *exc):
                seen["used"] = limits.used()
                return ctx.__exit__(*exc)
        return Watch()
    verify.budget = watched
    code = main(["verify", "--route", "plain", path])
    print("UNITS " + json.dumps(seen), file=sys.stderr)
    return code


def measure(path: Path) -> dict:
    """One ``verify --route plain`` of ``path`` in a child process (its own ``rusage``)."""
    r = run_child([sys.executable, "-m", "bench.plain", "--child", str(path)])
    units = next((json.loads(ln[6:]) for ln in r["stderr"].splitlines()
                  if ln.startswith("UNITS ")), {})
    verdict = next((ln for ln in r["stdout"].splitlines() if ln.startswith("VERDICT")), "")
    return {"certificate": path.name, "bytes": path.stat().st_size, "route": "plain",
            "verdict": verdict, "exit_code": r["exit_code"], "wall_s": round(r["wall_s"], 1),
            "cpu_s": round(r["cpu_s"], 1), "peak_rss_mb": round(r["peak_rss_mb"]),
            "units_used": units.get("used"), "units_budget": units.get("total"),
            "load_avg_1min_before": round(r["load_before"], 2),
            "load_avg_1min_after": round(r["load_after"], 2)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.plain", description=__doc__.split("\n")[0])
    ap.add_argument("--certificate", help="the certificate to verify (default: made first)")
    ap.add_argument("--quick", action="store_true", help="40 images, no results file")
    ap.add_argument("--out", default=str(OUT),
                    help="JSON output (default bench/results-plain.json)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        return child(a.child)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(a.certificate) if a.certificate else Path(tmp) / "digits-1.6.json"
        if not path.exists():
            make_certificate(path, 40 if a.quick else None)
        row = measure(path)
    print(f"{row['certificate']} ({row['bytes'] / 1e6:.1f} MB), verify --route plain: "
          f"{row['verdict']} (exit {row['exit_code']}), {row['wall_s']} s wall, {row['cpu_s']} s "
          f"CPU, peak RSS {row['peak_rss_mb']} MB, {row['units_used']} of {row['units_budget']} "
          f"work units (load {row['load_avg_1min_before']} -> {row['load_avg_1min_after']})")
    if not a.quick:
        Path(a.out).write_text(json.dumps({"rows": [row], "python": platform.python_version(),
                                           "machine": platform.machine(),
                                           "cpus": os.cpu_count()}, indent=1) + "\n")
        print(f"wrote {a.out}")
    return 0 if row["exit_code"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
