"""``proofcheck verify FILE``: re-check a certificate with the trusted kernel
(``proofcheck.kernel``); SPEC §3, §5."""
from __future__ import annotations

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict


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
    import json

    from proofcheck.kernel.verify import verify_certificate
    try:
        with open(args.file, encoding="utf-8") as f:
            cert = json.load(f)
    except OSError as e:
        raise BadInput(f"cannot read certificate: {e.strerror}", args.file) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"certificate is not valid JSON ({e})", args.file) from None
    if args.dataset:
        from proofcheck.kernel.dataset import digest, load_dataset
        ds = load_dataset(args.dataset)
        want = (cert.get("claim", {}).get("dataset", {}) or {}).get("sha256") \
            if isinstance(cert, dict) else None
        if digest(ds) != want:
            print("the given dataset is not the certificate's dataset (SHA-256 differs)")
            print("\nVERDICT: ERROR")
            return Verdict.ERROR.exit_code
    v, lines = verify_certificate(cert)
    for ln in lines:
        print(ln)
    print(f"\nVERDICT: {v.value}")
    return v.exit_code



