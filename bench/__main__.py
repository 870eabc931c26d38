"""``python -m bench``: construction + exact verification of Theorem 1.6 against a
float64 dense pass of the same network and the Fraction reference backend,
swept over the number of tokens T (digits images, 16 tokens each) — L grows with
T (L = 2M + R + 1, M = images).  Prints a table, writes JSON with times, ratios,
peak memory (each configuration runs in its own process), largest bit size and
log-log slopes.

    python -m bench                  # digits T ~10^3..3*10^4, then the scale rows
    python -m bench --quick          # tiny smoke run (CI)
    python -m bench --scale 10000 100000 1000000 --dask   # generated datasets only
    python -m bench --scale-hard 8000 16000 32000 64000   # R = N - 1 beside R = 0
    python -m bench --readme         # print the README tables from bench/results.json

Scale rows (``--scale T ...``): digits-like generated datasets
(:func:`proofcheck.frontend.io.generate.digits_like`, T/16 sequences of 16 tokens, 1-3
targets each), construction + exact check, wall and CPU seconds, peak RSS, R, and
the log-log slopes of time and memory against T, and per-phase seconds of the
construction and of the check (S, L, C, I), and the exact ``||theta*||^2``.
``--scale-hard T ...`` adds, for each T, a row whose sequences all share their top
token (``top_share = 1``: R = N - 1, numbers of about R bits) and the R = 0 row of
the same T, measured one after the other, with their log-log slopes in N (totals:
construct + exact check + ``||theta*||^2``).  ``--dask`` adds the exact check
of the largest scale dataset sharded over 1 and 2 local Dask workers.  Progress
for every phase goes to stderr (a bar on a terminal, else a line every few s).
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path


def variant(ds, tokens: int | None, targets: int | None):
    """The digits dataset with each image cut to its first ``tokens`` patches and/or
    ``targets`` target tokens per image (the first input tokens moved by 100 e_1), so
    T and L can be varied separately; images whose cut input repeats are dropped."""
    from fractions import Fraction

    from proofcheck.kernel.dataset import Dataset, Pair
    pairs, seen = [], set()
    for p in ds.pairs:
        x = p.inputs[:tokens] if tokens else p.inputs
        if frozenset(x) in seen:
            continue
        seen.add(frozenset(x))
        y = (tuple((v[0] + 100,) + v[1:] for v in x[:targets]) if targets else p.outputs)
        pairs.append(Pair(tuple(x), tuple(tuple(Fraction(c) for c in v) for v in y)))
    return Dataset(f"{ds.name}-t{tokens}-m{targets}", ds.d, tuple(pairs))


REPEATS = 3  # construct + exact check runs per digits row (the median is reported)


def measure(images: int, reference_images: int, tokens=None, targets=None) -> dict:
    """One configuration (run in a child process so peak RSS is its own): construct
    and exact check ``REPEATS`` times (medians reported, every run kept in
    ``runs``), the float64 dense pass and the Fraction reference once."""
    import resource

    import numpy as np

    from bench.dense_float import compile_network, forward
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.frontend.io.examples import digits
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.verdicts import Verdict
    ds, _ = digits(limit=images)
    if tokens or targets:
        ds = variant(ds, tokens, targets)
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    # construct + exact check REPEATS times in this process; the row reports the
    # median of each (this machine's timings vary by +-15 % run to run)
    runs = []
    for _ in range(REPEATS):
        t0, c0 = time.perf_counter(), time.process_time()
        c = construct(inputs, targets, ds.d)
        t_construct, c_construct = time.perf_counter() - t0, time.process_time() - c0
        c0 = time.process_time()
        res = check_network(c.net, inputs, targets, c.claims)
        c_exact = time.process_time() - c0
        assert res.verdict == Verdict.VERIFIED, res.witness
        runs.append((t_construct, res.seconds, c_construct, c_exact))
    t_construct, t_exact, c_construct, c_exact = (statistics.median(x) for x in zip(*runs))
    layers = compile_network(c.net)
    n = len(inputs[0])
    X = np.array([[[float(v) for v in x] for x in s] for s in inputs])  # equal lengths
    t0, c0 = time.perf_counter(), time.process_time()
    forward(layers, X, n)
    t_float, c_float = time.perf_counter() - t0, time.process_time() - c0
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
            "construct_plus_check_s": statistics.median(a + b for a, b, _, _ in runs),
            "runs": [{"construct_s": a, "exact_check_s": b} for a, b, _, _ in runs],
            "float_dense_s": t_float,
            "exact_over_float": t_exact / t_float,
            "construct_cpu_s": c_construct, "exact_check_cpu_s": c_exact,
            "float_dense_cpu_s": c_float, "exact_over_float_cpu": c_exact / c_float,
            "reference_subset_images": k, "reference_subset_s": t_ref,
            "flint_subset_s": t_flint_sub, "reference_over_flint": t_ref / t_flint_sub,
            "max_bits": c.net.max_bits(),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure_scale(tokens: int, dask_workers=(), seed: int = 0, top_share: float = 0.0) -> dict:
    """One generated digits-like dataset of about ``tokens`` tokens (run in a child
    process): construct + exact check with progress per phase; optionally the
    exact check again sharded over ``dask_workers`` local Dask workers each.
    ``top_share``: see :func:`proofcheck.frontend.io.generate.digits_like` (1: R = N - 1)."""
    import resource

    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.frontend.io.generate import digits_like
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.verdicts import Verdict
    from proofcheck.frontend.progress import Progress
    n_seq = max(1, tokens // 16)
    t0, c0 = time.perf_counter(), time.process_time()
    ds = digits_like(n_seq, seed=seed, top_share=top_share)
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    t_gen = time.perf_counter() - t0
    tag = f"T={ds.n_tokens}" + (f" top-share {top_share:g}" if top_share else "")
    bars = {"S": Progress(None, f"{tag} construct S (rounds)", "round", interval=5.0),
            "L": Progress(ds.N, f"{tag} construct L", "sequence", interval=5.0),
            "C": Progress(1, f"{tag} construct C", "layer", interval=5.0),
            "I": Progress(ds.M, f"{tag} construct I", "snap", interval=5.0)}
    t0, c0 = time.perf_counter(), time.process_time()
    c = construct(inputs, targets, ds.d, progress=lambda ph: bars[ph].update())
    for b in bars.values():
        b.close()
    t_construct, c_construct = time.perf_counter() - t0, time.process_time() - c0
    # the exact check: one bar per phase of blocks (S, L, C, I), a block per step
    cbars, check_phase_s, last = {}, {}, [time.perf_counter(), None]

    def check_progress(b):
        ph = c.net.blocks[b - 1].phase.split("+")[-1]
        if ph not in cbars:
            if last[1] is not None:
                cbars[last[1]].close()
            lo, hi = c.phases[ph]
            cbars[ph] = Progress(hi - lo + 1, f"{tag} exact check {ph}", "block", interval=5.0)
        now = time.perf_counter()
        check_phase_s[ph] = check_phase_s.get(ph, 0.0) + now - last[0]
        last[0], last[1] = now, ph
        cbars[ph].update()
    c0 = time.process_time()
    res = check_network(c.net, inputs, targets, c.claims, progress=check_progress)
    for b in cbars.values():
        b.close()
    c_exact = time.process_time() - c0
    assert res.verdict == Verdict.VERIFIED, res.witness
    # ||theta*||^2, exact (printed by `theorem 1.6` next to P)
    t0, c0 = time.perf_counter(), time.process_time()
    c.net.sq_norm()
    t_theta, c_theta = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    row = {"T": ds.n_tokens, "N": ds.N, "M": ds.M, "R": c.info["R"], "L": c.net.L,
           "generate_s": t_gen, "construct_s": t_construct, "exact_check_s": res.seconds,
           "construct_plus_check_s": t_construct + res.seconds,
           "construct_cpu_s": c_construct, "exact_check_cpu_s": c_exact,
           "construct_plus_check_cpu_s": c_construct + c_exact,
           "theta_sq_norm_s": t_theta, "theta_sq_norm_cpu_s": c_theta,
           "network_bits": sum(v.numerator.bit_length() + v.denominator.bit_length()
                               for *_, v in c.net.parameters()),
           "total_s": t_construct + res.seconds + t_theta,
           "total_cpu_s": c_construct + c_exact + c_theta,
           "max_bits": c.net.max_bits(), "peak_rss_mb": rss, "top_share": top_share,
           "construct_phase_s": c.seconds, "exact_check_phase_s": check_phase_s}
    if dask_workers:
        from proofcheck.frontend.runs.distributed import check_distributed
        row["dask"] = []
        # fork: the local workers inherit the problem (the default of --workers);
        # broadcast: the bytes a multi-machine cluster gets (--scheduler), on this machine
        for transport in ("fork", "broadcast"):
            for k in dask_workers:
                sbar = Progress(None, f"T={ds.n_tokens} exact check on {k} Dask worker(s), "
                                f"{transport}", "shard", interval=5.0)
                st: dict = {}
                r = check_distributed(c.net, inputs, targets, c.claims, workers=k,
                                      transport=transport,
                                      progress=lambda i, n: sbar.update(), stats=st)
                sbar.close()
                assert r.verdict == Verdict.VERIFIED, r.results
                # exact_check_s: the whole call (cluster start, serialize, broadcast,
                # shards, merge); the parts are in stats (worker_timing: per shard)
                row["dask"].append({"workers": k, "transport": transport,
                                    "exact_check_s": r.seconds,
                                    "after_start_s": r.seconds - st.get("cluster_s", 0.0),
                                    "stats": {a: v for a, v in st.items()}})
    return row


def _scale_table(rows) -> list[str]:
    """Markdown rows of one family of generated-dataset runs (README block)."""
    out = ["| T (tokens) | N | M | R | L | construct s | exact check s | total s | "
           "total CPU s | peak RSS MB |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['T']} | {r['N']} | {r['M']} | {r['R']} | {r['L']} | "
                   f"{r['construct_s']:.1f} | {r['exact_check_s']:.1f} | "
                   f"{r['construct_plus_check_s']:.1f} | "
                   f"{r['construct_plus_check_cpu_s']:.1f} | {r['peak_rss_mb']:.0f} |")
    return out


def _side_by_side_table(hard, r0) -> list[str]:
    """Markdown rows: each R ~ N row with the R = 0 row of the same T (README block).
    Totals are construct + exact check + ||theta*||^2."""
    by_T = {r["T"]: r for r in r0}
    out = ["| T (tokens) | N | R | L | construct s | exact check s | ‖θ*‖² s | total s | "
           "total CPU s | largest rational (bits) | parameter bits (millions) | peak RSS MB | "
           "R = 0: R | R = 0: total s | R = 0: total CPU s | CPU ratio R≈N / R=0 |",
           "|" + "---|" * 16]
    for r in hard:
        z = by_T.get(r["T"])
        tail = (f"{z['R']} | {z['total_s']:.1f} | {z['total_cpu_s']:.1f} | "
                f"{r['total_cpu_s'] / z['total_cpu_s']:.1f}" if z else "n/a | n/a | n/a | n/a")
        out.append(f"| {r['T']} | {r['N']} | {r['R']} | {r['L']} | {r['construct_s']:.1f} | "
                   f"{r['exact_check_s']:.1f} | {r['theta_sq_norm_s']:.1f} | {r['total_s']:.1f} | "
                   f"{r['total_cpu_s']:.1f} | {r['max_bits']} | {r['network_bits'] / 1e6:.1f} | "
                   f"{r['peak_rss_mb']:.0f} | {tail} |")
    return out


def render_readme(res: dict) -> str:
    """The README's timing tables (between ``<!-- bench:begin -->`` and
    ``<!-- bench:end -->``), rendered from a results.json dict."""
    out = ["<!-- bench:begin -->",
           "<!-- generated by `python -m bench --readme` from bench/results.json; "
           "do not edit by hand -->", ""]
    rows = res.get("rows") or []
    if rows:
        rep = len(rows[0].get("runs", []))
        med = f"; construct and exact check: median of {rep} runs" if rep > 1 else ""
        out += [f"Theorem 1.6 on digits (wall seconds{med}; CPU seconds in results.json):", "",
                "| T (tokens) | L | R | construct s | exact check s | float64 dense s | "
                "exact / float | Fraction / flint | largest rational (bits) | peak RSS MB |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            out.append(f"| {r['T']} | {r['L']} | {r['R']} | {r['construct_s']:.2f} | "
                       f"{r['exact_check_s']:.2f} | {r['float_dense_s']:.2f} | "
                       f"{r['exact_over_float']:.2f} | {r['reference_over_flint']:.0f} | "
                       f"{r['max_bits']} | {r['peak_rss_mb']:.0f} |")
        sl = res.get("slopes", {})
        if sl:
            out += ["", "log-log slopes: " + ", ".join(f"{k} {v:.2f}" for k, v in sl.items())]
    scale = res.get("scale") or []
    if scale:
        out += ["", "Scale (generated digits-like datasets, 16 tokens per sequence, 1-3 "
                "targets):", ""] + _scale_table(scale)
        sl = res.get("scale_slopes", {})
        if sl:
            out += ["", "log-log slopes in T: " + ", ".join(f"{k} {v:.2f}" for k, v in sl.items())]
        dk = [(r["T"], d) for r in scale for d in r.get("dask", [])]
        if dk:
            base = {(T, d.get("transport", "broadcast")): d["exact_check_s"]
                    for T, d in dk if d["workers"] == 1}
            out += ["", "| T | Dask workers | problem reaches the workers by | exact check s "
                    "(whole call) | speed-up vs 1 worker |", "|---|---|---|---|---|"]
            for T, d in dk:
                tr = d.get("transport", "broadcast")
                sp = base.get((T, tr), float("nan")) / d["exact_check_s"]
                out.append(f"| {T} | {d['workers']} | {tr} | {d['exact_check_s']:.1f} | "
                           f"{sp:.2f} |")
    hard = res.get("scale_hard") or []
    if hard:
        out += ["", "Scale, R close to N (generated digits-like datasets whose sequences all "
                "share their top token, top_share 1), side by side with the R = 0 family "
                "(top_share 0) at the same T, measured alternately in one run:", ""]
        out += _side_by_side_table(hard, res.get("scale_hard_r0") or [])
        sl = res.get("scale_hard_slopes", {})
        if sl:
            out += ["", "log-log slopes in N: " + ", ".join(f"{k} {v:.2f}" for k, v in sl.items())]
    soft = res.get("softmax") or []
    if soft:
        cols = [("images", "images", "{}"), ("T", "T", "{}"), ("L", "L", "{}"), ("R", "R", "{}"),
                ("verdict", "verdict", "{}"), ("tau_cert", "tau_cert_display", "{}"),
                ("certificates tried", "certificates", "{}"),
                ("construct s", "construct_cpu_s", "{:.1f}"),
                ("hardmax trajectory s", "trajectory_cpu_s", "{:.1f}"),
                ("tau search s", "search_cpu_s", "{:.1f}"), ("total 1.8 s", "total_1_8_cpu_s", "{:.1f}"),
                ("1.6 construct + exact check s", "total_1_6_cpu_s", "{:.1f}"),
                ("1.8 / 1.6", "ratio_1_8_to_1_6_cpu", "{:.2f}"),
                ("total 1.8 wall s", "total_1_8_s", "{:.1f}"),
                ("verify 1.8 certificate s", "verify_1_8_cpu_s", "{:.1f}"),
                ("float64 dense s (same network)", "float_dense_s", "{:.1f}"),
                ("peak RSS MB", "peak_rss_mb", "{:.0f}")]
        out += ["", "Theorem 1.8 (softmax) on digits, side by side with Theorem 1.6 on the same "
                "dataset, the kernel's re-check of the 1.8 certificate and the float64 dense "
                "pass (CPU seconds, the comparable ones on a shared machine, except the wall-clock total "
                "and the float64 pass; all in results.json), one run of `python -m bench --softmax-only`:",
                "", "| " + " | ".join(c[0] for c in cols) + " |", "|" + "---|" * len(cols)]
        for r in soft:
            out.append("| " + " | ".join(f.format(r[k]) if k in r else "n/a"
                                         for _, k, f in cols) + " |")
    m = res.get("machine", {})
    out += ["", f"Machine: {m.get('platform', '?')}, Python {m.get('python', '?')}.",
            "<!-- bench:end -->"]
    return "\n".join(out) + "\n"


def _hard_slopes(hard, zero) -> dict:
    """log-log slopes in N of the side-by-side families (totals: construct + exact
    check + ||theta*||^2)."""
    if len(hard) < 2:
        return {}
    N = [r["N"] for r in hard]
    return {"R ≈ N total (wall)": slope(N, [r["total_s"] for r in hard]),
            "R ≈ N total (CPU)": slope(N, [r["total_cpu_s"] for r in hard]),
            "R = 0 total (wall)": slope([r["N"] for r in zero], [r["total_s"] for r in zero]),
            "R = 0 total (CPU)": slope([r["N"] for r in zero], [r["total_cpu_s"] for r in zero]),
            "R ≈ N parameter bits": slope(N, [r["network_bits"] for r in hard])}


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
    ap.add_argument("--child-tokens", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child-targets", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--split-images", type=int, default=300,
                    help="images for the separate sweeps (T at fixed L, L at fixed T)")
    ap.add_argument("--reference", type=int, default=20, help="images for the Fraction run")
    ap.add_argument("--scale", type=int, nargs="*",
                    help="token counts of generated digits-like datasets (default "
                    "10^4 10^5 10^6; none with --quick)")
    ap.add_argument("--scale-hard", type=int, nargs="*",
                    help="token counts of generated datasets whose sequences all share "
                    "their top token (top_share 1: R = N - 1), each measured beside the "
                    "R = 0 dataset of the same T, with log-log slopes in N (default 8000 "
                    "16000 32000 64000, none with --quick or with --scale alone)")
    ap.add_argument("--dask", action="store_true",
                    help="also check the largest scale dataset on 1 and 2 Dask workers")
    ap.add_argument("--child-scale", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child-dask", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-top-share", type=float, default=0.0, help=argparse.SUPPRESS)
    ap.add_argument("--rows-only", action="store_true",
                    help="measure only the digits rows (--images) and merge them into the "
                    "results file (its other families are kept)")
    ap.add_argument("--softmax-only", action="store_true",
                    help="measure only the Theorem 1.8 rows (beside Theorem 1.6 on the same "
                    "datasets) and merge them into the results file")
    ap.add_argument("--readme", action="store_true",
                    help="print the README timing tables rendered from the results JSON")
    a = ap.parse_args(argv)
    if a.child is not None:
        print(json.dumps(measure(a.child, a.reference, a.child_tokens, a.child_targets)))
        return 0
    if a.child_scale is not None:
        print(json.dumps(measure_scale(a.child_scale, (1, 2) if a.child_dask else (),
                                       top_share=a.child_top_share)))
        return 0
    if a.out is None:
        a.out = "bench/results-quick.json" if a.quick else "bench/results.json"
    if a.readme:
        sys.stdout.write(render_readme(json.loads(Path(a.out).read_text())))
        return 0
    if a.softmax_only:
        from bench import softmax
        out_path = Path(a.out)
        res = json.loads(out_path.read_text()) if out_path.exists() else {}
        res["softmax"] = softmax.run(a.quick)
        out_path.write_text(json.dumps(res, indent=1) + "\n")
        print(f"merged the Theorem 1.8 rows into {a.out}")
        return 0
    only_scale = (a.scale is not None or a.scale_hard is not None) and a.images is None
    scale_sizes = a.scale if a.scale is not None else ([] if a.quick or only_scale else
                                                       [10 ** 4, 10 ** 5, 10 ** 6])
    hard_sizes = a.scale_hard if a.scale_hard is not None else (
        [] if a.quick or only_scale else [8000, 16000, 32000, 64000])

    def scale_child(T, dask, top_share=0.0):
        cmd = [sys.executable, "-m", "bench", "--child-scale", str(T)]
        cmd += ["--child-dask"] if dask else []
        cmd += ["--child-top-share", str(top_share)] if top_share else []
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).resolve().parents[1])
        if out.returncode != 0:
            return None
        return json.loads(out.stdout.strip().splitlines()[-1])

    def show(r, family):
        print(f"{family} T={r['T']:8d} N={r['N']:6d} R={r['R']:5d} L={r['L']:7d}  construct "
              f"{r['construct_s']:7.1f} s  check {r['exact_check_s']:7.1f} s  (CPU "
              f"{r['construct_plus_check_cpu_s']:7.1f} s)  peak {r['peak_rss_mb']:6.0f} MB"
              + "".join(f"  dask x{d['workers']} {d.get('transport', '')} "
                        f"{d['exact_check_s']:.1f} s"
                        for d in r.get("dask", [])), flush=True)

    def run_scale(res):
        hard, zero = [], []
        for T in hard_sizes:  # R = N - 1 (the separation-bound family) beside R = 0
            for top_share, family, rows in ((0.0, "scale R=0", zero), (1.0, "scale R~N", hard)):
                r = scale_child(T, False, top_share)
                if r is None:
                    return 4
                rows.append(r)
                show(r, family)
        if hard:
            res["scale_hard"], res["scale_hard_r0"] = hard, zero
            res["scale_hard_slopes"] = _hard_slopes(hard, zero)
        rows = []
        for i, T in enumerate(scale_sizes):
            r = scale_child(T, a.dask and i == len(scale_sizes) - 1)
            if r is None:
                return 4
            rows.append(r)
            show(r, "scale")
        if not rows:
            return 0
        res["scale"] = rows
        if len(rows) >= 2:
            T = [r["T"] for r in rows]
            res["scale_slopes"] = {
                "time (construct + check, wall)": slope(T, [r["construct_plus_check_s"] for r in rows]),
                "time (CPU)": slope(T, [r["construct_plus_check_cpu_s"] for r in rows]),
                "peak RSS": slope(T, [r["peak_rss_mb"] for r in rows])}
        return 0

    def softmax_rows(res):
        try:  # bench/softmax.py (Theorem 1.8 rows), when it is there
            from bench import softmax
        except ImportError:
            return
        res["softmax"] = softmax.run(a.quick)

    if only_scale:
        out_path = Path(a.out)
        res = json.loads(out_path.read_text()) if out_path.exists() else {}
        res["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
        rc = run_scale(res)
        if rc:
            return rc
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(res, indent=1) + "\n")
        print(f"wrote {a.out}")
        return 0
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("the benchmark uses scikit-learn's digits: pip install -e \".[data]\"",
              file=sys.stderr)
        return 2
    sizes = a.images or ([4, 8, 16] if a.quick else [63, 125, 250, 500, 1000, 1797])
    ref = str(min(a.reference, 4) if a.quick else a.reference)

    def child(k, tokens=None, targets=None):
        cmd = [sys.executable, "-m", "bench", "--child", str(k), "--reference", ref]
        cmd += ["--child-tokens", str(tokens)] if tokens else []
        cmd += ["--child-targets", str(targets)] if targets else []
        out = subprocess.run(cmd, capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parents[1])
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            return None
        return json.loads(out.stdout.strip().splitlines()[-1])
    rows = []
    for k in sizes:
        rows.append(child(k))
        if rows[-1] is None:
            return 4
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
    if a.rows_only:
        out_path = Path(a.out)
        res = json.loads(out_path.read_text()) if out_path.exists() else {}
        res["rows"] = rows
        res.setdefault("slopes", {}).update(summary)
        out_path.write_text(json.dumps(res, indent=1) + "\n")
        print(f"merged the digits rows into {a.out}")
        return 0
    # separate sweeps at a fixed number of images: T varies with the tokens kept per
    # image (L nearly fixed), L varies with the targets per image (T fixed)
    K = 6 if a.quick else a.split_images
    fixed_L = [child(K, tokens=t) for t in ((4, 8, 16) if a.quick else (4, 8, 16))]
    fixed_T = [child(K, targets=m) for m in ((1, 2, 4) if a.quick else (1, 2, 4, 8))]
    if None in fixed_L or None in fixed_T:
        return 4
    for name, rs in (("T sweep at ~fixed L", fixed_L), ("L sweep at fixed T", fixed_T)):
        for r in rs:
            print(f"{name}: T={r['T']:6d} L={r['L']:5d} R={r['R']:4d} exact {r['exact_check_s']:7.2f} s "
                  f"construct {r['construct_s']:6.2f} s", flush=True)
    summary["split_slope_exact_vs_T_at_fixed_L"] = slope([r["T"] for r in fixed_L],
                                                        [r["exact_check_s"] for r in fixed_L])
    summary["split_slope_exact_vs_L_at_fixed_T"] = slope([r["L"] for r in fixed_T],
                                                        [r["exact_check_s"] for r in fixed_T])
    print("log-log slopes: " + ", ".join(f"{k} {v:.2f}" for k, v in summary.items()))
    res = {"machine": {"python": platform.python_version(), "platform": platform.platform()},
           "rows": rows, "fixed_L_sweep": fixed_L, "fixed_T_sweep": fixed_T, "slopes": summary}
    if (scale_sizes or hard_sizes) and run_scale(res):
        return 4
    softmax_rows(res)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
