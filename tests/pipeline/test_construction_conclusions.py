"""The stated conclusions of the constructions (proofcheck/constructions/afz/theorems/conclusions.py,
the phase-I half-width rule, the phase-S probe margin, the sphere parameter): each
holds on the handed and edge datasets and fails, with its witness code, when one
parameter of the construction is mutated (a named mutant, applied in memory)."""
from __future__ import annotations

import pytest

from proofcheck.constructions.afz.edges import edge_datasets, single_target
from proofcheck.constructions.afz.theorems import phase_statements as S
from proofcheck.constructions.afz.theorems import conclusions as C
from proofcheck.constructions.afz.theorems.constructions import get
from mutation.apply import patched
from proofcheck.frontend.io.generate import random_dataset
from proofcheck.kernel.verdicts import Verdict

_EDGES = edge_datasets()
# the phase statements' seeded instances (seed, d, N, style) and the edge datasets
_PHASE = [random_dataset(k, d=d, N=n, style=st) for k, d, n, st in (
    (0, 2, 5, "mixed"), (1, 3, 5, "mixed"), (2, 4, 5, "mixed"), (3, 5, 4, "mixed"),
    (4, 2, 6, "nested"), (5, 3, 6, "overlap"), (6, 4, 5, "union"))] + _EDGES


