"""``theorem 1.6|1.8``: one pipeline for both theorems.

construct and check (:func:`proofcheck.constructions.afz.theorems.theorem_1_6.verify`, hardmax, exact;
:func:`proofcheck.constructions.afz.theorems.theorem_1_8.verify`, softmax, certified τ) → the sealed
certificate of the run (in memory) → the kernel's re-check of it
(:func:`proofcheck.frontend.runs.recheck.recheck`) → the summary lines and the run report →
the verdict, which is the kernel's.  The command line, the report site and the
bench all run theorems through :func:`run_theorem`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Scope, Verdict, combine
from proofcheck.frontend.runs.recheck import Recheck, recheck, witness_text

THEOREMS = {"1.6": "Theorem 1.6 (hardmax exact interpolation)",
            "1.8": "Theorem 1.8 (softmax exact interpolation)"}
MAX_LOCAL_WORKERS = 256  # one process each; beyond this a real cluster (--scheduler)


@dataclass(frozen=True)
class TheoremOptions:
    """``backend`` (1.6: ``flint`` or ``fraction``), ``tau`` (1.8: certify this
    temperature instead of searching), ``construction`` (a name of
    :data:`proofcheck.constructions.afz.theorems.constructions.CONSTRUCTIONS`), ``simulate`` (1.8: the
    mpmath search for tau_num), ``workers``/``scheduler`` (1.6: shard the exact check
    over Dask), ``options`` (construction options,
    :class:`proofcheck.constructions.afz.options.ConstructionOptions`; None: the default), ``attention``
    (1.6: ``"full"``, or ``"causal"``: the network under the causal mask,
    :mod:`proofcheck.constructions.causal.under_mask`), ``certificate`` (a certificate file is asked for)."""

    backend: str = "flint"
    tau: Fraction | None = None
    construction: str = "default"
    simulate: bool | None = None
    sim_budget: int | None = None
    workers: int | None = None
    scheduler: str | None = None
    options: object = None
    attention: str = "full"
    certificate: bool = False


@dataclass
class Hooks:
    """Progress callbacks (each optional): ``block(b, L)`` after each evaluated block
    (1.6), ``shard(done, total)`` when the Dask shards start (``done = 0``) and after
    each shard, ``trajectory(b, L)`` during the τ-independent pass (1.8),
    ``certificate(tau, verdict)`` after each softmax certificate, ``simulation(tau)``
    after each mpmath simulation."""

    block: Callable | None = None
    shard: Callable | None = None
    trajectory: Callable | None = None
    certificate: Callable | None = None
    simulation: Callable | None = None


@dataclass
class TheoremRun:
    """One theorem run: ``check`` is the construction side's ``TheoremCheck`` (1.6)
    or ``SoftmaxCheck`` (1.8); ``certificate`` the sealed certificate of the run;
    ``recheck`` the kernel's re-check of it; ``verdict`` the kernel's verdict."""

    statement: str
    dataset: object
    info: dict
    options: TheoremOptions
    check: object
    certificate: dict
    recheck: Recheck
    seconds: dict = field(default_factory=dict)
    certificate_bytes: bytes | None = None  # the text of its file, which the kernel read

    @property
    def results(self) -> list:
        return self.check.results

    @property
    def run_verdict(self) -> Verdict:
        """The verdict of the run's own checks (the certificate states it)."""
        return combine(r.verdict for r in self.results)

    @property
    def verdict(self) -> Verdict:
        """The run's one verdict: the kernel's re-check of the certificate, combined with
        the run's own checks the certificate cannot carry (the construction's claims,
        stated conclusions and proofs): the worse of the two (docs/spec.md §5)."""
        if self.certificate is None:
            return self.recheck.verdict
        return combine([self.recheck.verdict, self.run_verdict])

    @property
    def decided_by_kernel(self) -> bool:
        """True when the verdict is the kernel's re-check of the certificate."""
        return self.verdict == self.recheck.verdict

    @property
    def construction_name(self) -> str:
        return self.check.constants.get("construction", self.options.construction)

    @property
    def net(self):
        return self.check.construction.net


