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
    q.add_argument("--plugin-timeout", type=float, default=None, metavar="S",
                   help="seconds each installed plugin statement's run may take before it is "
                   "stopped and left out (default 300); e.g. --plugin-timeout 60")
    q.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    import math
    from pathlib import Path

    from proofcheck.frontend.runs.site import PLUGIN_SECONDS, regenerate
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise BadInput("--out exists and is not a folder", args.out)
    seconds = PLUGIN_SECONDS if args.plugin_timeout is None else args.plugin_timeout
    if not (seconds > 0 and math.isfinite(seconds)):
        raise BadInput(f"--plugin-timeout must be a positive number of seconds (got "
                       f"{args.plugin_timeout})")
    from proofcheck.frontend.cli.terminal import heartbeat
    with heartbeat("report: building every statement's page and certificate"):
        return regenerate(args.out, plugin_seconds=seconds)



