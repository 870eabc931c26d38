"""Theorem 1.6 under a causal mask, side by side (issue 24 item 2).

For the packaged digits sample (or full digits with ``--full``), the same with a fresh
first token per sequence (:func:`fresh_first`), and every handed case
that is admissible under the mask (sequences compared as tuples): the default
construction's network under the mask (where it first leaves its claims: block,
sub-layer, sequence, token, coordinate, exact values; whether the masked network
still interpolates in the all-outputs reading; the number of prefix conflicts in
each reading), and the constructions ``causal-last`` and ``causal-all`` (verdict in
their reading or the reason they do not apply, L, R, K, P) beside the default
unmasked construction's L and P.

    python -m bench.causal             # writes bench/results-causal.json
    python -m bench.causal --full      # full digits instead of the sample (-full.json)
    python -m bench.causal --readme    # prints the Markdown table of the results file
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

OUT = Path(__file__).with_name("results-causal.json")
# the handed cases: $PROOFCHECK_CASES, else the repository's tests/cases
CASES = Path(os.environ.get("PROOFCHECK_CASES") or
             Path(__file__).resolve().parents[1] / "tests" / "cases")


def datasets(full: bool):
    """``[(name, dataset or None, error text)]``: digits, then the handed cases."""
    from proofcheck.frontend.io.datasets import load_dataset
    from proofcheck.frontend.io.examples import EXAMPLES, sample
    from proofcheck.kernel.errors import BadInput
    digits = EXAMPLES["digits"]()[0] if full else sample()[0]
    out = [(digits.name, digits, ""), (digits.name + "-fresh-first", fresh_first(digits), "")]
    for f in sorted(CASES.glob("*.json")) if CASES.is_dir() else []:
        try:
            out.append((f.stem, load_dataset(f, ordered=True), ""))
        except BadInput as exc:
            out.append((f.stem, None, str(exc)))
    return out


def fresh_first(ds):
    """``ds`` with a token of its own put first in every sequence, ``(-1 - j) e_1`` for
    sequence j (no first token is then shared: the all-outputs reading has a prefix
    map)."""
    from fractions import Fraction

    from proofcheck.kernel.dataset import Dataset, Pair
    e = (Fraction(0),) * (ds.d - 1)
    return Dataset(ds.name + "-fresh-first", ds.d, tuple(
        Pair(((Fraction(-1 - j),) + e,) + p.inputs, p.outputs) for j, p in enumerate(ds.pairs)))


def row(name, ds, err) -> dict:
    """One results row (see the module text)."""
    from proofcheck.constructions.causal.under_mask import run_causal
    from proofcheck.constructions.causal.readings import ALL, LAST, prefix_conflicts
    from proofcheck.kernel.errors import BadInput
    from proofcheck.kernel.verdicts import combine, fmt_value
    r = {"dataset": name}
    if ds is None:
        return {**r, "admissible": False, "reason": err}
    r.update(N=ds.N, M=ds.M, d=ds.d, admissible=True,
             conflicts_all=len(prefix_conflicts(ds, ALL)),
             conflicts_last=len(prefix_conflicts(ds, LAST)))
    t0 = time.perf_counter()
    try:
        tc = run_causal(ds)
        w = tc.network_check.witness
        interp = next((x for x in tc.results if x.name.startswith("exact interpolation")), None)
        r["default_masked"] = {
            "verdict": combine(x.verdict for x in tc.results).value,
            "witness": None if w is None else {k: (fmt_value(v) if k in ("expected", "got")
                                                   else v) for k, v in w.__dict__.items()
                                               if k != "reason" and v is not None},
            "interpolates_all_outputs": None if interp is None else interp.verdict.value,
            "L": tc.constants["L"], "P": tc.constants["P"]}
    except BadInput as exc:
        r["default_masked"] = {"verdict": "n/a", "reason": str(exc)}
    for key, name in (("causal_last", "causal-last"), ("causal_all", "causal-all")):
        try:
            tc = run_causal(ds, name)
            c = tc.constants
            r[key] = {"verdict": combine(x.verdict for x in tc.results).value,
                      "L": c["L"], "R": c["R"], "K": c["K"], "P": c["P"],
                      "L_default": c["L_default"], "P_default": c["P_default"]}
        except BadInput as exc:
            r[key] = {"verdict": "n/a", "reason": str(exc)}
    r["seconds"] = round(time.perf_counter() - t0, 2)
    return r


def _cell(cl) -> tuple[str, str, str]:
    """(verdict or reason, L / default, P / default) of one construction's entry."""
    if cl["verdict"] == "n/a":
        why = "no prefix map" if "no prefix map" in cl["reason"] else cl["reason"][:50]
        return f"n/a ({why})", "", ""
    return cl["verdict"], f"{cl['L']} / {cl['L_default']}", f"{cl['P']} / {cl['P_default']}"


def table(rows) -> str:
    """The Markdown table of the results rows."""
    out = ["| dataset | N | M | prefix conflicts all / last | default under the mask: first "
           "witness (block, sub-layer, sequence, token: claimed → computed) | causal-last | "
           "L / default | P / default | causal-all | L / default | P / default |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r["admissible"]:
            continue
        dm = r["default_masked"]
        w = dm.get("witness")
        wt = (f"{w['block']}, {w['sublayer']}, {w['sequence']}, {w['token']}: {w['expected']} → "
              f"{w['got']}" if w else "n/a (inputs equal as sets)")
        if w and len(wt) > 60:
            wt = f"{w['block']}, {w['sublayer']}, {w['sequence']}, {w['token']}"
        cells = [c for key in ("causal_last", "causal_all") for c in _cell(r[key])]
        out.append(f"| {r['dataset']} | {r['N']} | {r['M']} | {r['conflicts_all']} / "
                   f"{r['conflicts_last']} | {wt} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.causal", description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="full digits instead of the sample")
    ap.add_argument("--readme", action="store_true", help="print the table of the results file")
    args = ap.parse_args(argv)
    if args.readme:
        print(table(json.loads(OUT.read_text())["rows"]))
        return 0
    rows = []
    for name, ds, err in datasets(args.full):
        print(f"{name} ...", file=sys.stderr, flush=True)
        rows.append(row(name, ds, err))
    out = OUT.with_name("results-causal-full.json") if args.full else OUT
    out.write_text(json.dumps({"full_digits": args.full, "rows": rows}, indent=1) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
