"""The statement registry (proofcheck/frontend/registry/): one declaration per statement, in
agreement with the kernel's own table of trusted checks; every declared check,
instance and dependency exists; per-statement admissibility; names; the README
table is the generated one."""
from __future__ import annotations

import dataclasses
import importlib
import json
from pathlib import Path

import pytest

from proofcheck.frontend.cli import main
from proofcheck.kernel.errors import BadInput, Inadmissible
from proofcheck.frontend.registry import (
    Admissibility,
    Statement,
    find,
    load,
    markdown_table,
    normalise,
)
from proofcheck.frontend.registry.builtin import STATEMENTS
from proofcheck.frontend.runs.instances import defaults

ROOT = Path(__file__).resolve().parents[2]
KINDS = {"FF lemma": "FF", "SA lemma": "SA"}


def test_registry_agrees_with_the_kernel_table():
    """The kernel trusts exactly the checks the registry names, for the same ids, and
    a construction and its kernel check carry the same name
    (:data:`proofcheck.kernel.statements.LEMMA_FORMS`)."""
    from proofcheck.kernel.statements import LEMMA_FORMS
    declared = {s.id: s.kernel_check for s in STATEMENTS if s.kernel_check is not None}
    assert declared == {sid: module for sid, (*_, module) in LEMMA_FORMS.items()}
    for s in STATEMENTS:
        if s.kernel_check is None:
            continue
        assert s.module.rsplit(".", 1)[1] == s.kernel_check, s.id
        assert LEMMA_FORMS[s.id][0] == KINDS[s.kind], s.id
        assert importlib.import_module(f"proofcheck.kernel.lemma_checks.{s.kernel_check}").check


def test_registry_agrees_with_the_kernel_on_ids_aliases_and_theorems():
    """Every catalogue id is one the kernel refuses as a plugin's, every alias the
    registry accepts is one the kernel maps to the same id, and the theorems are the
    kernel's."""
    from proofcheck.kernel.statements import ALIASES, BUDGETS, CATALOGUE_IDS, poses_as
    assert {s.id for s in STATEMENTS} == set(CATALOGUE_IDS)
    assert all(ALIASES.get(a) == s.id for s in STATEMENTS for a in s.aliases)
    assert all(poses_as(n) == s.id for s in STATEMENTS for n in s.names)
    assert {s.id for s in STATEMENTS if s.kind == "theorem"} == set(BUDGETS)


@pytest.mark.parametrize("st", STATEMENTS, ids=lambda s: s.id)
def test_every_declared_check_and_module_exists(st):
    assert st.implemented
    assert all(callable(f) for f in st.check_functions())
    importlib.import_module(st.module)


def test_names_are_unique_after_normalising():
    names = [normalise(n) for s in STATEMENTS for n in s.names]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("name, sid", [("Lemma 3.2", "3.2"), ("HAT", "3.2"),
                                       ("3.2\u200b", "3.2"), (" theorem 1.6 ", "1.6"),
                                       ("ｃ.１", "C.1"), ("plateau", "3.2p")])
def test_find_by_id_or_alias(name, sid):
    assert find(name).id == sid


def test_unknown_name_is_bad_input():
    with pytest.raises(BadInput):
        find("3.2.1")


def test_dependencies_name_known_statements_and_are_acyclic():
    ids = {s.id for s in STATEMENTS}
    uses = {s.id: set(s.uses) for s in STATEMENTS}
    assert all(u <= ids for u in uses.values())
    done = set()
    while len(done) < len(ids):  # peel statements whose dependencies are done
        ready = {i for i in ids - done if uses[i] <= done}
        assert ready, f"a dependency cycle among {sorted(ids - done)}"
        done |= ready


@pytest.mark.parametrize("st", [s for s in STATEMENTS if s.instances], ids=lambda s: s.id)
def test_default_instances_build_and_are_admitted(st):
    for name, obj in defaults(st, 0).items():
        for x in (obj if isinstance(obj, list) else [obj]):
            ds = x if name != "setting" else x.dataset
            if name == "dataset":
                st.check_admissible(ds)
            assert ds.N >= 1


def test_declaration_errors_are_named():
    with pytest.raises(ValueError, match="flag"):
        Statement("x", "FF lemma", "t", "-", "no-such-flag", checks=(lambda d, s: [],))
    with pytest.raises(ValueError, match="scope"):
        Statement("x", "FF lemma", "t", "-", "project", scope="always")
    with pytest.raises(ValueError, match="check"):
        Statement("x", "FF lemma", "t", "-", "project", checks=("run",))  # no module


def test_readme_table_is_generated_from_the_registry():
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- statements table -->\n", 1)[1].split("<!-- end -->", 1)[0]
    assert block == markdown_table(load(plugins=False))


