"""``proofcheck lemma ID``: check one catalogue statement (SPEC §2)."""
from __future__ import annotations

from proofcheck.cli.common import data_options, finish, load_data
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import combine


def register(sub) -> None:
    q = sub.add_parser(
        "lemma", help="check one catalogue statement",
        description="Run the checks of one statement of the catalogue (`list` shows the ids): "
        "exact layer instances, symbolic proofs, and the statement's own conditions.",
        epilog="examples: python -m proofcheck lemma 3.2 | python -m proofcheck lemma hat "
        "--seed 3 --certificate hat.json")
    q.add_argument("id", metavar="ID", help="a catalogue id or name (see `list`); e.g. 3.2, "
                   "hat, C.4")
    data_options(q)
    q.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seed of the built-in instance (default 0); e.g. --seed 3")
    q.add_argument("--certificate", metavar="FILE",
                   help="write a sealed certificate of the exact layer instances; "
                   "e.g. --certificate lemma.json")
    q.set_defaults(func=cmd_lemma)


def cmd_lemma(args) -> int:
    from proofcheck.catalogue import find
    st = find(args.id)
    if not st.implemented:
        raise BadInput(f"statement {st.id} ({st.title}) is in the catalogue but not implemented "
                       "in this version (status: planned)")
    ds, _ = load_data(args)
    print(f"{st.id}: {st.title}  [{st.kind}; paper: {st.paper} ({st.flag})]")
    if st.source != "proofcheck":
        print(f"source: plugin package {st.source}")
    for h in st.hypotheses:
        print(f"hypothesis: {h}")
    print(f"instance: {'dataset ' + ds.name if ds else 'built-in'}, seed {args.seed}\n")
    results = st.runner()(ds, args.seed)
    code = finish(results)
    if args.certificate:
        from proofcheck.io.certificate_writer import (
            lemma_certificate,
            write_certificate,
        )
        cert = lemma_certificate(st.id, results, combine(r.verdict for r in results))
        if cert is None:
            raise BadInput(f"statement {st.id} has no exact layer instances to certify "
                           "(its checks are symbolic or numeric; re-run `lemma` instead)")
        print(f"certificate: {write_certificate(args.certificate, cert)}")
    return code



