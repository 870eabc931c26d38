"""The one table of named cases the per-statement tests share (like a compiler's
table of test programs).  Every catalogue statement has at least one VERIFIED case
and one REFUTED case: each case names a statement, the dataset it runs on (a name
of ``conftest.named_datasets()``, or ``None`` for the statement's default instances),
an optional mutation of the construction (a parameter or an input of the layer it
builds changed), the verdict ``lemma ID`` must give and the structured fields of the
first witness when it refutes.  ``tests/statements/test_<id>.py`` runs the cases of
its statement (:func:`cases_of`); ``test_statement_cases.py`` checks the table."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction as F

from proofcheck.kernel.model import FF, Factored, Transformer
from proofcheck.kernel.verdicts import Verdict

VERIFIED, REFUTED = Verdict.VERIFIED, Verdict.REFUTED
L = "proofcheck.constructions.afz.layers."  # the layer lemmas' modules


def _snap_off_target(real):
    """Every snap aims one unit above its target in each coordinate."""
    return lambda axis, d, kappa, delta, y, *r, **kw: real(axis, d, kappa, delta,
                                                           tuple(v + 1 for v in y), *r, **kw)


def _hat_four_times_wider(real):
    """Every hat of Lemma 3.2 gets four times its half-width delta: it reaches other
    points of S."""
    return lambda w, t_p, delta, shift, *a, **k: real(w, t_p, 4 * delta, shift, *a, **k)


def _plateau_four_times_wider(real):
    """Every plateau hat of 3.2p gets four times its outer half-width delta2."""
    return lambda w, t_p, d1, d2, shift, *a, **k: real(w, t_p, d1, 4 * d2, shift, *a, **k)


def _ff_doubled(real):
    """The FF layer the routine returns with every entry of W doubled."""
    def mutated(*a, **k):
        ff = real(*a, **k)
        return FF(ff.eta, ff.U, ff.b, tuple(tuple(2 * x for x in w) for w in ff.W), ff.label)
    return mutated


def _first_coordinate_plus_one(real):
    """The routine's vector argument (c, u) with its first coordinate raised by 1."""
    return lambda c, *a, **k: real((c[0] + 1,) + tuple(c[1:]), *a, **k)


def _rho_one(real):
    """The SA layer the routine returns with rho = 1 instead of 0."""
    return lambda *a, **k: dataclasses.replace(real(*a, **k), rho=F(1))


def _k_doubled(real):
    """The collapse layer built for the direction 2 k instead of k."""
    return lambda k, *a, **kw: real(tuple(2 * x for x in k), *a, **kw)


def _growth_stalls(real):
    """The measured growth with g_1 = g_0: round 1 does not double."""
    return lambda net, inputs, u, rounds: (lambda g: [g[0], g[0]] + g[2:])(
        real(net, inputs, u, rounds))


def _collapse_rho_one(real):
    """The collapse layer entering the 1.8-collapse checks with rho = 1."""
    return lambda c, inputs: (lambda t: (dataclasses.replace(t[0], rho=F(1)),) + tuple(t[1:]))(
        real(c, inputs))


def _sq_norm_plus_one(real):
    """||theta*||^2 of the authors' network reported one too large."""
    return lambda net: (lambda r: (r[0] + 1, r[1]))(real(net))


def _size_moves(real):
    """The measured L grows by one on every dataset with added tokens."""
    def mutated(ds):
        r = real(ds)
        if "+" in ds.name:
            r["L"] += 1
        return r
    return mutated


def _rank_two_first_sa(real):
    """The checked network with block 1's A = e2 e1^T - e1 e2^T (rank 2, no c I part)."""
    def mutated(title, net):
        e = [tuple(F(int(i == k)) for i in range(net.d)) for k in range(2)]
        blk = net.blocks[0]
        sa = dataclasses.replace(blk.sa, A=Factored(F(0), (e[1], tuple(-x for x in e[0])),
                                                    (e[0], e[1])))
        return real(title, Transformer(net.d, [dataclasses.replace(blk, sa=sa)]
                                       + list(net.blocks[1:])))
    return mutated


def _unmasked(real):
    """The seeded random causal networks built without their mask."""
    from proofcheck.constructions.causal import with_mask
    return lambda rng, d, *a, **k: with_mask(real(rng, d, *a, **k), False)


def _images_shifted(real):
    """The relocation chain of the ResNet aims every image one unit off."""
    return lambda points, images, *a, **k: real(
        points, [tuple(x + 1 for x in im) for im in images], *a, **k)


def _comparison_false(real):
    """Every rigorous comparison answers "no"."""
    return lambda *a, **k: False


def _divided_by_100(real):
    return lambda *a, **k: real(*a, **k) / 100


def _quartered(real):
    return lambda *a, **k: real(*a, **k) / 4


def _constant_three(real):
    """The union bound proved for the constant 3 instead of the least one, 4."""
    return lambda *a, **k: real(3)


def _factor_one(real):
    """E.1's bound with the factor 2 dropped."""
    return lambda inst, factor=2: real(inst, factor=1)


