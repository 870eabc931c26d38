"""Cost of the admissibility check against the number of pairs (the check hashes each
input set once, so it should grow linearly).

    python -m bench.admissibility            # N = 10^4 .. 8 x 10^4, writes the results file

Median CPU seconds of 3 runs of ``check_admissible`` per N on pairs of two tokens each,
and the log-log slope in N; results in ``bench/results-admissibility.json``."""
from __future__ import annotations

import json
import math
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

RESULTS = Path(__file__).with_name("results-admissibility.json")
SIZES = (10_000, 20_000, 40_000, 80_000)


def dataset(n: int):
    from proofcheck.kernel.dataset import Dataset, Pair
    one = (Fraction(0), Fraction(0))
    return Dataset(f"pairs-{n}", 2, tuple(
        Pair(((Fraction(i), Fraction(0)), (Fraction(i), Fraction(1))), (one,)) for i in range(n)))


def measure(sizes=SIZES, repeats: int = 3) -> dict:
    """``{"rows": [{"N", "cpu_s"}], "slope": log-log slope of cpu_s in N}``."""
    from proofcheck.kernel.dataset import check_admissible
    rows = []
    for n in sizes:
        ds, times = dataset(n), []
        for _ in range(repeats):
            t0 = time.process_time()
            check_admissible(ds)
            times.append(time.process_time() - t0)
        rows.append({"N": n, "cpu_s": round(statistics.median(times), 4)})
    xs = [math.log(r["N"]) for r in rows]
    ys = [math.log(max(r["cpu_s"], 1e-6)) for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return {"rows": rows, "slope": round(slope, 2)}


def main(argv=None) -> int:
    res = measure()
    for r in res["rows"]:
        print(f"N = {r['N']}: {r['cpu_s']} s CPU")
    print(f"log-log slope in N: {res['slope']}")
    RESULTS.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
