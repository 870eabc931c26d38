"""The built-in statements (docs/spec.md §2): ONE declaration per statement.

Each :class:`~proofcheck.frontend.registry.statement.Statement` below holds the statement's
id, paper number and flag (edit them here if you hold the papers), hypotheses,
admissibility, construction module, the checks ``lemma ID`` runs, the kernel
module that re-derives certificate instances, the statements its proof uses,
default instances and the scope of its verdict; its test file and doc page follow one
rule (:func:`statement_test_module`, ``docs/statements/<id>.md``).  ``list --where ID``
prints the four places; ``list``, ``lemma``, the reports'
catalogue and dependency graph and the README table are generated from this list;
``tests/pipeline/test_registry.py`` holds it in agreement with the kernel's own table of
trusted checks (``proofcheck.kernel.lemma_checks``).
"""
from __future__ import annotations

import re
from dataclasses import replace

from proofcheck.frontend.registry.admissibility import (
    ANY_DATASET,
    CAUSAL_THEOREM,
    NO_DATASET,
    THEOREM,
    Admissibility,
)
from proofcheck.frontend.registry.instances import authors_setting, digits_sample, generated
from proofcheck.frontend.registry.statement import Statement

PROOF_16_18 = "- (proof of 1.6/1.8)"
SEQUENCES_2D = Admissibility(min_d=2, distinct_tokens=True)
SEQUENCES = Admissibility(distinct_tokens=True)
#: seeded generated datasets in d = 2, 3, 4 (seeds seed, seed + 1, seed + 2)
GENERATED_3 = tuple(generated(d=d, N=5, style="mixed", seed_offset=k)
                    for k, d in enumerate((2, 3, 4)))
DEFAULT_SETS = {"dataset": GENERATED_3}
#: the layer lemmas' seeded datasets in d = 2..5 (seed + k); the routines add the
#: built-in configuration and the edge datasets (proofcheck.constructions.afz.instances.lemma_instances)
LAYER_SETS = {"dataset": tuple(generated(d=d, N=4, style="mixed", seed_offset=k)
                               for k, d in enumerate((2, 3, 4, 5)))}
LAYER_OWN = "the built-in configuration at seeds seed..seed + 2 and the edge datasets"
EDGES = "the edge datasets (ties, equal neighbours, negative coordinates, every round)"
#: the phase statements' seeded datasets of every generator style; the routines add
#: the edge datasets (proofcheck.constructions.afz.theorems.phase_statements.phase_sets)
PHASE_SETS = {"dataset": tuple(
    generated(d=d, N=n, style=st, seed_offset=k) for k, (d, n, st) in enumerate(
        ((2, 5, "mixed"), (3, 5, "mixed"), (4, 5, "mixed"), (5, 4, "mixed"), (2, 6, "nested"),
         (3, 6, "overlap"), (4, 5, "union"))))}
WITH_DIGITS = {"dataset": (digits_sample(limit=4),) + GENERATED_3}

