"""Provenance recorded in reports and certificates: tool version, git commit,
Python and library versions, platform, time (docs/spec.md §3)."""
from __future__ import annotations

import datetime
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from proofcheck import __version__


def git_commit() -> str | None:
    """The commit of the source tree this package runs from, if it is a git checkout."""
    root = Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def provenance() -> dict:
    return {
        "tool": "proofcheck",
        "version": __version__,
        "commit": git_commit(),
        "python": platform.python_version(),
        "libraries": {p: _version(p) for p in ("python-flint", "sympy", "mpmath", "numpy")},
        "platform": platform.platform(),
        "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
