"""``proofcheck theorem 1.6|1.8``: construct the network for a dataset and check it
(hardmax exactly, softmax with a certified temperature); docs/spec.md §4, §5."""
from __future__ import annotations

import time

from proofcheck.frontend.cli.common import (
    check_outputs,
    dask_options,
    data_options,
    data_request,
    header,
    integer_arg,
    outcome_line,
    print_results,
    refuse_same_files,
    verdict_line,
)


def register(sub) -> None:
    q = sub.add_parser(
        "theorem", help="construct the transformer for a dataset and check a theorem on it",
        description="Build the network of Theorem 1.6 (hardmax) or 1.8 (softmax) for a "
        "dataset with exact rational weights, then check exact interpolation "
        "(1.6: exact evaluation; 1.8: a certified temperature τ).",
        epilog="examples: python -m proofcheck theorem 1.6 --example digits | "
        "python -m proofcheck theorem 1.8 --dataset my.json --tau 1/8 --certificate c.json")
    q.add_argument("id", metavar="ID", help="the theorem: 1.6 (hardmax) or 1.8 (softmax); "
                   "e.g. 1.6")
    data_options(q)
    q.add_argument("--backend", default="flint", choices=["flint", "plain", "fraction"],
                   help="exact backend for theorem 1.6: flint (fast, default) or fraction "
                   "(the formulas read literally); e.g. --backend fraction")
    q.add_argument("--tau", metavar="T", help="theorem 1.8: certify this temperature instead of "
                   "searching for the largest one; an exact number, e.g. --tau 1/8")
    q.add_argument("--construction", default="default", metavar="NAME",
                   help="which construction builds the network (`python -m proofcheck list` "
                   "names them with their block counts and theorems; default: default); "
                   "e.g. --construction seed (theorem 1.8: the seed's non-residual mechanism, "
                   "printed side by side with the default)")
    q.add_argument("--attention", default="full", choices=["full", "causal"],
                   help="theorem 1.6: full attention (default) or a causal mask (docs/spec.md §1 "
                   "Extensions): a construction for full attention is run under the mask and "
                   "the first place it leaves its claims is printed; causal-last is built for "
                   "the mask; e.g. --attention causal --construction causal-last")
    q.add_argument("--no-simulation", action="store_true",
                   help="theorem 1.8: skip the mpmath simulation that locates tau_num (an "
                   "audit: it never changes the verdict)")
    q.add_argument("--simulation-budget", type=integer_arg, metavar="W",
                   help="theorem 1.8: work units the tau_num simulation may spend (one unit: "
                   "a multiply-add at 40 digits; default 10000000, one pass on the shipped sample, a few "
                   "seconds; 0: no "
                   "simulation); e.g. --simulation-budget 50000000")
    q.add_argument("--out", default="reports", metavar="DIR",
                   help="folder for the run report (default: reports; created with missing "
                   "parent folders); e.g. --out /tmp/r")
    q.add_argument("--no-report", action="store_true", help="write no report files")
    q.add_argument("--certificate", metavar="FILE",
                   help="write a sealed certificate (docs/spec.md §3) that `verify` re-checks (missing "
                   "folders are created, as for --out; never the --dataset file or a report "
                   "file); e.g. --certificate c.json")
    dask_options(q, "theorem 1.6: shard the exact check and the kernel's re-check by sequence")
    q.set_defaults(func=cmd_theorem)


class _Bars:
    """The progress bars of a theorem run, one per phase, each closed when the next
    phase starts, when its count reaches its total, and at the end."""

    SPECS = {"block": ("exact check", "block", None), "shard": ("exact check (Dask shards)",
                                                              "shard", None),
             "trajectory": ("hardmax trajectory", "block", None),
             "certificate": ("certificates", "cert", 0.0),
             "simulation": ("simulation (mpmath)", "pass", None)}  # None: HEARTBEAT

    def __init__(self):
        self.open = {}

    def _tick(self, name: str, total=None, postfix=None, step: int = 1) -> None:
        from proofcheck.frontend.progress import bar
        for other in [k for k in self.open if k != name]:
            self.open.pop(other).close()
        if name not in self.open:
            from proofcheck.frontend.progress import HEARTBEAT
            desc, unit, every = self.SPECS[name]
            self.open[name] = bar(desc, total, unit, every=HEARTBEAT if every is None else every)
        b = self.open[name]
        b.update(step, postfix)
        if total and b.n >= total:  # the phase is over: no heartbeat into the next one
            self.open.pop(name).close()

    def hooks(self):
        from proofcheck.kernel.verdicts import fmt_num
        from proofcheck.frontend.runs.theorem import Hooks
        return Hooks(block=lambda b, total: self._tick("block", total),
                     shard=lambda k, total: self._tick("shard", total, step=1 if k else 0),
                     trajectory=lambda b, total: self._tick("trajectory", total),
                     certificate=lambda t, v: self._tick("certificate", None,
                                                         f"tau = {fmt_num(t)}: {v.value}"),
                     simulation=lambda t: self._tick("simulation", None, f"tau = {fmt_num(t)}"))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for b in self.open.values():
            b.close()