def validate(theorem: str, opts: TheoremOptions) -> None:
    """Usage errors (``BadInput``, exit 2) before any work: options that do not apply
    to ``theorem``, an unknown construction, a bad Dask address or worker count."""
    from proofcheck.constructions.causal.constructions import get
    if theorem not in THEOREMS:
        raise BadInput(f"{theorem} is not a theorem; theorems: {', '.join(THEOREMS)}")
    if theorem == "1.6" and opts.tau is not None:
        raise BadInput("--tau applies to theorem 1.8 (softmax) only")
    if opts.tau is not None and opts.tau <= 0:
        raise BadInput(f"--tau must be positive (got {opts.tau})")
    if theorem == "1.8" and (opts.workers is not None or opts.scheduler is not None):
        raise BadInput("--workers / --scheduler apply to theorem 1.6 (the exact check) only")
    if theorem == "1.6" and (opts.sim_budget is not None or opts.simulate is False):
        raise BadInput("--simulation-budget / --no-simulation apply to theorem 1.8 only")
    if opts.sim_budget is not None and opts.sim_budget < 0:
        raise BadInput(f"--simulation-budget must be at least 0 (got {opts.sim_budget})")
    try:
        get(opts.construction, theorem, opts.attention)
    except KeyError as exc:
        raise BadInput(exc.args[0]) from None
    _validate_attention(theorem, opts)
    validate_dask(opts)


def _validate_attention(theorem: str, opts: TheoremOptions) -> None:
    """--attention causal: theorem 1.6 only, not sharded, no certificate (exit 2)."""
    if opts.attention == "full":
        return
    if theorem != "1.6":
        raise BadInput("--attention causal applies to theorem 1.6 (hardmax) only")
    if opts.workers is not None or opts.scheduler is not None:
        raise BadInput("--workers / --scheduler do not apply with --attention causal")
    if opts.certificate:
        raise BadInput("--certificate does not apply with --attention causal: a theorem "
                       "certificate states neither the reading nor a causal construction")


def admitting(statement, opts: TheoremOptions):
    """``statement`` with the admissibility of the run: under a causal mask the inputs
    are compared as tuples (docs/spec.md §1 "Extensions")."""
    if opts.attention != "causal":
        return statement
    from dataclasses import replace

    from proofcheck.frontend.registry.admissibility import CAUSAL_THEOREM
    return replace(statement, admissible=CAUSAL_THEOREM)


def validate_dask(opts: TheoremOptions) -> None:
    """``--workers``/``--scheduler`` usable (``BadInput``, exit 2, naming what is wrong)."""
    if opts.workers is None and opts.scheduler is None:
        return
    if opts.workers is not None and opts.workers < 1:
        raise BadInput(f"--workers must be at least 1 (got {opts.workers})")
    from proofcheck.frontend.runs.distributed import dask_available, parse_scheduler
    if not dask_available():
        raise BadInput("--workers / --scheduler need dask: pip install -e \".[dist]\"")
    if opts.workers is not None and opts.workers > MAX_LOCAL_WORKERS:
        raise BadInput(f"--workers must be at most {MAX_LOCAL_WORKERS} local processes "
                       f"(got {opts.workers}); for more, start a cluster and pass --scheduler")
    if opts.scheduler is not None:
        try:
            parse_scheduler(opts.scheduler)
        except ValueError as exc:
            raise BadInput(f"--scheduler: not a Dask address ({exc}); "
                           "e.g. --scheduler tcp://host:8786") from None


