"""``proofcheck lemma ID``: check one catalogue statement (docs/spec.md §2)."""
from __future__ import annotations

from proofcheck.frontend.cli.common import (
    check_file_output,
    data_options,
    data_request,
    integer_arg,
    refuse_same_files,
    verdict_line,
)
from proofcheck.kernel.errors import BadInput


def register(sub) -> None:
    q = sub.add_parser(
        "lemma", help="check one catalogue statement",
        description="Run the checks of one statement of the catalogue (`list` shows the ids): "
        "exact layer instances, symbolic proofs, and the statement's own conditions.",
        epilog="examples: python -m proofcheck lemma 3.2 | python -m proofcheck lemma hat "
        "--seed 3 --certificate hat.json")
    q.add_argument("id", metavar="ID", help="a catalogue id or name (see `list`); e.g. 3.2, "
                   "hat, C.4")
    data_options(q, default="each statement's built-in instance, seeded by --seed; "
                 "with --dataset or --example the statement runs on that data")
    q.add_argument("--seed", type=integer_arg, default=0, metavar="S",
                   help="seed of the built-in instance (default 0); e.g. --seed 3")
    q.add_argument("--reading", metavar="NAME",
                   help="a variant reading of a statement whose source admits several "
                        "(E.1, G.1, C.4; `list` shows them); default: the faithful one; "
                        "e.g. --reading window")
    q.add_argument("--certificate", metavar="FILE",
                   help="write a sealed certificate of the exact layer instances (missing "
                   "folders are created; never the --dataset file); e.g. --certificate lemma.json")
    q.add_argument("--verbose", action="store_true",
                   help="print every check's details and the kernel's re-check line by line "
                   "(default: one line per passing check with its verdict and scope, every "
                   "detail of a check that did not pass)")
    q.set_defaults(func=cmd_lemma)


def cmd_lemma(args) -> int:
    """Run the statement's checks through the pipeline layer
    (:func:`proofcheck.frontend.runs.lemma.run_lemma`); the verdict is the kernel's re-check
    of the certificate of its exact instances, with the checks it cannot carry."""
    from proofcheck.frontend.registry import find
    from proofcheck.frontend.runs.instances import load
    from proofcheck.frontend.runs.lemma import (
        certifiable,
        check_reading,
        verdict_text,
        header_lines,
        run_lemma,
        run_output,
    )
    st = find(args.id)
    check_reading(st, args.reading)
    if args.certificate:
        if not certifiable(st):
            raise BadInput(f"statement {st.id} has no kernel form for its instances: nothing "
                           "to certify (drop --certificate; its checks run in `lemma`)")
        refuse_same_files([("--dataset", args.dataset), ("--certificate", args.certificate)])
        check_file_output(args.certificate, "--certificate")
    ds, _ = load(st, data_request(args))
    run = run_lemma(st, ds, args.seed, args.reading)
    print("\n".join(header_lines(run)) + "\n")
    print("\n".join(run_output(run, args.verbose)))
    if args.certificate:
        if run.certificate is None:
            raise BadInput(f"statement {st.id} has no exact layer instances to certify "
                           "(its checks are symbolic or numeric; re-run `lemma` instead)")
        from proofcheck.frontend.io.certificate_writer import write_certificate
        from proofcheck.frontend.runs.lemma import certificate_refusal
        why = certificate_refusal(run)
        if why is not None:
            print(f"certificate: not written ({why})")
        else:
            print(f"certificate: {write_certificate(args.certificate, run.certificate)}")
    return verdict_line(args, run.verdict, verdict_text(run))
