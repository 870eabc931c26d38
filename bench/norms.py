"""Parameter norms of the Theorem 1.6 constructions, side by side (issue 24 item 4).

For every construction of the constructions table that serves Theorem 1.6, on full
digits (label task) and on the handed VERIFIED cases: the exact verdict, L, R, P,
``||theta*||^2``, the largest |stored scalar| (and its bit size) and two hat
resolution ratios, both in log2:

* *centre*: over every FF whose ``U`` has rank one (hats, plateaus, snaps, flag
  lifts), the largest ``|kink| / (smallest gap between two kinks)`` — the precision
  a float format needs to place the layer's pieces (``|c| / delta_1`` of
  docs/howto/export-and-audit.md for the plateau hats);
* *spread*: over the same layers, ``(max - min of <w, x> over the layer's input
  tokens) / (smallest kink gap)`` — the range of projections the layer must resolve
  at that precision (computed on the exact trajectory rounded to float64: a
  measurement, not a verdict).

Then, for the bounded construction on full digits, the float audit in float64 and
float32 (largest deviation, first region exit, outputs equal to the targets) and the
certified rounding to float32 (the exact check of the rounded network); and the exact
tag-growth check (proofcheck/constructions/afz/theorems/tag_growth.py) on the default network.

    python -m bench.norms                 # writes bench/results-norms.json
    python -m bench.norms --quick         # 60 images instead of full digits
    python -m bench.norms --readme        # prints the Markdown table of the results file
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

OUT = Path(__file__).with_name("results-norms.json")


def _log2(q) -> float:
    """log2 of a positive rational (exact enough for huge ones)."""
    from fractions import Fraction
    q = Fraction(int(q.p), int(q.q)) if hasattr(q, "p") else Fraction(q)
    n, d = q.numerator, q.denominator
    s = n.bit_length() - d.bit_length()
    return s + math.log2(Fraction(n, 1 << max(s, 0)) / Fraction(d, 1 << max(-s, 0)))


def hat_ratios(net, inputs) -> dict:
    """The two resolution ratios (module docstring) and the block where each peaks.
    *centre* is :func:`proofcheck.frontend.reporting.measures.measures`' hat resolution ratio;
    *spread* uses the same kinks (``kinks_along``) and the layer's input tokens."""
    import numpy as np

    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.fast import get_backend
    from proofcheck.frontend.reporting.measures import kinks_along, measures
    m = measures(net)
    best = {"centre_log2": None if m.ratio is None else _log2(m.ratio),
            "centre_block": m.ratio_block, "spread_log2": None, "spread_block": None}
    be = get_backend("flint")
    state = be.load(inputs)
    for bi, blk in enumerate(net.blocks, start=1):
        ks = kinks_along(blk.ff) if blk.ff.width else None
        if ks and len(ks) >= 2:
            w = next(u for u in blk.ff.U if any(x != 0 for x in u))
            gap = min(b - a for a, b in zip(ks, ks[1:]))
            with np.errstate(all="ignore"):
                t = be.to_float64(state) @ np.array([float(x) for x in w])
            spread = float(np.max(t) - np.min(t)) if t.size else 0.0
            if spread > 0 and math.isfinite(spread):
                s = math.log2(spread) - _log2(gap)
                if best["spread_log2"] is None or s > best["spread_log2"]:
                    best["spread_log2"], best["spread_block"] = s, bi
        state, _, _ = be.ff(blk.ff, state)
        state, _, _ = be.sa(blk.sa, state, HARDMAX)
    return best


def measure(name: str, ds, construction: str) -> dict:
    """Construct, check exactly (claims, interpolation, the construction's constants),
    and measure the norms of one construction on one dataset."""
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.verdicts import combine
    spec = get(construction, "1.6")
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c0 = time.process_time()
    c = spec.build(inputs, targets, ds.d)
    c1 = time.process_time()
    nc = check_network(c.net, inputs, targets, c.claims)
    c2 = time.process_time()
    checks, consts = spec.constant_checks(c.net, ds.d, ds.N, ds.M, c.info)
    big = max(abs(v) for *_, v in c.net.parameters())
    sq = c.net.sq_norm()
    row = {"dataset": name, "construction": construction, "N": ds.N, "M": ds.M, "d": ds.d,
           "T": ds.n_tokens, "verdict": combine(r.verdict for r in nc.results + checks).value,
           "L": c.net.L, "R": c.info["R"], "P": c.net.n_params(),
           "theta_sq_log10": _log2(sq) * math.log10(2) if sq else None,
           "largest_param_log10": _log2(big) * math.log10(2) if big else None,
           "largest_param_bits": c.net.max_bits(),
           "construct_cpu_s": c1 - c0, "check_cpu_s": c2 - c1}
    row.update(hat_ratios(c.net, inputs))
    row["ratios_cpu_s"] = time.process_time() - c2
    for k in ("S_max", "B_S"):
        if k in consts:
            row[k] = consts[k]
    return row


def audit_rows(ds, construction: str = "bounded") -> dict:
    """Float audit (float64, float32) and certified rounding to float32 of one
    construction's network on ``ds``."""
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.frontend.export.audit import audit_many
    from proofcheck.frontend.export.rounding import certify_rounded, get_format
    spec = get(construction, "1.6")
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = spec.build(inputs, targets, ds.d)
    c0 = time.process_time()
    res = audit_many(c.net, inputs, targets, ["float64", "float32"])
    c1 = time.process_time()
    rc = certify_rounded(c.net, inputs, targets, get_format("float32"), c.claims)
    c2 = time.process_time()
    out = {"dataset": ds.name, "construction": construction, "audit_cpu_s": c1 - c0,
           "rounding_cpu_s": c2 - c1, "rounding_float32": rc.verdict.value,
           "rounded_changed": rc.stats["changed"], "precisions": []}
    for r in res:
        out["precisions"].append({
            "dtype": r.dtype, "weights_rounded": r.weights_rounded, "max_dev": r.max_dev,
            "first_exit": r.first_exit, "exits": r.exits_total,
            "pairs_equal": r.final["pairs_equal"], "pairs_round": r.final["pairs_round_to_targets"],
            "pairs": r.final["pairs"]})
    return out


