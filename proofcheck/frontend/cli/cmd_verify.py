"""``proofcheck verify FILE``: re-check a certificate with the trusted kernel
(``proofcheck.kernel.verify``); docs/spec.md §3, §5.

This module only prints: reading (the kernel's own reader), the dataset comparison
and the verdict are the kernel's (:func:`proofcheck.kernel.verify.verify_file`); the
fast tier is imported only when the route may use it (not for ``--route plain``).
The verdict's exit code is recorded on ``args`` before anything is printed, so
that an output error (closed pipe, full disk) keeps it (see ``proofcheck.frontend.cli``).
"""
from __future__ import annotations


from proofcheck.frontend.cli.common import dask_options


def register(sub) -> None:
    q = sub.add_parser(
        "verify", help="re-check a certificate with the small trusted kernel",
        description="Re-check a proofcheck certificate with the trusted kernel "
        "(proofcheck/kernel/), which runs no construction code: seal, format, dataset hash, "
        "constants, the exact evaluation or softmax certificate, the stated verdict.  The "
        "VERDICT line says what was established (on this dataset, for every token of the "
        "stated layers, or on these instances only) or refuted: a theorem certificate's "
        "construction on its dataset, never the theorem (docs/spec.md §5).",
        epilog="example: python -m proofcheck verify reports/certificates/lemma-3.2.json")
    q.add_argument("file", metavar="FILE", help="the certificate (JSON); e.g. c.json")
    q.add_argument("--dataset", metavar="FILE",
                   help="also check that the certificate is about this dataset file; "
                   "e.g. --dataset my.json")
    q.add_argument("--require-conclusion", action="store_true",
                   help="exit 3 unless the statement's conclusion itself was re-derived "
                   "(a plugin certificate checked on its instances only does not qualify)")
    q.add_argument("--route", choices=["auto", "plain", "fast"], default="auto",
                   help="how to evaluate: plain (the definitions read literally, the "
                   "smallest trusted base), fast (proofcheck/kernel/fast/, shortcuts checked "
                   "against plain by the tests) or auto (fast above a size; default); "
                   "e.g. --route plain")
    q.add_argument("--coq", action="store_true",
                   help="also re-check with Coq's kernel (docs/architecture/coq.md; needs coqc): the VERDICT "
                   "line names both checkers when both passed, a disagreement is ERROR (exit 4)")
    from proofcheck.frontend.cli.cmd_coq import coq_options
    coq_options(q, "coq-")
    q.add_argument("--prove-exp", action="store_true",
                   help="also prove the stated exp bounds of a softmax certificate, "
                   "min(1, (n-1) e^(-min_gap/tau)) <= max_eps per SA sub-layer, with Coq "
                   "Interval (proofcheck/constructions/provers/exp_bounds.py; needs coqc and libcoq-interval); a "
                   "bound Coq does not prove makes the verdict INCONCLUSIVE")
    dask_options(q, "evaluate the pairs of a hardmax theorem certificate in shards of "
                 "consecutive pairs (the other checks run once, here)")
    q.set_defaults(func=cmd_verify)


