"""``python -m bench.constructions``: every Theorem 1.6 construction of
:data:`proofcheck.constructions.afz.theorems.constructions.CONSTRUCTIONS` on full digits, the
digits sample (label and inpaint tasks) and the handed VERIFIED cases, side by
side: the verdict of the kernel's exact check, L against the construction's own
block formula, the default's ``2M + R + 1`` and the seed's ``2M + 2N + 1``, P,
‖θ*‖², the largest |parameter| and the hat resolution ratio
(:mod:`proofcheck.frontend.reporting.measures`, computed from the network alone), and the
construct / check seconds.  A construction added to the table appears here with
no change.  Writes ``bench/results-constructions.json``; ``--readme`` prints the
README block rendered from it.

    python -m bench.constructions --cases DIR      # all datasets (full digits: sklearn)
    python -m bench.constructions --quick          # digits sample only, nothing written
    python -m bench.constructions --readme         # the README block
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results-constructions.json"
BEGIN, END = "<!-- constructions:begin -->", "<!-- constructions:end -->"


def default_cases() -> Path | None:
    """``$PROOFCHECK_CASES``, else the repository's ``tests/cases``."""
    env = os.environ.get("PROOFCHECK_CASES")
    cand = Path(env) if env else ROOT / "tests" / "cases"
    return cand if cand.is_dir() else None


def datasets(cases: Path | None, full: bool = True) -> list:
    """``[(label, dataset)]``: full digits (when ``full`` and scikit-learn is there),
    the digits sample (label, inpaint), the handed cases whose README expects
    VERIFIED (exit code 0)."""
    import re

    from proofcheck.frontend.io.examples import digits, sample
    from proofcheck.frontend.io.datasets import load_dataset
    out = []
    if full:
        try:
            out.append(("digits (full)", digits()[0]))
        except Exception as exc:  # noqa: BLE001 - scikit-learn missing: say so, go on
            print(f"full digits skipped: {exc}", file=sys.stderr)
    out += [("digits sample", sample()[0]), ("digits sample, inpaint", sample(task="inpaint")[0])]
    if cases is not None:
        for line in (cases / "README.md").read_text().splitlines():
            m = re.match(r"\|\s*([\w.-]+\.json)\s*\|\s*(.+?)\s*\|\s*(\d+)\s*\|", line)
            if m and int(m.group(3)) == 0:
                out.append((m.group(1)[:-5], load_dataset(cases / m.group(1))))
    return out


REPEATS = 3  # construct + check runs per row; the medians are reported (timings vary)


def row(name: str, label: str, ds) -> dict:
    """Construct with ``name``, check exactly with the kernel (``REPEATS`` times: the
    median seconds are reported, the verdict must be the same every time), measure."""
    import statistics
    runs = [_timed(name, ds) for _ in range(REPEATS)]
    if len({r[0].verdict for r in runs}) != 1:
        raise RuntimeError(f"{name} on {label}: the verdict changed between runs")
    out = _row(name, label, ds, *runs[0][:2])
    out["construct_s"] = round(statistics.median(r[2] for r in runs), 3)
    out["check_s"] = round(statistics.median(r[3] for r in runs), 3)
    return out


def _timed(name: str, ds):
    """``(network check, construction, construct s, check s)``."""
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.constructions.claim_check import check_network
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    t0 = time.perf_counter()
    c = get(name, "1.6").build(inputs, targets, ds.d)
    t1 = time.perf_counter()
    nc = check_network(c.net, inputs, targets, c.claims)
    return nc, c, t1 - t0, time.perf_counter() - t1


