"""Instances on which the lemma checks run: the user's dataset (``--dataset``)
or a small built-in configuration that exercises ties, overlaps and signs; and
:func:`scoped`, which runs a check on each of several instances (the defaults the
registry declares) and says so in every check line."""
from __future__ import annotations

from fractions import Fraction

from proofcheck.kernel.model import ParameterError
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Scope, Verdict, Witness, combine

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


def naming_dataset(results: list, dataset) -> list:
    """``results`` (CheckResults of checks run on the user's ``dataset``) with each name
    prefixed by the dataset's name in quotes, as :func:`lemma_instances` labels them:
    a ``--dataset`` run says which checks used the data (``None``: unchanged)."""
    if dataset is not None and not isinstance(dataset, (list, tuple)):
        for r in results:
            r.name = f"'{dataset.name}': {r.name}"
    return results


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
    datasets).  On the instances a statement declares by default (a list), a check
    "on this dataset" holds on one generated instance: its scope is "on these
    instances only"; on the user's one dataset it stays "on this dataset"."""
    sets = datasets_of(dataset)
    generated = isinstance(dataset, (list, tuple))
    out = []
    for ds in sets:
        for r in check(ds):
            r.name = f"'{ds.name}' (d = {ds.d}): {r.name} (on this instance)"
            if generated and r.scope is Scope.DATASET:
                r.scope = Scope.INSTANCES
            out.append(r)
    scope = "on this instance" if len(sets) == 1 else f"on these {len(sets)} instances"
    head = CheckResult(f"{name}: checked {scope}", combine(r.verdict for r in out),
                       [", ".join(f"'{ds.name}' (d = {ds.d}, N = {ds.N})" for ds in sets)])
    return [head] + out


def lemma_instances(dataset, seed: int) -> list:
    """``(label, dataset or None, seed)`` instances of a layer lemma: the user's
    dataset (a :class:`~proofcheck.kernel.dataset.Dataset`) at three seeds;
    otherwise the built-in configuration (``None``) at three seeds, then the
    default instances the registry declares (a list: seeded datasets in d = 2..5,
    the k-th at ``seed + k``) and the edge datasets (:mod:`proofcheck.constructions.afz.edges`)."""
    if dataset is not None and not isinstance(dataset, (list, tuple)):
        return [(f"'{dataset.name}' seed {s}", dataset, s) for s in (seed, seed + 1, seed + 2)]
    from proofcheck.constructions.afz.edges import edge_datasets
    out = [(f"built-in seed {s}", None, s) for s in (seed, seed + 1, seed + 2)]
    out += [(f"'{ds.name}' (d = {ds.d}) seed {seed + k}", ds, seed + k)
            for k, ds in enumerate(dataset or ())]
    return out + [(f"'{ds.name}' (d = {ds.d})", ds, seed) for ds in edge_datasets()]


def user_dimension(dataset, default: int = 2) -> int:
    """The dimension of the user's dataset; ``default`` for the built-in and
    default instances (``None`` or the registry's list)."""
    return default if dataset is None or isinstance(dataset, (list, tuple)) else dataset.d


def each_instance(fn, dataset, seed: int) -> list:
    """``fn(dataset, seed)`` (one CheckResult) on every instance of
    :func:`lemma_instances`, each named by its instance; a construction raising on
    an instance (admissible by construction) is REFUTED with that instance as
    witness."""
    out = []
    for label, ds, s in lemma_instances(dataset, seed):
        try:
            r = fn(ds, s)
        except Exception as exc:  # noqa: BLE001  (any failure on an admissible input refutes)
            r = CheckResult("the construction builds the layer", Verdict.REFUTED,
                            ["the construction raised on an admissible input"],
                            Witness(f"construction raised on an admissible input "
                                    f"({type(exc).__name__}: {str(exc)[:160]})", got=label))
        r.name = f"{label}: {r.name}"
        out.append(r)
    return out


def rejections_check(statement: str, cases) -> "CheckResult":
    """The construction's own hypothesis checks: each ``(label, call, message)``
    must raise ``ParameterError`` with exactly ``message`` (a violated hypothesis
    is never a layer), or, with ``message`` None, return without raising."""
    for label, call, message in cases:
        try:
            call()
            got = None
        except ParameterError as exc:
            got = str(exc)
        if got != message:
            return CheckResult(f"{statement} hypotheses rejected", Verdict.REFUTED, [], Witness(
                f"{label}: the construction's hypothesis check", expected=message, got=got))
    return CheckResult(f"{statement} for these {len(cases)} parameter sets: every violated "
                       "hypothesis rejected with its message, every valid one accepted",
                       Verdict.VERIFIED, [])
