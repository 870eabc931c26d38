"""Why each survivor is left: rules matched against a surviving mutant's module,
function and changed line (the ``+`` lines of its diff).  ``export`` writes the
reason of the first matching rule into the results file's ``reasons``; a
survivor no rule explains keeps no reason, and the tests fail on it.

A reason starts with its class: ``valid variant:`` (a different construction
that is still correct: another admissible choice of a free parameter, checked
exactly wherever it matters) or ``not caught:`` (a wrong construction that no
instance of the commands exposes; what instance would)."""
from __future__ import annotations

import re

VALID = "valid variant: "
UNCAUGHT = "not caught: "

RULES = [
    ("bounded assembly", "construct", r"one = all\(-len\(y\) == 1|one = all\(len\(y\) != 1",
     VALID + "the general path (the default phases L, C, I) also when every pair has one "
     "target: a correct, longer network"),
    ("bounded assembly", "lexicographic_u", r"mult = \(lay\.z\[lay\.content\[0\]\]\) \* "
     r"\(smax \+ [2-9]\)|mult \*= lay\.cmax\[k\] (\+ 0|\* 1)$",
     VALID + "another radix of the mixed-radix direction u (a larger one, or cmax, which still "
     "exceeds the content range cmax - 1 as contents are >= 1): the radix conclusion checks "
     "every weight above the largest difference the lower coordinates make"),
    ("bounded separation", "choose_signature", r"spread = max\(key\) - -|best\.classes > [2-9]",
     VALID + "another signature candidate (or none) within the budget: a different, still "
     "correct separation (the largest signature <= 4N and R <= N - 1 are checked)"),
    ("bounded separation", "plan_layout", r"content\[0\], units|content\[ -1\], units",
     VALID + "another content coordinate signs the attention scores (every content coordinate "
     "is >= 1 after the layout, checked)"),
    ("bounded separation", "plan_layout", r"span\[i\] = max\(q\[i\] for q in cur\) \+ 0",
     UNCAUGHT + "a fold scale one short (x_i + S x_j with S = max x_i): two points collide only "
     "when one sits at the coordinate's maximum and another at its minimum one row up; the edge "
     "dataset edge-fold-scale has such a pair (the construction raises on it there, REFUTED: "
     "a survivor of this class means that dataset no longer reaches it)"),
    ("leaders", "place_leaders", r"r=Fraction\(\(-\d+\)\), margin",
     UNCAUGHT + "a negative default radius of place_leaders puts the sphere leaders in the "
     "positive orthant; every command passes r explicitly (the default construction its "
     "stated r = 32, the bounded construction the run's scales), so no command reaches the "
     "routine's default; a caller of the bounded construction without scales does, and its "
     "sphere-leaders conclusion refutes it there (tests/pipeline/test_construction_conclusions.py)"),
    ("leaders", "place_leaders", r"r=Fraction\(\s*\d+\), margin",
     VALID + "another default sphere radius of place_leaders (used by the bounded construction's "
     "general path): the sphere leaders' geometry holds for every r > 0"),
    ("leaders", "place_leaders", r"spacing=Fraction\(\s*[2-9]\)|margin=Fraction\(\s*[2-9]\)",
     VALID + "another default region-P margin or spacing of place_leaders (used by the bounded "
     "construction's general path; the default construction passes its own): the leaders' "
     "geometry holds for every margin >= 1 and spacing > 0, and the region-P check t_j > beta "
     "passes"),
    ("top-collapse", "ellipsoid_points", r"for n in range\(\s*[2-9], 1 << 20\)",
     VALID + "the ellipsoid's candidates eps_0 / n start one later than the docstring's n = 1: "
     "other points of the same level set, each checked on it and in the open negative orthant"),
    ("bounded separation", "_rounds", r"pairs\[\(q, s\)\] -= 0",
     VALID + "the positions index keeps positions no token holds any more: every isolating "
     "direction is chosen against a superset of the real positions (checked exactly), which "
     "is still correct"),
    ("bounded separation", "plan_layout", r"span\[content\[0\]\] (\+ 0|\* 1)",
     VALID + "for d = 2 the signature stacking step S_z drops by one; contents lie in "
     "[1, c_max], so S_z = c_max still exceeds their range c_max - 1 and the stacking stays "
     "injective (checked by the layout conclusion)"),
    ("sphere", "iter_negative_orthant_points", r"eps = Fraction|a = Fraction",
     VALID + "other sphere points: |v| < 1 and v < 0 still hold for every count and d, so "
     "the points are distinct, on the sphere and in the open negative orthant (checked at "
     "count 100 in d = 2, 4, 7 by lemma 4.3)"),
    ("separation", "_candidates", r"for k in|randint|yield",
     VALID + "other candidate directions u: each is checked for injective projections and "
     "the separation conclusion checks u positive and integer"),
    ("separation", "_choose_u_scaled", r"tries|tops = |examined",
     VALID + "another rule for picking among valid directions u (each checked exactly)"),
    ("separation", "_PhaseS", r"for lam in sorted",
     VALID + "another list of candidate tag factors: each is checked exactly for injective "
     "projections before use (lambda = 0, the identity tag, only where it keeps them so)"),
    ("separation", "_PhaseS", r"safe = |lows\.append",
     VALID + "another fallback tag factor: a candidate is used only once checked injective, "
     "and a larger fallback (above spread / gap) is injective too"),
    ("separation", "_PhaseS", r"key=lambda x: \(abs\(|return max\(\(x for x, n in cnt",
     VALID + "another choice of the probe point: any point in some but not all sequences of "
     "the class splits it"),
    ("leaders", "place_leaders", r"pool = iter_negative_orthant_points",
     VALID + "another size of the pool of sphere points: they project below every token, "
     "only collisions among themselves consume extra points, and the pool still suffices"),
    ("leaders", "place_leaders", r"n_sphere = sum\(m\)",
     VALID + "a larger count of sphere leaders asked of the pool: only the pool's size "
     "changes (the leaders drawn are the same)"),
    ("leaders", "place_leaders", r"c, d1 = tp, d2 / [3-9]|else Fraction\(1\)\) / [1-9]$",
     VALID + "another plateau or support of the leader hat within the gap (0 < delta1 < "
     "delta2 <= the distance to the nearest projection: the hat fixes |t - t_p| >= delta2, so "
     "it still moves exactly the one token)"),
    ("leaders", "place_leaders", r"fmpq\(x\.denominator, x\.numerator\)",
     VALID + "the hat widths measured between reciprocal projections: after phase S every "
     "projection exceeds 1, so those gaps are smaller than the true ones and the hats narrower"),
    ("interpolation", "quarter_gaps", r"\) / [3-9]\)$",
     VALID + "a smaller snap half-width: any delta <= gap / 2 keeps every other value outside "
     "the support (snap fixes |x - kappa| >= 2 delta) and the plateau holds its kappa"),
    ("peel assembly", "_extra_leaders", r"d2 = Fraction\(int\(near\.p\), int\(near\.q\)\) / [3-9]$",
     VALID + "a narrower support of the extra-leader hat (any 0 < delta1 < delta2 <= the "
     "distance to the nearest projection moves exactly the one token)"),
    ("peel assembly", "_extra_leaders", r"plateau_ff\(u, tp, d2 / [3-9], d2",
     VALID + "a narrower plateau of the extra-leader hat (still 0 < delta1 < delta2)"),
    ("peel", "peel_ff", r"\(top, \(\s*-?\d+, hi\)\)|\(bottom, \(\s*-?\s*\d+, lo\)\)",
     VALID + "the same layer function with rescaled rows (relu(c t) = c relu(t), c > 0): the "
     "columns are solved for the scaled rows, so the profile is unchanged"),
    ("peeling", "peels", r"a = min\(\s*3,",
     UNCAUGHT + "three top points per layer: the layer count exceeds ceil(M/4) (the stated L) "
     "only on an instance with four positive kappas left in a round and no negative one to "
     "fill the slot; none of the commands' instances has one"),
    ("peeling", "peels", r"ymax, ymin = min\(y1\)",
     UNCAUGHT + "the upper edge of the fixed middle region drops to the smallest target "
     "coordinate; a placed target above it is moved again only when a later layer's first kink "
     "lies below it, which no instance reaches"),
    ("top-collapse", "choose_mu", r"/ \(4 \* len\(u\)|\*\* 4\)|mu /= [3-9]",
     VALID + "a smaller mu: the top collapse needs only 0 < mu <= the stated bound"),
    ("top-collapse", "choose_mu", r"/ \(2 \* len\(u\) / |max\(gaps\)|hi - lo >= [3-9]",
     UNCAUGHT + "a mu bound too large (by beta^4, by the largest gap, or ignoring two-token "
     "sequences); mu then exceeds the proof's bound, but the collapse still holds on every "
     "instance run: an instance with a near tie below some top would expose it"),
    ("top-collapse", "ellipsoid_points", r"point\(-eps0|Fraction\(-0, 2\)|eps0 /= [3-9]|eps0 = Fraction\(\(-1\)\)",
     VALID + "other points of the same ellipsoid (negative eps, another first-eps threshold); "
     "each is checked exactly to lie in the open negative orthant"),
    ("top-collapse", "ellipsoid_points",
     r"qw - eps \* eps \* c|qw \+ -eps|eps \* eps / c|s0 = tuple\(Fraction\(-2\)",
     UNCAUGHT + "points off the level set Q(s) = Q(s0) (wrong second intersection, or a base "
     "point at which w is no longer tangent); the extra leaders still attend to themselves on "
     "every instance run, as their levels differ by less than the score gaps there"),
    ("separation", "_choose_u_scaled", r"tops >= best",
     VALID + "ties between valid directions u broken the other way (each checked exactly)"),
    ("separation", "_PhaseS", r"H = \(gmax - tp\) // self.step \+ [2-9]|"
     r"H = \(gmax \* tp\) // self.step \+ 1",
     VALID + "a longer probe shift H u: any H above the current largest projection makes p "
     "the unique top"),
    ("separation", "_PhaseS", r"lo_n, hi_n = ",
     VALID + "a wider window of narrow classes checked against a value (only extra exact "
     "comparisons; injectivity is still decided exactly)"),
    ("peel assembly", "_extra_leaders", r"scale \+= mj > ",
     VALID + "another scale count c for the extra leaders' ellipsoid copies: the points "
     "c Q = c^2 Q(-1) stay distinct per sequence for any increasing count"),
    ("separation", "_PhaseS", r"K\.width = ",
     VALID + "a wider interval recorded for a class: it is kept among the wide classes more "
     "often, which only adds exact comparisons (injectivity is still decided exactly)"),
    ("separation", "_PhaseS", r"elif best is None or lo - tp > best",
     UNCAUGHT + "the nearest-projection search may keep a farther distance than the lower edge "
     "of the next narrow class; the probe hat is then too wide only for a point whose nearest "
     "projection is that edge, which none of the instances has"),
    ("leaders", "place_leaders", r"move\(lo, \(t\[j\],\) \* d, t\[\(j - 1\)\] \* su\)",
     UNCAUGHT + "the moved region-P leader's projection is recorded as the previous sequence's "
     "t_(j-1) sum(u) (the last one's for j = 0); a later hat width uses it only for a token whose "
     "nearest projection is that leader's, within spacing sum(u) of it: no instance has one"),
    ("peel assembly", "construct", r'"leader_rows": ',
     UNCAUGHT + "the peel construction's reported leader rows (info['leader_rows']) are wrong; "
     "no check of theorem 1.6 --construction peel reads them (the network is unchanged)"),
    ("bounded separation", "_dyadic_weights", r".",
     VALID + "another preference among the signature candidates: the power-of-two test of the "
     "attention weights serves float evaluation only (the float audit's rounding certificate "
     "decides that); every candidate used is checked exactly, as is the separation"),
    ("separation", "_PhaseS", r"pos \+= \(-1\)",
     UNCAUGHT + "the bisection walk over a narrow class steps backwards and can cycle: the "
     "construction does not terminate (a timeout, counted as a miss); no finite check "
     "refutes a construction that returns nothing"),
    ("bounded separation", "_least_injective_scale", r"range\(\s*[2-9], safe\)",
     VALID + "the fold scale search starts later: it returns another scale S keeping the points "
     "distinct (each candidate tested exactly; safe always works), not the least one"),
    ("bounded separation", "common_direction", r"range\(\s*[2-9], spread",
     VALID + "fewer candidate values k of the common direction: every direction tried is checked "
     "exactly for a unique position per sequence, and the lexicographic one always has one"),
    ("causal", "_State", r"lam \+ b",
     UNCAUGHT + "the tag factor search tests value + lam + top, whose injectivity does not "
     "depend on lam: the search never ends and the construction does not terminate (a "
     "timeout, counted as a miss); no finite check refutes a construction that returns nothing"),
    ("top-collapse", "ellipsoid_points", r"s0 = tuple\(Fraction\(-[2-9]\)",
     VALID + "another base point s0 = -c (1, ..., 1), c > 1: w stays tangent there (B(s0, e_i) "
     "scales by c), so the points lie on Q = c^2 Q(-1); every sequence's extra leaders are "
     "still on one level set (c c')^2 Q(-1) of their own (the peel conclusion checks it)"),
    ("bounded separation", "_direction_candidates", r"cands",
     VALID + "other candidate directions: each is checked exactly to isolate the point"),
    ("bounded separation", "_signature_candidates", r"seed|count|randint|range",
     VALID + "another seeded list of signature candidates: each is checked exactly"),
    ("bounded separation", "plan_layout", r"key=lambda",
     VALID + "another order of the layout's coordinate pairs (any order gives a valid layout)"),
    ("bounded separation", "_rounds", r'"g": |"t_p": |"w": ',
     UNCAUGHT + "the round statistics (sep.stats) are reported only; no check reads them"),
    ("bounded assembly", "_info", r".",
     UNCAUGHT + "a reported value of the bounded construction's info that no constant check "
     "reads (the network is unchanged)"),
    ("bounded assembly", "lexicographic_u", r"mult \*= (lay\.cmax\[k\]|smax) \+ [2-9]$|"
     r"u, mult = \[0\] \* d, [2-9]$",
     VALID + "a larger radix (or a common factor) of the mixed-radix direction u: it stays "
     "positive and injective on the separated tokens"),
    ("bounded separation", "Positions", r"range\(\s*[2-9], kmax",
     VALID + "the isolation search starts at a later candidate: it returns another k outside "
     "the excluded set (checked), not the least one"),
    ("bounded separation", "plan_layout", r"span = ",
     UNCAUGHT + "a coordinate's span read from the neighbouring coordinate; the layout is "
     "wrong only where that coordinate's range is larger, which no instance run has"),
    ("bounded assembly", "construct", r"one = all\(len\(y\) == -?[0-9]",
     VALID + "the general path (the default phases L, C, I) also when every pair has one "
     "target: a correct, longer network"),
    ("bounded separation", "_rounds", r"free \+= [2-9]",
     VALID + "another unused signature label for the new class (labels need only be distinct)"),
    ("bounded separation", "_magnitude", r"\) - smax \* _dot",
     VALID + "another ranking of the candidate directions (the magnitude estimate orders "
     "them; every direction used is checked exactly to isolate its point, and the stored "
     "scalars are checked against B_S on the network)"),
    ("bounded separation", "_split_point", r"return max\(\(x for x, n in cnt",
     VALID + "another choice of the split point (farthest from half instead of closest): any "
     "point in some but not all sequences of the class splits it"),
    ("top-collapse", "ellipsoid_points", r"x >= -Fraction\(-1, 2\)|x >= Fraction\(-1, [3-9]\)",
     VALID + "another threshold for the first eps of the ellipsoid's candidates: other points "
     "of the same level set, each checked exactly to lie in the open negative orthant"),
    ("bounded separation", "_split_point", r"key=lambda",
     VALID + "another choice of the split point: any point in some but not all sequences splits"),
    ("bounded separation", "separate_bounded", r"choose_signature\(.*0 \* N",
     VALID + "no budget for the signature search: the construction takes its path without a "
     "signature tag, still correct"),
    ("bounded separation", "plan_layout", r"cur = ",
     UNCAUGHT + "fold offsets read from the neighbouring coordinate; wrong only where the two "
     "coordinates' minima differ enough to fold a point onto another; the edge dataset "
     "edge-fold-offsets has such minima (the layout conclusion refutes the mutant there: a "
     "survivor of this class means that dataset no longer reaches it)"),
    ("flag collapse", "_snaps", r"\) / [3-9]$",
     VALID + "a smaller snap half-width (any delta <= gap / 2 keeps the support clear)"),
    ("flag collapse", "_snaps", r"y\[\s*-1\]|all\(v != 0",
     UNCAUGHT + "the snaps' forbidden values or skip rule read the wrong coordinates; wrong only "
     "where a target's first coordinate lies near another kappa, which no instance has"),
    ("flag collapse", "assign_kappas", r"all\(v == [1-9]",
     UNCAUGHT + "targets on the e_1 axis no longer recognised as their own kappa; the snaps "
     "still place them on every instance run"),
    ("bounded assembly", "lexicographic_u", r".",
     UNCAUGHT + "another mixed-radix direction u for the general path; the leaders need it "
     "injective on the separated tokens, which it stays on every instance run (a radix "
     "below a coordinate's range would break it on an instance with that range)"),
    ("top-collapse", "scaled_k", r"s = int",
     VALID + "a larger scale of k: every |kappa| still exceeds every target's |y_1|"),
]


def reason(row: dict) -> str | None:
    """The reason of the first rule matching a survivor's row, or None."""
    added = [x[1:].strip() for x in row.get("diff", "").splitlines() if x.startswith("+")]
    for module, function, pattern, why in RULES:
        if row["module"] == module and row["function"] == function \
                and any(re.search(pattern, a) for a in added):
            return why
    return None
