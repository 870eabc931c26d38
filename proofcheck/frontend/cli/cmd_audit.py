"""``proofcheck audit 1.6|1.8``: evaluate the constructed network in float64,
float32 or bfloat16 and compare it layer by layer with the exact trajectory (a run,
not a verdict); ``--float-safe FMT`` also decides the rounding certificate for FMT
(:mod:`proofcheck.frontend.export.float_certificate`: exactly, a sufficient condition for the
network to compute its exact values in FMT in any summation order); ``--rounding FMT``
re-runs the exact checker on the network with every weight rounded to FMT (issue 13,
issue 29; docs/howto/export-and-audit.md).  An audit never changes a verdict of the exact checker:
exit 0 when the audit ran (4 when the certificate's exact trajectory disagrees with
the kernel's); with ``--rounding`` the exit code is the exact verdict about the
ROUNDED network."""
from __future__ import annotations

import math

from proofcheck.frontend.cli.cmd_export import (
    load_theorem_data,
    options_of,
    require,
    theorem_args,
)
from proofcheck.kernel.errors import BadInput


def register(sub) -> None:
    q = sub.add_parser(
        "audit", help="float audit of the constructed network; certified rounding",
        description="Evaluate the constructed network in floating point and report, layer by "
        "layer, the deviation from the exact trajectory and the first token that leaves the "
        "region where the next snap or hat still works (a run, not a verdict); --float-safe FMT "
        "also decides, exactly, the rounding certificate for FMT (every weight and input an "
        "FMT value, every partial sum below 2^p on the grid of its terms, power-of-two tie "
        "sets: the float network then computes the exact values in any summation order); "
        "--rounding re-runs the EXACT check on the network with every weight rounded to a "
        "float format. An audit never changes a verdict of the exact checker.",
        epilog="examples: python -m proofcheck audit 1.6 --dtype float32 --plot dev.png | "
        "python -m proofcheck audit 1.6 --example digits --float-safe float32 --rounding float32")
    theorem_args(q)
    q.add_argument("--dtype", action="append", choices=["float64", "float32", "bfloat16"],
                   help="working precision (repeat for several; default float64); "
                   "e.g. --dtype float32 --dtype bfloat16")
    q.add_argument("--rounding", choices=["float64", "float32", "bfloat16", "float16"],
                   help="round every weight to this format and re-run the exact check; "
                   "e.g. --rounding float32")
    q.add_argument("--plot", metavar="PNG", help="plot of the deviation against the block; e.g. --plot dev.png")
    q.add_argument("--json", metavar="FILE", nargs="?", const="-",
                   help="every layer's figures as JSON: in FILE (the table is printed too), or "
                   "without FILE (or with -) on standard output instead of the table; e.g. "
                   "--json audit.json")
    q.add_argument("--all-layers", action="store_true", help="print every sub-layer")
    q.set_defaults(func=cmd_audit)


def _fmt(x: float) -> str:
    return "0" if x == 0 else (f"{x:.3e}" if math.isfinite(x) else str(x))


