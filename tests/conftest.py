"""Shared fixtures: the handed cases (tests/cases, README there) and a table of named
datasets used by many tests (construction, backends, mutations)."""
from __future__ import annotations

import os
import re
from fractions import Fraction
from pathlib import Path

import pytest

from proofcheck.frontend.io.generate import random_dataset
from proofcheck.frontend.io.datasets import load_dataset
from proofcheck.kernel.dataset import Dataset, Pair


def cases_dir() -> Path:
    """The handed cases: ``$PROOFCHECK_CASES`` when set (it must be a folder), else the
    vendored copy ``tests/cases``.  Never ``None``: a case missing from the folder makes
    the tests that use it fail, it is never skipped."""
    env = os.environ.get("PROOFCHECK_CASES")
    if env and not Path(env).is_dir():
        raise pytest.UsageError(f"PROOFCHECK_CASES={env!r} is not a folder; unset it to use "
                                "tests/cases")
    return Path(env) if env else Path(__file__).resolve().parent / "cases"


CASES = cases_dir()


def case_table() -> list[tuple[str, str, int]]:
    """Rows ``(file, expected, exit code)`` of the table in the cases' README."""
    rows = []
    for line in (CASES / "README.md").read_text().splitlines():
        m = re.match(r"\|\s*([\w.-]+\.json)\s*\|\s*(.+?)\s*\|\s*(\d+)\s*\|", line)
        if m:
            rows.append((m.group(1), m.group(2), int(m.group(3))))
    return rows


def _F(*xs):
    return tuple(Fraction(x) for x in xs)


def named_datasets() -> dict[str, Dataset]:
    """Small admissible datasets with names, and the handed VERIFIED cases."""
    out = {
        "needs-rounds": random_dataset(7, d=2, N=6, max_n=4, style="nested"),
        "union-3d": random_dataset(3, d=3, N=5, max_n=5, style="union"),
        "overlap-4d": random_dataset(11, d=4, N=7, max_n=5, style="overlap"),
        # every positive direction has (10, 10) on top of every sequence: R = N - 1
        "common-top": Dataset("common-top", 2, tuple(
            Pair((_F(10, 10),) + tuple(_F(a, b) for a, b in sub), (_F(k, -k), _F(0, k)))
            for k, sub in enumerate([[(0, 0)], [(0, 0), (1, 0)], [(1, 0)], [(0, 1), (1, 0)],
                                     [(0, 0), (0, 1), (1, 0)], [(2, 1)]], start=1))),
        # a square and its centre, and three overlapping triangles/quads on a lattice
        "square-builtin": Dataset("square-builtin", 2, (
            Pair((_F(2, 2), _F(0, 2), _F(0, 0), _F(2, 0)), (_F(1, 9),)),
            Pair((_F(2, 2), _F(0, 2), _F(0, 0), _F(2, 0), _F(1, 1)), (_F(1, -9), _F(3, 3))),
        )),
        "lattice-builtin": Dataset("lattice-builtin", 2, (
            Pair((_F(0, 0), _F(2, 0), _F(0, 2)), (_F(6, 6),)),
            Pair((_F(0, 0), _F(2, 0), _F(2, 2)), (_F(-2, 4), _F(5, 1))),
            Pair((_F(2, 0), _F(0, 2), _F(2, 2), _F(3, 3)), (_F(8, -8),)),
        )),
        "tie-heavy": Dataset("tie-heavy", 2, (
            Pair((_F(0, 0), _F(1, 0), _F(0, 1), _F(1, 1)), (_F(2, 2), _F(0, 0))),
            Pair((_F(0, 0), _F(1, 0), _F(0, 1)), (_F(5, -5),)),
            Pair((_F(1, 0), _F(0, 1)), (_F(0, 0), _F(1, 0))),
            Pair((_F(0, 0),), (_F(0, 0),)),
        )),
    }
    for f, exp, code in case_table():
        if code == 0:
            out[f[:-5]] = load_dataset(CASES / f)
    return out


NAMED = named_datasets()


def certificate_16(name: str) -> dict:
    """The sealed VERIFIED Theorem 1.6 certificate of the default construction on the named
    dataset ``NAMED[name]`` (with its constants)."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    from proofcheck.frontend.io.certificate_writer import theorem_certificate
    from proofcheck.kernel.verdicts import Verdict
    ds = NAMED[name]
    tc = verify(ds)
    return theorem_certificate("1.6", ds, tc.construction.net, Verdict.VERIFIED,
                               constants=tc.constants)


@pytest.fixture(params=sorted(NAMED))
def named(request):
    return request.param, NAMED[request.param]
