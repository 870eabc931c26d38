"""Command line: ``python -m proofcheck {list,lemma,theorem,verify,report}`` (SPEC §2, §5).

One module per subcommand (``cmd_*.py``), each with ``register(subparsers)`` that
adds its parser and sets ``func``; add a subcommand by adding its module to
``COMMANDS``.

Exit codes: 0 verified, 1 refuted, 2 bad input or usage, 3 inconclusive,
4 internal error or resource limit.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import traceback

from proofcheck import __version__
from proofcheck.kernel.errors import BadInput, ResourceLimit
from proofcheck.kernel.verdicts import EXIT_BAD_INPUT, Verdict

COMMANDS = ["cmd_list", "cmd_lemma", "cmd_theorem", "cmd_verify", "cmd_report", "cmd_export",
            "cmd_audit"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand of ``COMMANDS`` registered."""
    p = argparse.ArgumentParser(prog="proofcheck", description="Exact proof checker for "
                                "constructive theorems about transformers.")
    p.add_argument("--version", action="version", version=f"proofcheck {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in COMMANDS:
        importlib.import_module(f"proofcheck.cli.{name}").register(sub)
    return p


def main(argv=None) -> int:
    """Run the command line; returns the exit code (SPEC §5)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # argparse: usage errors exit 2
        return int(e.code or 0)
    try:
        return args.func(args)
    except BadInput as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    except ResourceLimit as e:
        print(f"ERROR: resource limit: {e}", file=sys.stderr)
        return Verdict.ERROR.exit_code
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return Verdict.ERROR.exit_code
    except Exception:  # fail closed: an internal error is never a pass
        traceback.print_exc()
        print("ERROR: internal error (see traceback above)", file=sys.stderr)
        return Verdict.ERROR.exit_code