def print_audit(r, all_layers=False):
    from proofcheck.frontend.export.audit import RUN_LABEL
    print(f"\n== float run: {r.dtype} ({r.attention}{'' if r.tau is None else f', tau = {r.tau}'})"
          " ==")
    print(RUN_LABEL.format(dtype=r.dtype))
    print(f"weights changed by rounding to {r.dtype}: {r.weights_rounded} of {r.weights_total}"
          f" ({r.weights_overflow} overflow); input coordinates changed: {r.inputs_rounded}")
    print(f"{'block':>6} {'sub':>3}  {'layer':<20} {'max |float-exact|':>18} {'at (seq,tok,coord)':>20}"
          f" {'max |exact|':>11} {'exits':>6}")
    shown, last_decade = set(), None
    for k, row in enumerate(r.layers):
        dec = math.floor(math.log10(row.max_dev)) if 0 < row.max_dev < math.inf else \
            (None if row.max_dev == 0 else 999)
        show = all_layers or k < 2 or k >= len(r.layers) - 2 or row.exits or dec != last_decade
        if row.exits and not all_layers and len([s for s in shown if r.layers[s].exits]) >= 8:
            show = dec != last_decade or k >= len(r.layers) - 2
        last_decade = dec
        if show:
            shown.add(k)
            print(f"{row.block:>6} {row.sublayer:>3}  {row.label[:20]:<20} {_fmt(row.max_dev):>18} "
                  f"{str(row.where or '-'):>20} {_fmt(row.max_abs):>11} {row.exits:>6}")
    if not all_layers:
        print(f"({len(shown)} of {len(r.layers)} sub-layers shown: first/last, every new decade "
              "of the deviation, region exits; --all-layers for all, --json for the figures)")
    fe = r.first_exit
    if fe:
        loc = f"unit {fe['unit']}" if "unit" in fe else f"exact argmax {fe['exact']}"
        print(f"first region exit: block {fe['block']} {fe['sublayer']}, sequence {fe['sequence']}, "
              f"token {fe['token']}, {loc}: exact {fe['exact']}, float {fe['float']}  "
              f"({r.exits_total} exits in the sub-layers checked; region checks stop after the "
              f"first exiting sub-layer)")
    else:
        print("region exits: none (every FF unit has the exact ReLU state and every attention "
              "the exact argmax set)")
    f = r.final
    print(f"final outputs: equal the targets in {f['pairs_equal']}/{f['pairs']} pairs; round to "
          f"the targets in {f['pairs_round_to_targets']}/{f['pairs']} pairs"
          + (f"; first failure: {_failure(f['first_failure'])}" if f["first_failure"] else ""))
    print(f"largest deviation {_fmt(r.max_dev)}; time " +
          ", ".join(f"{k} {v:.1f} s" for k, v in r.seconds.items()))


def _failure(fail: dict) -> str:
    """The first pair whose float outputs do not round to its targets, in words."""
    where = f"sequence {fail['sequence']}"
    if fail.get("token") is not None:
        where += f", token {fail['token']}"
    dist = fail.get("distance")
    if dist is None:
        return where
    return f"{where}, {_fmt(dist) if isinstance(dist, float) else dist} from the nearest target"


def _witness(w) -> str:
    """A witness of the exact check in words (its code in brackets)."""
    text = w.describe() if hasattr(w, "describe") else str(w)
    code = getattr(w, "code", "")
    return f"{text} [{code}]" if code else text


