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
        description="Re-check a proofcheck-certificate/1 file with the trusted kernel "
        "(proofcheck/kernel/), which runs no construction code: seal, format, dataset hash, "
        "constants, the exact evaluation or softmax certificate, the stated verdict.",
        epilog="example: python -m proofcheck verify reports/certificates/lemma-3.2.json")
    q.add_argument("file", metavar="FILE", help="the certificate (JSON); e.g. c.json")
    q.add_argument("--dataset", metavar="FILE",
                   help="also check that the certificate is about this dataset file; "
                   "e.g. --dataset my.json")
    q.set_defaults(func=cmd_verify)


def cmd_verify(args) -> int:
    from proofcheck.kernel.verify import verify_file
    v, lines = verify_file(args.file, args.dataset)
    args.verdict_exit_code = v.exit_code
    for ln in lines:  # the kernel escapes input strings; no control character gets through
        print("".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in ln))
    print(f"\nVERDICT: {v.value}")
    return v.exit_code
