"""Lines of Python each route of ``verify`` trusts (README "The trusted kernel").

    python scripts/trusted_base.py          # both routes, one line each
    python scripts/trusted_base.py plain    # the plain route: proofcheck/kernel/ without fast/
    python scripts/trusted_base.py fast     # the fast route: the plain kernel plus fast/

Every line of every ``.py`` file counts (docstrings, comments and blank lines
included), as ``wc -l`` counts them.
"""
from __future__ import annotations

import sys
from pathlib import Path

KERNEL = Path(__file__).resolve().parents[1] / "proofcheck" / "kernel"


def lines(route: str) -> int:
    files = [p for p in KERNEL.rglob("*.py") if route == "fast" or "fast" not in p.parts]
    return sum(len(p.read_bytes().splitlines()) for p in files)


def main(argv) -> int:
    routes = argv[1:] or ["plain", "fast"]
    for r in routes:
        print(lines(r) if argv[1:] else f"{r}: {lines(r)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
