"""``python -m bench``: construction + exact verification of Theorem 1.6 against a
float64 dense pass of the same network and the Fraction reference backend,
swept over the number of tokens T (digits images, 16 tokens each) — L grows with
T (L = 2M + R + 1, M = images).  Prints a table, writes JSON with times, ratios,
peak memory (each configuration runs in its own process), largest bit size and
log-log slopes.

    python -m bench                  # T from ~10^3 to ~3*10^4 (minutes)
    python -m bench --quick          # tiny smoke run (CI)
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
import time
from pathlib import Path


def measure(images: int, reference_images: int) -> dict:
    """One configuration (run in a child process so peak RSS is its own)."""
    import resource

    import numpy as np

    from bench.dense_float import compile_network, forward
    from lemmas.afz.theorem_1_6 import construct
    from proofcheck.checker import check_network
    from proofcheck.examples import digits
    from proofcheck.verdicts import Verdict
    ds, _ = digits(limit=images)
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    t0 = time.perf_counter()
    c = construct(inputs, targets, ds.d)
    t_construct = time.perf_counter() - t0
    res = check_network(c.net, inputs, targets, c.claims)
    assert res.verdict == Verdict.VERIFIED, res.witness
    t_exact = res.seconds
    layers = compile_network(c.net)
    n = len(inputs[0])
    X = np.array([[[float(v) for v in x] for x in s] for s in inputs])
    t0 = time.perf_counter()
    forward(layers, X, n)
    t_float = time.perf_counter() - t0
    # the literal Fraction backend on a subset: the first k images and THEIR network
    k = min(reference_images, images)
    sub, sub_t = inputs[:k], targets[:k]
    c_sub = construct(sub, sub_t, ds.d)
    t0 = time.perf_counter()
    ref = check_network(c_sub.net, sub, sub_t, None, backend="fraction")
    t_ref = time.perf_counter() - t0
    t0 = time.perf_counter()
    fl = check_network(c_sub.net, sub, sub_t, None, backend="flint")
    t_flint_sub = time.perf_counter() - t0
    assert ref.outputs == fl.outputs
    return {"images": images, "T": ds.n_tokens, "L": c.net.L, "R": c.info["R"],
            "construct_s": t_construct, "exact_check_s": t_exact,
            "construct_plus_check_s": t_construct + t_exact, "float_dense_s": t_float,
            "exact_over_float": t_exact / t_float,
            "reference_subset_images": k, "reference_subset_s": t_ref,
            "flint_subset_s": t_flint_sub, "reference_over_flint": t_ref / t_flint_sub,
            "max_bits": c.net.max_bits(),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def slope(xs, ys):
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    num = sum((a - mx) * (b - my) for a, b in zip(lx, ly))
    den = sum((a - mx) ** 2 for a in lx)
    return num / den if den else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench")
    ap.add_argument("--quick", action="store_true", help="tiny smoke run")
    ap.add_argument("--images", type=int, nargs="*", help="digits images per configuration")
    ap.add_argument("--out", help="JSON output (default bench/results.json; "
                    "bench/results-quick.json with --quick)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--reference", type=int, default=20, help="images for the Fraction run")
    a = ap.parse_args(argv)
    if a.child is not None:
        print(json.dumps(measure(a.child, a.reference)))
        return 0
    if a.out is None:
        a.out = "bench/results-quick.json" if a.quick else "bench/results.json"
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("the benchmark uses scikit-learn's digits: pip install -e \".[data]\"",
              file=sys.stderr)
        return 2
    sizes = a.images or ([4, 8, 16] if a.quick else [63, 125, 250, 500, 1000, 1797])
    rows = []
    for k in sizes:
        out = subprocess.run([sys.executable, "-m", "bench", "--child", str(k), "--reference",
                              str(min(a.reference, 4) if a.quick else a.reference)],
                             capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parents[1])
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            return 4
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        print(f"T={r['T']:6d} L={r['L']:5d} R={r['R']:4d}  construct {r['construct_s']:7.2f} s  "
              f"exact {r['exact_check_s']:7.2f} s  float64 dense {r['float_dense_s']:7.2f} s  "
              f"exact/float {r['exact_over_float']:5.2f}  ref/flint {r['reference_over_flint']:5.1f}  "
              f"bits {r['max_bits']:4d}  peak {r['peak_rss_mb']:6.0f} MB", flush=True)
    T = [r["T"] for r in rows]
    summary = {"slope_exact_vs_T": slope(T, [r["exact_check_s"] for r in rows]),
               "slope_total_vs_T": slope(T, [r["construct_plus_check_s"] for r in rows]),
               "slope_float_vs_T": slope(T, [r["float_dense_s"] for r in rows]),
               "slope_exact_vs_L": slope([r["L"] for r in rows], [r["exact_check_s"] for r in rows])}
    print("log-log slopes: " + ", ".join(f"{k} {v:.2f}" for k, v in summary.items()))
    res = {"machine": {"python": platform.python_version(), "platform": platform.platform()},
           "rows": rows, "slopes": summary}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