def _row(name: str, label: str, ds, nc, c) -> dict:
    """The measured row of one run (seconds filled in by :func:`row`)."""
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.kernel.verdicts import combine, fmt_num
    from proofcheck.frontend.reporting.measures import measures
    spec = get(name, "1.6")
    checks, k = spec.constant_checks(c.net, ds.d, ds.N, ds.M, c.info,
                                     [list(p.outputs) for p in ds.pairs])
    verdict = combine([r.verdict for r in nc.results + checks])
    m = measures(c.net)
    R = k["R"]
    return {"construction": name, "block_formula": spec.blocks, "dataset": label,
            "N": ds.N, "M": ds.M, "d": ds.d, "T": ds.n_tokens, "R": R, "L": c.net.L,
            "L_formula": k["L_construction"], "L_default": 2 * ds.M + R + 1,
            "L_seed": 2 * ds.M + 2 * ds.N + 1, "P": c.net.n_params(),
            "theta_sq_norm": fmt_num(m.sq_norm), "theta_sq_norm_bits": max(
                m.sq_norm.numerator.bit_length(), m.sq_norm.denominator.bit_length()),
            "max_abs_param": fmt_num(m.max_abs), "max_bits": m.max_bits,
            "hat_ratio": None if m.ratio is None else fmt_num(m.ratio),
            "hat_ratio_log2": None if m.ratio is None else round(_log2(m.ratio), 1),
            "hat_ratio_block": m.ratio_block, "multi_direction_ffs": m.multi_direction_ffs,
            "verdict": verdict.value}


def _log2(q) -> float:
    """log2 of a positive Fraction (``math.log2`` takes integers of any size)."""
    import math
    return math.log2(q.numerator) - math.log2(q.denominator)


def run(cases: Path | None, full: bool = True, progress=print) -> dict:
    """Every (dataset, construction) row, constructions in table order."""
    from proofcheck.constructions.afz.theorems.constructions import CONSTRUCTIONS
    names = [n for n, s in CONSTRUCTIONS.items() if "1.6" in s.theorems]
    rows = []
    for label, ds in datasets(cases, full):
        for name in names:
            r = row(name, label, ds)
            rows.append(r)
            progress(f"{label:28s} {name:10s} L = {r['L']:6d} (default {r['L_default']}, seed "
                     f"{r['L_seed']})  P = {r['P']:7d}  {r['verdict']}  construct "
                     f"{r['construct_s']:.2f} s, check {r['check_s']:.2f} s")
    return {"machine": {"python": platform.python_version(), "platform": platform.platform()},
            "rows": rows}


def render_readme(res: dict) -> str:
    """The README block (between the markers) rendered from a results dict."""
    lines = [BEGIN, "<!-- generated by `python -m bench.constructions --readme` from "
             "bench/results-constructions.json; do not edit by hand -->", "",
             "| dataset | construction | N | M | R | L | its formula | 2M+R+1 | 2M+2N+1 | P | "
             "‖θ*‖² | largest \\|parameter\\|; largest bit size | hat resolution ratio | verdict | "
             "construct + check (s) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        ratio = "n/a" if r["hat_ratio"] is None else \
            f"{r['hat_ratio']} (2^{r['hat_ratio_log2']}, block {r['hat_ratio_block']})"
        lines.append(
            f"| {r['dataset']} | {r['construction']} | {r['N']} | {r['M']} | {r['R']} | "
            f"{r['L']} | {r['block_formula']} = {r['L_formula']} | {r['L_default']} | "
            f"{r['L_seed']} | {r['P']} | {r['theta_sq_norm']} | {r['max_abs_param']}; "
            f"{r['max_bits']} bits | {ratio} | {r['verdict']} | "
            f"{r['construct_s']:.2f} + {r['check_s']:.2f} |")
    return "\n".join(lines + ["", END]) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.constructions")
    ap.add_argument("--cases", help="folder of the handed cases (default $PROOFCHECK_CASES "
                    "or tests/cases)")
    ap.add_argument("--quick", action="store_true",
                    help="no full digits, no handed cases; nothing written unless --out")
    ap.add_argument("--out", help=f"JSON output (default {OUT.relative_to(ROOT)})")
    ap.add_argument("--readme", action="store_true",
                    help="print the README block rendered from the results file")
    a = ap.parse_args(argv)
    out = Path(a.out) if a.out else OUT
    if a.readme:
        sys.stdout.write(render_readme(json.loads(out.read_text())))
        return 0
    cases = None if a.quick else (Path(a.cases) if a.cases else default_cases())
    if cases is not None and not (cases / "README.md").is_file():
        print(f"--cases {cases}: no README.md there", file=sys.stderr)
        return 2
    res = run(cases, full=not a.quick, progress=lambda s: print(s, flush=True))
    if a.quick and a.out is None:
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