def start_lines(theorem: str, opts: TheoremOptions) -> list[str]:
    """The lines printed when the run starts: for 1.6 the construction that runs (a
    reconstruction, the seed's block count read as a bound), for 1.8 the temperature."""
    if theorem == "1.6":
        from proofcheck.constructions.causal.constructions import get
        spec = get(opts.construction, theorem, opts.attention)
        return [f"construction '{spec.name}' (L = {spec.blocks}): {spec.summary}; the seed's "
                "count L = 2M + 2N + 1 is read as a bound", "constructing the network ..."]
    from proofcheck.kernel.verdicts import fmt_num
    return ["certifying tau = " + (fmt_num(opts.tau) if opts.tau is not None else
                                   "(search: powers of two, then bisection)")] + (
        [] if opts.construction == "default" else
        ["(the default construction then runs on the same data for the side-by-side table)"])


def run_theorem(theorem: str, dataset, info: dict | None = None,
                opts: TheoremOptions = TheoremOptions(), hooks: Hooks | None = None) -> TheoremRun:
    """Run ``theorem`` (``"1.6"`` or ``"1.8"``) on the admissible ``dataset``; see the
    module docstring.  Call :func:`validate` first for options from a user.

    The certificate is serialized once, to the bytes its file holds, and the kernel reads
    those bytes back (:func:`proofcheck.frontend.runs.recheck.recheck`).  Theorem 1.6 seals it as
    soon as the network and its constants exist, stating the verdict of the constant checks
    (the verdict its content holds unless the evaluation fails), and the kernel's re-check
    starts then: in a forked process, beside the construction's own exact check (two
    cores), or with ``--workers``/``--scheduler`` in shards after it.  When the verdict the
    certificate should state (:func:`_stated`) is another one, it is sealed again stating
    it and re-checked, so that it re-checks as itself."""
    hooks = hooks or Hooks()
    if theorem == "1.6" and opts.attention != "causal":
        return _run_16(dataset, info, opts, hooks)
    check = _check_16(dataset, opts, hooks) if theorem == "1.6" else _check_18(dataset, opts, hooks)
    if opts.attention == "causal":
        return _causal_run(theorem, dataset, info, opts, check)
    t0 = time.perf_counter()
    cert, data = _sealed(theorem, dataset, check.construction.net, check.constants, opts,
                         combine(r.verdict for r in check.results), check)
    seconds = {**check.seconds, "certificate": time.perf_counter() - t0}
    rc = recheck(data)
    run = TheoremRun(theorem, dataset, dict(info or {}), opts, check, cert, rc,
                     {**seconds, "kernel re-check": rc.seconds}, data)
    _restate(run)
    return run


def _run_16(dataset, info, opts: TheoremOptions, hooks: Hooks) -> TheoremRun:
    """Theorem 1.6: the certificate sealed and its re-check started once the network and
    its constants exist (:func:`run_theorem`)."""
    from proofcheck.frontend.runs.recheck import start
    started: dict = {}
    shards: dict = {"exact check": {}, "kernel re-check": {}}  # the Dask runs' statistics

    def built(c, checks, consts):
        t0 = time.perf_counter()
        started["sealed"] = _sealed("1.6", dataset, c.net, consts, opts,
                                    combine(r.verdict for r in checks))
        started["certificate"] = time.perf_counter() - t0
        started["pending"] = start(started["sealed"][1],
                                   kernel_shards_of(opts, shards["kernel re-check"]))
    try:
        check = _check_16(dataset, opts, hooks, built, shards["exact check"])
        (cert, data), pending = started["sealed"], started["pending"]
        rc = pending.result()
    finally:
        if "pending" in started:
            started["pending"].cancel()
    seconds = {**check.seconds, "certificate": started["certificate"],
               "kernel re-check": rc.seconds, **shard_seconds(shards)}
    run = TheoremRun("1.6", dataset, dict(info or {}), opts, check, cert, rc, seconds, data)
    _restate(run)
    return run


def shard_seconds(stats: dict) -> dict:
    """``{"<phase> shards": wall seconds}`` of each phase that ran shards over Dask (``stats``:
    phase -> the statistics :func:`~proofcheck.frontend.runs.distributed.check_distributed` and
    :func:`~proofcheck.frontend.runs.distributed.kernel_shards` fill): the part of the phase
    spent from submitting its shards to the last result; the rest of it ran in one process."""
    return {f"{phase} shards": st["shards_s"] for phase, st in stats.items() if "shards_s" in st}