def _data(ds):
    return [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


def _run(name, ds, check):
    inputs, targets = _data(ds)
    c = get(name, "1.6").build(inputs, targets, ds.d)
    return check(c, inputs, targets, ds.d)


def _codes(results):
    return [r.witness.code for r in results if r.verdict == Verdict.REFUTED]


def _many(name, sets, check):
    return [code for ds in sets for code in _codes(_run(name, ds, check))]


@pytest.mark.parametrize("name", ["peel", "bounded"])
def test_conclusions_hold_on_the_edge_datasets_and_their_one_target_copies(name):
    spec = get(name, "1.6")
    for ds in _EDGES + [single_target(ds) for ds in _EDGES]:
        res = _run(name, ds, spec.conclusions)
        assert res and all(r.verdict == Verdict.VERIFIED for r in res), \
            [(r.name, r.witness and r.witness.describe()) for r in res]


# (module, old, new, construction, check, datasets, witness code)
PEEL, BOUNDED = "proofcheck/constructions/afz/theorems/peel.py", "proofcheck/constructions/afz/theorems/bounded.py"
TOP = "proofcheck/constructions/afz/phases/top_collapse.py"
FLAG = "proofcheck/constructions/afz/phases/flag_collapse.py"
ONE = [single_target(ds) for ds in _EDGES]
MUTANTS = [
    ("mu bound too large", TOP, "(2 * len(u) * Fraction(beta) ** 2)",
     "(2 * len(u) / Fraction(beta) ** 2)", "peel", C.peel_mu_check, _EDGES, "mu-rule"),
    ("mu below the largest power of two", TOP, "(2 * len(u) * Fraction(beta) ** 2)",
     "(4 * len(u) * Fraction(beta) ** 2)", "peel", C.peel_mu_check, _EDGES, "mu-rule"),
    ("mu ignores two-token sequences", TOP, "if hi - lo >= 2]", "if hi - lo >= 3]",
     "peel", C.peel_mu_check, _EDGES, "mu-rule"),
    ("extra leaders off the level set", TOP, "t = -2 * eps * c / (qw + eps * eps * c)",
     "t = -2 * eps * c / (qw + -eps * eps * c)", "peel", C.peel_leaders_check, _EDGES,
     "extra-leader-level-set"),
    ("no collapse layer after the extra leaders", PEEL, "end = i == len(lffs) - 1",
     "end = i == len(lffs) * 1", "peel", C.peel_leaders_check, _EDGES, "extra-leader-level-set"),
    ("reported leader rows wrong", PEEL, "[[t] + [i for i in range(lo, hi) if i in extra]",
     "[[t] + [i for i in range(lo, hi) if -i in extra]", "peel", C.peel_leaders_check, _EDGES,
     "leader-rows"),
    ("k scale not the least", TOP, "s = int(big / low) + 1", "s = int(big / low) + 2",
     "peel", C.peel_k_check, _EDGES, "k-scale"),
    ("phase-S block count misreported", BOUNDED, '"phase_S_blocks": sep.R + 1',
     '"phase_S_blocks": sep.R + 2', "bounded", C.bounded_info_check, _EDGES, "phase-S-info"),
    ("largest signature misreported", BOUNDED, '"S_max": max(sep.sig)', '"S_max": min(sep.sig)',
     "bounded", C.bounded_info_check, _EDGES, "phase-S-info"),
    ("ray targets not their own kappa", FLAG,
     "if y not in kappa and y[0] >= 0 and all(v == 0 for v in y[1:]):",
     "if y not in kappa and y[0] >= 0 and all(v == 1 for v in y[1:]):",
     "bounded", C.bounded_flag_check, ONE, "kappa-rule"),
    ("snap skip rule inverted", FLAG,
     "if y[0] == out.kappa[j] and all(v == 0 for v in y[1:]):",
     "if y[0] == out.kappa[j] and all(v != 0 for v in y[1:]):",
     "bounded", C.bounded_flag_check, ONE, "block-count"),
    ("flag snaps' forbidden values from the last coordinate", FLAG,
     "vals = set(out.kappa) | {y[0] for y in ys}", "vals = set(out.kappa) | {y[-1] for y in ys}",
     "bounded", C.bounded_flag_check, ONE, "snap-delta"),
    ("flag snap half-width not 1/4", FLAG, "if v != kap) / 4", "if v != kap) / 5",
     "bounded", C.bounded_flag_check, ONE, "snap-delta"),
    ("radix below a content coordinate's range", BOUNDED, "mult *= lay.cmax[k] + 1",
     "mult *= lay.cmax[k] - 1", "bounded", C.bounded_radix_check, _EDGES, "radix"),
    ("radix below the signature's range", BOUNDED, "mult *= smax + 1", "mult *= smax - 1",
     "bounded", C.bounded_radix_check, _EDGES, "radix"),
    ("flag weight misplaced", BOUNDED, "u[lay.F] = mult", "u[(lay.F - 1)] = mult",
     "bounded", C.bounded_radix_check, _EDGES, "radix"),
    ("sphere leaders at a negative default radius", "proofcheck/constructions/afz/phases/leaders.py",
     "r=Fraction(32), margin", "r=Fraction(-32), margin", "bounded", C.bounded_sphere_check,
     _EDGES, "sphere-leaders"),
    ("fold offsets from the neighbouring coordinate", "proofcheck/constructions/afz/phases/bounded_separation.py",
     "cur = [[p[k] - lo[k] for k", "cur = [[p[k] - lo[(k - 1)] for k",
     "bounded", C.bounded_layout_check, _EDGES, "layout"),
]


@pytest.mark.parametrize("label, path, old, new, name, check, sets, code", MUTANTS,
                         ids=[m[0] for m in MUTANTS])
def test_mutated_construction_fails_its_conclusion(label, path, old, new, name, check, sets, code):
    assert not _many(name, sets, check)
    with patched(path, old, new) as changed:
        assert changed
        assert code in _many(name, sets, check)


def test_d2_radix_of_the_stacked_signature_is_checked():
    from mutation.scope import cases_dir
    where = cases_dir()
    cases = [where / f for f in ("overlap-2d.json", "nested-chain.json")]
    from proofcheck.frontend.io.datasets import load_dataset
    sets = [load_dataset(c) for c in cases]
    assert not _many("bounded", sets, C.bounded_radix_check)
    with patched(BOUNDED, "mult = (lay.z[lay.content[0]]) * (smax + 1)",
                 "mult = (lay.z[(lay.content[0] - 1)]) * (smax + 1)"):
        assert "radix" in _many("bounded", sets, C.bounded_radix_check)


def _built(ds):
    c, failed = S.built("t", ds)
    assert failed is None
    return c


def test_interpolation_half_width_rule_is_checked_on_the_layers():
    sets = _PHASE
    assert all(S.snap_delta_check(_built(ds), ds).verdict == Verdict.VERIFIED for ds in sets)
    with patched("proofcheck/constructions/afz/phases/interpolation.py", "if near else Fraction(1)) / 4)",
                 "if near else Fraction(1)) / 8)"):
        r = S.snap_delta_check(_built(sets[0]), sets[0])
    assert r.verdict == Verdict.REFUTED and r.witness.code == "snap-delta"
    assert r.witness.block == _built(sets[0]).phases["I"][0]


_SEP = "proofcheck/constructions/afz/phases/separation.py"


def _rule_codes(sets):
    return [r.witness.code for ds in sets for r in S.phase_s_rules_check(_built(ds), ds)
            if r.verdict == Verdict.REFUTED]


@pytest.mark.parametrize("old, new, code", [
    ("elif best is None or lo - tp < best:", "elif best is None or lo - tp > best:", "probe-margin"),
    ("for k in (1, 2, 3, 5, 8, 13)}", "for k in (1, 4, 3, 5, 8, 13)}", "tag-rule"),
    ("for k in (1, 2, 3, 5, 8, 13)}", "for k in (1, 2, 3, 0, 8, 13)}", "tag-rule"),
], ids=["nearest keeps a farther edge", "tag candidates skip 2", "tag factor 0 tried"])
def test_phase_s_rules_are_checked_on_the_layers(old, new, code):
    sets = _PHASE
    assert not _rule_codes(sets)
    with patched(_SEP, old, new):
        assert code in _rule_codes(sets)


def test_sphere_points_are_images_of_the_stated_parameter():
    from proofcheck.constructions.afz.layers import sphere
    assert sphere.many_points_check().verdict == Verdict.VERIFIED
    with patched("proofcheck/constructions/afz/layers/sphere.py", "eps = Fraction(1, 2 * d)",
                 "eps = Fraction(2, 2 * d)"):
        r = sphere.many_points_check()
    assert r.verdict == Verdict.REFUTED and r.witness.code == "sphere-parameter"
    with patched("proofcheck/constructions/afz/layers/sphere.py", "* Fraction(3, 4) + Fraction(1, 8)",
                 "* Fraction(3, 4) + Fraction(1, 9)"):
        r = sphere.many_points_check()
    assert r.verdict == Verdict.REFUTED and r.witness.code == "sphere-parameter"


def test_bounded_construction_on_uneven_coordinate_minima():
    """Regression: here the token the last separation round left with flag 1 is the
    first lifted leader; the leader lifts keep that flag and top it up instead of
    resetting it (docs/constructions/bounded.md), so every claim holds."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    ds = random_dataset(2002, d=3, N=4, max_n=4, style="overlap")
    bad = [r for r in verify(ds, construction=get("bounded", "1.6")).results
           if r.verdict != Verdict.VERIFIED]
    assert not bad, bad[0].witness.describe()


def test_fold_scale_one_short_is_caught_on_its_edge_dataset():
    """The bounded layout's fold scale one short (the fallback bound below the
    coordinate's range): on edge-fold-scale the fold is no longer injective and the
    construction fails on an admissible input (reported as REFUTED by the pipeline)."""
    from proofcheck.constructions.afz.edges import fold_scale
    from proofcheck.constructions.afz.theorems.theorem_1_6 import ConstructionFailed, verify
    spec, ds = get("bounded", "1.6"), fold_scale()
    assert all(r.verdict == Verdict.VERIFIED for r in verify(ds, construction=spec).results)
    with patched("proofcheck/constructions/afz/phases/bounded_separation.py",
                 "span[i] = max(q[i] for q in cur) + 1", "span[i] = max(q[i] for q in cur) + 0"):
        with pytest.raises(ConstructionFailed):
            verify(ds, construction=spec)
