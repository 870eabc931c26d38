"""``proofcheck theorem 1.6|1.8``: construct the network for a dataset and check it
(hardmax exactly, softmax with a certified temperature); SPEC §4, §5."""
from __future__ import annotations

import time

from proofcheck.cli.common import (
    check_outputs,
    data_options,
    header,
    integer_arg,
    load_data,
    print_results,
    progress_bar,
)
from proofcheck.kernel.errors import BadInput


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
                   help="theorem 1.6: full attention (default) or a causal mask (SPEC §1 "
                   "Extensions): a construction for full attention is run under the mask and "
                   "the first place it leaves its claims is printed; causal-last is built for "
                   "the mask; e.g. --attention causal --construction causal-last")
    q.add_argument("--no-simulation", action="store_true",
                   help="theorem 1.8: skip the mpmath simulation that locates tau_num (an "
                   "audit: it never changes the verdict)")
    q.add_argument("--simulation-budget", type=integer_arg, metavar="W",
                   help="theorem 1.8: work units the tau_num simulation may spend (one unit: "
                   "a multiply-add at 40 digits; default 5000000, a few seconds; 0: no "
                   "simulation); e.g. --simulation-budget 50000000")
    q.add_argument("--out", default="reports", metavar="DIR",
                   help="folder for the run report (default: reports); e.g. --out /tmp/r")
    q.add_argument("--no-report", action="store_true", help="write no report files")
    q.add_argument("--certificate", metavar="FILE",
                   help="write a sealed certificate (SPEC §3) that `verify` re-checks; "
                   "e.g. --certificate c.json")
    dist = q.add_mutually_exclusive_group()
    dist.add_argument("--workers", type=integer_arg, metavar="K",
                      help="theorem 1.6: shard the exact check by sequence over a local Dask "
                      "cluster of K worker processes, forked from this one so they inherit "
                      "the network (needs the [dist] extra); e.g. --workers 2")
    dist.add_argument("--scheduler", metavar="ADDRESS",
                      help="theorem 1.6: shard the exact check over the Dask cluster at "
                      "ADDRESS, the network sent once to each worker (needs the [dist] "
                      "extra); e.g. --scheduler tcp://host:8786")
    q.set_defaults(func=cmd_theorem)