def kernel_shards_of(opts: TheoremOptions, stats: dict | None = None):
    """The kernel's re-check sharded over Dask as ``--workers``/``--scheduler`` say
    (:func:`proofcheck.frontend.runs.distributed.kernel_shards`, filling ``stats``; call
    :func:`validate_dask` first), or ``None``; a scheduler address Dask refuses is
    ``BadInput`` (exit 2)."""
    if opts.workers is None and opts.scheduler is None:
        return None
    from proofcheck.frontend.runs.distributed import kernel_shards
    try:
        return kernel_shards(workers=opts.workers, scheduler=opts.scheduler, stats=stats)
    except ValueError as e:
        raise BadInput(str(e)) from None


def _sealed(theorem: str, dataset, net, constants, opts: TheoremOptions, verdict,
            check=None) -> tuple[dict, bytes]:
    """The run's sealed certificate stating ``verdict`` and the bytes of its file."""
    from proofcheck.frontend.io.certificate_writer import certificate_bytes
    cert = _certificate(theorem, dataset, net, constants, opts, verdict, check)
    return cert, certificate_bytes(cert)


def _stated(run: "TheoremRun") -> Verdict:
    """The verdict the run's certificate states: the verdict its content holds (the kernel's
    re-derivation), or the run's own verdict when the kernel derived none (ERROR,
    RESOURCE-LIMIT, a certificate it refused)."""
    got = getattr(run.recheck.outcome, "rederived", None)
    if got is None or got in (Verdict.ERROR, Verdict.RESOURCE_LIMIT):
        return run.run_verdict
    return got


def _restate(run: "TheoremRun") -> None:
    """Seal the run's certificate again, and re-check it, when it does not state
    :func:`_stated` (the run's own verdict came from checks it cannot carry: a
    construction's claims, stated conclusions, proofs; or the kernel decided what the
    run did not)."""
    want = _stated(run)
    if want.value == run.certificate["verdict"]:
        return
    from proofcheck.frontend.runs.recheck import start
    run.certificate, run.certificate_bytes = _sealed(
        run.statement, run.dataset, run.check.construction.net, run.check.constants,
        run.options, want, run.check)
    stats: dict = {}
    run.recheck = start(run.certificate_bytes, kernel_shards_of(run.options, stats),
                        fork=False).result()
    run.seconds["kernel re-check"] = run.seconds.get("kernel re-check", 0) + run.recheck.seconds
    for k, v in shard_seconds({"kernel re-check": stats}).items():
        run.seconds[k] = run.seconds.get(k, 0) + v


def _causal_run(theorem: str, dataset, info, opts: TheoremOptions, check) -> TheoremRun:
    """A run under the causal mask: no certificate (the format states neither the
    reading nor a causal construction), so the verdict is the run's own exact check —
    the kernel's evaluators on the masked network, the claims and the interpolation
    in the construction's reading — and the output says so."""
    v = combine(r.verdict for r in check.results)
    reading = check.construction.info.get("reading")
    rc = Recheck(v, ["no certificate for a run under the causal mask: the verdict is the "
                     "run's own exact check (the kernel's evaluators on the masked network, "
                     f"reading {reading})"],
                 scope=f"{Scope.DATASET.value}: the run's own exact check under the causal "
                       "mask; no certificate",
                 refuted=_causal_refutation(check, dataset, opts, reading)
                 if v is Verdict.REFUTED else None)
    return TheoremRun(theorem, dataset, dict(info or {}), opts, check, None, rc,
                      dict(check.seconds))


