"""Theorem 1.8, proofcheck's reconstruction of the seed's mechanism (``seed``) beside
proofcheck's default, on digits:
``python -m bench.softmax_seed`` runs ``theorem 1.8 --construction NAME`` work (build,
tau-independent hardmax trajectory, the whole tau_cert search; no simulation) for
both constructions on the shipped sample (40 images) and on all 1797 images, each
configuration in its own process (peak RSS is its own), both in ONE run so their
ratios are comparable; writes ``bench/results-softmax-seed.json``.

    python -m bench.softmax_seed                 # sample + full digits, writes the file
    python -m bench.softmax_seed --quick --out /tmp/s.json   # 4 and 8 images
    python -m bench.softmax_seed --readme        # the README table from the file

Wall and CPU seconds are both recorded (the machine may be shared: quote CPU, and
the seed/default ratio of one run).
"""
from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).with_name("results-softmax-seed.json")
CONSTRUCTIONS = ("seed", "default")


def measure(construction: str, images: int | None) -> dict:
    """One configuration: ``images`` digits (None: the shipped sample)."""
    import resource

    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES, search_tau_cert
    from proofcheck.frontend.io.examples import digits, sample
    from proofcheck.constructions.afz.softmax_certifier import prepare
    from proofcheck.kernel.numbers import format_q
    from proofcheck.kernel.verdicts import fmt_num
    ds, _ = sample() if images is None else digits(limit=images)
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    spec = get(construction, "1.8")
    stamps = [(time.perf_counter(), time.process_time())]
    c = spec.build(inputs, targets, ds.d, **SCALES)
    stamps.append((time.perf_counter(), time.process_time()))
    traj = prepare(c.net, inputs)
    stamps.append((time.perf_counter(), time.process_time()))
    s = search_tau_cert(c.net, inputs, targets, trajectory=traj)
    stamps.append((time.perf_counter(), time.process_time()))
    checks, consts = spec.constant_checks(c.net, ds.d, ds.N, ds.M, c.info)
    wall = [b[0] - a[0] for a, b in zip(stamps, stamps[1:])]
    cpu = [b[1] - a[1] for a, b in zip(stamps, stamps[1:])]
    sq = c.net.sq_norm()
    return {"construction": construction, "dataset": ds.name, "images": ds.N, "T": ds.n_tokens,
            "N": ds.N, "M": ds.M, "d": ds.d, "R": c.info["R"], "K": c.info.get("K", 0),
            "L": c.net.L, "L_budget": 2 * ds.M + 3 * ds.N, "P": c.net.n_params(),
            "theta_sq_norm": format_q(sq),
            "theta_sq_norm_display": fmt_num(sq), "verdict": s.cert.verdict.value,
            "constant_checks": sorted({r.verdict.value for r in checks}),
            "tau_cert": None if s.tau is None else str(s.tau),
            "tau_cert_display": None if s.tau is None else fmt_num(s.tau),
            "certificates": len(s.trials),
            "construct_s": wall[0], "trajectory_s": wall[1], "search_s": wall[2],
            "total_s": sum(wall), "construct_cpu_s": cpu[0], "trajectory_cpu_s": cpu[1],
            "search_cpu_s": cpu[2], "total_cpu_s": sum(cpu),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run(quick: bool) -> list[dict]:
    """Rows for every (size, construction): 4 and 8 images (``quick``) or the sample
    and all 1797 images.  A failed child gives a row with ``error``."""
    sizes = ["4", "8"] if quick else ["sample", "1797"]
    rows = []
    for k in sizes:
        for name in CONSTRUCTIONS:
            out = subprocess.run([sys.executable, "-m", "bench.softmax_seed", "--child", name, k],
                                 capture_output=True, text=True,
                                 cwd=Path(__file__).resolve().parents[1])
            if out.returncode != 0:
                rows.append({"construction": name, "images": k, "error": out.stderr[-2000:]})
                continue
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return rows


def render_readme(res: dict) -> str:
    """The README block (between ``<!-- softmax-seed:begin -->`` and ``end``)."""
    out = ["<!-- softmax-seed:begin -->",
           f"Theorem 1.8 on digits, proofcheck's reconstruction of the seed's mechanism (seed) beside "
           f"proofcheck's default, one "
           f"run of `python -m bench.softmax_seed` ({res['machine']['platform']}, Python "
           f"{res['machine']['python']}; CPU seconds, tau_cert searched, no simulation):", "",
           "| dataset | construction | N | M | L | 2M + 3N | P | ‖θ*‖² | tau_cert | certificates "
           "| construct s | trajectory s | search s | total s | peak RSS MB |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        if "error" in r:
            out.append(f"| {r['images']} | {r['construction']} | error | | | | | | | | | | | | |")
            continue
        out.append(f"| {r['dataset']} | {r['construction']} | {r['N']} | {r['M']} | {r['L']} | "
                   f"{r['L_budget']} | {r['P']} | {r['theta_sq_norm_display']} | "
                   f"{r['tau_cert_display']} | {r['certificates']} | {r['construct_cpu_s']:.2f} | "
                   f"{r['trajectory_cpu_s']:.2f} | {r['search_cpu_s']:.2f} | "
                   f"{r['total_cpu_s']:.2f} | {r['peak_rss_mb']:.0f} |")
    out.append("<!-- softmax-seed:end -->")
    return "\n".join(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        print(json.dumps(measure(argv[1], None if argv[2] == "sample" else int(argv[2]))))
        return 0
    if "--readme" in argv:
        print(render_readme(json.loads(RESULTS.read_text())))
        return 0
    out = Path(argv[argv.index("--out") + 1]) if "--out" in argv else RESULTS
    rows = run("--quick" in argv)
    res = {"machine": {"python": platform.python_version(), "platform": platform.platform()},
           "rows": rows}
    out.write_text(json.dumps(res, indent=1) + "\n")
    for r in rows:
        print(json.dumps(r) if "error" in r else
              f"{r['dataset']:>14} {r['construction']:>8}: L = {r['L']} (<= {r['L_budget']}), "
              f"P = {r['P']}, {r['verdict']} tau_cert = {r['tau_cert_display']}, total "
              f"{r['total_cpu_s']:.2f} s CPU", flush=True)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