def cmd_theorem(args) -> int:
    from proofcheck.catalogue import find
    st = find(args.id)
    if st.id not in ("1.6", "1.8"):
        raise BadInput(f"{st.id} is not a theorem; theorems: 1.6, 1.8")
    if st.id == "1.6" and args.tau is not None:
        raise BadInput("--tau applies to theorem 1.8 (softmax) only")
    if st.id == "1.6" and (args.simulation_budget is not None or args.no_simulation):
        raise BadInput("--simulation-budget / --no-simulation apply to theorem 1.8 only")
    if args.simulation_budget is not None and args.simulation_budget < 0:
        raise BadInput(f"--simulation-budget must be at least 0 (got {args.simulation_budget})")
    _check_attention(args, st.id)
    if st.id == "1.6":
        _check_dist_options(args)
    elif args.workers is not None or args.scheduler is not None:
        raise BadInput("--workers / --scheduler apply to theorem 1.6 (the exact check) only")
    _check_construction(args, st.id)
    check_outputs(args)
    t_start = time.perf_counter()
    ds, info = load_data(args)
    if ds is None:
        from proofcheck.io.examples import sample
        if args.limit is not None and args.limit < 1:
            raise BadInput(f"--limit must be at least 1 (got {args.limit})")
        ds, info = sample(limit=args.limit, task=args.task)
    t_load = time.perf_counter() - t_start
    if st.id == "1.8":
        return cmd_softmax(args, ds, info)
    from lemmas.afz.theorems.theorem_1_6 import verify
    from proofcheck.reporting.run_report import theorem_report, write_theorem_report
    header("Theorem 1.6 (hardmax exact interpolation)"
           + (" under a causal mask" if args.attention == "causal" else ""), ds, info)
    print(construction_line(args.construction, "1.6", args.attention))
    print("constructing the network ...", flush=True)
    bar_holder = {}

    def progress(b, total):
        if "bar" not in bar_holder:
            bar_holder["bar"] = progress_bar(total)
        bar_holder["bar"][0](b)

    def shard_progress(k, total):
        if "shards" not in bar_holder:
            from proofcheck.progress import Progress
            bar_holder["shards"] = Progress(total, "exact check (Dask shards)", "shard")
        bar_holder["shards"].update()
    from lemmas.afz.theorems.theorem_1_6 import ConstructionFailed
    try:
        if args.attention == "causal":
            from lemmas.causal.constructions import get as causal_get
            from lemmas.causal.under_mask import verify_causal
            tc = verify_causal(ds, causal_get(args.construction), backend=args.backend,
                               progress=progress)
        else:
            tc = verify(ds, backend=args.backend, progress=progress, workers=args.workers,
                        scheduler=args.scheduler, shard_progress=shard_progress,
                        construction=args.construction)
    except ConstructionFailed as e:  # REFUTED on this admissible dataset, with the witness
        v = print_results([e.result])
        print(f"\nVERDICT: {v.value}")
        return v.exit_code
    tc.seconds = {"load dataset": t_load, **tc.seconds}
    if "bar" in bar_holder:
        bar_holder["bar"][1]()
    if "shards" in bar_holder:
        bar_holder["shards"].close()
    v = print_results(tc.results)
    c = tc.constants
    print(f"\nN = {c['N']}, M = {c['M']}, d = {c['d']}, R = {c['R']}")
    print(r_line(c["R"], c["N"], c.get("round_text"), c.get("R_claim")))
    print(f"construction {c['construction']}: L = {c['block_formula']}")
    print(f"L = {c['L']} blocks (the construction's {c['block_formula']} = {c['L_construction']}"
          + (f"; the default's 2M + R + 1 = {c['L_default']}" if "L_default" in c else "")
          + f"; the seed's count 2M + 2N + 1 = {c['L_paper_hardmax']}, read as a bound)")
    print(f"max width = {c['max_width']}; parameters P = {c['P']} (formula {c['P_formula']}"
          + (f", bound {c['param_constant']}·d·M = {c['P_bound']}" if "P_bound" in c else "")
          + (f"; the default's P = {c['P_default']}" if "P_default" in c else "")
          + f"); largest rational {c['max_bits']} bits")
    print(f"SA layers: A = λI + rank ≤ {c['max_rank_A_minus_lam_I']}, V = λI + rank ≤ "
          f"{c['max_rank_V_minus_lam_I']} (all {c['sa_layers']}; checked by the kernel)")
    from proofcheck.reporting.approx import theta_line
    t0 = time.perf_counter()
    print(theta_line(tc.construction.net))
    tc.seconds["||theta*||^2"] = time.perf_counter() - t0
    if not args.no_report:
        t0 = time.perf_counter()
        rep = theorem_report("1.6", ds, tc, v, extra=info)
        md, js = write_theorem_report(args.out, rep)
        tc.seconds["report"] = time.perf_counter() - t0
        print(f"report: {md} and {js}")
    if args.certificate:
        from proofcheck.io.certificate_writer import (
            theorem_certificate,
            write_certificate,
        )
        from lemmas.afz.theorems.constructions import certified_constants
        t0 = time.perf_counter()
        cert = theorem_certificate("1.6", ds, tc.construction.net, v,
                                   constants=certified_constants(c))
        print(f"certificate: {write_certificate(args.certificate, cert)}")
        tc.seconds["certificate"] = time.perf_counter() - t0
    tc.seconds["end to end"] = time.perf_counter() - t_start
    print("time: " + ", ".join(f"{k} {s:.2f} s" for k, s in tc.seconds.items()))
    print(f"\nVERDICT: {v.value}")
    return v.exit_code



def r_line(R: int, N: int, what: str | None = None, claim: str | None = None) -> str:
    """What R is, in the theorem output (``what``: the construction's own words for a
    round, its constant ``round_text``, if it has one; ``claim``: its bound on R, if
    not the default's ``R <= N - 1``)."""
    what = what or ("each round makes a token shared by several sequences the unique top of "
                    "some of them and tags again")
    return (f"R = {R} separation round{'' if R == 1 else 's'} (phase S: {what}; "
            f"R {claim or f'<= N - 1 = {N - 1}'})")