def _causal_refutation(check, dataset, opts: TheoremOptions, reading) -> str:
    """What a REFUTED under the causal mask refutes: construction X run under the mask on
    this dataset, with its first failing check; and, when the dataset has a prefix
    conflict (or no prefix map) in the reading, the statement for every causal network
    (causal-first-token: a causal layer's output at a position depends on the prefix
    up to it only)."""
    r = next(r for r in check.results if r.verdict is Verdict.REFUTED)
    w = witness_text(r.witness)
    n = dataset.N
    text = (f"construction {opts.construction} does not witness Theorem 1.6 in the reading "
            f"{reading} on its {n} pair{'s' * (n != 1)}: {r.name}{w}")
    if any(x.verdict.passed and x.name.startswith("no causal transformer interpolates")
           for x in check.results):
        text += ("; and no transformer of docs/spec.md §1's layers with every SA layer causal "
                 "interpolates this dataset in that reading (the dataset's obstruction above, "
                 "statement causal-first-token)")
    return text


def _check_16(dataset, opts: TheoremOptions, hooks: Hooks, on_built=None, stats=None):
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    if opts.attention == "causal":
        from proofcheck.constructions.causal.constructions import get as causal_get
        from proofcheck.constructions.causal.under_mask import verify_causal
        return verify_causal(dataset, causal_get(opts.construction), backend=opts.backend,
                             progress=hooks.block)
    return verify(dataset, backend=opts.backend, progress=hooks.block,
                  construction=get(opts.construction, "1.6"),
                  checker=_dask_checker(opts, hooks, stats),
                  options=opts.options, on_built=on_built)


def _dask_checker(opts: TheoremOptions, hooks: Hooks, stats: dict | None = None):
    """The Dask-sharded exact check (:mod:`proofcheck.frontend.runs.distributed`, filling
    ``stats``), or ``None``."""
    if opts.workers is None and opts.scheduler is None:
        return None
    from proofcheck.frontend.runs.distributed import check_distributed

    def check(net, inputs, targets, claims, backend="flint", progress=None):
        return check_distributed(net, inputs, targets, claims, workers=opts.workers,
                                 scheduler=opts.scheduler, backend=backend, progress=hooks.shard,
                                 stats=stats)
    return check


def _check_18(dataset, opts: TheoremOptions, hooks: Hooks):
    """The 1.8 run; a construction other than the default is put side by side with
    the default one on the same data (:func:`~proofcheck.constructions.afz.theorems.theorem_1_8.
    compare_constructions`)."""
    from proofcheck.constructions.afz.theorems.theorem_1_8 import compare_constructions, verify
    sc = verify(dataset, tau=opts.tau, progress=hooks.certificate,
                prep_progress=hooks.trajectory, sim_progress=hooks.simulation,
                simulate_num=opts.simulate is not False, sim_budget=opts.sim_budget,
                construction=opts.construction, options=opts.options)
    if sc.construction_name != "default":
        sc.comparison = compare_constructions(dataset, sc)
    return sc


def _certificate(theorem: str, dataset, net, constants, opts: TheoremOptions, verdict,
                 check=None) -> dict:
    """The sealed certificate of the run's ``net``, naming its construction and stating
    ``verdict``.  A 1.8 certificate (``check``: the run's ``SoftmaxCheck``) states
    tau_cert, else the given ``--tau``, else the tau of the failing certificate (positive:
    the search's first temperature when even the tau -> 0 limit fails)."""
    from proofcheck.constructions.afz.theorems.constructions import certified_constants
    from proofcheck.frontend.io.certificate_writer import theorem_certificate
    v, consts = verdict, certified_constants(constants)
    name = constants.get("construction", opts.construction)
    if theorem == "1.6":
        return theorem_certificate("1.6", dataset, net, v, constants=consts, construction=name)
    tau = check.tau_cert if check.tau_cert is not None else (
        opts.tau if opts.tau is not None else check.certificate.tau)
    return theorem_certificate("1.8", dataset, net, v, tau=tau, bounds=check.certificate,
                               constants=consts, construction=name)


