"""Every case of :data:`statement_cases.CASES` through the pipeline ``lemma ID`` runs
(:func:`proofcheck.frontend.runs.lemma.run_lemma`: the statement's checks, the certificate of
its exact instances and the kernel's re-check): the verdict, and for a refuted case
the structured fields of the first witness and the kernel's REFUTED on its
certificate when it has one."""
from __future__ import annotations

import importlib

import pytest
from conftest import NAMED
from statement_cases import CASES

from proofcheck.frontend.registry import find
from proofcheck.frontend.runs.lemma import run_lemma


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_statement_case(case, monkeypatch):
    if case.mutation is not None:
        module, name, wrap = case.mutation
        mod = importlib.import_module(module)
        monkeypatch.setattr(mod, name, wrap(getattr(mod, name)))
    st = find(case.statement)
    ds = None if case.dataset is None else NAMED[case.dataset]
    if ds is not None:
        st.check_admissible(ds)  # the case is one `lemma ID --dataset` accepts
    run = run_lemma(st, ds, 0)
    assert run.verdict == case.verdict
    witnesses = [r.witness for r in run.results if r.witness is not None]
    if case.verdict.passed:
        assert witnesses == []
        return
    assert witnesses, "a refuted case must name where it fails"
    got = {k: getattr(witnesses[0], k) for k in case.witness}
    assert got == case.witness
    if run.recheck is not None:
        assert run.recheck.verdict == case.verdict


def test_every_case_names_a_registered_statement_and_dataset():
    assert all(find(c.statement) for c in CASES)
    assert {c.dataset for c in CASES} - {None} <= set(NAMED)
    assert len({c.id for c in CASES}) == len(CASES)


def test_tag_growth_witness_names_the_round_that_does_not_double():
    """The check on a growth sequence that stalls in round 2: REFUTED at block 3 (the
    round's tag), SA, with the exact values."""
    from types import SimpleNamespace

    from proofcheck.constructions.afz.theorems.tag_growth import check
    info = {"R": 2, "u": (1, 1), "lambdas": [1, 1]}
    r = check(SimpleNamespace(blocks=[]), [], info, g=[1, 3, 5])
    assert (r.verdict.value, r.witness.block, r.witness.sublayer, r.witness.expected,
            r.witness.got) == ("REFUTED", 3, "SA", 6, 5)