def _where_blocks(out: str) -> dict[str, dict[str, str]]:
    """``list --where`` output as ``{id: {label: place}}``."""
    blocks = {}
    for block in out.strip().split("\n\n"):
        head, *lines = block.splitlines()
        blocks[head.split("  ", 1)[0]] = {
            line[2:15].strip(): line[15:].strip() for line in lines}
    return blocks


def test_list_where_prints_existing_paths_for_every_statement(capsys):
    """``list --where`` (every statement) names four places per statement; every path it
    prints exists in the repository, and each statement has its test file and doc page."""
    assert main(["list", "--where"]) == 0
    blocks = _where_blocks(capsys.readouterr().out)
    assert list(blocks) == [s.id for s in STATEMENTS]
    for sid, places in blocks.items():
        assert set(places) == {"construction", "kernel check", "tests", "doc"}, sid
        assert places["tests"] != "-" and places["doc"] != "-", sid
        for label, place in places.items():
            assert place == "-" or (ROOT / place).is_file(), (sid, label, place)


@pytest.mark.parametrize("name, sid, kernel, tests", [
    ("hat", "3.2", "proofcheck/kernel/lemma_checks/hat.py", "test_3_2.py"),
    ("1.6", "1.6", "proofcheck/kernel/theorem.py", "test_1_6.py"),
    ("1.8-collapse", "1.8-collapse", "-", "test_1_8_collapse.py"),
    ("C.1", "C.1", "-", "test_c_1.py")])
def test_list_where_id_prints_one_statement(capsys, name, sid, kernel, tests):
    assert main(["list", "--where", name]) == 0
    assert _where_blocks(capsys.readouterr().out) == {sid: {
        "construction": find(name).module.replace(".", "/") + ".py", "kernel check": kernel,
        "tests": f"tests/statements/{tests}", "doc": f"docs/statements/{sid}.md"}}


def test_list_where_unknown_id_is_bad_input(capsys):
    assert main(["list", "--where", "9.9"]) == 2


def _write(tmp_path, d, pairs):
    f = tmp_path / "ds.json"
    f.write_text(json.dumps({"format": "proofcheck-dataset/1", "d": d, "pairs": pairs}))
    return str(f)


def test_a_relocation_admits_a_one_dimensional_set_with_repeated_tokens(tmp_path):
    from proofcheck.frontend.io.datasets import load_dataset
    f = _write(tmp_path, 1, [{"input": [["0"], ["1"], ["1"], ["3"]], "output": [["7"]]}])
    assert main(["lemma", "3.2", "--dataset", f]) == 0
    assert main(["theorem", "1.6", "--dataset", f, "--no-report"]) == 2
    with pytest.raises(Inadmissible) as e:
        find("1.6").check_admissible(load_dataset(f, admissible=False))
    assert e.value.path == "$.d"


def test_statement_rules_name_the_offending_path():
    ds = defaults(find("1.6"), 0)["dataset"][0]
    bad = dataclasses.replace(ds, pairs=(ds.pairs[0], ds.pairs[0]) + ds.pairs[2:])
    with pytest.raises(Inadmissible) as e:
        find("1.6").check_admissible(bad)
    assert e.value.path == "$.pairs[1].input"
    rule = Admissibility(min_d=1, distinct_tokens=True)
    rep = dataclasses.replace(ds, pairs=(type(ds.pairs[0])(ds.pairs[0].inputs * 2,
                                                           ds.pairs[0].outputs),))
    with pytest.raises(Inadmissible) as e:
        rule.check(rep, "x")
    assert e.value.path == f"$.pairs[0].input[{len(ds.pairs[0].inputs)}]"


def test_a_statement_without_dataset_refuses_one(tmp_path):
    f = _write(tmp_path, 2, [{"input": [["0", "0"]], "output": [["1", "1"]]}])
    assert main(["lemma", "C.1", "--dataset", f]) == 2
    assert main(["lemma", "C.1", "--example", "digits-sample"]) == 2


def test_lemma_collapse_runs_every_declared_check():
    """``lemma collapse`` runs the collapse module's proof and searches and the
    phase-C check on the theorem's construction."""
    from proofcheck.constructions.afz.phases import collapse
    from proofcheck.constructions.afz.theorems import phase_statements as statements
    from proofcheck.frontend.runs.lemma import run_checks
    st = find("collapse")
    ds = defaults(st, 0)["dataset"]
    got = [r.name for r in run_checks(st, None, 0)]
    want = [r.name for r in collapse.run(ds, 0) + statements.run_collapse(ds, 0)]
    assert got == want
    assert any("symbolic" in n for n in got) and len(got) > 3


def test_an_unknown_id_is_shown_escaped_and_cut():
    """An id is user input: the error shows at most 60 of its characters, escaped."""
    import pytest

    from proofcheck.frontend.registry import find
    from proofcheck.kernel.errors import BadInput
    with pytest.raises(BadInput) as e:
        find("x" * 100_000 + "\x1b[2J")
    assert len(str(e.value)) < 1_000 and "\x1b" not in str(e.value)