def certificate_refusal(run: TheoremRun) -> str | None:
    """Why the run's certificate must not be written, or ``None``: a certificate states
    the verdict of its content, so when the run's own checks beside it (the construction's
    claims, stated conclusions, proofs) decided a failure while its content passes, it
    would read as a passing run of the construction."""
    if run.certificate is None or run.verdict.passed or not Verdict(
            run.certificate["verdict"]).passed:
        return None
    return (f"the run is {run.verdict.value} by the construction's own checks, which the "
            f"certificate cannot carry, while its content (the network within the theorem's "
            f"budgets) is {run.certificate['verdict']}")


def verdict_text(run: TheoremRun) -> tuple[str | None, int]:
    """The VERDICT line and exit code when the run's own checks beside the certificate
    decided: the construction's failing check, named with the construction, its witness
    and code, and the kernel's verdict on the certificate beside it (docs/spec.md §5);
    ``(None, the kernel's exit code)`` when the verdict is the kernel's (the caller
    prints the kernel's line)."""
    rc = run.recheck
    if run.decided_by_kernel:
        return None, rc.exit_code
    r = next(r for r in run.results if r.verdict == run.verdict)
    w = witness_text(r.witness)
    what = {Verdict.REFUTED: "does not do what it states",
            Verdict.INCONCLUSIVE: "is not decided in what it states"}.get(
        run.verdict, "met an error in its own checks")
    n = run.dataset.N
    return (f"VERDICT: {run.verdict.value} ({Scope.DATASET.value}: construction "
            f"{run.construction_name} {what} on its {n} pair{'s' * (n != 1)}: {r.name}{w}; its "
            f"certificate's content, re-checked by the kernel: {rc.verdict.value})",
            run.verdict.exit_code)


def raised_line(theorem: str, dataset, construction: str, result) -> str:
    """The VERDICT line of a run whose construction raised on the admissible dataset: no
    network, so no certificate; the witness names the input and the exception."""
    n = dataset.N
    return (f"VERDICT: REFUTED ({Scope.DATASET.value}: construction {construction} does not "
            f"witness Theorem {theorem} on its {n} pair{'s' * (n != 1)}"
            f"{witness_text(result.witness)})")


def report_of(run: TheoremRun) -> dict:
    """The JSON run report (``proofcheck-report/1``) with the kernel's verdict, the
    run's own verdict and the re-check's lines."""
    from proofcheck.frontend.reporting.run_report import softmax_report, theorem_report
    if run.statement == "1.6":
        rep = theorem_report("1.6", run.dataset, run.check, run.verdict, extra=run.info)
    else:
        rep = softmax_report(run.dataset, run.check, run.verdict, extra=run.info,
                             tau_given=run.options.tau)
    rep["kernel_recheck"] = {"verdict": run.recheck.verdict.value,
                             "run_verdict": run.run_verdict.value, "lines": run.recheck.lines}
    rep["seconds"] = {k: round(v, 4) for k, v in run.seconds.items()}
    return rep


def write_report(run: TheoremRun, out) -> list:
    """Write the run report under ``out`` (Markdown, JSON; 1.8 also its picture);
    returns the paths written."""
    from proofcheck.frontend.reporting.run_report import write_softmax_report, write_theorem_report
    rep = report_of(run)
    if run.statement == "1.6":
        return list(write_theorem_report(out, rep))
    return [p for p in write_softmax_report(out, rep, run.check) if p is not None]


def recheck_lines(run: TheoremRun) -> list[str]:
    """The kernel's re-check, as printed before the verdict (a run under the causal
    mask has none: its one line says why)."""
    if run.certificate is None:
        return list(run.recheck.lines)
    stated = run.certificate["verdict"]
    note = "" if stated == run.run_verdict.value else (
        f"; the certificate states {stated}, the verdict of its content: the run's other "
        "checks are the construction's own, beside it")
    return ([f"kernel re-check of the run's certificate (verify_certificate): "
             f"{run.recheck.verdict.value} (the run's own checks: {run.run_verdict.value}{note})"]
            + ["    " + x for x in run.recheck.lines])
