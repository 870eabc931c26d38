"""Theorem 1.8 rows for ``python -m bench`` (called from ``bench/__main__.py``):
the full tau search (construction, tau-independent hardmax trajectory from the
fast tier, all the certificates of the search) on digits, measured side by side
with Theorem 1.6 on the same dataset (construction + exact check with claims), the
kernel's re-check of the written 1.8 certificate (``verify``, fast route) and the
float64 dense pass of the network.  Each configuration runs in its own process (peak RSS is its own); both
wall-clock and CPU seconds are recorded (the machine may be shared: quote CPU).

    python -m bench.softmax [--quick]      # prints the rows, writes no file
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path


def measure(images: int) -> dict:
    """One configuration: ``theorem 1.8 --example digits --limit images`` work."""
    import resource

    import numpy as np

    from bench.dense_float import compile_network, forward
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES, search_tau_cert
    from proofcheck.frontend.io.examples import digits
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.constructions.afz.softmax_certifier import prepare
    from proofcheck.frontend.io.certificate_writer import theorem_certificate
    from proofcheck.kernel.verdicts import Verdict, fmt_num
    from proofcheck.kernel.verify import verify_certificate
    import proofcheck.kernel.fast  # noqa: F401  (registers the fast route)
    ds, _ = digits(limit=images)
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c0, t0 = time.process_time(), time.perf_counter()
    c = construct(inputs, targets, ds.d, **SCALES)
    c1, t1 = time.process_time(), time.perf_counter()
    traj = prepare(c.net, inputs)
    c2, t2 = time.process_time(), time.perf_counter()
    s = search_tau_cert(c.net, inputs, targets, trajectory=traj)
    c3, t3 = time.process_time(), time.perf_counter()
    ok = s.cert.verdict == Verdict.VERIFIED_CERTIFIED
    cert = json.loads(json.dumps(theorem_certificate("1.8", ds, c.net, s.cert.verdict,
                                                     tau=s.tau, bounds=s.cert)))
    vc0, vt0 = time.process_time(), time.perf_counter()
    v18 = verify_certificate(cert, route="fast")
    vc1, vt1 = time.process_time(), time.perf_counter()
    # Theorem 1.6 on the same dataset, side by side: its construction and its exact check
    # with the construction's claims (the work of ``theorem 1.6``)
    hc, ht = time.process_time(), time.perf_counter()
    c16 = construct(inputs, targets, ds.d, **SCALES)
    hc0, ht0 = time.process_time(), time.perf_counter()
    h = check_network(c16.net, inputs, targets, c16.claims)
    hc1, ht1 = time.process_time(), time.perf_counter()
    layers = compile_network(c.net)
    X = np.array([[[float(v) for v in x] for x in seq] for seq in inputs])
    ft0 = time.perf_counter()
    with np.errstate(all="ignore"):  # float64 overflows on the large networks: a baseline only
        forward(layers, X, len(inputs[0]))
    ft1 = time.perf_counter()
    return {"statement": "1.8", "images": images, "T": ds.n_tokens, "L": c.net.L,
            "R": c.info["R"], "verdict": s.cert.verdict.value if ok else s.cert.verdict.value,
            "tau_cert": None if s.tau is None else str(s.tau),
            "tau_cert_display": None if s.tau is None else fmt_num(s.tau),
            "certificates": len(s.trials),
            "construct_s": t1 - t0, "construct_cpu_s": c1 - c0,
            "trajectory_s": t2 - t1, "trajectory_cpu_s": c2 - c1,
            "search_s": t3 - t2, "search_cpu_s": c3 - c2,
            "total_1_8_s": t3 - t0, "total_1_8_cpu_s": c3 - c0,
            "hardmax_exact_check_s": ht1 - ht0, "hardmax_exact_check_cpu_s": hc1 - hc0,
            "hardmax_verdict": h.verdict.value,
            "total_1_6_s": ht1 - ht, "total_1_6_cpu_s": hc1 - hc,
            "ratio_1_8_to_1_6": (t3 - t0) / (ht1 - ht), "ratio_1_8_to_1_6_cpu": (c3 - c0) / (hc1 - hc),
            "verify_1_8_s": vt1 - vt0, "verify_1_8_cpu_s": vc1 - vc0,
            "verify_1_8_verdict": v18.verdict.value, "verify_1_8_route": v18.route,
            "float_dense_s": ft1 - ft0,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run(quick: bool) -> list[dict]:
    """Rows for the benchmark table: digits with 4 and 8 images (``quick``) or
    100, 400 and all 1797 images (the issue's budget: the full search within
    120 s and 2 GB on 2 cores).  A failed child gives a row with ``error``."""
    sizes = [4, 8] if quick else [100, 400, 1797]
    rows = []
    for k in sizes:
        out = subprocess.run([sys.executable, "-m", "bench.softmax", "--child", str(k)],
                             capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parents[1])
        if out.returncode != 0:
            rows.append({"statement": "1.8", "images": k, "error": out.stderr[-2000:]})
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return rows


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        print(json.dumps(measure(int(argv[1]))))
        return 0
    for r in run("--quick" in argv):
        if "error" in r:
            print(f"images={r['images']}: ERROR {r['error']}")
            continue
        print(f"1.8 T={r['T']:6d} L={r['L']:5d}  {r['verdict']} tau_cert={r['tau_cert_display']} "
              f"({r['certificates']} certificates)  total {r['total_1_8_s']:7.2f} s wall / "
              f"{r['total_1_8_cpu_s']:7.2f} s CPU (construct {r['construct_cpu_s']:.2f}, "
              f"trajectory {r['trajectory_cpu_s']:.2f}, search {r['search_cpu_s']:.2f})  "
              f"1.6 total {r['total_1_6_cpu_s']:7.2f} s CPU (ratio {r['ratio_1_8_to_1_6_cpu']:.2f})  "
              f"verify 1.8 {r['verify_1_8_cpu_s']:6.2f} s  float64 dense "
              f"{r['float_dense_s']:6.2f} s  peak {r['peak_rss_mb']:6.0f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
