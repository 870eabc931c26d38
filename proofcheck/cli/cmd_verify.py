"""``proofcheck verify FILE``: re-check a certificate with the trusted kernel
(``proofcheck.kernel.verify``); SPEC §3, §5.

This module only prints: reading, schema validation, the dataset comparison and
the verdict are the kernel's (:func:`proofcheck.kernel.verify.verify_file`).
The verdict's exit code is recorded on ``args`` before anything is printed, so
that an output error (closed pipe, full disk) keeps it (see ``proofcheck.cli``).
"""
from __future__ import annotations


def register(sub) -> None:
    q = sub.add_parser(
        "verify", help="re-check a certificate with the small trusted kernel",
        description="Re-check a proofcheck certificate with the trusted kernel "
        "(proofcheck/kernel/), which runs no construction code: seal, format, dataset hash, "
        "constants, the exact evaluation or softmax certificate, the stated verdict.  The "
        "VERDICT line says what was established: on this dataset, for every token of the "
        "stated layers, or on these instances only.",
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
                   help="also re-check with Coq's kernel (docs/coq.md; needs coqc): the VERDICT "
                   "line names both checkers when both passed, a disagreement is ERROR (exit 4)")
    from proofcheck.cli.cmd_coq import coq_options
    coq_options(q, "coq-")
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


def cmd_verify(args) -> int:
    import proofcheck.kernel.fast  # noqa: F401  (registers the fast route)
    from proofcheck.kernel.verify import verify_file
    from proofcheck.cli.common import outcome_line
    if args.coq:  # before the kernel: Coq missing is exit 2, never a kernel-only pass
        from proofcheck.cli.cmd_coq import preflight
        if (why := preflight(args.file)) is not None:
            print(f"coq: not run ({why})")
            return 2
    dataset = None
    if args.dataset is not None:
        from proofcheck.io.datasets import load_dataset
        dataset = load_dataset(args.dataset)
    out = verify_file(args.file, dataset, route=args.route)
    code = out.exit_code(args.require_conclusion)
    args.verdict_exit_code = code
    for ln in out.lines:
        print(_printable(ln))
    if (note := _route_note(out)) is not None:
        print(note)
    final = code
    if args.coq:
        from proofcheck.cli.cmd_coq import verify_with_coq
        final = verify_with_coq(args, out, code)
    else:
        print(f"\n{_printable(outcome_line(out))}")
    if code != out.verdict.exit_code:
        print("--require-conclusion: the statement's conclusion was not re-derived "
              f"(scope: {out.scope.value}); exit {code}")
    return final
