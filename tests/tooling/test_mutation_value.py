"""The value-mutation measurement (mutation/, docs/measurements/mutation.md): the operators
do what they say, the scope names real functions, the README table is the
rendering of the results file, and one named mutant per class of the wrong
constructions that used to pass is now REFUTED with a witness by its command."""
from __future__ import annotations

import json
import re

import pytest

from mutation import results as R
from mutation import scope
from mutation.apply import patched
from proofcheck.frontend.cli import main


def test_value_operators_mutate_as_their_examples_say():
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    from mutation.operators import VALUE_OPERATORS, register
    register()
    for name in VALUE_OPERATORS:
        op = cosmic_ray.plugins.get_operator(name)
        for ex in op.examples():
            got = mutate_code(ex.pre_mutation_code, op(**ex.operator_args), ex.occurrence)
            assert got is not None and got.strip() == ex.post_mutation_code.strip(), name


def test_scope_names_existing_functions_and_every_module_has_checks():
    import ast
    defined = set()
    for m, (path, _) in scope.MODULES.items():
        tree = ast.parse((scope.ROOT / path).read_text())
        defined |= {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        assert scope.functions(m), m
        assert scope.CHECKS[m], m
    listed = set(scope._LAYER_CHECK_CODE) | {f for _, ex in scope.MODULES.values() for f in ex or ()}
    assert listed <= defined, sorted(listed - defined)


def test_mutants_stay_inside_construction_functions():
    from mutation.run import work_items
    items = list(work_items(["translation", "corner"]))
    assert items and all(it.mutations[0].definition_name.split(":")[1] in
                         ("translation_ff", "corner_sa") for it in items)


def test_readme_table_is_the_rendering_of_the_results_file():
    data = json.loads(R.RESULTS.read_text())
    readme = (scope.ROOT / "docs" / "measurements" / "mutation.md").read_text()
    m = re.search(r"<!-- mutation:begin -->.*?<!-- mutation:end -->", readme, re.S)
    assert m and m.group(0) == R.render_readme(data)


def test_every_survivor_has_a_reason_and_every_timeout_is_a_miss_explained():
    """A timeout is a wrong construction that does not end (a miss, counted in the
    denominators): it carries a ``not caught`` reason saying why, never a valid one."""
    data = json.loads(R.RESULTS.read_text())
    missing = [i for i, why in R.survivors(data).items() if not why]
    assert not missing, missing
    timeouts = [i for i, r in data["mutants"].items() if r["kind"] == "timeout"]
    assert all(data["reasons"][i].startswith("not caught") for i in timeouts), timeouts


def test_patched_restores_the_module():
    from proofcheck.constructions.afz.layers import corner
    before = corner.corner_sa().rho
    with patched("proofcheck/constructions/afz/layers/corner.py", "return SA(Fraction(0)", "return SA(Fraction(2)") as ch:
        assert ch == ["corner_sa"] and corner.corner_sa().rho == 2
    assert corner.corner_sa().rho == before


# one named mutant per class of wrong constructions that passed the commands before
CLASSES = [
    ("choose_k search bound shrunk", "proofcheck/constructions/afz/phases/collapse.py",
     "M * len(forbidden)) + 1", "M * len(forbidden)) + 0", ["lemma", "collapse"]),
    ("choose_k search skips the least c", "proofcheck/constructions/afz/phases/collapse.py",
     "for c in range(1, limit + 1):", "for c in range(2, limit + 1):", ["lemma", "collapse"]),
    ("choose_k rejects a solvable leader off the e_1 axis", "proofcheck/constructions/afz/phases/collapse.py",
     "if all(v == 0 for v in x[1:]) and", "if all(v == 0 for v in x[2:]) and",
     ["lemma", "collapse"]),
    ("choose_k accepts colliding kappas", "proofcheck/constructions/afz/phases/collapse.py",
     "return len(keys) == len(kappas) and", "return len(keys) >= len(kappas) - 1 and",
     ["lemma", "collapse"]),
    ("separating_direction search bound shrunk", "proofcheck/constructions/afz/layers/hat.py",
     "range(1, (d - 1) * len(others) + 2)", "range(1, (d - 1) * len(others) + 1)",
     ["lemma", "3.2"]),
    ("separating_direction test inverted", "proofcheck/constructions/afz/layers/hat.py",
     "if all(dot(w, x) != tp for x in others):", "if all(dot(w, x) == tp for x in others):",
     ["lemma", "3.2"]),
    ("nearest-projection window misses a side", "proofcheck/constructions/afz/phases/leaders.py",
     "for k in (i - 1, i + 1) if 0 <= k < len(pi)]", "for k in (i - 1, i + 2) if 0 <= k < len(pi)]",
     ["lemma", "leaders"]),
    ("leader half-gap fraction inverted", "proofcheck/constructions/afz/phases/leaders.py",
     "if near else Fraction(1)) / 2", "if near else Fraction(1)) * 2", ["lemma", "leaders"]),
    ("moved leader's projection recorded from the previous sequence",
     "proofcheck/constructions/afz/phases/leaders.py", "move(lo, (t[j],) * d, t[j] * su)",
     "move(lo, (t[j],) * d, t[(j - 1)] * su)", ["lemma", "leaders"]),
    ("region-P margin below beta", "proofcheck/constructions/afz/phases/leaders.py",
     "base = Fraction(floor(beta)) + margin", "base = Fraction(floor(beta)) - margin",
     ["lemma", "leaders"]),
    ("projection offset sign flipped", "proofcheck/constructions/afz/phases/separation.py",
     "tp = self.P0[p] + C.h.get(p, 0) * self.step + offC",
     "tp = self.P0[p] + C.h.get(p, 0) * self.step - offC",
     ["lemma", "separation"]),
    ("snap safety margin inverted", "proofcheck/constructions/afz/phases/interpolation.py",
     "if near else Fraction(1)) / 4", "if near else Fraction(1)) * 4", ["lemma", "interpolation"]),
    ("snap off the first axis", "proofcheck/constructions/afz/layers/snap.py",
     "G2 = tuple(yi - k2 if i == axis else yi", "G2 = tuple(yi - k2 if i == -axis else yi",
     ["lemma", "3.3"]),
    ("snap axis hypothesis weakened", "proofcheck/constructions/afz/layers/snap.py",
     "if not 0 <= axis < d or", "if not 0 <= axis <= d or", ["lemma", "3.3"]),
    ("phase span of I misplaced", "proofcheck/constructions/afz/theorems/theorem_1_6.py",
     '"I": (R + 2 + M,', '"I": (R + 0 + M,', ["lemma", "separation"]),
]


@pytest.mark.parametrize("label, path, old, new, argv", CLASSES, ids=[c[0] for c in CLASSES])
def test_wrong_construction_is_refuted_with_a_witness(capsys, label, path, old, new, argv):
    with patched(path, old, new) as changed:
        assert changed
        code = main(argv)
    out = capsys.readouterr().out
    assert code == 1, out[-2000:]
    i = out.index("[REFUTED]")
    assert "witness: " in out[i:], out[i:i + 1000]
    assert "Traceback" not in out
