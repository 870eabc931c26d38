"""The stated conclusions of the seed 1.8 construction
(proofcheck/constructions/afz/theorems/seed_conclusions.py) and of the causal constructions
(proofcheck/constructions/causal/conclusions.py): each holds on the handed and edge datasets
the construction builds, and fails, with its witness code, when one value of the
construction is mutated (a named mutant, applied in memory)."""
from __future__ import annotations

import pytest

from mutation.apply import patched
from proofcheck.constructions.afz.edges import edge_datasets
from proofcheck.constructions.afz.theorems.constructions import get
from proofcheck.constructions.afz.theorems.seed_conclusions import seed_conclusions
from proofcheck.constructions.causal.conclusions import causal_conclusions
from proofcheck.constructions.causal.constructions import CAUSAL_CONSTRUCTIONS
from proofcheck.constructions.causal.prefix_construction import NoCausalInterpolant
from proofcheck.frontend.io.generate import random_dataset
from proofcheck.kernel.verdicts import Verdict

SEED = "proofcheck/constructions/afz/theorems/theorem_1_8_seed.py"
CAUSAL = "proofcheck/constructions/causal/prefix_construction.py"


def _handed():
    from mutation.scope import CASES, cases_dir
    from proofcheck.frontend.io.datasets import load_dataset
    where = cases_dir()
    return [] if where is None else [load_dataset(where / c) for c in CASES]


def _data(ds):
    return [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


_SEED_SETS = _handed() + [random_dataset(40 + d, d=d, N=3, style="mixed") for d in (2, 3)]
_CAUSAL_SETS = [ds for ds in edge_datasets() + [random_dataset(43, d=3, N=5, style="mixed")]]


def _seed_codes(sets):
    out = []
    for ds in sets:
        inputs, targets = _data(ds)
        c = get("seed", "1.8").build(inputs, targets, ds.d)
        out += [r.witness.code for r in seed_conclusions(c, inputs, targets, ds.d)
                if r.verdict != Verdict.VERIFIED]
    return out


def _causal_built(name, sets):
    """(construction, inputs, targets, d) for every dataset of ``sets`` with a prefix map."""
    out = []
    for ds in sets:
        inputs, targets = _data(ds)
        try:
            c = CAUSAL_CONSTRUCTIONS[name].build(inputs, targets, ds.d)
        except NoCausalInterpolant:
            continue
        out.append((c, inputs, targets, ds.d))
    return out


def _causal_codes(name, sets):
    return [r.witness.code for c, i, t, d in _causal_built(name, sets)
            for r in causal_conclusions(c, i, t, d) if r.verdict != Verdict.VERIFIED]


def test_seed_conclusions_hold_and_each_is_checked():
    assert _SEED_SETS
    for ds in _SEED_SETS:
        inputs, targets = _data(ds)
        res = seed_conclusions(get("seed", "1.8").build(inputs, targets, ds.d), inputs, targets,
                               ds.d)
        assert len(res) == 3 and all(r.verdict == Verdict.VERIFIED for r in res), \
            [(r.name, r.witness and r.witness.describe()) for r in res]


@pytest.mark.parametrize("name", ["causal-last", "causal-all"])
def test_causal_conclusions_hold_where_the_construction_builds(name):
    built = _causal_built(name, _CAUSAL_SETS)
    assert len(built) >= 4
    assert any(c.info["R"] >= 1 for c, *_ in built)  # some probe lift is checked
    for c, inputs, targets, d in built:
        res = causal_conclusions(c, inputs, targets, d)
        assert len(res) == 4 and all(r.verdict == Verdict.VERIFIED for r in res), \
            [(r.name, r.witness and r.witness.describe()) for r in res]


# (label, module, old, new, witness code)
SEED_MUTANTS = [
    ("converge flat a quarter of the gap, not a third", SEED,
     "cands = [abs(u - v) / 3 for u in active_nbrs]",
     "cands = [abs(u - v) / 4 for u in active_nbrs]", "converge-flat"),
    ("converged point's margin the whole distance", SEED,
     "([(v - point) / 2] if point is not None else [])",
     "([(v - point) / 1] if point is not None else [])", "converge-flat"),
    ("phase-I hat half as wide as stated", SEED, "hat_ff(e1, p, dl, shift)",
     "hat_ff(e1, p, dl / 2, shift)", "hat-rule"),
    ("smallest flat misreported", SEED, '"min_delta": min(sch.deltas)',
     '"min_delta": max(sch.deltas)', "seed-info"),
    ("scale misreported", SEED, '"scale": sch.scale,', '"scale": sch.scale / 2,', "seed-info"),
]


@pytest.mark.parametrize("label, path, old, new, code", SEED_MUTANTS,
                         ids=[m[0] for m in SEED_MUTANTS])
def test_mutated_seed_construction_fails_its_conclusion(label, path, old, new, code):
    assert not _seed_codes(_SEED_SETS)
    with patched(path, old, new) as changed:
        assert changed
        assert code in _seed_codes(_SEED_SETS)


CAUSAL_MUTANTS = [
    ("translation one too far", CAUSAL,
     "c = tuple(Fraction(1) - lo if lo < 1 else Fraction(0) for _ in range(d))",
     "c = tuple(Fraction(2) - lo if lo < 1 else Fraction(0) for _ in range(d))",
     "causal-translation"),
    ("direction search from k = 2", CAUSAL, "    k = 1\n    while True:",
     "    k = 2\n    while True:", "causal-direction"),
    ("lift one step too high", CAUSAL, "H = int((top - dot(u, p)) // uu) + 1",
     "H = int((top - dot(u, p)) // uu) + 2", "causal-lift"),
    ("tag factor search from 2", CAUSAL, "        lam = 1\n        while",
     "        lam = 2\n        while", "causal-tag"),
]


@pytest.mark.parametrize("label, path, old, new, code", CAUSAL_MUTANTS,
                         ids=[m[0] for m in CAUSAL_MUTANTS])
def test_mutated_causal_construction_fails_its_conclusion(label, path, old, new, code):
    assert not _causal_codes("causal-last", _CAUSAL_SETS)
    with patched(path, old, new) as changed:
        assert changed
        assert code in _causal_codes("causal-last", _CAUSAL_SETS)


def test_rounds_past_the_stated_bound_refute_the_construction():
    """Past ``MAX_ROUNDS_PER_READ * (read positions) + 4`` rounds the causal construction
    fails its own stated bound: REFUTED (``construction-raised``), not a resource limit."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import ConstructionFailed
    from proofcheck.constructions.causal.under_mask import verify_causal
    spec = CAUSAL_CONSTRUCTIONS["causal-last"]
    ds = next(ds for ds in _CAUSAL_SETS
              if any(c.info["R"] >= 1 for c, *_ in _causal_built("causal-last", [ds])))
    with patched(CAUSAL, "limit = MAX_ROUNDS_PER_READ * len(rd.pos) + 4", "limit = -1"):
        with pytest.raises(ConstructionFailed) as err:
            verify_causal(ds, spec)
    assert err.value.result.verdict == Verdict.REFUTED
    assert err.value.result.witness.code == "construction-raised"