def options_of(args):
    """The :class:`~proofcheck.frontend.runs.theorem.TheoremOptions` of the command line
    (``--tau`` read with the one number parser)."""
    from proofcheck.kernel.numbers import parse_number
    from proofcheck.frontend.runs.theorem import TheoremOptions
    tau = None if args.tau is None else parse_number(args.tau, "--tau")[0]
    return TheoremOptions(backend=args.backend, tau=tau, construction=args.construction,
                          simulate=False if args.no_simulation else None,
                          sim_budget=args.simulation_budget, workers=args.workers,
                          scheduler=args.scheduler, attention=args.attention,
                          certificate=args.certificate is not None)


def _refuse_report_clash(args, statement: str, name: str, opts) -> None:
    """``BadInput`` before the run when a report file (known once the dataset's name
    is) would replace the ``--dataset`` file or be replaced by ``--certificate``."""
    if args.no_report:
        return
    from proofcheck.frontend.reporting.run_report import report_paths
    files = report_paths(args.out, statement, name, causal=opts.attention == "causal",
                         construction=opts.construction)
    for option in ("dataset", "certificate"):
        refuse_same_files([(f"--{option}", getattr(args, option))]
                          + [(f"--out's report file {p.name}", str(p)) for p in files])


def cmd_theorem(args) -> int:
    """Both theorems through one path (:mod:`proofcheck.frontend.runs.theorem`): run, summary,
    report, the kernel's re-check of the run's certificate, certificate file,
    verdict (the kernel's)."""
    from proofcheck.frontend.registry import find
    from proofcheck.frontend.reporting.summary import summary_lines, time_line
    from proofcheck.frontend.runs.instances import theorem_data
    from proofcheck.frontend.runs.theorem import (
        THEOREMS,
        admitting,
        certificate_refusal,
        raised_line,
        recheck_lines,
        run_theorem,
        start_lines,
        validate,
        verdict_text,
        write_report,
    )
    st = find(args.id)
    opts = options_of(args)
    validate(st.id, opts)
    check_outputs(args)
    t_start = time.perf_counter()
    ds, info = theorem_data(admitting(st, opts), data_request(args))
    t_load = time.perf_counter() - t_start
    _refuse_report_clash(args, st.id, ds.name, opts)
    header(THEOREMS[st.id] + (" under a causal mask" if opts.attention == "causal" else ""),
           ds, info)
    print("\n".join(start_lines(st.id, opts)), flush=True)
    from proofcheck.constructions.afz.theorems.theorem_1_6 import ConstructionFailed
    try:
        with _Bars() as bars:
            run = run_theorem(st.id, ds, info, opts, bars.hooks())
    except ConstructionFailed as e:  # REFUTED on this admissible dataset: no network to certify
        print_results([e.result])
        if args.certificate:
            print("certificate: not written (the construction built no network to certify)")
        what = st.id + (" under the causal mask" if opts.attention == "causal" else "")
        return verdict_line(args, e.result.verdict,
                            raised_line(what, ds, opts.construction, e.result))
    run.seconds = {"load dataset": t_load, **run.seconds}
    print_results(run.results)
    t0 = time.perf_counter()
    summary = summary_lines(st.id, run.check)
    run.seconds["||theta*||^2"] = time.perf_counter() - t0
    print("\n" + "\n".join(summary))
    if not args.no_report:
        t0 = time.perf_counter()
        paths = write_report(run, args.out)
        run.seconds["report"] = time.perf_counter() - t0
        print("report: " + ", ".join(str(p) for p in paths))
    print("\n".join(recheck_lines(run)))
    if args.certificate:
        _write_certificate(args.certificate, run, certificate_refusal(run))
    run.seconds["end to end"] = time.perf_counter() - t_start
    print(time_line(run.seconds, sharded=run.options.workers is not None
                    or run.options.scheduler is not None))
    rc = run.recheck
    line, code = verdict_text(run)
    if line is None:
        line = outcome_line(rc.outcome) if rc.outcome is not None else rc.verdict_line()
    return verdict_line(args, run.verdict, line, code)


def _write_certificate(path, run, refusal: str | None) -> None:
    """Write the run's certificate to ``path``, or say why it is not written."""
    if refusal is not None:
        print(f"certificate: not written: {refusal}")
        return
    from proofcheck.frontend.io.certificate_writer import write_certificate
    t0 = time.perf_counter()
    print(f"certificate: {write_certificate(path, run.certificate_bytes or run.certificate)}")
    run.seconds["certificate file"] = time.perf_counter() - t0
