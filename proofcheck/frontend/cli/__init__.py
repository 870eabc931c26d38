"""Command line: ``python -m proofcheck {list,lemma,theorem,verify,report}`` (docs/spec.md §2, §5).

One module per subcommand (``cmd_*.py``), each with ``register(subparsers)`` that
adds its parser and sets ``func``; add a subcommand by adding its module to
``COMMANDS``.

Exit codes: 0 verified, 1 refuted, 2 bad input or usage, 3 inconclusive,
4 internal error or resource limit; 130 interrupted (Ctrl-C, SIGINT: 128 + 2, the
shell's convention), with every file written whole or not at all (files are written
by atomic replacement; ``report`` leaves its folder as it was).

Fail closed on output errors: standard output is flushed before ``main`` returns,
and an ``OSError`` while writing it (closed pipe as in ``verify c.json | head -1``,
full disk) keeps the verdict's exit code when that is non-zero (a subcommand
records it as ``args.verdict_exit_code`` before printing) and is exit 4
otherwise — never 0, since the output was not delivered.  A ``SystemExit`` raised
inside a command (code it runs, e.g. a plugin statement, calling ``sys.exit``) is
exit 4: the command did not finish, whatever code was passed.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback

from proofcheck import __version__
from proofcheck.frontend.cli.schema_messages import worded
from proofcheck.kernel.errors import BadInput, ResourceLimit
from proofcheck.kernel.limits import collector_paused
from proofcheck.kernel.verdicts import EXIT_BAD_INPUT, Verdict

#: the exit code of a run stopped by Ctrl-C (SIGINT), as shells report it (128 + 2)
EXIT_INTERRUPTED = 130

COMMANDS = ["cmd_list", "cmd_lemma", "cmd_theorem", "cmd_verify", "cmd_report", "cmd_experiment",
            "cmd_export", "cmd_audit", "cmd_generate", "cmd_coq"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand of ``COMMANDS`` registered."""
    p = argparse.ArgumentParser(
        prog="proofcheck", description="Exact proof checker for constructive theorems about "
        "transformers: builds the network with exact rational weights and checks the claim.",
        epilog="exit codes: 0 verified, 1 refuted, 2 bad input or usage, 3 inconclusive, "
        "4 internal error or resource limit, 130 interrupted.  Start with: python -m proofcheck "
        "list")
    p.add_argument("--version", action="version", version=f"proofcheck {__version__}")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", title="commands")
    for name in COMMANDS:
        importlib.import_module(f"proofcheck.frontend.cli.{name}").register(sub)
    return p


def _resource_limit(args, e: ResourceLimit) -> int:
    """The VERDICT line (stdout, as every verdict) of a run stopped by a work bound."""
    try:
        print(f"VERDICT: {Verdict.RESOURCE_LIMIT.value} (nothing decided: {e})", flush=True)
    except OSError as err:
        return _output_error(args, err)
    return Verdict.RESOURCE_LIMIT.exit_code


def _say(text: str) -> None:
    """Print to stderr; an error on stderr itself is ignored (the exit code carries
    the outcome)."""
    try:
        print(text, file=sys.stderr)
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """After an output error, point file descriptor 1 at /dev/null so that the
    interpreter's final flush cannot fail again (and change the exit code)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file behind sys.stdout
        pass


def _output_error(args, e: OSError) -> int:
    code = getattr(args, "verdict_exit_code", None)
    _silence_stdout()
    kept = code not in (None, 0)
    _say(f"ERROR: output could not be written ({e.strerror or e}); exit code "
         + (f"{code} of the verdict kept" if kept else f"{Verdict.ERROR.exit_code}"))
    return code if kept else Verdict.ERROR.exit_code


def main(argv=None) -> int:
    """Run the command line; returns the exit code (docs/spec.md §5)."""
    from proofcheck.frontend.cli.terminal import install
    install()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: usage errors exit 2
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    if args.cmd is None:
        parser.print_usage(sys.stderr)
        print("proofcheck: error: a command is expected, one of: " + ", ".join(
            c.removeprefix("cmd_") for c in COMMANDS) + " (see python -m proofcheck --help)",
            file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        # a run keeps what it builds (dataset, network, certificate) until it ends: at 10^6
        # tokens the collector's full passes over that heap were 41 of the 67 s of reading
        # the certificate
        with collector_paused():  # (proofcheck.kernel.limits.collector_paused)
            code = args.func(args)
        sys.stdout.flush()  # surface a write error while the exit code can still change
        return code
    except BadInput as e:
        _say(str(worded(e)))
        return EXIT_BAD_INPUT
    except ResourceLimit as e:  # a bound of the run's own check: nothing was decided
        return _resource_limit(args, e)
    except OSError as e:  # closed pipe, full disk, ...: never a pass
        return _output_error(args, e)
    except KeyboardInterrupt:  # Ctrl-C: no verdict; files are whole or absent
        _say("interrupted: stopped before the end, no verdict (no file was left "
             "half-written)")
        return EXIT_INTERRUPTED
    except SystemExit as e:  # code run by a command (a plugin) called sys.exit: no verdict
        _say(f"ERROR: sys.exit({e.code!r}) was called inside the command (a plugin or a "
             "statement's code) before it finished; no verdict")
        return Verdict.ERROR.exit_code
    except Exception:  # fail closed: an internal error is never a pass
        try:
            traceback.print_exc()
        except (OSError, ValueError):
            pass
        _say("ERROR: internal error (see traceback above)")
        return Verdict.ERROR.exit_code
