"""Theorem 1.6 under a causal mask, side by side (issue 24 item 2).

For the packaged digits sample (or full digits with ``--full``) and every handed case
that is admissible under the mask (sequences compared as tuples): the default
construction's network under the mask (where it first leaves its claims: block,
sub-layer, sequence, token, coordinate, exact values; whether the masked network
still interpolates in the all-outputs reading; the number of prefix conflicts in
each reading), and the construction ``causal-last`` (verdict in the reading
``last-outputs`` or the reason it does not apply, L, R, K, P) beside the default
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
# the handed cases: $PROOFCHECK_CASES, else ../shared/cases beside the repository
CASES = Path(os.environ.get("PROOFCHECK_CASES") or
             Path(__file__).resolve().parents[2] / "shared" / "cases")


def datasets(full: bool):
    """``[(name, dataset or None, error text)]``: digits, then the handed cases."""
    from proofcheck.io.datasets import load_dataset
    from proofcheck.io.examples import EXAMPLES, sample
    from proofcheck.kernel.errors import BadInput
    out = [("digits" if full else "digits-sample",
            EXAMPLES["digits"]()[0] if full else sample()[0], "")]
    for f in sorted(CASES.glob("*.json")) if CASES.is_dir() else []:
        try:
            out.append((f.stem, load_dataset(f, ordered=True), ""))
        except BadInput as exc:
            out.append((f.stem, None, str(exc)))
    return out


def row(name, ds, err) -> dict:
    """One results row (see the module text)."""
    from lemmas.afz.theorems.theorem_1_6 import verify
    from lemmas.causal.readings import ALL, LAST, prefix_conflicts
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
        tc = verify(ds, attention="causal")
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
    try:
        tc = verify(ds, construction="causal-last", attention="causal")
        c = tc.constants
        r["causal_last"] = {"verdict": combine(x.verdict for x in tc.results).value,
                            "L": c["L"], "R": c["R"], "K": c["K"], "P": c["P"],
                            "L_default": c["L_default"], "P_default": c["P_default"]}
    except BadInput as exc:
        r["causal_last"] = {"verdict": "n/a", "reason": str(exc)}
    r["seconds"] = round(time.perf_counter() - t0, 2)
    return r


def table(rows) -> str:
    """The Markdown table of the results rows."""
    out = ["| dataset | N | M | conflicts all / last | default under the mask: first witness "
           "(block, sub-layer, sequence, token: expected → got) | masked default interpolates "
           "(all outputs) | causal-last (last m_j outputs) | L causal-last / default | "
           "P causal-last / default |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r["admissible"]:
            out.append(f"| {r['dataset']} | | | | inadmissible: {r['reason'][:70]} | | | | |")
            continue
        dm, cl = r["default_masked"], r["causal_last"]
        w = dm.get("witness")
        wt = (f"{w['block']}, {w['sublayer']}, {w['sequence']}, {w['token']}: {w['expected']} → "
              f"{w['got']}" if w else dm.get("reason", dm["verdict"])[:60])
        ok = cl["verdict"] != "n/a"
        out.append(f"| {r['dataset']} | {r['N']} | {r['M']} | {r['conflicts_all']} / "
                   f"{r['conflicts_last']} | {dm['verdict']}: {wt} | "
                   f"{dm.get('interpolates_all_outputs') or 'n/a'} | "
                   f"{cl['verdict'] if ok else 'n/a: ' + cl['reason'].split(';')[-1][:50]} | "
                   + (f"{cl['L']} / {cl['L_default']} | {cl['P']} / {cl['P_default']} |" if ok
                      else "| |"))
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
