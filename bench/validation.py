"""Cost of the model types' argument validation.

    python -m bench.validation [N_SEQ]     # default 500 sequences (~8 000 tokens)

Interleaved A/B in one process: the Theorem 1.6 construction on a digits-like
dataset with the model's ``__post_init__`` validation as shipped, and with it
replaced by the former width-only check; plus ``timeit`` of FF / SA construction.
Prints CPU seconds (min over the repetitions).  Run on an idle machine."""
from __future__ import annotations

import sys
import time
import timeit
from fractions import Fraction as F


def main(argv=None) -> int:
    import proofcheck.kernel.model as m
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.frontend.io.generate import digits_like
    n_seq = int((argv or sys.argv[1:] or [500])[0])
    ds = digits_like(n_seq, seed=0)
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    shipped = {c: c.__post_init__ for c in (m.FF, m.SA, m.Factored, m.Block)}

    def ff_width_only(self):
        if not (len(self.U) == len(self.b) == len(self.W)):
            raise ValueError("FF: U, b, W must have the same width")

    def fac_count_only(self):
        if len(self.left) != len(self.right):
            raise ValueError("Factored: left and right factor counts differ")

    former = {m.FF: ff_width_only, m.Factored: fac_count_only,
              m.SA: lambda self: None, m.Block: lambda self: None}

    def use(table):
        for c, f in table.items():
            c.__post_init__ = f

    times = {"former": [], "shipped": []}
    micro = {"former": [], "shipped": []}
    for _ in range(3):
        for mode, table in (("former", former), ("shipped", shipped)):
            use(table)
            t0 = time.process_time()
            construct(inputs, targets, ds.d)
            times[mode].append(time.process_time() - t0)
            w = tuple(F(i, 3) for i in range(ds.d))
            args = (F(1), (w,) * 4, (F(1), F(2), F(3), F(4)), (w,) * 4)
            micro[mode].append(min(timeit.repeat(lambda: m.FF(*args), number=20000, repeat=3)) / 20000)
    use(shipped)
    a, b = min(times["former"]), min(times["shipped"])
    print(f"T = {ds.n_tokens}, d = {ds.d}: construct CPU {a:.3f} s without validation, {b:.3f} s with "
          f"({100 * (b / a - 1):+.1f} %); FF(width 4) {1e6 * min(micro['former']):.2f} us -> "
          f"{1e6 * min(micro['shipped']):.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
