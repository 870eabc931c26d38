"""``proofcheck generate``: write a large digits-like admissible dataset
(:func:`proofcheck.frontend.io.generate.digits_like`) for scale runs, and print N, T, M (and R,
the separation rounds of the Theorem 1.6 construction, with ``--report-R``)."""
from __future__ import annotations

from proofcheck.frontend.cli.common import integer_arg
from proofcheck.kernel.errors import BadInput


def register(sub) -> None:
    q = sub.add_parser(
        "generate", help="write a large digits-like dataset for scale runs",
        description="Write a large admissible dataset shaped like the digits example "
        "(d = 6; tokens = 2x2 patch + position; sequences share their dim background "
        "patches; several targets per sequence).  R, the number of separation rounds of "
        "Theorem 1.6, drives the cost of phase S and is set by --top-share: 0 gives "
        "distinct tops (R = 0 or close), s in (0, 1] makes a fraction s of the sequences "
        "share one top token, so R is about s N (1: R = N - 1).",
        epilog="examples: python -m proofcheck generate --sequences 62500 --out /tmp/1e6.json"
        " | python -m proofcheck generate --sequences 500 --top-share 1 --report-R "
        "--out /tmp/hard.json")
    q.add_argument("--sequences", type=integer_arg, default=62500, help="N (default 62500: "
                   "10^6 tokens with 16 tokens per sequence); e.g. --sequences 1000")
    q.add_argument("--tokens", type=integer_arg, default=16, help="tokens per sequence, 2..16; e.g. --tokens 8")
    q.add_argument("--targets", default="1-3", help="m_min-m_max targets per sequence "
                   "(default 1-3); e.g. --targets 1-2")
    q.add_argument("--top-share", type=float, default=0.0,
                   help="fraction s of sequences sharing one top token: R ~ s N "
                   "(0: R ~ 0, default; 1: R = N - 1); e.g. --top-share 0.5")
    q.add_argument("--common", type=integer_arg, default=6,
                   help="dim patches per position shared by the sequences (default 6); "
                   "e.g. --common 4")
    q.add_argument("--fresh", type=float, default=0.3,
                   help="probability of a fresh random dim patch (default 0.3); e.g. --fresh 0.1")
    q.add_argument("--seed", type=integer_arg, default=0, help="seed of the draw (default 0); e.g. --seed 2")
    q.add_argument("--report-R", action="store_true",
                   help="also run phase S of the Theorem 1.6 construction and print R "
                   "(takes O(R T) time)")
    q.add_argument("--out", required=True, metavar="FILE", help="the dataset file to write; e.g. --out big.json")
    q.set_defaults(func=cmd_generate)


def cmd_generate(args) -> int:
    import json

    from proofcheck.frontend.io.files import atomic_write
    from proofcheck.frontend.io.generate import digits_like
    from proofcheck.kernel.dataset import dataset_to_json
    lo, _, hi = args.targets.partition("-")
    try:
        targets = (int(lo), int(hi or lo))
        ds = digits_like(args.sequences, args.seed, args.tokens, targets, common=args.common,
                         fresh=args.fresh, top_share=args.top_share)
    except ValueError as e:
        raise BadInput(f"cannot generate this dataset: {e}") from None
    atomic_write(args.out, json.dumps(dataset_to_json(ds)))
    line = f"{args.out}: N = {ds.N}, T = {ds.n_tokens}, M = {ds.M}, d = {ds.d}"
    if args.report_R:
        from proofcheck.constructions.afz.phases.separation import separate
        line += f", R = {separate([list(p.inputs) for p in ds.pairs], ds.d).R}"
    print(line)
    return 0
