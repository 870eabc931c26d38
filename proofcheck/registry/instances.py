"""Default instances of a statement: what its checks run on when no ``--dataset``
is given.  A declaration names them (data, not code); the pipeline layer
(:mod:`proofcheck.runs.instances`) builds them, so that the construction modules
never import the dataset generators.

* :func:`generated` — a seeded random admissible dataset with heavy overlaps
  (``proofcheck.io.generate.random_dataset(seed, **params)``);
* :func:`digits_sample` — the shipped digits sample (the first ``limit`` images);
* :func:`authors_setting` — the seeded rational draw of the authors' Tikhonov
  setting (``proofcheck.io.synthetic.authors_setting(seed)``).

A statement without default instances uses its routine's own built-in instances
(the routine is called with ``dataset=None``).
"""
from __future__ import annotations

from dataclasses import dataclass

SOURCES = ("generated", "digits-sample", "authors-setting")


@dataclass(frozen=True)
class InstanceSpec:
    """``source``: one of :data:`SOURCES`; ``params``: its keyword arguments, as
    ``((name, value), ...)``."""

    source: str
    params: tuple = ()

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"unknown instance source {self.source!r}; known: "
                             + ", ".join(SOURCES))

    def describe(self) -> str:
        """``"generated (d = 2, N = 5, style = mixed; seeded)"`` and the like."""
        args = ", ".join(f"{k} = {v}" for k, v in self.params)
        seeded = self.source != "digits-sample"
        inner = "; ".join(x for x in (args, "seeded" if seeded else "") if x)
        return self.source + (f" ({inner})" if inner else "")


def generated(**params) -> InstanceSpec:
    return InstanceSpec("generated", tuple(params.items()))


def digits_sample(limit: int | None = None) -> InstanceSpec:
    return InstanceSpec("digits-sample", (("limit", limit),) if limit is not None else ())


def authors_setting() -> InstanceSpec:
    return InstanceSpec("authors-setting")
