"""Shared pieces of the subcommands: dataset options and loading, printing of
results, progress bars, output-path checks, run headers."""
from __future__ import annotations

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict, combine


def positive_integer_arg(text: str) -> int:
    """:func:`integer_arg` that is at least 1 (``argparse.ArgumentTypeError``, exit 2)."""
    import argparse
    n = integer_arg(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return n


def integer_arg(text: str) -> int:
    """argparse type for whole-number options: optional sign and decimal digits only
    (no "1_0", no spaces, at most 18 digits), so that options read numbers the way
    datasets and certificates do.  Raises ``argparse.ArgumentTypeError`` (exit 2)."""
    import argparse
    import re
    if not re.fullmatch(r"[+-]?[0-9]{1,18}", text):
        raise argparse.ArgumentTypeError(f"expected a whole number such as 100, got {text!r}")
    return int(text)


def dask_options(q, what: str) -> None:
    """``--workers K`` / ``--scheduler ADDRESS`` (mutually exclusive) on a subparser: ``what``
    is sharded over Dask (the ``dist`` extra; docs/howto/distributed.md)."""
    dist = q.add_mutually_exclusive_group()
    dist.add_argument("--workers", type=integer_arg, metavar="K",
                      help=f"{what} over a local Dask cluster of K worker processes forked "
                      "from this one (needs the [dist] extra); e.g. --workers 2")
    dist.add_argument("--scheduler", metavar="ADDRESS",
                      help=f"{what} over the Dask cluster at ADDRESS (needs the [dist] "
                      "extra); e.g. --scheduler tcp://host:8786")


def data_options(q, default: str = "the shipped digits sample") -> None:
    """Add --dataset/--example/--limit/--task to a subparser; ``default`` says what runs
    without them."""
    g = q.add_argument_group(f"dataset (default: {default})")
    g.add_argument("--dataset", metavar="FILE",
                   help="a proofcheck-dataset/1 JSON file or an .npz with arrays X_j, Y_j "
                   "(docs/spec.md §3), or - for a JSON dataset on standard input; e.g. --dataset "
                   "my.json, or --dataset - < my.json")
    g.add_argument("--example", metavar="NAME",
                   help="a built-in dataset: digits (scikit-learn's 1797 images, needs the "
                   "'data' extra) or digits-sample (shipped); e.g. --example digits")
    g.add_argument("--limit", type=integer_arg, metavar="K",
                   help="use the first K images of --example (after dropping duplicates); "
                   "e.g. --limit 100")
    g.add_argument("--task", default="label", choices=["label", "inpaint"],
                   help="digits target: 'label' (one token label·e1, default) or 'inpaint' "
                   "(the masked patches); e.g. --task inpaint")


def data_request(args):
    """The :class:`~proofcheck.frontend.runs.instances.DataRequest` of --dataset/--example/
    --limit/--task."""
    from proofcheck.frontend.runs.instances import DataRequest
    return DataRequest(args.dataset, args.example, args.limit, args.task)


def print_results(results) -> Verdict:
    for r in results:
        print("\n".join(r.lines()))
    return combine(r.verdict for r in results)


def verdict_line(args, verdict: Verdict, line: str | None = None, code: int | None = None
                 ) -> int:
    """Print the final ``VERDICT`` line (``line``: the kernel's, with the scope of a
    pass; else the bare verdict) and return the exit code (``code``, else the
    verdict's); the exit code is recorded on ``args`` first (an output error then keeps
    it, see :mod:`proofcheck.frontend.cli`)."""
    code = verdict.exit_code if code is None else code
    args.verdict_exit_code = code
    print("\n" + (line or f"VERDICT: {verdict.value}"))
    return code


def header(title, ds, info):
    from proofcheck.kernel.verdicts import plural
    print(f"{title} on dataset '{ds.name}': N = {ds.N}, M = {ds.M}, d = {ds.d}, "
          f"{plural(ds.n_tokens, 'input token')}")
    if info.get("duplicates_dropped") is not None:
        print(f"  {info.get('used', ds.N)} image(s) used; {info['duplicates_dropped']} duplicate "
              f"image(s) dropped from the {info.get('images_total', '?')} available")
    for n in ds.notes:
        print(f"  note: {n}")


def same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` name one file: ``os.path.samefile`` when both
    exist (hard links, symlinks, ``./x`` vs ``x``), else their resolved real paths."""
    import os
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def refuse_same_files(named) -> None:
    """``BadInput`` (exit 2, before any work) when two of ``named`` — ``(option, path or
    None)`` pairs, the inputs first — name the same file: writing the later one would
    replace the earlier (an input dataset, a certificate, a report file).  The error
    names both options; its path is the later one's."""
    given = [(o, p) for o, p in named if p]
    for i, (a, pa) in enumerate(given):
        for b, pb in given[i + 1:]:
            if same_file(pa, pb):
                raise BadInput(f"{a} and {b} name the same file: the run would replace "
                               f"one with the other; choose another path for {b}", str(pb))


def check_outputs(args):
    """Fail before the run (exit 2) when the report folder (``--out`` unless
    ``--no-report``) or the certificate path (``--certificate``) cannot be written, or
    when ``--certificate`` names the ``--dataset`` file.  A missing folder of either
    is created when the run writes."""
    from pathlib import Path

    from proofcheck.frontend.io.files import require_writable_folder
    refuse_same_files([("--dataset", getattr(args, "dataset", None)),
                       ("--certificate", getattr(args, "certificate", None))])
    if not getattr(args, "no_report", True):
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise BadInput("--out exists and is not a folder", str(out))
        parent = next((p for p in [out, *out.parents] if p.exists()), None)
        if parent is None or not parent.is_dir():
            raise BadInput("--out cannot be created (no parent folder)", str(out))
        _writable(require_writable_folder, parent, "--out")
    if getattr(args, "certificate", None):
        check_file_output(args.certificate, "--certificate")


def check_file_output(path, option: str) -> None:
    """``BadInput`` (exit 2, before any work) unless a file can be written at ``path``
    (:func:`proofcheck.frontend.io.files.require_writable`): its nearest existing folder must
    take a file; missing folders are created when the file is written."""
    from proofcheck.frontend.io.files import require_writable
    _writable(require_writable, path, option)


def _writable(check, path, option: str) -> None:
    try:
        check(path, option)
    except OSError as e:
        raise BadInput(e.strerror or str(e), str(e.filename or path)) from None


def outcome_line(outcome) -> str:
    """The kernel's VERDICT line, with its witness line for an INCONCLUSIVE or REFUTED
    outcome (what could not be decided, or where the claim fails) unless its scope
    already names the failure."""
    line = outcome.verdict_line()
    if outcome.verdict in (Verdict.INCONCLUSIVE, Verdict.REFUTED) and \
            getattr(outcome, "failure", None) is None:
        why = next((x for x in outcome.lines if x.startswith("witness: ")), None)
        if why is not None:
            return f"{line} ({why})"
    return line
