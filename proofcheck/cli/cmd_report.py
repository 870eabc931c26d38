"""``proofcheck report``: regenerate the committed ``reports/`` folder."""
from __future__ import annotations

from proofcheck.kernel.errors import BadInput


def register(sub) -> None:
    q = sub.add_parser("report", help="regenerate the reports/ folder")
    q.add_argument("--out", default="reports")
    q.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from pathlib import Path

    from proofcheck.reporting.site import regenerate
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise BadInput("--out exists and is not a folder", args.out)
    return regenerate(args.out)



