"""Hypothesis strategies shared by the tests."""
from __future__ import annotations

from hypothesis import strategies as st

from proofcheck.frontend.io.generate import STYLES, random_dataset


def admissible_datasets(min_d: int = 2, max_d: int = 6, max_N: int = 8, max_n: int = 6):
    """Hypothesis strategy of admissible datasets (:func:`random_dataset` of every style)."""
    return st.builds(random_dataset,
                     seed=st.integers(0, 2 ** 32 - 1),
                     d=st.integers(min_d, max_d),
                     N=st.integers(1, max_N),
                     max_n=st.integers(1, max_n),
                     coord_range=st.integers(1, 3),
                     style=st.sampled_from(STYLES))
