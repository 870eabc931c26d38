"""The data a run is about: a dataset from ``--dataset`` / ``--example`` checked
against the statement's own admissibility rules, and the statement's default
instances (:mod:`proofcheck.frontend.registry.instances`) built from the generators in
:mod:`proofcheck.frontend.io`.
"""
from __future__ import annotations

from dataclasses import dataclass

from proofcheck.kernel.errors import BadInput


@dataclass(frozen=True)
class DataRequest:
    """What the command line asked for: a dataset file, or a built-in example with
    an optional image limit and task (``None`` everywhere: the default instances)."""

    dataset: str | None = None
    example: str | None = None
    limit: int | None = None
    task: str = "label"


def load(statement, request: DataRequest):
    """``(dataset, info)`` for ``request`` checked against ``statement``'s
    admissibility, or ``(None, {})`` when no data was asked for.  Raises
    ``BadInput``/``Inadmissible`` (exit 2) for misuse, unreadable files and datasets
    the statement does not admit.  Progress on stderr while it reads and checks
    (:func:`proofcheck.frontend.progress.phase`: a line at least every few seconds)."""
    from proofcheck.frontend.progress import phase
    with phase("loading the dataset"):
        return _load(statement, request)


def _load(statement, request: DataRequest):
    from proofcheck.frontend.io.examples import EXAMPLES
    from proofcheck.frontend.io.datasets import load_dataset
    if request.dataset is not None and request.example is not None:
        raise BadInput("give either --dataset or --example, not both")
    if request.dataset is None and request.example is None:
        return None, {}
    if not getattr(statement.admissible, "takes_dataset", True):
        statement.check_admissible(None)  # raises: the statement takes no dataset
    if request.dataset is not None:
        if not request.dataset.strip():
            raise BadInput("--dataset is empty")
        if request.limit is not None or request.task != "label":
            raise BadInput("--limit and --task apply to --example (or the default sample) only")
        ds, info = load_dataset(request.dataset, admissible=False), {}
    else:
        if not request.example.strip():
            raise BadInput("--example is empty")
        if request.example not in EXAMPLES:
            raise BadInput(f"unknown example {request.example!r}; known: {', '.join(EXAMPLES)}")
        _check_limit(request.limit)
        ds, info = EXAMPLES[request.example](limit=request.limit, task=request.task)
    statement.check_admissible(ds)
    return ds, info


def theorem_data(statement, request: DataRequest):
    """``(dataset, info)`` for a theorem run: as :func:`load`, the shipped digits
    sample (``--limit``, ``--task`` apply) when nothing was asked for."""
    ds, info = load(statement, request)
    if ds is not None:
        return ds, info
    from proofcheck.frontend.io.examples import sample
    from proofcheck.frontend.progress import phase
    _check_limit(request.limit)
    with phase("loading the dataset"):
        ds, info = sample(limit=request.limit, task=request.task)
        statement.check_admissible(ds)
    return ds, info


def _check_limit(limit) -> None:
    if limit is not None and limit < 1:
        raise BadInput(f"--limit must be at least 1 (got {limit})")


def defaults(statement, seed: int) -> dict:
    """The statement's default instances built for ``seed``: keyword -> object
    (``"dataset"`` a :class:`~proofcheck.kernel.dataset.Dataset`, or a list of them
    for a tuple of specs)."""
    return {name: [build(s, seed) for s in spec] if isinstance(spec, tuple) else build(spec, seed)
            for name, spec in statement.instances.items()}


def build(spec, seed: int):
    """One default instance (see :mod:`proofcheck.frontend.registry.instances`)."""
    params = dict(spec.params)
    if spec.source == "generated":
        from proofcheck.frontend.io.generate import random_dataset
        return random_dataset(seed + params.pop("seed_offset", 0), **params)
    if spec.source == "digits-sample":
        from proofcheck.frontend.io.examples import sample
        return sample(**params)[0]
    if spec.source == "authors-setting":
        from proofcheck.frontend.io.synthetic import authors_setting
        try:
            return authors_setting(seed, **params)
        except ValueError as e:  # a seed torch.manual_seed would not take the same way
            raise BadInput(str(e), "--seed") from None
    raise ValueError(f"unknown instance source {spec.source!r}")  # excluded by InstanceSpec