def _printable(line: str) -> str:
    """No control character reaches the terminal (the kernel escapes input strings;
    this is the second fence)."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in line)


def _route_note(out) -> str | None:
    """The route line when the kernel printed none: a lemma certificate's instances
    (always the plain evaluator) or a theorem check decided before the network was
    evaluated (e.g. a stated L the network does not have), or no route at all when the
    kernel stopped first (a digest or embedded-dataset mismatch, a resource limit, an
    internal error)."""
    from proofcheck.kernel.verdicts import Verdict
    if any(ln.startswith("route: ") for ln in out.lines):
        return None
    if out.verdict in (Verdict.ERROR, Verdict.RESOURCE_LIMIT):
        return f"route: none (the kernel stopped with {out.verdict.value} before a verdict)"
    return (f"route: {out.route} (no fast-tier step: a lemma certificate's instances, or a "
            "theorem check decided before any evaluation of the network)")


def _require_coq_interval(path) -> None:
    """``--prove-exp``: a softmax certificate and Coq Interval installed, else exit 2."""
    from proofcheck.constructions.provers.exp_bounds import coq_missing, stated_exp_bounds
    from proofcheck.kernel.documents import read_json
    from proofcheck.kernel.errors import BadInput
    stated_exp_bounds(read_json(path, "certificate"))
    if (why := coq_missing()) is not None:
        raise BadInput(f"--prove-exp needs Coq Interval: {why}")


def _prove_exp(path, out):
    """Coq Interval on the stated exp bounds once the kernel passed the certificate
    (``None`` after any other verdict: the kernel's stands)."""
    from proofcheck.constructions.provers.exp_bounds import prove
    from proofcheck.kernel.documents import read_json
    if not out.verdict.passed:
        print(f"exp bounds: not run (the kernel's verdict is {out.verdict.value})")
        return None
    return prove(read_json(path, "certificate"))


def _shards(args):
    """``--workers``/``--scheduler``: the Dask shard runner (exit 2 without dask, for a
    worker count below 1 or a bad address), else ``None``."""
    if args.workers is None and args.scheduler is None:
        return None  # verify loads no pipeline code unless it shards
    from proofcheck.frontend.runs.theorem import TheoremOptions, kernel_shards_of, validate_dask
    opts = TheoremOptions(workers=args.workers, scheduler=args.scheduler)
    validate_dask(opts)
    return kernel_shards_of(opts)


def cmd_verify(args) -> int:
    if args.route != "plain":  # the fast tier registers its route; plain never loads it
        import proofcheck.kernel.fast  # noqa: F401
    from proofcheck.kernel.verify import verify_file
    from proofcheck.kernel.verdicts import Verdict
    from proofcheck.frontend.cli.common import outcome_line
    from proofcheck.frontend.cli.terminal import heartbeat
    if args.coq:  # before the kernel: Coq missing is exit 2, never a kernel-only pass
        from proofcheck.frontend.cli.cmd_coq import preflight
        if (why := preflight(args.file)) is not None:
            print(f"coq: not run ({why})")
            return 2
    dataset = None
    if args.dataset is not None:
        from proofcheck.frontend.io.datasets import load_dataset
        with heartbeat("loading the dataset"):
            dataset = load_dataset(args.dataset)
    if args.prove_exp:
        _require_coq_interval(args.file)
    shards = _shards(args)
    with heartbeat("kernel check"):
        out = verify_file(args.file, dataset, route=args.route, shards=shards)
    code = out.exit_code(args.require_conclusion)
    with heartbeat("exp bounds (Coq Interval)"):
        exp = _prove_exp(args.file, out) if args.prove_exp else None
    if exp is not None and exp.verdict is not Verdict.VERIFIED:
        code = exp.verdict.exit_code  # a prover's failure is INCONCLUSIVE
    args.verdict_exit_code = code
    for ln in out.lines:
        print(_printable(ln))
    if (note := _route_note(out)) is not None:
        print(note)
    if shards is not None and not any("shard" in ln for ln in out.lines):
        print("--workers/--scheduler: not used (only the pairs of a hardmax theorem "
              "certificate are evaluated in shards; this one was checked in one process)")
    for ln in ([] if exp is None else [exp.summary()] + ["    " + x for x in exp.lines]):
        print(_printable(ln))
    if exp is not None and exp.verdict is not Verdict.VERIFIED:
        print(f"\nVERDICT: {exp.verdict.value} (the kernel: {out.verdict.value}; "
              f"{_printable(exp.summary())}; witness: {_printable(exp.witness.describe())})")
        return code
    final = code
    if args.coq:
        from proofcheck.frontend.cli.cmd_coq import verify_with_coq
        final = verify_with_coq(args, out, code)
    else:
        print(f"\n{_printable(outcome_line(out))}")
    if code != out.verdict.exit_code:
        print("--require-conclusion: the statement's conclusion was not re-derived "
              f"(scope: {out.scope.value}); exit {code}")
    return final