def _rhs_plus_one(real):
    """The right-hand side of the polarisation identity off by one."""
    return lambda x, y, z: (lambda s: (s[0], s[1] + 1))(real(x, y, z))


@dataclass(frozen=True)
class Case:
    statement: str
    name: str
    dataset: str | None
    verdict: Verdict
    #: ``(module, attribute, wrapper)``: ``module.attribute`` replaced by ``wrapper(real)``
    mutation: tuple | None = None
    #: fields of the first witness of the run (``Witness`` attributes)
    witness: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.statement}-{self.name}"


CASES = [
    # phase statements of the Theorem 1.6 construction
    Case("separation", "every-round-needed", "common-top", VERIFIED),
    Case("separation", "overlaps-in-4d", "overlap-4d", VERIFIED),
    Case("leaders", "ties", "tie-heavy", VERIFIED),
    Case("collapse", "lattice", "lattice-builtin", VERIFIED),
    Case("interpolation", "square", "square-builtin", VERIFIED),
    Case("interpolation", "snap-off-target", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.phases.interpolation", "snap_ff", _snap_off_target),
         {"code": "claim-mismatch", "block": 6, "sublayer": "FF", "sequence": 0, "token": 0,
          "coordinate": 0, "expected": F(1), "got": F(2)}),
    Case("tag-growth", "rounds", "needs-rounds", VERIFIED),
    Case("tag-growth", "every-round-needed", "common-top", VERIFIED),
    # layer lemmas on datasets the theorems would refuse (repeated tokens) or in 3-d
    Case("3.2", "ties", "tie-heavy", VERIFIED),
    Case("3.2", "hat-too-wide", "tie-heavy", REFUTED,
         ("proofcheck.constructions.afz.layers.hat", "hat_ff", _hat_four_times_wider),
         {"code": "layer-output", "sequence": 0, "token": 0, "coordinate": 0, "expected": F(0),
          "got": F(1, 14)}),
    Case("4.1", "union-3d", "union-3d", VERIFIED),
    Case("1.8-collapse", "square", "square-builtin", VERIFIED),
    Case("softmax-gap", "built-in", None, VERIFIED),
    # one VERIFIED and one REFUTED case for every other statement
    Case("3.1", "square", "square-builtin", VERIFIED),
    Case("3.1", "w-doubled", "square-builtin", REFUTED,
         (f"{L}translation", "translation_ff", _ff_doubled),
         {"code": "layer-output", "sequence": 0, "token": 0, "coordinate": 0,
          "expected": F(11, 4), "got": F(7, 2)}),
    Case("3.2p", "ties", "tie-heavy", VERIFIED),
    Case("3.2p", "plateau-too-wide", "tie-heavy", REFUTED,
         (f"{L}hat", "plateau_ff", _plateau_four_times_wider),
         {"code": "layer-output", "sequence": 0, "token": 1, "coordinate": 0, "expected": F(1),
          "got": F(53, 49)}),
    Case("3.3", "square", "square-builtin", VERIFIED),
    Case("3.3", "snap-off-target", "square-builtin", REFUTED,
         (f"{L}snap", "snap_ff", _snap_off_target),
         {"code": "layer-output", "sequence": 0, "token": 1, "coordinate": 0, "expected": F(1),
          "got": F(2)}),
    Case("4.1", "u-moved", "square-builtin", REFUTED,
         (f"{L}clustering", "cluster_sa", _first_coordinate_plus_one),
         {"code": "layer-output", "sequence": 0, "token": 0, "coordinate": 0,
          "expected": F(5, 2), "got": F(2)}),
    Case("4.2", "square", "square-builtin", VERIFIED),
    Case("4.2", "rho-one", "square-builtin", REFUTED, (f"{L}corner", "corner_sa", _rho_one),
         {"code": "layer-output", "sequence": 0, "token": 0, "coordinate": 0, "expected": F(3),
          "got": F(6)}),
    Case("4.3", "square", "square-builtin", VERIFIED),
    Case("4.3", "rho-one", "square-builtin", REFUTED, (f"{L}sphere", "sphere_sa", _rho_one),
         {"code": "layer-output", "sequence": 0, "token": 0, "coordinate": 0,
          "expected": F(-4400, 1721), "got": F(-8800, 1721)}),
    Case("separation", "translation-moved", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.phases.separation", "translation_ff",
          _first_coordinate_plus_one),
         {"code": "claim-mismatch", "block": 1, "sublayer": "FF", "sequence": 0, "token": 0,
          "coordinate": 0, "expected": F(3), "got": F(4)}),
    Case("leaders", "plateau-too-wide", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.phases.leaders", "plateau_ff", _plateau_four_times_wider),
         {"code": "claim-mismatch", "block": 3, "sublayer": "FF", "sequence": 0, "token": 3,
          "coordinate": 0, "expected": F(36), "got": F(40)}),
    Case("collapse", "k-doubled", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.phases.collapse", "collapse_sa", _k_doubled),
         {"code": "layer-output", "sequence": 0, "token": 0, "coordinate": 0, "expected": F(42),
          "got": F(84)}),
    Case("tag-growth", "round-1-stalls", "needs-rounds", REFUTED,
         ("proofcheck.constructions.afz.theorems.tag_growth", "growth", _growth_stalls),
         {"block": 2, "sublayer": "SA", "expected": F(2048), "got": F(1024)}),
    Case("1.6", "square", "square-builtin", VERIFIED),
    Case("1.6", "snap-off-target", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.phases.interpolation", "snap_ff", _snap_off_target),
         {"code": "claim-mismatch", "block": 6, "sublayer": "FF", "sequence": 0, "token": 0,
          "coordinate": 0, "expected": F(1), "got": F(2)}),
    Case("1.8", "square", "square-builtin", Verdict.VERIFIED_CERTIFIED),
    Case("1.8", "snap-off-target", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.phases.interpolation", "snap_ff", _snap_off_target),
         {"code": "output-not-target", "sequence": 0, "token": 0, "got": (F(2), F(10))}),
    Case("1.8-collapse", "rho-one", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.theorems.softmax_collapse", "collapse_input",
          _collapse_rho_one),
         {"block": 5, "sublayer": "SA", "sequence": 0, "token": 1,
          "expected": (F(318), F(106)), "got": (F(246), F(36))}),
    Case("softmax-gap", "comparison-false", None, REFUTED,
         ("proofcheck.constructions.ts.balls", "le", _comparison_false),
         {"expected": "[0.286337789898025520 +/- 5.23e-19]",
          "got": "[0.222599220940811324 +/- 3.84e-19]"}),
    Case("tikhonov", "authors-setting", None, VERIFIED),
    Case("tikhonov", "sq-norm-plus-one", None, REFUTED,
         ("proofcheck.constructions.afz.theorems.tikhonov", "authors_sq_norm", _sq_norm_plus_one),
         {"expected": (F(8800543578574527, 140737488355328),
                       F(760372494732545679, 140737488355328)),
          "got": (F(8941281066929855, 140737488355328),
                  F(760372494732545679, 140737488355328))}),
    Case("resnet", "digits", None, VERIFIED),
    Case("resnet", "images-shifted", None, REFUTED,
         ("proofcheck.constructions.resnet.flattened", "relocation_chain", _images_shifted),
         {"code": "output-not-target", "sequence": 0, "token": 0}),
    Case("length-independence", "ties", "tie-heavy", VERIFIED),
    Case("length-independence", "size-moves", "tie-heavy", REFUTED,
         ("proofcheck.constructions.afz.theorems.length_independence", "row", _size_moves),
         {"expected": (13, 305), "got": (14, 305)}),
    Case("low-rank", "square", "square-builtin", VERIFIED),
    Case("low-rank", "rank-two", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.theorems.low_rank", "check_network", _rank_two_first_sa),
         {"block": 1, "sublayer": "SA"}),
    Case("causal-first-token", "built-in", None, VERIFIED),
    Case("causal-first-token", "unmasked", None, REFUTED,
         ("proofcheck.constructions.causal.first_token", "random_network", _unmasked),
         {"code": "prefix-output-differs", "sequence": 1, "token": 0,
          "expected": (F(1745), F(805)), "got": (F(3002), F(1375))}),
    Case("C.1", "built-in", None, VERIFIED),
    Case("C.1", "weak-bound-too-small", None, REFUTED,
         ("proofcheck.constructions.ts.softmax_concentration", "weak_bound", _divided_by_100),
         {"expected": (F(0), F(1, 10)), "got": (F(9, 10), F(1))}),
    Case("C.3", "built-in", None, VERIFIED),
    Case("C.3", "constant-three", None, REFUTED,
         ("proofcheck.constructions.ts.near_orthogonal", "union_bound", _constant_three),
         {"expected": F(1), "got": (F(52132183, 50000000), F(104264367, 100000000))}),
    Case("C.4", "built-in", None, VERIFIED),
    Case("C.4", "bound-quartered", None, REFUTED,
         ("proofcheck.constructions.ts.score_lipschitz", "lemma_bound", _quartered),
         {"expected": F(324), "got": F(324)}),
    Case("E.1", "built-in", None, VERIFIED),
    Case("E.1", "factor-one", None, REFUTED,
         ("proofcheck.constructions.ts.competitors", "check_instance", _factor_one),
         {"token": 0, "expected": (F(3, 10), F(2, 5)), "got": (F(1, 2), F(3, 5))}),
    Case("G.1", "built-in", None, VERIFIED),
    Case("G.1", "rhs-plus-one", None, REFUTED,
         ("proofcheck.constructions.ts.polarisation", "sides", _rhs_plus_one),
         {"sequence": 0, "expected": F(-24007, 1800), "got": F(-22207, 1800)}),
    Case("G.2", "built-in", None, VERIFIED),
    Case("G.2", "bound-quartered", None, REFUTED,
         ("proofcheck.constructions.ts.bernstein_union", "bernstein_bound", _quartered),
         {"expected": (F(83, 250), F(333, 1000)), "got": F(11, 32)}),
]


def cases_of(statement: str) -> list[Case]:
    """The cases of one statement, in table order."""
    return [c for c in CASES if c.statement == statement]