AFZ_LAYERS = (
    Statement("3.1", "FF lemma", "Translation", PROOF_16_18, "project",
              module="proofcheck.constructions.afz.layers.translation", checks=("run",),
              kernel_check="translation", aliases=("translation",), scope="all-parameters",
              hypotheses=("c in Q^d; a width-1 FF with U = 0, b = 1, W = c, eta = 1",),
              admissible=ANY_DATASET, instances=LAYER_SETS,
              own_instances=LAYER_OWN),
    Statement("3.2", "FF lemma", "Single-token relocation (hat)", PROOF_16_18, "project",
              module="proofcheck.constructions.afz.layers.hat", checks=("run",), kernel_check="hat",
              aliases=("hat",),
              hypotheses=("S a finite subset of Q^d, p in S, q in Q^d",
                          "delta <= the distance from t_p to the nearest other projection "
                          "<w,x>, x in S \\ {p}"),
              admissible=ANY_DATASET, instances=LAYER_SETS,
              own_instances=LAYER_OWN),
    Statement("3.2p", "FF lemma", "Relocation, plateau variant (trapezoid)", PROOF_16_18,
              "project", module="proofcheck.constructions.afz.layers.hat", checks=("run_plateau",),
              kernel_check="hat", aliases=("plateau",), uses=("3.2",),
              hypotheses=("S a finite subset of Q^d, p in S, q in Q^d",
                          "0 < delta1 < delta2 <= the distance from t_p to the nearest "
                          "other projection"),
              admissible=ANY_DATASET, instances=LAYER_SETS,
              own_instances=LAYER_OWN),
    Statement("3.3", "FF lemma", "Interval-to-point snap", PROOF_16_18, "project",
              module="proofcheck.constructions.afz.layers.snap", checks=("run",), kernel_check="snap",
              aliases=("snap",), scope="all-parameters",
              hypotheses=("tokens on a line {t e}, kappa, y in Q^d, delta > 0",),
              admissible=ANY_DATASET, instances=LAYER_SETS,
              own_instances=LAYER_OWN),
    Statement("4.1", "SA lemma", "Hyperplane clustering", "Lemma 4.1", "spec-numbered",
              module="proofcheck.constructions.afz.layers.clustering", checks=("run",),
              kernel_check="clustering", aliases=("clustering",), scope="all-parameters",
              hypotheses=("A = u u^T with u != 0 (rank one), V = I, rho = 0, hardmax",),
              admissible=SEQUENCES_2D),
    Statement("4.2", "SA lemma", "Corner collapse", "Lemma 4.2", "spec-numbered",
              module="proofcheck.constructions.afz.layers.corner", checks=("run",), kernel_check="corner",
              aliases=("corner",), scope="all-parameters",
              hypotheses=("A = I, V = I, rho = 0, hardmax",
                          "every token in (0, R]^d and R 1 a token (or t 1 with t >= every "
                          "coordinate)"),
              admissible=SEQUENCES),
    Statement("4.3", "SA lemma", "Sphere leaders", "Lemma 4.3", "spec-numbered",
              module="proofcheck.constructions.afz.layers.sphere", checks=("run",), kernel_check="sphere",
              aliases=("sphere",),
              hypotheses=("A = I, V = I, rho = 0, hardmax",
                          "distinct tokens s on |s| = r; every other token z of the sequence "
                          "has <s, z> < r^2"),
              admissible=SEQUENCES_2D),
)

AFZ_PHASES = (
    Statement("separation", "proposition",
              "Separation: R + 1 <= N blocks make the input sequences pairwise disjoint (checked "
              "on instances)", "- (proof of 1.6)",
              "project", module="proofcheck.constructions.afz.phases.separation",
              checks=("proofcheck.constructions.afz.theorems.phase_statements:run_separation",),
              uses=("3.1", "3.2p", "4.1"), scope="dataset", admissible=THEOREM,
              hypotheses=("an admissible dataset (docs/spec.md §1)",), instances=PHASE_SETS,
              own_instances=EDGES),
    Statement("leaders", "proposition", "Leader placement, region P and sphere (checked on instances)",
              "- (proof of 1.6)", "project", module="proofcheck.constructions.afz.phases.leaders",
              checks=("proofcheck.constructions.afz.theorems.phase_statements:run_leaders",),
              uses=("3.2p", "4.2", "4.3"), scope="dataset", admissible=THEOREM,
              hypotheses=("an admissible dataset (docs/spec.md §1), after phase S",),
              instances=PHASE_SETS, own_instances=EDGES),
    Statement("collapse", "proposition", "One SA layer collapses non-leaders onto leaders (checked on instances)",
              "- (proof of 1.6)", "project", module="proofcheck.constructions.afz.phases.collapse",
              checks=("run", "proofcheck.constructions.afz.theorems.phase_statements:run_collapse"),
              uses=("4.2", "4.3"), admissible=THEOREM,
              hypotheses=("leaders placed as by phase L: a region-P leader t 1 above the "
                          "positive box, sphere leaders in the negative orthant",
                          "k = (1, c, ..., c^(d-1)) with pairwise distinct kappas"),
              instances=PHASE_SETS, own_instances=EDGES),
    Statement("interpolation", "proposition", "M snaps map leader images onto the targets (checked on instances)",
              "- (proof of 1.6)", "project", module="proofcheck.constructions.afz.phases.interpolation",
              checks=("proofcheck.constructions.afz.theorems.phase_statements:run_interpolation",), uses=("3.3",),
              scope="dataset", admissible=THEOREM,
              hypotheses=("an admissible dataset (docs/spec.md §1), after phase C",),
              instances=PHASE_SETS, own_instances=EDGES),
    Statement("tag-growth", "proposition",
              "Phase S of the default construction: the largest u-projection more than doubles "
              "every round (checked on instances)", "- (proof of 1.6, phase S)", "project",
              module="proofcheck.constructions.afz.theorems.tag_growth", checks=("run",), uses=("separation",),
              scope="dataset", admissible=THEOREM,
              hypotheses=("an admissible dataset (docs/spec.md §1); phase S as in docs/spec.md §4 (u > 0, "
                          "coordinates >= 1, tags with lam_r >= 1)",),
              instances={"dataset": generated(d=2, N=6, max_n=4, style="nested",
                                              seed_offset=7)}),
)

