"""Instances on which the lemma checks run: the user's dataset (``--dataset``)
or a small built-in configuration that exercises ties, overlaps and signs; and
:func:`scoped`, which runs a check on each of several instances (the defaults the
registry declares) and says so in every check line."""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.verdicts import CheckResult, combine

F = Fraction

BUILTIN = [
    [(F(0), F(0)), (F(1), F(0)), (F(0), F(1)), (F(2), F(-1))],
    [(F(0), F(0)), (F(1), F(1)), (F(-1), F(1)), (F(1, 2), F(3))],
    [(F(3), F(-2)), (F(-2), F(-1, 3)), (F(1), F(0))],
]
BUILTIN_TARGETS = [(F(5), F(5)), (F(-1), F(2)), (F(7, 2), F(-7))]


def input_sequences(dataset):
    """``(sequences, d)``: the dataset's input sequences or the built-in ones."""
    if dataset is None:
        return [list(s) for s in BUILTIN], 2
    return [list(p.inputs) for p in dataset.pairs], dataset.d


def distinct_points(seqs):
    return list(dict.fromkeys(x for s in seqs for x in s))


def targets(dataset):
    if dataset is None:
        return list(BUILTIN_TARGETS)
    return list(dict.fromkeys(y for p in dataset.pairs for y in p.outputs))


def into_positive_box(seqs):
    """The sequences (``(n_j, d)`` rationals) translated by one common vector so that
    every coordinate is at least 1 (the positive box of Lemmas 4.2/4.3 and the tag);
    translation keeps distinctness inside each sequence."""
    lo = min(v for s in seqs for x in s for v in x)
    return [[tuple(v - lo + 1 for v in x) for x in s] for s in seqs]


def datasets_of(dataset) -> list:
    """``[dataset]`` for one dataset, the list itself for the several instances a
    statement declares by default (the registry builds them)."""
    return list(dataset) if isinstance(dataset, (list, tuple)) else [dataset]


def scoped(name: str, check, dataset) -> list[CheckResult]:
    """Run ``check(ds)`` on every instance; each check line names its instance and
    says "on this instance", and a first line states the scope of the whole run
    ("on these N instances": the statement is checked there, not proved for all
    datasets)."""
    sets = datasets_of(dataset)
    out = []
    for ds in sets:
        for r in check(ds):
            r.name = f"'{ds.name}' (d = {ds.d}): {r.name} (on this instance)"
            out.append(r)
    scope = "on this instance" if len(sets) == 1 else f"on these {len(sets)} instances"
    head = CheckResult(f"{name}: checked {scope}", combine(r.verdict for r in out),
                       [", ".join(f"'{ds.name}' (d = {ds.d}, N = {ds.N})" for ds in sets)])
    return [head] + out
