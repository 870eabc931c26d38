"""Why each survivor is left: rules matched against a surviving mutant's module,
function and changed line (the ``+`` line of its diff).  ``export`` writes the
reason of the first matching rule into the results file's ``reasons``; a
survivor no rule explains keeps no reason, and the tests fail on it.

Every rule states what the mutant changes and why the built network is still
correct (a different valid choice) or why no check can see it."""
from __future__ import annotations

import re

VALID_POINTS = ("other points of the sphere: |v| < 1 and v < 0 still hold for every count and "
                "d, so the points are distinct, on the sphere and in the open negative orthant "
                "(the routine's contract); a different, valid set")
VALID_U = ("another candidate order or number of tries for u: every candidate is checked for "
           "injective projections, so a different valid u (and network) comes out")
VALID_LAM = ("another candidate list for the tag factor lambda: each candidate is checked "
             "exactly for injective projections before it is used; lambda = 0 (the identity "
             "tag) is accepted only where it keeps them injective, so the network is valid")
VALID_SAFE = ("a larger fallback lambda: any lambda above spread / gap keeps the projections "
              "injective, so the fallback stays valid")

RULES = [
    ("sphere", "iter_negative_orthant_points", r"eps = |a = ", VALID_POINTS),
    ("separation", "_candidates", r"for k in|randint|budget|yield|k \+=|k = ", VALID_U),
    ("separation", "_choose_u_scaled", r"tries", VALID_U),
    ("separation", "choose_u", r"tries", VALID_U),
    ("separation", "", r"for k in \(.*\)\}", VALID_LAM),
    ("separation", "", r"safe = ", VALID_SAFE),
    ("assembly", "construct", r"margin=|spacing=|r=Fraction",
     "another default region-P margin, leader spacing or sphere radius: the leaders' "
     "geometry holds for every margin, spacing and r > 0 (the construction's parameters)"),
    ("leaders", "place_leaders", r"pool = iter_negative_orthant_points",
     "a smaller or larger pool of sphere points: sphere points project below every token, "
     "only collisions among themselves use extra points, and the pool still has enough"),
    ("interpolation", "quarter_gaps", r"/ [5-9]|/ 8|\* Fraction",
     "a smaller snap half-width: the plateau still holds its kappa and the support no "
     "other value (any delta at most a quarter of the gap is valid)"),
    ("peel", "peel_ff", r"\(top, \((2|-?\d+), hi\)\)|\(bottom, \(-?(2|\d+), lo\)\)",
     "the same layer function with rescaled parameters (relu(c t) = c relu(t) for c > 0): "
     "the columns are solved for the scaled rows, the profile is unchanged"),
    ("top-collapse", "choose_mu", r"mu|bound",
     "another mu in (0, bound]: the top collapse needs only 0 < mu <= the stated bound, "
     "so a different valid mu comes out"),
    ("top-collapse", "scaled_k", r"s = int",
     "a larger scale of k: every |kappa| still exceeds every target's |y_1|, so valid"),
    ("top-collapse", "ellipsoid_points", r"Fraction\(-1, \d\)",
     "another threshold for the first eps: the points stay in the open negative orthant "
     "(checked exactly) on the ellipsoid, a different valid set"),
]


def reason(row: dict) -> str | None:
    """The reason of the first rule matching a survivor's row, or None."""
    added = " ".join(x[1:] for x in row.get("diff", "").splitlines() if x.startswith("+"))
    for module, function, pattern, why in RULES:
        if row["module"] == module and (not function or row["function"] == function) \
                and re.search(pattern, added):
            return why
    return None