def cmd_audit(args) -> int:
    from proofcheck.frontend.cli.common import check_file_output, refuse_same_files
    to_stdout = args.json == "-"
    if to_stdout and args.rounding:
        raise BadInput("--json without a file prints the float audit's JSON alone on standard "
                       "output; with --rounding give it a file (--json audit.json)")
    json_file = None if to_stdout else args.json
    refuse_same_files([("--dataset", args.dataset), ("--plot", args.plot), ("--json", json_file)])
    for option, path in (("--plot", args.plot), ("--json", json_file)):
        if path:
            check_file_output(path, option)
    from proofcheck.frontend.export.audit import DTYPES
    dtypes = args.dtype or ([args.float_safe] if args.float_safe in DTYPES else ["float64"])
    if "bfloat16" in dtypes:
        require("torch", "torch")
    statement, ds, tau = load_theorem_data(args)
    if statement == "1.8" and tau is None:
        raise BadInput("audit 1.8 needs --tau (the softmax temperature of the float network)")
    b, network = _build(args, statement, ds, tau, quiet=to_stdout)
    say = (lambda *a, **k: None) if to_stdout else print  # noqa: E731  (JSON alone on stdout)
    say(f"Audit of Theorem {statement} ({args.construction} construction) on '{ds.name}': "
          f"N = {ds.N}, M = {ds.M}, d = {ds.d}, "
          f"L = {b.net.L} blocks, {b.net.n_params()} parameters, largest rational "
          f"{b.net.max_bits()} bits")
    say("reference: the exact hardmax trajectory of the same network"
          + (" (the float network uses softmax at tau: its deviation includes the softmax "
             "perturbation)" if statement == "1.8" else ""))
    code = 0
    results = []
    from proofcheck.frontend.export.audit import audit_many, deviation_plot
    results = audit_many(b.net, b.inputs, b.targets, dtypes, b.attention, b.tau)
    for r in results if not to_stdout else ():
        print_audit(r, args.all_layers)
    if args.plot:
        p = deviation_plot(args.plot, results, f"Theorem {statement} on {ds.name}: float vs exact")
        say(f"plot: {p}")
    cert = None
    if args.float_safe:
        cert = rounding_certificate(b, args.float_safe, results, network, say)
        if cert.verdict == "ERROR":
            code = 4
    if json_file or to_stdout:
        import json
        doc = {"format": "proofcheck-audit/2", "float_runs": [r.to_json() for r in results],
               "rounding_certificate": None if cert is None else cert.to_json()}
        text = json.dumps(doc, indent=1) + "\n"
        if to_stdout:
            print(text, end="")
        else:
            from proofcheck.frontend.io.files import atomic_write
            atomic_write(json_file, text)
            print(f"json: {json_file}")
    if args.rounding:
        from proofcheck.frontend.export.rounding import certify_rounded, get_format
        rc = certify_rounded(b.net, b.inputs, b.targets, get_format(args.rounding), b.claims)
        st = rc.stats
        print(f"\n== certified rounding to {args.rounding} ==")
        print(f"{st['changed']} of {st['total']} stored scalars changed (largest relative change "
              f"{st['max_rel_change']:.3g}); {len(st['overflow'])} overflow")
        if rc.departure is not None:
            print(f"the rounded network's exact trajectory leaves the construction's claims at: "
                  f"{_witness(rc.departure)}")
        print(f"exact check of the rounded network (exact interpolation): {rc.verdict.value}")
        if rc.witness is not None:
            print(f"  witness: {_witness(rc.witness)}")
        print(f"VERDICT (rounded network, {args.rounding} weights): {rc.verdict.value}")
        code = 4 if code == 4 else rc.verdict.exit_code
    return code


def _build(args, statement, ds, tau, quiet=False):
    """``(built network, how it was built)``: with the float-safe construction option
    when asked; where the construction refuses it on this dataset, the network built
    without it (said so: the certificate is then about that network)."""
    from proofcheck.frontend.runs.build import build
    opts = options_of(args)
    try:
        b = build(statement, ds, tau=tau, check=False, options=opts,
                  construction=args.construction)
        return b, ("built with the float-safe construction option" if opts else
                   "built without construction options")
    except KeyError as e:
        raise BadInput(e.args[0] if e.args else str(e)) from None
    except ValueError as e:
        if opts is None:
            raise BadInput(e.args[0] if e.args else str(e)) from None
        refused = e.args[0] if e.args else str(e)
    try:
        b = build(statement, ds, tau=tau, check=False, options=None,
                  construction=args.construction)
    except (ValueError, KeyError) as e:
        raise BadInput(e.args[0] if e.args else str(e)) from None
    note = (f"built without the float-safe option, which the construction refuses on this "
            f"dataset ({refused})")
    if not quiet:
        print(f"note: the network is {note}")
    return b, note


def rounding_certificate(b, fmt: str, results, network: str, say=print):
    """Decide and print the rounding certificate of the built network ``b`` for the
    format ``fmt`` (:func:`proofcheck.frontend.export.float_certificate.certify`), reusing the
    float runs' exact outputs for its cross-check."""
    from proofcheck.frontend.export.float_certificate import certify
    exact = results[0].exact_final if results else None
    cert = certify(b.net, b.inputs, fmt, b.attention, exact_final=exact)
    cert.network = network
    say(f"\n== rounding certificate: {fmt} (decided exactly; a sufficient condition) ==")
    for line in cert.lines():
        say(line)
    say(f"ROUNDING CERTIFICATE ({fmt}, this dataset, any summation order, with or without "
          f"FMA): {cert.verdict}")
    return cert