def handed_cases():
    """The handed cases whose expected verdict is VERIFIED (``tests/cases``, or
    ``$PROOFCHECK_CASES``); empty when absent."""
    import os
    import re

    from proofcheck.frontend.io.datasets import load_dataset
    here = Path(__file__).resolve().parents[1] / "tests" / "cases"
    root = Path(os.environ.get("PROOFCHECK_CASES", here))
    if not (root / "README.md").is_file():
        return []
    out = []
    for line in (root / "README.md").read_text().splitlines():
        m = re.match(r"\|\s*([\w.-]+\.json)\s*\|\s*VERIFIED\s*\|", line)
        if m:
            out.append(load_dataset(str(root / m.group(1))))
    return out


def run(quick: bool = False) -> dict:
    from proofcheck.constructions.afz.theorems.constructions import CONSTRUCTIONS
    from proofcheck.frontend.io.examples import digits
    names = [n for n, s in CONSTRUCTIONS.items() if "1.6" in s.theorems]
    full, _ = digits(limit=60 if quick else None)
    rows = []
    for ds in [full] + handed_cases():
        for n in names:
            print(f"{ds.name} / {n} ...", file=sys.stderr, flush=True)
            rows.append(measure(ds.name, ds, n))
    print(f"{full.name}: float audit of the bounded network ...", file=sys.stderr, flush=True)
    audit = audit_rows(full)
    print(f"{full.name}: tag-growth of the default network ...", file=sys.stderr, flush=True)
    return {"rows": rows, "audit": audit, "tag_growth": tag_growth_row(full),
            "machine": _machine()}


def tag_growth_row(ds) -> dict:
    """The exact tag-growth check (proofcheck/constructions/afz/theorems/tag_growth.py) on the default
    network of ``ds``: verdict, R, log2 of the growth of the largest projection."""
    from proofcheck.constructions.afz.theorems.tag_growth import check, growth
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    c0 = time.process_time()
    g = growth(c.net, inputs, c.info["u"], c.info["R"])
    r = check(c.net, inputs, c.info, g)
    return {"dataset": ds.name, "verdict": r.verdict.value, "R": c.info["R"],
            "log2_growth": _log2(g[-1] / g[0]), "g0_log2": _log2(g[0]),
            "min_round_factor_log2": min(_log2(b / a) for a, b in zip(g, g[1:])),
            "cpu_s": time.process_time() - c0}


def _machine() -> dict:
    import os
    import platform
    return {"python": platform.python_version(), "cpus": os.cpu_count(),
            "load": os.getloadavg()[0], "time": time.strftime("%Y-%m-%d %H:%M")}


def readme(res: dict) -> str:
    """Markdown: one row per (dataset, construction), then the audit line."""
    lines = ["| dataset | construction | verdict | L | R | P | ‖θ*‖² | largest \\|θ\\| (bits) | "
             "log₂ centre / gap | log₂ spread / gap |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        def e(x):
            return "—" if x is None else f"1e{x:.1f}"
        lines.append(f"| {r['dataset']} | {r['construction']} | {r['verdict']} | {r['L']:,} | "
                     f"{r['R']} | {r['P']:,} | {e(r['theta_sq_log10'])} | "
                     f"{e(r['largest_param_log10'])} ({r['largest_param_bits']}) | "
                     f"{_f(r['centre_log2'])} | {_f(r['spread_log2'])} |")
    a = res["audit"]
    lines += ["", f"Float audit of the bounded network on {a['dataset']}:", "",
              "| precision | weights changed by rounding | largest deviation | first region exit | "
              "outputs equal / round to targets |", "|---|---|---|---|---|"]
    for p in a["precisions"]:
        fe = "none" if p["first_exit"] is None else \
            f"block {p['first_exit']['block']} {p['first_exit']['sublayer']}"
        lines.append(f"| {p['dtype']} | {p['weights_rounded']} | {p['max_dev']:g} | {fe} | "
                     f"{p['pairs_equal']} / {p['pairs_round']} of {p['pairs']} |")
    lines += ["", f"Certified rounding to float32 (exact check of the rounded network, "
              f"{a['rounded_changed']} scalars changed): {a['rounding_float32']}."]
    t = res.get("tag_growth")
    if t:
        lines += ["", f"tag-growth on the default network of {t['dataset']}: {t['verdict']} "
                  f"(R = {t['R']}; the largest projection grows by 2^{t['log2_growth']:.1f} "
                  f"over phase S, at least 2^{t['min_round_factor_log2']:.2f} per round)."]
    return "\n".join(lines)


def _f(x) -> str:
    return "—" if x is None else f"{x:.1f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.norms", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="60 digits images instead of all")
    ap.add_argument("--readme", action="store_true", help="print the table of the results file")
    ap.add_argument("--out", default=str(OUT), help="results file (default bench/results-norms.json)")
    args = ap.parse_args(argv)
    if args.readme:
        print(readme(json.loads(Path(args.out).read_text())))
        return 0
    res = run(args.quick)
    if not args.quick or args.out != str(OUT):
        Path(args.out).write_text(json.dumps(res, indent=1, default=str) + "\n")
    print(readme(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
