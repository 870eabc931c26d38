"""Seeded counterexample search over exact instances.

An instance generator is written once against a tiny drawing interface
(``integer``, ``fraction``, ``choice``, ``boolean``) and runs either under
hypothesis (``hypothesis.find`` with a seeded ``random.Random``: deterministic,
no example database, and a found counterexample is *shrunk* to a small one) or,
when hypothesis is not installed (it is a test extra), under ``random.Random(seed)``.
Hypothesis writes nothing in the working directory: its storage (the cache of
constants it collects from local modules, ``.hypothesis/``) points, for the search
only, at a temporary folder removed afterwards (:func:`_temporary_storage`).

A check returns ``(t, info)`` with ``t`` three-valued (``True`` holds, ``False``
refuted, ``None`` undecided).  The search looks for any instance where ``t`` is not
``True``; an undecided instance is reported as such, never as a pass.
"""
from __future__ import annotations

import math
import random
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable


class RandomDraw:
    """Drawing interface on ``random.Random``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def fraction(self, lo, hi, max_den: int = 20) -> Fraction:
        den = self.rng.randint(1, max_den)
        a, b = math.ceil(Fraction(lo) * den), math.floor(Fraction(hi) * den)
        return Fraction(self.rng.randint(a, b), den)

    def choice(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def boolean(self) -> bool:
        return self.rng.random() < 0.5


class HypothesisDraw:
    """Drawing interface on hypothesis' ``draw`` (inside ``st.composite``)."""

    def __init__(self, draw):
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        from hypothesis import strategies as st
        return self.draw(st.integers(lo, hi))

    def fraction(self, lo, hi, max_den: int = 20) -> Fraction:
        from hypothesis import strategies as st
        den = self.draw(st.integers(1, max_den))
        a, b = math.ceil(Fraction(lo) * den), math.floor(Fraction(hi) * den)
        return Fraction(self.draw(st.integers(a, b)), den)

    def choice(self, seq):
        from hypothesis import strategies as st
        return self.draw(st.sampled_from(list(seq)))

    def boolean(self) -> bool:
        from hypothesis import strategies as st
        return self.draw(st.booleans())


def strategy(gen: Callable[[Any], Any]):
    """A hypothesis strategy from a generator ``gen(drawer) -> instance``."""
    from hypothesis import strategies as st

    @st.composite
    def _s(draw):
        return gen(HypothesisDraw(draw))
    return _s()


def hypothesis_available() -> bool:
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def _temporary_storage():
    """Hypothesis' storage folder set to a fresh temporary folder while the block runs,
    then set back to what it was (a test run's own setting included) and the folder
    removed: the search leaves no ``.hypothesis/`` in the working directory (with
    ``database=None`` hypothesis still caches the constants of local modules there)."""
    import tempfile

    from hypothesis import configuration
    before = getattr(configuration, "__hypothesis_home_directory", None)
    with tempfile.TemporaryDirectory(prefix="proofcheck-hypothesis-") as folder:
        configuration.set_hypothesis_home_dir(folder)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(before)


@dataclass
class Outcome:
    """Result of a search: ``checked`` instances; the first instance that was refuted
    (``counterexample``, with its ``info``) or undecided (``undecided``)."""

    method: str
    checked: int = 0
    counterexample: Any = None
    undecided: Any = None
    info: dict = field(default_factory=dict)

    @property
    def t(self) -> bool | None:
        if self.counterexample is not None:
            return False
        if self.undecided is not None:
            return None
        return True


def search(gen: Callable[[Any], Any], check: Callable[[Any], tuple], seed: int,
           max_examples: int = 60, use_hypothesis: bool | None = None) -> Outcome:
    """Search ``max_examples`` instances of ``gen`` for one where ``check`` is not
    ``True``.  Deterministic for a given ``seed``."""
    if use_hypothesis is None:
        use_hypothesis = hypothesis_available()
    count = [0]

    def bad(inst) -> bool:
        count[0] += 1
        return check(inst)[0] is not True

    if use_hypothesis:
        from hypothesis import HealthCheck, Phase, find, settings
        from hypothesis.errors import NoSuchExample
        out = Outcome(f"hypothesis.find, {max_examples} examples, random seed {seed}")
        s = settings(max_examples=max_examples, database=None, deadline=None,
                     suppress_health_check=list(HealthCheck),
                     phases=[Phase.generate, Phase.shrink])
        try:
            with _temporary_storage():
                inst = find(strategy(gen), bad, settings=s, random=random.Random(seed))
        except NoSuchExample:
            out.checked = count[0]
            return out
        out.checked = count[0]
    else:
        rng = random.Random(seed)
        out = Outcome(f"seeded random search (hypothesis not installed), {max_examples} "
                      f"examples, seed {seed}")
        inst = None
        for _ in range(max_examples):
            cand = gen(RandomDraw(rng))
            if bad(cand):
                inst = cand
                break
        out.checked = count[0]
        if inst is None:
            return out
    t, info = check(inst)
    out.info = info
    if t is False:
        out.counterexample = inst
    elif t is None:
        out.undecided = inst
    return out
