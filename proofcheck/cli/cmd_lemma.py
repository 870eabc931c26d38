"""``proofcheck lemma ID``: check one catalogue statement (SPEC §2)."""
from __future__ import annotations

from proofcheck.cli.common import data_options, finish, integer_arg, load_data
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
    q.add_argument("--seed", type=integer_arg, default=0, metavar="S",
                   help="seed of the built-in instance (default 0); e.g. --seed 3")
    q.add_argument("--reading", metavar="NAME",
                   help="a variant reading of a statement whose source admits several "
                        "(E.1, G.1, C.4; `list` shows them); default: the faithful one; "
                        "e.g. --reading window")
    q.add_argument("--certificate", metavar="FILE",
                   help="write a sealed certificate of the exact layer instances; "
                   "e.g. --certificate lemma.json")
    q.set_defaults(func=cmd_lemma)


def cmd_lemma(args) -> int:
    from proofcheck.registry import find, load
    st = find(args.id)
    if not st.implemented:
        raise BadInput(f"statement {st.id} ({st.title}) is in the catalogue but not implemented "
                       "in this version (status: planned)")
    reading = getattr(args, "reading", None)
    if reading is not None:
        if not st.readings:
            raise BadInput(f"statement {st.id} has no readings; --reading applies to "
                           + ", ".join(s.id for s in load() if s.readings))
        if reading not in st.readings:
            raise BadInput(f"unknown reading {reading!r} of {st.id}; its readings: "
                           f"{st.readings[0]} (default), " + ", ".join(st.readings[1:]))
    ds, _ = load_data(args)
    print(f"{st.id}: {st.title}  [{st.kind}; paper: {st.paper} ({st.flag})]")
    if st.source != "proofcheck":
        print(f"source: plugin package {st.source}")
    for h in st.hypotheses:
        print(f"hypothesis: {h}")
    if st.readings:
        r = reading or st.readings[0]
        print(f"reading: {r}" + (" (default)" if r == st.readings[0] else " (variant)")
              + "; readings: " + ", ".join(st.readings))
    print(f"instance: {'dataset ' + ds.name if ds else 'built-in'}, seed {args.seed}\n")
    results = (st.runner()(ds, args.seed, reading=reading) if reading is not None
               else st.runner()(ds, args.seed))
    code = finish(results)
    if args.certificate:
        from proofcheck.io.certificate_writer import (
            lemma_certificate,
            write_certificate,
        )
        cert = lemma_certificate(st.id, results, combine(r.verdict for r in results),
                                 source=None if st.source == "proofcheck" else st.source)
        if cert is None:
            raise BadInput(f"statement {st.id} has no exact layer instances to certify "
                           "(its checks are symbolic or numeric; re-run `lemma` instead)")
        print(f"certificate: {write_certificate(args.certificate, cert)}")
    return code



