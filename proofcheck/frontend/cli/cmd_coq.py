"""``proofcheck coq CERT``: re-check a certificate with Coq's kernel (docs/architecture/coq.md), and the
combination of the kernel's and Coq's verdicts that ``verify --coq`` prints.  Coq missing is
exit 2 with the install command, never a pass; a disagreement between the two checkers is ERROR
(exit 4)."""
from __future__ import annotations

from proofcheck.frontend.cli.common import positive_integer_arg


def coq_options(q, prefix: str = "") -> None:
    """The options of a Coq run (``prefix``: ``coq-`` under ``verify``)."""
    q.add_argument(f"--{prefix}jobs", type=positive_integer_arg, default=2, metavar="N",
                   help="Coq runs at a time over the chunks of pairs (default 2); e.g. "
                   f"--{prefix}jobs 1")
    q.add_argument(f"--{prefix}timeout", type=positive_integer_arg, default=1800, metavar="S",
                   help="seconds one Coq run may take (default 1800; past it: RESOURCE-LIMIT, "
                   f"exit 4); e.g. --{prefix}timeout 600")
    q.add_argument(f"--{prefix}chunk-pairs", type=positive_integer_arg, metavar="K",
                   help="at most K pairs per Coq run (default: about 10^6 tokens x blocks "
                   f"each); e.g. --{prefix}chunk-pairs 100")


def register(sub) -> None:
    q = sub.add_parser(
        "coq", help="re-check a certificate with the Coq proof assistant's kernel",
        description="Write the certificate's dataset and network (or its lemma instances) as "
        "Coq terms, numbers copied digit by digit, and let Coq's kernel check the claim "
        "against the semantics of docs/spec.md §1 in coq/theories (a checker proved sound there, no "
        "axioms).  Theorem 1.6: set equality per pair; a lemma: the stated instance outputs.  "
        "Nothing proofcheck computed is trusted.  Needs coqc (docs/architecture/coq.md).",
        epilog="example: python -m proofcheck coq "
        "reports/certificates/theorem-1.6-digits-sample.json")
    q.add_argument("file", metavar="CERT", help="the certificate (JSON); e.g. c.json")
    q.add_argument("--out", metavar="DIR", help="keep the generated Coq files in DIR (a new or "
                   "empty folder); e.g. --out /tmp/coq-run")
    coq_options(q)
    q.set_defaults(func=cmd_coq)


DETAIL = {"output-not-target": "output token {token} of pair {pair} is not a target "
          "(outputs ⊆ targets fails)",
          "target-not-hit": "target {target} of pair {pair} is not hit (targets ⊆ outputs fails)",
          "instance-output": "instance {instance}: a stated output is not the layer's output"}


def witness_line(outcome) -> str | None:
    w = outcome.witness
    if not w:
        return None
    return f"coq witness [{w['code']}]: " + DETAIL[w["code"]].format(**w)


def run_coq(args, path, prefix: str = ""):
    """The :class:`proofcheck.frontend.coq.run.Outcome` of the options on ``args``, its lines printed;
    ``None`` (and the reason printed) when Coq cannot run here."""
    from proofcheck.frontend.cli.terminal import heartbeat
    from proofcheck.frontend.coq import library, run
    get = lambda name: getattr(args, (prefix + name).replace("-", "_"))  # noqa: E731
    try:
        with heartbeat("coq: compiling and checking"):
            out = run.check(path, getattr(args, "out", None) if not prefix else None,
                            jobs=get("jobs"), timeout=get("timeout"),
                            chunk_pairs=get("chunk-pairs"))
    except library.CoqUnavailable as e:
        print(f"coq: not run ({e})")
        return None
    print(out.line())
    if (w := witness_line(out)) is not None:
        print(w)
    return out


def cmd_coq(args) -> int:
    out = run_coq(args, args.file)
    if out is None:
        args.verdict_exit_code = 2
        return 2
    args.verdict_exit_code = out.exit_code
    scope = (" (by Coq's kernel: " + out.detail + "; the digest checked in Python; "
             "admissibility, budgets and stated constants are checked by `verify`, not by "
             "Coq)") if out.status == "VERIFIED" else ""
    print(f"\nVERDICT: {out.status}{scope}")
    return out.exit_code


def preflight(path) -> str | None:
    """Before the kernel runs under ``verify --coq``: why Coq cannot check ``path`` here
    (``None``: it can); ``BadInput`` for a certificate outside the Coq route."""
    from proofcheck.frontend.coq import library, run, translate
    try:
        library.coqc()
        library.theory_files()
    except library.CoqUnavailable as e:
        return str(e)
    cert = translate.read(path)
    translate.translate(cert)
    run.unsealed(cert)  # BadInput for a certificate that does not state VERIFIED
    return None


def verify_with_coq(args, kernel, code: int) -> int:
    """After the kernel's lines: Coq's run (when the kernel VERIFIED or REFUTED) and the
    combined VERDICT line; returns the exit code."""
    from proofcheck.kernel.verdicts import Verdict
    coq = None
    if kernel.verdict.passed or kernel.verdict is Verdict.REFUTED:
        coq = run_coq(args, args.file, prefix="coq-")
        if coq is None:
            code = 2
    else:
        print(f"coq: not run (the kernel's verdict is {kernel.verdict.value}; Coq re-checks "
              "what the kernel decided)")
    line, code = combined(kernel, code, coq)
    args.verdict_exit_code = code
    print(f"\n{line}")
    return code


def combined(kernel, code: int, coq) -> tuple[str, int]:
    """``(VERDICT line, exit code)`` of ``verify --coq``: the kernel's outcome ``kernel`` (exit
    ``code``) and Coq's ``coq`` (``None``: not run).  Both passed: the kernel's line naming both
    checkers; the kernel passed and Coq REFUTED: ERROR (they disagree, exit 4); Coq unable to
    finish: its verdict; the kernel REFUTED: REFUTED, with what Coq found."""
    from proofcheck.frontend.cli.common import outcome_line
    line = outcome_line(kernel)
    if coq is None:
        return line, code
    if kernel.verdict.passed:
        if coq.status == "VERIFIED":
            both = f"; checked by the proofcheck kernel and by Coq {coq.version}: {coq.detail})"
            return (line[:-1] + both if line.endswith(")") else line + both[1:]), code
        if coq.status == "REFUTED":
            return (f"VERDICT: ERROR (the checkers disagree: the kernel passed, Coq REFUTED "
                    f"{coq.detail})"), 4
        return f"VERDICT: {coq.status} (Coq could not finish: {coq.detail})", coq.exit_code
    if coq.status == "REFUTED":
        return f"{line} (Coq: REFUTED, {coq.detail})", code
    return (f"{line} (Coq: {coq.status}: {coq.detail}; the kernel checks more than Coq's "
            "claim: budget, constants, digest, stated verdict)"), code