def _check_attention(args, theorem: str) -> None:
    """--attention causal: theorem 1.6 only, not sharded, no certificate (exit 2)."""
    if args.attention == "full":
        return
    if theorem != "1.6":
        raise BadInput("--attention causal applies to theorem 1.6 (hardmax) only")
    if args.workers is not None or args.scheduler is not None:
        raise BadInput("--workers / --scheduler do not apply with --attention causal")
    if args.certificate:
        raise BadInput("--certificate does not apply with --attention causal: a theorem "
                       "certificate states the all-outputs reading of the unmasked theorem")


def construction_line(name: str, theorem: str, attention: str = "full") -> str:
    """The output line naming the construction that runs (a reconstruction, with
    the seed's block count read as a bound)."""
    from lemmas.causal.constructions import get
    spec = get(name, theorem, attention)
    seed = "2M + 2N + 1" if theorem == "1.6" else "2M + 3N"
    return (f"construction '{spec.name}' (L = {spec.blocks}): {spec.summary}; the seed's "
            f"count L = {seed} is read as a bound")


def _check_construction(args, theorem: str) -> None:
    """--construction names a construction serving ``theorem`` (else exit 2)."""
    from lemmas.causal.constructions import get
    try:
        get(args.construction, theorem, getattr(args, "attention", "full"))
    except KeyError as exc:
        raise BadInput(exc.args[0]) from None


MAX_LOCAL_WORKERS = 256  # one process each; beyond this a real cluster (--scheduler)


def _check_dist_options(args) -> None:
    """--workers / --scheduler: usage errors (exit 2) before any work."""
    workers, scheduler = getattr(args, "workers", None), getattr(args, "scheduler", None)
    if workers is None and scheduler is None:
        return
    if workers is not None and workers < 1:
        raise BadInput(f"--workers must be at least 1 (got {workers})")
    from proofcheck.distributed import dask_available, parse_scheduler
    if not dask_available():
        raise BadInput("--workers / --scheduler need dask: pip install -e \".[dist]\"")
    if workers is not None and workers > MAX_LOCAL_WORKERS:
        raise BadInput(f"--workers must be at most {MAX_LOCAL_WORKERS} local processes "
                       f"(got {workers}); for more, start a cluster and pass --scheduler")
    if scheduler is not None:
        try:
            parse_scheduler(scheduler)
        except ValueError as exc:
            raise BadInput(f"--scheduler: not a Dask address ({exc}); "
                           "e.g. --scheduler tcp://host:8786") from None