#: the theorems, the statements about their networks, and softmax-gap (used by 1.8)
AFZ_THEOREMS = (
    Statement("1.6", "theorem",
              "Hardmax exact interpolation, L <= 2M + 2N + 1, width <= 4, P = O(dM)",
              "Theorem 1.6", "seed-numbered", module="proofcheck.constructions.afz.theorems.theorem_1_6",
              checks=("run",), aliases=("hardmax",),
              uses=("separation", "leaders", "collapse", "interpolation"), scope="dataset",
              admissible=THEOREM, hypotheses=("an admissible dataset (docs/spec.md §1)",),
              instances=DEFAULT_SETS),
    Statement("1.8", "theorem", "Softmax exact interpolation below a temperature tau*",
              "Theorem 1.8", "seed-numbered", module="proofcheck.constructions.afz.theorems.theorem_1_8",
              checks=("run",), aliases=("softmax",), uses=("1.6", "softmax-gap"),
              scope="dataset", admissible=THEOREM,
              hypotheses=("an admissible dataset (docs/spec.md §1)",),
              instances=DEFAULT_SETS),
    Statement("1.8-collapse", "proposition",
              "The built network's collapse layer, on the rows entering it along the hardmax "
              "trajectory: hardmax maps every non-leader onto its leader's image, softmax at no "
              "tau > 0 does (checked on instances)", "- (remark in the proof of 1.8)",
              "project", module="proofcheck.constructions.afz.theorems.softmax_collapse", checks=("run",),
              uses=("collapse", "softmax-gap"), scope="dataset", admissible=THEOREM,
              hypotheses=("an admissible dataset (docs/spec.md §1) with a non-leader",),
              readings=("construction", "general"),
              instances={"dataset": (digits_sample(limit=2),) + tuple(
                  generated(d=d, N=4, max_n=6, style="mixed", seed_offset=k)
                  for k, d in enumerate((2, 3, 4)))}),
    Statement("softmax-gap", "lemma", "Softmax mass outside the argmax set under a score gap",
              "- (proof of 1.8)", "project", module="proofcheck.constructions.afz.layers.softmax_gap",
              checks=("run",),
              hypotheses=("one score row with argmax set C and gaps Delta_l > 0 outside C",
                          "tau > 0; max-norm on vectors, induced norm on V"),
              admissible=NO_DATASET),
    Statement("tikhonov", "proposition",
              "Regularised misfit is at most eps |theta*|^2 (exact |theta*|^2, J(theta*) = 0)",
              "- (seed 000 §3.4)", "project", module="proofcheck.constructions.afz.theorems.tikhonov",
              checks=("run",), uses=("1.6",), scope="dataset", admissible=THEOREM,
              hypotheses=("theta* interpolates exactly (J(theta*) = 0), eps > 0",),
              instances={"setting": authors_setting()}),
    Statement("resnet", "proposition",
              "Parameters of a ResNet construction on flattened sequences (grows with n) next to "
              "the transformer's (does not), on instances; a token-wise network cannot "
              "interpolate a token shared by sequences with disjoint targets", "- (seed 000 §5)",
              "project", module="proofcheck.constructions.resnet.checks",
              checks=("run",), uses=("3.2", "1.6"), scope="dataset", admissible=THEOREM,
              hypotheses=("an admissible dataset (docs/spec.md §1); for (a) sequences of one "
                          "length n",),
              instances={"dataset": digits_sample(),
                         "generated": generated(d=2, N=6, max_n=4, style="mixed")}),
    Statement("length-independence", "proposition",
              "L and P of the built network depend on the input lengths n_j only through "
              "R <= N - 1, so no bound on them involves n_j (same targets; checked on sweeps of "
              "instances)", "- (seed 000 §3.2)", "project",
              module="proofcheck.constructions.afz.theorems.length_independence", checks=("run",),
              uses=("1.6",), admissible=THEOREM, instances=WITH_DIGITS,
              hypotheses=("an admissible dataset (docs/spec.md §1); k tokens added to every input "
                          "sequence, targets unchanged",)),
    Statement("low-rank", "proposition",
              "Every SA layer of the built networks has A, V = lambda I + rank <= 1 (checked on "
              "instances; also by the kernel on theorem certificates)", "- (seed 000 §3.3)",
              "project", module="proofcheck.constructions.afz.theorems.low_rank", checks=("run",),
              uses=("1.6", "1.8"), admissible=THEOREM, instances=WITH_DIGITS,
              hypotheses=("an admissible dataset (docs/spec.md §1)",)),
    Statement("causal-first-token", "proposition",
              "Under a causal mask the output at position 1 depends on x_1 alone, at every "
              "depth (position i on x_1..x_i): two sequences with a common first token and "
              "disjoint targets are interpolated by no causal transformer in the all-outputs "
              "reading (symbolic SA step for three layer forms; instances; witness)",
              "- (seed 000, future work)",
              "project", module="proofcheck.constructions.causal.first_token", checks=("run",),
              uses=("1.6", "4.1"), scope="dataset", admissible=CAUSAL_THEOREM,
              hypotheses=("a causal mask (docs/spec.md §1 Extensions): token i attends to l <= i; "
                          "sequences are ordered tuples",
                          "the reading of 'T(X_j) = Y_j' is stated per check: all outputs, "
                          "or the last m_j outputs"),
              instances={"dataset": digits_sample()}),
)

