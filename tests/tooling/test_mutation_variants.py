"""The classification of survivors (mutation/results.py, mutation/variants.py):
a valid-variant claim leaves the "wrong" denominator only when its evidence
backs it (a sweep row differs, every wide command VERIFIED, same mutant); the
fingerprint leaves out display text; the construction's documented leader
scales are a conclusion of ``lemma leaders``."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import pytest

from mutation import results as R
from mutation import scope
from mutation.apply import patched, serialise
import mutation.variants
from mutation.variants import LEMMA_SEEDS, backed, wide_commands, wide_datasets

DIFF = "-    x = 1\n+    x = 2"
GOOD = {"rows_differ": 3, "commands": 10, "verified": 10, "failed": None, "diff": DIFF}


def _data(ev, why="valid variant: another radius", kind="survived", diff=DIFF):
    row = {"module": "leaders", "function": "place_leaders", "kind": kind, "diff": diff}
    return {"mutants": {"m": row}, "reasons": {"m": why}, "variants": {"m": ev} if ev else {}}


def test_backed_needs_a_differing_row_and_every_wide_command_verified():
    assert backed(GOOD) is True
    assert backed({**GOOD, "rows_differ": 0}) is False          # an equivalent, not a variant
    assert backed({**GOOD, "verified": 9}) is False             # a command left unrun
    assert backed({**GOOD, "verified": 4,
                   "failed": {"kind": "refuted", "command": "lemma leaders"}}) is False
    assert backed(None) is False and backed({}) is False


def test_kind_of_a_survivor_follows_its_reason_and_evidence():
    kind = lambda d: R._kind(d, "m", d["mutants"]["m"])  # noqa: E731
    assert kind(_data(GOOD)) == "survived-valid"
    assert kind(_data(None)) == "survived-unbacked"
    assert kind(_data({**GOOD, "diff": "+ other"})) == "survived-unbacked"  # another mutant's
    assert kind(_data({**GOOD, "failed": {"kind": "refuted"}})) == "survived-unbacked"
    assert kind(_data(GOOD, why="not caught: a gap")) == "survived-not"
    assert kind(_data(GOOD, why=None)) == "survived"
    assert kind(_data(GOOD, kind="refuted")) == "refuted"


def test_both_scores_exact():
    c = Counter({"refuted": 40, "raised": 3, "rejects": 2, "equivalent": 7, "crash": 5,
                 "not-applied": 1, "survived-valid": 4, "survived-unbacked": 1,
                 "survived-not": 2})
    assert R.score(c) == (45, 52)          # 58 - equivalent - crash - not applied
    assert R.score_wrong(c) == (45, 48)    # less the backed valid variants only


def test_kept_variants_only_for_the_same_surviving_mutant():
    rows = {"a": {"kind": "survived", "diff": DIFF}, "b": {"kind": "refuted", "diff": DIFF},
            "c": {"kind": "survived", "diff": "+ y"}}
    ev = {k: GOOD for k in ("a", "b", "c", "gone")}
    assert R.kept_variants(ev, rows) == {"a": GOOD}


def test_readme_row_shows_both_denominators():
    data = _data(GOOD)
    data["mutants"].update({f"k{i}": {"module": "leaders", "kind": "refuted", "diff": ""}
                            for i in range(9)})
    data["mutants"]["n"] = {"module": "leaders", "kind": "survived", "diff": "+ z"}
    data["reasons"]["n"] = "not caught: a gap"
    row = next(x for x in R.render_readme(data).splitlines() if x.startswith("| leaders |"))
    cells = [x.strip() for x in row.strip("|").split("|")]
    assert cells == ["leaders", "11", "0", "11", "9", "0", "0", "9/11 = 81.8 %", "1", "10",
                     "9/10 = 90.0 %", "0", "0", "0", "1"]


def test_wide_commands_cover_seeds_and_every_wide_dataset(tmp_path, monkeypatch):
    write = scope.write_datasets  # the datasets go to this test's folder, not mutants/
    monkeypatch.setattr(scope, "write_datasets", lambda sets, folder: write(sets, tmp_path))
    monkeypatch.setattr(mutation.variants, "_WIDE", {})
    files = wide_datasets()
    names = {f.name for f in files}
    assert {"overlap-2d.json", "square-and-centre.json", "edge-fold-scale.json",
            "edge-fold-scale-single.json"} <= names
    cmds = wide_commands("leaders")
    free = [a for a in scope.CHECKS["leaders"] if not {"{case}", "{handed}"} & set(a)]
    with_data = len(scope.CHECKS["leaders"]) - len(free)
    assert len(cmds) == len(free) * len(LEMMA_SEEDS) + with_data * len(files)
    assert ["lemma", "leaders", "--seed", "3"] in cmds
    assert [a for a in cmds if a[:2] == ["theorem", "1.6"] and "--construction" not in a] \
        == [["theorem", "1.6", "--no-report", "--dataset", str(f)] for f in files]


def test_fingerprint_leaves_out_the_report_display_text():
    from proofcheck.constructions.afz.edges import edge_datasets, single_target
    from proofcheck.constructions.afz.theorems import bounded
    from mutation.sweep import _built
    ds = single_target(edge_datasets()[0])
    args = ([list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs], ds.d,
            bounded.construct)
    before = serialise(_built(*args))
    assert "report" not in _built(*args)["info"]
    with patched("proofcheck/constructions/afz/theorems/bounded.py", "tuple(rest.hats[0][0]) if rest.hats",
                 "tuple(rest.hats[0][-1]) if rest.hats") as changed:
        assert changed == ["construct"]
        assert serialise(_built(*args)) == before


def test_stated_leader_scales_refute_another_default():
    from proofcheck.constructions.afz.edges import edge_datasets
    from proofcheck.constructions.afz.theorems import phase_statements as S
    from proofcheck.kernel.verdicts import Verdict
    ds = edge_datasets()[1]
    old = "r=Fraction(32), margin=Fraction(1),\n              spacing=Fraction(1), options"
    for new, code, expected, got in [
            (old.replace("32", "31"), "leader-radius", F(32), F(31)),
            (old.replace("spacing=Fraction(1)", "spacing=Fraction(2)"), "leader-t", None, None)]:
        with patched("proofcheck/constructions/afz/theorems/theorem_1_6.py", old, new) as changed:
            assert changed == ["construct (defaults)"]
            c, _ = S.built("leaders", ds)
            w = S.stated_leaders_check(c, ds).witness
        assert S.stated_leaders_check(c, ds).verdict == Verdict.REFUTED and w.code == code
        if expected is not None:
            assert (w.expected, w.got) == (expected, got)
        else:  # t_1 = floor(beta) + 1 + 2 instead of + 1
            assert (w.sequence, w.got - w.expected) == (1, 1)
    c, _ = S.built("leaders", ds)
    assert S.stated_leaders_check(c, ds) is None


# the bounded construction's wrong mutants killed since the last measurement: one
# named mutant per class, with the witness's structured fields
FLAG = "proofcheck/constructions/afz/phases/flag_collapse.py"
BOUNDED_CLASSES = [
    # a collapse claim whose leader list covers no row: the claim is malformed
    ("collapse claim covers no row", FLAG,
     "out.leaders[j]] * (hi - lo)", "out.leaders[j]] * (-hi - lo)", "edge-held-leader-k2",
     ("claim-shape", "SA")),
    # a lift claimed for a row the state does not have
    ("lift claimed for a negative row", FLAG,
     "    row = sep.spans[j][0] + t\n", "    row = -sep.spans[j][0] + t\n", "edge-ties",
     ("claim-shape", "FF")),
    # the flag-1 leader topped up by kappa - 2 (only the held-leader instances reach it)
    ("held leader topped up by kappa - 2", FLAG,
     "_dot(w, sep.position(p, s)), kappa - 1,", "_dot(w, sep.position(p, s)), kappa - 2,",
     "edge-held-leader-k2", ("claim-mismatch", "FF")),
    # the held leader looked up at the last row of its span
    ("held leader looked up at the span's end", FLAG,
     "if sep.spans[j][0] + lead[j] in rows_f", "if sep.spans[j][(0 - 1)] + lead[j] in rows_f",
     "edge-held-leader-k1", ("claim-mismatch", "FF")),
]


def _bounded_edge(name):
    from proofcheck.constructions.afz.edges import edge_datasets, held_leader_datasets, single_target
    sets = held_leader_datasets() + [single_target(ds) for ds in edge_datasets()]
    return next(ds for ds in sets if ds.name in (name, name + "-single"))


@pytest.mark.parametrize("label, path, old, new, name, want", BOUNDED_CLASSES,
                         ids=[c[0] for c in BOUNDED_CLASSES])
def test_bounded_wrong_mutant_is_refuted_with_its_witness(label, path, old, new, name, want):
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    from proofcheck.kernel.verdicts import Verdict
    ds = _bounded_edge(name)
    spec = get("bounded", "1.6")
    assert all(r.verdict == Verdict.VERIFIED for r in verify(ds, construction=spec).results)
    with patched(path, old, new) as changed:
        assert changed
        bad = [r for r in verify(ds, construction=spec).results if r.verdict != Verdict.VERIFIED]
    assert bad and bad[0].verdict == Verdict.REFUTED
    w = bad[0].witness
    assert (w.code, w.sublayer) == want and w.block is not None


def test_claim_naming_a_row_outside_the_state_names_it():
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    ds = _bounded_edge("edge-held-leader-k1")
    with patched(FLAG, "    row = sep.spans[j][0] + t\n", "    row = -sep.spans[j][0] + t\n"):
        w = next(r for r in verify(ds, construction=get("bounded", "1.6")).results
                 if r.witness is not None).witness
    assert (w.code, w.sublayer, w.got, w.expected) == ("claim-shape", "FF", -2, "a row in 0..3")


def test_fast_projection_guard_divided_raises_on_the_one_target_edge(tmp_path):
    """``abs(zk) / smax`` in the numpy guard divides by smax = 0 on
    edge-two-token-top with one target per pair: the construction raises on an
    admissible input, and the user-facing command says so (REFUTED, kind raised)."""
    import json

    from mutation.run import judge_output, run_command
    from proofcheck.kernel.dataset import dataset_to_json
    ds = _bounded_edge("edge-two-token-top")
    f = tmp_path / f"{ds.name}.json"
    f.write_text(json.dumps(dataset_to_json(ds)))
    argv = ["theorem", "1.6", "--construction", "bounded", "--no-report", "--dataset", str(f)]
    assert judge_output(*run_command(argv)) is None
    with patched("proofcheck/constructions/afz/phases/bounded_separation.py", "abs(zk) * self.smax < 2 ** 40",
                 "abs(zk) / self.smax < 2 ** 40"):
        kind, wit = judge_output(*run_command(argv))
    assert kind == "raised" and "ZeroDivisionError" in wit


def test_peel_fixed_region_below_the_largest_target_is_refuted_on_its_edge():
    """``ymax = min(y1)`` lowers the peel layers' fixed region: on edge-peel-spread
    the second layer's first kink falls below a target the first layer placed,
    which moves again (REFUTED at that block's FF, the target's first coordinate)."""
    from proofcheck.constructions.afz.edges import peel_spread
    from proofcheck.constructions.afz.theorems.constructions import get
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    from proofcheck.kernel.verdicts import Verdict
    ds, spec = peel_spread(), get("peel", "1.6")
    assert all(r.verdict == Verdict.VERIFIED for r in verify(ds, construction=spec).results)
    with patched("proofcheck/constructions/afz/phases/peeling.py", "ymax, ymin = max(y1), min(y1)",
                 "ymax, ymin = min(y1), min(y1)"):
        w = next(r for r in verify(ds, construction=spec).results
                 if r.verdict != Verdict.VERIFIED).witness
    assert (w.code, w.block, w.sublayer, w.sequence, w.coordinate, w.expected) == \
        ("claim-mismatch", 4, "FF", 1, 0, F(10))


def test_construction_edge_datasets_are_admissible():
    from proofcheck.constructions.afz.edges import held_leader_datasets, peel_spread
    from proofcheck.kernel.dataset import check_admissible
    sets = held_leader_datasets() + [peel_spread()]
    for ds in sets:
        check_admissible(ds)
    assert [(ds.name, ds.d, ds.N, ds.M) for ds in sets] == [
        ("edge-held-leader-k1", 3, 3, 3), ("edge-held-leader-k2", 3, 3, 3),
        ("edge-held-leader-khalf", 3, 3, 3), ("edge-peel-spread", 2, 5, 5)]
