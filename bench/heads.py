"""Multi-head causal SA on the two exact routes (docs/spec.md §1 "Extensions"): one layer of
H = 2 rank-one hardmax heads under the causal mask on N sequences of n tokens
(seeded small integers, so ties occur), evaluated by the plain evaluator (one score
row per token) and by the fast tier's prefix extremes (:mod:`proofcheck.kernel.fast.heads`),
side by side in one process; the outputs are compared exactly.

    python -m bench.heads            # n = 64, 256, 1024; writes bench/results-heads.json
    python -m bench.heads --quick    # n = 16, 64 (smoke run)
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import time
from fractions import Fraction
from pathlib import Path

OUT = Path(__file__).with_name("results-heads.json")


def network(d: int = 4):
    from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
    rng = random.Random(1)

    def vec():
        return tuple(Fraction(rng.randint(-3, 3)) for _ in range(d))
    heads = [(Factored(Fraction(0), (vec(),), (vec(),)), Factored(Fraction(1, 2), (vec(),), (vec(),)))
             for _ in range(2)]
    return Transformer(d, [Block(FF(Fraction(1)), SA.multi(Fraction(1), heads, causal=True))])


def sequences(N: int, n: int, d: int = 4):
    rng = random.Random(n)
    return [[tuple(Fraction(rng.randint(-9, 9)) for _ in range(d)) for _ in range(n)]
            for _ in range(N)]


def row(N: int, n: int) -> dict:
    from proofcheck.kernel.evaluate import PlainBackend, run
    from proofcheck.kernel.fast import get_backend
    net, seqs = network(), sequences(N, n)
    out = {"N": N, "n": n, "H": 2, "causal": True}
    res = {}
    for name, be in (("plain", PlainBackend()), ("fast", get_backend("flint"))):
        t0 = time.process_time()
        res[name] = run(net, seqs, be)
        out[f"{name}_cpu_s"] = round(time.process_time() - t0, 4)
    out["equal"] = res["plain"] == res["fast"]
    out["ratio_plain_over_fast"] = round(out["plain_cpu_s"] / max(out["fast_cpu_s"], 1e-9), 2)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.heads", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run (n = 16, 64)")
    ap.add_argument("--out", default=str(OUT), help="JSON output (default bench/results-heads.json)")
    a = ap.parse_args(argv)
    sizes = [(8, 16), (4, 64)] if a.quick else [(16, 64), (4, 256), (1, 1024)]
    rows = []
    for N, n in sizes:
        rows.append(row(N, n))
        r = rows[-1]
        print(f"N = {N:3d}, n = {n:5d}: plain {r['plain_cpu_s']:.3f} s, fast {r['fast_cpu_s']:.3f} s "
              f"(plain / fast = {r['ratio_plain_over_fast']}), outputs equal: {r['equal']}")
    if not all(r["equal"] for r in rows):
        print("MISMATCH between the routes")
        return 1
    if not a.quick:
        Path(a.out).write_text(json.dumps({"rows": rows, "python": platform.python_version(),
                                           "unit": "CPU seconds of one process"}, indent=1) + "\n")
        print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
