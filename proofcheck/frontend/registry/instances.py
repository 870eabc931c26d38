"""Default instances of a statement: what its checks run on when no ``--dataset``
is given.  A declaration names them (data, not code); the pipeline layer
(:mod:`proofcheck.frontend.runs.instances`) builds them, so that the construction modules
never import the dataset generators.

* :func:`generated` — a seeded random admissible dataset with heavy overlaps
  (``proofcheck.frontend.io.generate.random_dataset(seed + seed_offset, **params)``);
* :func:`digits_sample` — the shipped digits sample (the first ``limit`` images);
* :func:`authors_setting` — the seeded rational draw of the authors' Tikhonov
  setting (``proofcheck.frontend.io.synthetic.authors_setting(seed)``).

A default instance is one spec or a tuple of specs (the routine then gets the
list of instances).  A statement without default instances uses its routine's own
built-in instances (the routine is called with ``dataset=None``).
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
        args = ", ".join(f"{k} = {v}" for k, v in self.params if k != "seed_offset")
        seeded = self.source != "digits-sample"
        inner = "; ".join(x for x in (args, "seeded" if seeded else "") if x)
        return self.source + (f" ({inner})" if inner else "")


def generated(seed_offset: int = 0, **params) -> InstanceSpec:
    """A seeded random admissible dataset: ``random_dataset(seed + seed_offset,
    **params)``."""
    extra = (("seed_offset", seed_offset),) if seed_offset else ()
    return InstanceSpec("generated", tuple(params.items()) + extra)


def describe(spec) -> str:
    """One spec or a tuple of specs, in words."""
    if isinstance(spec, tuple):
        return "[" + "; ".join(s.describe() for s in spec) + "]"
    return spec.describe()


def digits_sample(limit: int | None = None) -> InstanceSpec:
    return InstanceSpec("digits-sample", (("limit", limit),) if limit is not None else ())


def authors_setting() -> InstanceSpec:
    return InstanceSpec("authors-setting")