TAKAKURA_SUZUKI = (
    Statement("C.1", "TS lemma", "Softmax concentration under a gap (statement reconstructed "
              "from the seed's one step)", "T-S Lemma C.1", "seed-step", module="proofcheck.constructions.ts.softmax_concentration", checks=("run",),
              scope="all-parameters", admissible=NO_DATASET,
              hypotheses=("theta in R^n with theta_{i*} >= theta_j + delta for j != i*, "
                          "delta > 0",)),
    Statement("C.3", "TS lemma", "Near-orthogonal vectors in dimension O(eps^-2 log N) "
              "(constant 4, Hoeffding and ln reconstructed)", "T-S Lemma C.3", "seed-step", module="proofcheck.constructions.ts.near_orthogonal",
              checks=("run",), scope="all-parameters", admissible=NO_DATASET,
              hypotheses=("N >= 2, 0 < eps < 1",)),
    Statement("C.4", "TS lemma",
              "Attention-score Lipschitz bound r B^2 D^3 (induced norms; attained; statement "
              "reconstructed from the seed's derivation)",
              "T-S Lemma C.4", "seed-step", module="proofcheck.constructions.ts.score_lipschitz",
              checks=("run",), scope="all-parameters", admissible=NO_DATASET,
              readings=("induced", "entrywise"),
              hypotheses=("entries of K, Q, X bounded by B, r; dimension D",)),
    Statement("E.1", "TS bound",
              "Softmax error <= 2U e^{-chi/U^2} with at most U competitors", "- (T-S App. E)",
              "project", module="proofcheck.constructions.ts.competitors", checks=("run",), uses=("C.1",),
              scope="all-parameters", admissible=NO_DATASET, readings=("at-most-U", "window"),
              hypotheses=("s_{j_h} >= s_j + chi/U^2 for every competitor j, at most U "
                          "competitors",)),
    Statement("G.1", "TS identity",
              "Polarisation identity ||x-y||^2 - ||z-y||^2 = <x-z, x+z-2y>",
              "- (T-S App. G, 1st step)", "project", module="proofcheck.constructions.ts.polarisation",
              checks=("run",), scope="all-parameters", admissible=NO_DATASET,
              readings=("identity", "literal"), hypotheses=("x, y, z in R^d",)),
    Statement("G.2", "TS bound", "Bernstein + union bound tail", "- (T-S App. G, 2nd step)",
              "project", module="proofcheck.constructions.ts.bernstein_union", checks=("run",),
              scope="all-parameters", admissible=NO_DATASET,
              hypotheses=("n independent bounded terms (|.| <= 4R^2/r), variance 8R^2, N "
                          "union events",)),
)



def statement_test_module(sid: str) -> str:
    """The name of a statement's test module: ``"1.8-collapse"`` -> ``"test_1_8_collapse"``
    (lower case, every run of other characters than letters and digits one ``_``)."""
    return "test_" + re.sub(r"[^0-9a-z]+", "_", sid.lower()).strip("_")


def _pointed(statement: Statement) -> Statement:
    """``statement`` with its test file (``tests/statements/test_<id>.py``) and doc page
    (``docs/statements/<id>.md``) declared."""
    return replace(statement, tests=f"tests/statements/{statement_test_module(statement.id)}.py",
                   doc=f"docs/statements/{statement.id}.md")


#: every built-in statement, in catalogue order (docs/spec.md §2), each with its test file
#: and doc page
STATEMENTS: tuple[Statement, ...] = tuple(
    _pointed(s) for s in AFZ_LAYERS + AFZ_PHASES + AFZ_THEOREMS + TAKAKURA_SUZUKI)
