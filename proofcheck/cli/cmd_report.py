"""``proofcheck report``: regenerate the committed ``reports/`` folder."""
from __future__ import annotations

from proofcheck.kernel.errors import BadInput


def register(sub) -> None:
    q = sub.add_parser(
        "report", help="regenerate the reports/ folder",
        description="Rebuild the committed reports folder: index (Markdown and one "
        "self-contained HTML file), one page per statement, pictures, certificates.",
        epilog="example: python -m proofcheck report --out /tmp/reports")
    q.add_argument("--out", default="reports", metavar="DIR",
                   help="the folder to write (default: reports); e.g. --out /tmp/reports")
    q.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from pathlib import Path

    from proofcheck.runs.site import regenerate
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise BadInput("--out exists and is not a folder", args.out)
    return regenerate(args.out)



