"""Statement ``length-independence`` (project label; seed 000 §3.2: the size of the
transformer depends on the output lengths and d, not on the input lengths n_j).

Checked on sweeps: to every input sequence of a dataset k tokens are added (the
same N, the same targets), for k = 0, 8, 32, and the Theorem 1.6 network is built
and verified exactly for each — ``fresh`` tokens (different in every sequence) and
``shared`` tokens (the same k in every sequence).  What holds on every sweep, and is
the verdict: n_j enters L and P only through the number R <= N - 1 of separation
rounds — ``L - R = 2M + 1`` and ``P - (10d + 8) R`` are equal across the sweep — so
both stay below bounds that do not involve n_j (``L <= 2M + N``,
``P <= (26d + 24) M``).  Where R does not move, L and P are equal; the output says
on which sweeps that happened and where R moved (fresh tokens can change which
tokens top their sequences and so R, in either direction; shared tokens need rounds
of their own).

``||theta*||^2`` is reported too: it does move with n_j (the parameter values depend
on the data).  Only the sweeps run are covered (on these instances).
"""
from __future__ import annotations

import random
from fractions import Fraction

from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness

ID = "length-independence"
ADDED = (0, 8, 32)


def add_tokens(ds, k: int, seed: int = 0, shared: bool = False, grid: int = 64):
    """``ds`` with ``k`` extra tokens appended to every input sequence (targets
    and N unchanged).  New tokens have coordinates ``c / grid`` with ``c`` drawn
    uniformly from ``[-20 grid, 20 grid]`` (seeded), are distinct from every token
    of the dataset and from each other; ``shared=True`` appends the same k tokens
    to every sequence, otherwise each sequence gets its own.  The result stays
    admissible (sequences remain distinct as sets)."""
    from proofcheck.kernel.dataset import Dataset, Pair
    rng = random.Random(seed)
    used = {t for p in ds.pairs for t in p.inputs}

    def fresh(count):
        out = []
        while len(out) < count:
            t = tuple(Fraction(rng.randint(-20 * grid, 20 * grid), grid) for _ in range(ds.d))
            if t not in used:
                used.add(t)
                out.append(t)
        return out
    common = fresh(k) if shared else None
    pairs = tuple(Pair(p.inputs + tuple(common if shared else fresh(k)), p.outputs)
                  for p in ds.pairs)
    return Dataset(f"{ds.name}+{k}{'shared' if shared else 'fresh'}", ds.d, pairs, ds.notes)


def row(ds) -> dict:
    """Build and verify the Theorem 1.6 network of ``ds``: n_max, R, L, P,
    ||theta*||^2 and whether every check passed."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    tc = verify(ds)
    c = tc.constants
    return {"n_max": max(len(p.inputs) for p in ds.pairs), "R": c["R"], "L": c["L"],
            "P": c["P"], "theta": tc.construction.net.sq_norm(), "d": ds.d,
            "ok": all(r.verdict.passed for r in tc.results)}


def _table(rows) -> list[str]:
    from proofcheck.kernel.verdicts import fmt_num
    return [f"   +{k}: n_j <= {r['n_max']}, R = {r['R']}, L = {r['L']}, P = {r['P']}, "
            f"||theta*||^2 {fmt_num(r['theta'], 4)}, {'VERIFIED' if r['ok'] else 'FAILED'}"
            for k, r in rows]


def _invariant(r) -> tuple:
    return r["L"] - r["R"], r["P"] - (10 * r["d"] + 8) * r["R"]


def sweep_check(ds, seed: int = 0, added=ADDED) -> list[CheckResult]:
    """Both sweeps on ``ds`` (module docstring)."""
    out = []
    M, N = ds.M, ds.N
    for shared in (False, True):
        rows = [(k, row(ds if k == 0 else add_tokens(ds, k, seed, shared))) for k in added]
        base = rows[0][1]
        bad = next(((k, r) for k, r in rows if not r["ok"] or _invariant(r) != _invariant(base)
                    or not r["R"] <= N - 1 or r["L"] > 2 * M + N), None)
        Rs = [r["R"] for _, r in rows]
        equal = len({(r["L"], r["P"]) for _, r in rows}) == 1
        name = (f"{'shared' if shared else 'fresh'} tokens, n_j from {base['n_max']} to "
                f"{rows[-1][1]['n_max']} (same targets): L and P move only through R <= N - 1 "
                f"(L - R, P - (10d+8)R equal; L <= 2M + N = {2 * M + N})")
        det = _table(rows) + [
            "L and P equal across the sweep" if equal else
            f"L and P not equal across the sweep: R = {', '.join(map(str, Rs))}",
            "||theta*||^2 is reported, not claimed constant: it moves with the data"]
        wit = None if bad is None else Witness(
            f"+{bad[0]} tokens: " + ("the network does not verify" if not bad[1]["ok"] else
                                     "the size moved other than through R"),
            expected=_invariant(base), got=_invariant(bad[1]))
        out.append(CheckResult(name, Verdict.VERIFIED if bad is None else Verdict.REFUTED,
                               det, wit, data={"equal": equal, "R": Rs}))
    return out


def run(dataset, seed: int = 0):
    """``lemma length-independence`` on ``dataset`` (by default the registry's: the
    first 4 images of the digits sample and seeded generated datasets in d = 2, 3, 4)."""
    from proofcheck.constructions.afz.instances import scoped
    return scoped("length-independence", lambda ds: sweep_check(ds, seed), dataset)