def cmd_softmax(args, ds, info) -> int:
    """Theorem 1.8: certify ``--tau`` or search tau_cert; every number printed
    through :func:`proofcheck.kernel.verdicts.fmt_num`."""
    from lemmas.afz.theorems.theorem_1_8 import verify
    from proofcheck.progress import bar
    from proofcheck.kernel.numbers import parse_number
    from proofcheck.kernel.verdicts import fmt_num
    from proofcheck.reporting.run_report import softmax_report, write_softmax_report
    tau = None
    if args.tau is not None:
        tau, _ = parse_number(args.tau, "--tau")
        if tau <= 0:
            raise BadInput(f"--tau must be positive (got {args.tau})")
    header("Theorem 1.8 (softmax exact interpolation)", ds, info)
    print("certifying tau = " + (fmt_num(tau) if tau is not None else
                                 "(search: largest dyadic)"), flush=True)
    bars = {}

    def prep(b, total):
        if "prep" not in bars:
            bars["prep"] = bar("hardmax trajectory", total, "block")
        bars["prep"].update(1)

    def cert_progress(t, verdict):
        if "prep" in bars:
            bars.pop("prep").close()
        if "cert" not in bars:
            bars["cert"] = bar("certificates", None, "cert", every=0.0)
        bars["cert"].update(1, f"tau = {fmt_num(t)}: {verdict.value}")

    def sim_progress(t):
        if "cert" in bars:
            bars.pop("cert").close()
        if "sim" not in bars:
            bars["sim"] = bar("simulation (mpmath)", None, "pass", every=10.0)
        bars["sim"].update(1, f"tau = {fmt_num(t)}")
    try:
        sc = verify(ds, tau=tau, progress=cert_progress, prep_progress=prep,
                    sim_progress=sim_progress, simulate_num=not args.no_simulation,
                    sim_budget=args.simulation_budget, construction=args.construction)
    finally:
        for b in bars.values():
            b.close()
    if sc.construction_name != "default":
        from lemmas.afz.theorems.theorem_1_8 import compare_constructions
        print("running the default construction on the same data for the side-by-side table ...",
              flush=True)
        sc.comparison = compare_constructions(ds, sc)
    v = print_results(sc.results)
    c = sc.constants
    f = lambda x: "n/a" if x is None else fmt_num(x)  # noqa: E731
    if sc.tau_free:
        print("\ntau_cert = every tau > 0  [no token has an attention competitor]")
    else:
        print(f"\ntau_cert = {f(sc.tau_cert)}  [certified: covers every tau in (0, tau_cert]]")
    if sc.search_note:
        print(f"  search: {sc.search_note}")
    print(f"tau_closed = {f(sc.tau_closed)}  [closed-form estimate from the minimum gap; "
          f"certificate: {sc.tau_closed_certified.value if sc.tau_closed_certified else 'n/a'}]")
    print(f"tau_num = {f(sc.tau_num)}  [mpmath simulation: an audit, not a proof; it never "
          "changes the verdict]")
    for line in sc.simulation.lines(sc.tau_cert):
        print(f"  {line}")
    sa = [b for b in sc.certificate.bounds if b.sublayer == "SA" and b.max_eps is not None]
    if sa:
        print("softmax layers: " + "; ".join(
            f"block {b.block}: gap >= {f(b.min_gap)}, eps <= {f(b.max_eps)}"
            for b in sa[:6]) + (f" ... ({len(sa)} layers)" if len(sa) > 6 else ""))
    print(r_line(sc.construction.info["R"], ds.N))
    print(f"L = {c['L']} blocks (construction {c['construction']}: {c['block_formula']}; "
          f"the seed's count 2M + 3N = "
          f"{c['L_paper_softmax']}, read as a bound), max width {c['max_width']}, P = {c['P']}")
    from proofcheck.reporting.approx import theta_line
    print(theta_line(sc.construction.net))
    print("time: " + ", ".join(f"{k} {s:.2f} s" for k, s in sc.seconds.items()))
    _print_comparison(sc.comparison)
    if not args.no_report:
        rep = softmax_report(ds, sc, v, extra=info, tau_given=tau)
        md, js, png = write_softmax_report(args.out, rep, sc)
        print(f"report: {md}, {js}" + (f", {png}" if png else ""))
    if args.certificate:
        from proofcheck.io.certificate_writer import (
            theorem_certificate,
            write_certificate,
        )
        t = sc.tau_cert if sc.tau_cert is not None else (tau if tau is not None else
                                                          sc.certificate.tau)
        from lemmas.afz.theorems.constructions import certified_constants
        cert = theorem_certificate("1.8", ds, sc.construction.net, v, tau=t,
                                   bounds=sc.certificate, constants=certified_constants(c))
        print(f"certificate: {write_certificate(args.certificate, cert)}")
    print(f"\nVERDICT: {v.value}")
    return v.exit_code


def _print_comparison(rows) -> None:
    """The side-by-side table of :func:`lemmas.afz.theorems.theorem_1_8.compare_constructions`."""
    if not rows:
        return
    from proofcheck.kernel.verdicts import fmt_num
    print("\nside by side on this dataset (first row: this run; the others: tau_cert searched, "
          "no simulation; time = construct + trajectory + certificates [+ simulation]):")
    print(f"  construction | verdict | L | P | ||theta*||^2 | minus {rows[0]['construction']}'s "
          "| tau_cert | time s")
    for r in rows:
        tau = "n/a" if r["tau_cert"] is None else fmt_num(r["tau_cert"])
        print(f"  {r['construction']} | {r['verdict']} | {r['L']} | {r['P']} | "
              f"{fmt_num(r['theta_sq_norm'])} | {fmt_num(r['theta_sq_diff'])} | {tau} | "
              f"{r['seconds']:.2f}")
