"""``python -m bench.length_sweep``: independence of L and P from the input
lengths n_j (docs/spec.md §4 budget; the seed stresses that the transformer's size grows
with the output length M only).

Tokens are added to every sequence of a fixed dataset — same N, same targets —
and the Theorem 1.6 network is built and verified exactly for each length.
The construction's budget is ``L = 2M + R + 1`` and
``P = (16d + 16) M + (10d + 8) R + 6d + 5``: n_j enters only through the number
R <= N - 1 of separation rounds.  Two ways of adding tokens:

* ``fresh``: k new tokens per sequence, different in every sequence (no point is
  shared, so R stays where the base dataset puts it);
* ``shared``: the SAME k new tokens are added to every sequence (shared points
  can only be resolved by separation rounds, so R may move — never above N - 1).

Every row records n_j, T, R, L, P, the two formulas, the exact verdict, and the
construction + exact-check time (wall and CPU, ``time.process_time``).  Writes
``bench/results-length.json``.

    python -m bench.length_sweep            # digits-sample, N = 20, n_j = 16 .. 1040
    python -m bench.length_sweep --quick    # smoke run
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

from proofcheck.constructions.afz.theorems.length_independence import add_tokens  # noqa: F401  (re-exported)


def measure(ds) -> dict:
    """Build and verify the Theorem 1.6 network for ``ds``; the row of the table."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import param_formula, verify
    w0, c0 = time.perf_counter(), time.process_time()
    tc = verify(ds)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    v = "VERIFIED" if all(r.verdict.passed for r in tc.results) else "FAILED"
    c = tc.constants
    ns = [len(p.inputs) for p in ds.pairs]
    return {"dataset": ds.name, "N": ds.N, "M": ds.M, "d": ds.d, "n_min": min(ns),
            "n_max": max(ns), "T": ds.n_tokens, "R": c["R"], "L": c["L"], "P": c["P"],
            "L_formula": 2 * ds.M + c["R"] + 1, "P_formula": param_formula(ds.d, ds.M, c["R"]),
            "L_minus_R": c["L"] - c["R"], "P_minus_R_term": c["P"] - (10 * ds.d + 8) * c["R"],
            "theta_sq_norm_approx": _approx(tc.construction.net.sq_norm()),
            "verdict": v, "seconds_wall": round(wall, 3), "seconds_cpu": round(cpu, 3)}


def _approx(q) -> str:
    from proofcheck.kernel.numbers import approx as sig_digits
    return sig_digits(q, 4)


def sweep(base, ks, seed: int = 0, progress=print) -> list[dict]:
    """Rows for ``base`` with k tokens added (fresh, then shared) for each k."""
    rows = []
    for mode in ("fresh", "shared"):
        for k in ks:
            ds = base if k == 0 else add_tokens(base, k, seed=seed, shared=mode == "shared")
            r = {"mode": mode, "added": k, **measure(ds)}
            rows.append(r)
            progress(f"{mode:6s} +{k:5d}: n_j = {r['n_max']:5d}, T = {r['T']:6d}, R = {r['R']:3d}, "
                     f"L = {r['L']:4d} (2M+R+1 = {r['L_formula']}), P = {r['P']:6d} "
                     f"(formula {r['P_formula']}), {r['verdict']}, "
                     f"{r['seconds_cpu']:.2f} s CPU / {r['seconds_wall']:.2f} s wall")
    return rows


def invariants(rows) -> dict:
    """What must hold: L and P equal their formulas in (d, M, R) on every row, so
    ``L - R`` and ``P - (10d + 8) R`` are the same for every n_j; R <= N - 1."""
    return {"all_verified": all(r["verdict"] == "VERIFIED" for r in rows),
            "L_equals_formula": all(r["L"] == r["L_formula"] for r in rows),
            "P_equals_formula": all(r["P"] == r["P_formula"] for r in rows),
            "L_minus_R_values": sorted({r["L_minus_R"] for r in rows}),
            "P_minus_R_term_values": sorted({r["P_minus_R_term"] for r in rows}),
            "R_values": sorted({r["R"] for r in rows}),
            "R_at_most_N_minus_1": all(r["R"] <= r["N"] - 1 for r in rows)}


def markdown_table(rows) -> str:
    """The README table: one line per (mode, k)."""
    out = ["| tokens added | n_j | T | R | L (= 2M+R+1) | P | ‖θ*‖² |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['mode']} +{r['added']} | {r['n_max']} | {r['T']} | {r['R']} | "
                   f"{r['L']} | {r['P']} | ≈ {r['theta_sq_norm_approx']} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.length_sweep")
    ap.add_argument("--quick", action="store_true", help="tiny smoke run")
    ap.add_argument("--images", type=int, default=20, help="digits-sample images (N)")
    ap.add_argument("--added", type=int, nargs="*", help="tokens added per sequence")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="JSON output (default bench/results-length.json; "
                    "with --quick nothing is written unless --out is given)")
    a = ap.parse_args(argv)
    from proofcheck.frontend.io.examples import sample
    images = min(a.images, 5) if a.quick else a.images
    ks = a.added or ([0, 4, 16] if a.quick else [0, 16, 64, 256, 1024])
    if images < 2 or min(ks) < 0:
        print("--images must be >= 2 and --added >= 0", file=sys.stderr)
        return 2
    base, _ = sample(limit=images)
    print(f"base: {base.name}, N = {base.N}, M = {base.M}, d = {base.d}, n_j = "
          f"{len(base.pairs[0].inputs)}", flush=True)
    rows = sweep(base, ks, seed=a.seed, progress=lambda s: print(s, flush=True))
    inv = invariants(rows)
    print("invariants: " + json.dumps(inv))
    print(markdown_table(rows))
    if a.quick and a.out is None:
        return 0 if _ok(inv) else 1
    out = Path(a.out or "bench/results-length.json")
    res = {"machine": {"python": platform.python_version(), "platform": platform.platform()},
           "timing_note": "seconds_cpu: time.process_time of construct + exact check; "
                          "seconds_wall: perf_counter (shared machine, noisy)",
           "base": {"name": base.name, "N": base.N, "M": base.M, "d": base.d},
           "rows": rows, "invariants": inv}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {out}")
    return 0 if _ok(inv) else 1


def _ok(inv) -> bool:
    return (inv["all_verified"] and inv["L_equals_formula"] and inv["P_equals_formula"]
            and len(inv["L_minus_R_values"]) == 1 and len(inv["P_minus_R_term_values"]) == 1
            and inv["R_at_most_N_minus_1"])


if __name__ == "__main__":
    sys.exit(main())
