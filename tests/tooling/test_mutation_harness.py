"""The mutation harness measures the checks (issue 29, item 6): an exit 4 after a wrong
network is a miss, every construction group is in scope with its kill datasets, the
table is per construction group, and the operator set and seed are the user's."""
from __future__ import annotations

from collections import Counter

import pytest

from mutation import results as R
from mutation import scope
from mutation.run import judge_output


def test_exit_4_is_a_miss_not_a_crash():
    kind, wit = judge_output(4, "VERDICT: ERROR\n", "tau must be positive (got 0)\n")
    assert kind == "exit-4" and "tau must be positive" in wit
    assert R.score(Counter({"refuted": 3, "exit-4": 1})) == (3, 4)   # in the denominator
    assert R.score(Counter({"refuted": 3, "crash": 1})) == (3, 3)    # a crash is not


def test_every_module_is_in_exactly_one_group_and_every_construction_is_measured():
    members = [m for mods in scope.GROUPS.values() for m in mods]
    assert sorted(members) == sorted(scope.MODULES) and len(members) == len(set(members))
    assert {"seed 1.8", "causal", "peel", "bounded", "layer lemmas", "default phases"} \
        == set(scope.GROUPS)
    argv = [a for m in ("seed 1.8", "causal") for c in scope.CHECKS[m] for a in c]
    assert "seed" in argv and "causal-last" in argv and "causal-all" in argv


def test_kill_datasets_are_those_the_unmutated_code_verifies(monkeypatch, tmp_path):
    files = [tmp_path / f"d{i}.json" for i in range(4)]
    monkeypatch.setattr(scope, "dataset_files", lambda: files)
    monkeypatch.setitem(scope.CHECKS, "zz", [["theorem", "1.8", "--dataset", "{kill}"],
                                             ["lemma", "x"]])
    monkeypatch.setattr(scope, "_EXPANDED", {})
    with pytest.raises(RuntimeError, match="unmutated"):
        scope.commands("zz")
    got = scope.commands("zz", lambda argv: argv[-1].endswith(("d1.json", "d3.json")))
    assert got == [["theorem", "1.8", "--dataset", str(files[1])],
                   ["theorem", "1.8", "--dataset", str(files[3])], ["lemma", "x"]]
    assert scope.commands("zz") == got          # cached: a mutant's child reuses it


def _data(harness=2):
    rows = {f"s{i}": {"module": "seed 1.8", "kind": k, "diff": ""}
            for i, k in enumerate(["refuted", "refuted", "exit-4", "inconclusive", "equivalent",
                                   "crash"])}
    rows["c0"] = {"module": "causal", "kind": "survived", "diff": "+ x"}
    rows["c1"] = {"module": "causal", "kind": "raised", "diff": ""}
    return {"meta": {"harness": harness, "operators": "value-b", "sample_seed": 7},
            "mutants": rows, "reasons": {"c0": "not caught: a gap"}, "variants": {}}


def test_group_table_counts_misses_and_verified_wrong_networks():
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.strip("|").split("|")]
            for line in R.render_groups(_data()).splitlines()[2:]}
    # seed 1.8: 6 mutants, 1 equivalent, 1 crash: wrong 4, 2 REFUTED, 1 exit 4, 1 INCONCLUSIVE
    assert rows["seed 1.8"] == ["seed 1.8", "6", "1", "4", "2", "2/4 = 50.0 %", "1", "1", "0",
                                "1", "0"]
    assert rows["causal"] == ["causal", "2", "0", "2", "1", "1/2 = 50.0 %", "0", "0", "1", "0",
                              "0"]


def test_readme_render_of_the_first_harness_is_unchanged_and_the_second_adds_groups():
    old = R.render_readme(_data(harness=1))
    new = R.render_readme(_data(harness=2))
    assert "exit 4 (miss)" not in old and "Per construction group" not in old
    assert "exit 4 (miss)" in new and "| seed 1.8 | 6 |" in new
    assert "operator set value-b, sample seed 7" in new


def test_a_second_operator_set_and_an_external_one():
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    from mutation.operators import (VALUE_B_OPERATORS, VALUE_OPERATORS, operator_set,
                                    register)
    from mutation.run import work_items
    register()
    assert not set(VALUE_B_OPERATORS) & set(VALUE_OPERATORS)
    for name in VALUE_B_OPERATORS:
        op = cosmic_ray.plugins.get_operator(name)
        for ex in op.examples():
            got = mutate_code(ex.pre_mutation_code, op(**ex.operator_args), ex.occurrence)
            assert got is not None and got.strip() == ex.post_mutation_code.strip(), name
    assert operator_set("mutation.operators:VALUE_B_OPERATORS") == VALUE_B_OPERATORS
    with pytest.raises(ValueError, match="value-b"):
        operator_set("nope")
    items = list(work_items(["translation"], VALUE_B_OPERATORS))
    assert items and {it.mutations[0].operator_name for it in items} <= set(VALUE_B_OPERATORS)


def test_the_fingerprint_sweep_builds_the_seed_and_causal_constructions():
    from mutation.sweep import sweep
    labels = [row[0] for row in sweep()]
    assert any(x.startswith("seed 1.8 ") for x in labels)
    assert any(x.startswith("causal last-outputs ") for x in labels)
    assert any(x.startswith("converge ") for x in labels)
