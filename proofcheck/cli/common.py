"""Shared pieces of the subcommands: dataset options and loading, printing of
results, progress bars, output-path checks, run headers."""
from __future__ import annotations

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict, combine


def integer_arg(text: str) -> int:
    """argparse type for whole-number options: optional sign and decimal digits only
    (no "1_0", no spaces, at most 18 digits), so that options read numbers the way
    datasets and certificates do.  Raises ``argparse.ArgumentTypeError`` (exit 2)."""
    import argparse
    import re
    if not re.fullmatch(r"[+-]?[0-9]{1,18}", text):
        raise argparse.ArgumentTypeError(f"expected a whole number such as 100, got {text!r}")
    return int(text)


def data_options(q, default: str = "the shipped digits sample") -> None:
    """Add --dataset/--example/--limit/--task to a subparser; ``default`` says what runs
    without them."""
    g = q.add_argument_group(f"dataset (default: {default})")
    g.add_argument("--dataset", metavar="FILE",
                   help="a proofcheck-dataset/1 JSON file or an .npz with arrays X_j, Y_j "
                   "(SPEC §3); e.g. --dataset my.json")
    g.add_argument("--example", metavar="NAME",
                   help="a built-in dataset: digits (scikit-learn's 1797 images, needs the "
                   "'data' extra) or digits-sample (shipped); e.g. --example digits")
    g.add_argument("--limit", type=integer_arg, metavar="K",
                   help="use the first K images of --example (after dropping duplicates); "
                   "e.g. --limit 100")
    g.add_argument("--task", default="label", choices=["label", "inpaint"],
                   help="digits target: 'label' (one token label·e1, default) or 'inpaint' "
                   "(the masked patches); e.g. --task inpaint")


def load_data(args):
    """``(dataset, extra_info)`` from --dataset / --example, or ``(None, {})``."""
    from proofcheck.io.examples import EXAMPLES
    from proofcheck.io.datasets import load_dataset
    if args.dataset is not None and args.example is not None:
        raise BadInput("give either --dataset or --example, not both")
    if args.dataset is not None:
        if not args.dataset.strip():
            raise BadInput("--dataset is empty")
        if args.limit is not None or args.task != "label":
            raise BadInput("--limit and --task apply to --example (or the default sample) only")
        return load_dataset(args.dataset, ordered=_ordered(args)), {}
    if args.example is not None and not args.example.strip():
        raise BadInput("--example is empty")
    if args.example:
        if args.example not in EXAMPLES:
            raise BadInput(f"unknown example {args.example!r}; known: {', '.join(EXAMPLES)}")
        if args.limit is not None and args.limit < 1:
            raise BadInput(f"--limit must be at least 1 (got {args.limit})")
        ds, info = EXAMPLES[args.example](limit=args.limit, task=args.task)
        from proofcheck.kernel.dataset import check_admissible
        check_admissible(ds, _ordered(args))
        return ds, info
    return None, {}


def _ordered(args) -> bool:
    """Sequences are ordered tuples under a causal mask (SPEC §1 "Extensions")."""
    return getattr(args, "attention", "full") == "causal"


def print_results(results) -> Verdict:
    for r in results:
        print("\n".join(r.lines()))
    return combine(r.verdict for r in results)


def finish(results) -> int:
    v = print_results(results)
    print(f"\nVERDICT: {v.value}")
    return v.exit_code


def progress_bar(total: int, desc: str = "exact check", unit: str = "block"):
    """``(update, close)`` callables of a :class:`~proofcheck.progress.Progress`."""
    from proofcheck.progress import Progress
    bar = Progress(total, desc, unit)
    return (lambda b: bar.update(1)), bar.close


def header(title, ds, info):
    print(f"{title} on dataset '{ds.name}': N = {ds.N}, M = {ds.M}, d = {ds.d}, "
          f"{ds.n_tokens} input tokens")
    if info.get("duplicates_dropped") is not None:
        print(f"  {info.get('used', ds.N)} image(s) used; {info['duplicates_dropped']} duplicate "
              f"image(s) dropped from the {info.get('images_total', '?')} available")
    for n in ds.notes:
        print(f"  note: {n}")


def check_outputs(args):
    """Fail before the run (exit 2) when a report folder or certificate path cannot
    be written."""
    import os
    from pathlib import Path
    if not args.no_report:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise BadInput("--out exists and is not a folder", str(out))
        parent = next((p for p in [out, *out.parents] if p.exists()), None)
        if parent is None or not parent.is_dir() or not os.access(parent, os.W_OK):
            raise BadInput("--out cannot be created (no writable parent folder)", str(out))
    if args.certificate:
        c = Path(args.certificate)
        if c.is_dir() or not c.parent.is_dir() or not os.access(c.parent, os.W_OK):
            raise BadInput("--certificate is not a writable file path", str(c))
