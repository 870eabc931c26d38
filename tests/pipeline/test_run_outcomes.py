"""What a run's VERDICT line may say.  Resources: the construction's own checks run under
the kernel's work budget, so an input the kernel would stop on (one long sequence: n^2
attention scores per layer) ends RESOURCE-LIMIT, exit 4, before its work — not a FLINT
allocation abort (exit 134) after it.  Scope: a check on a generated instance is not a
check on the user's dataset."""
import json

import pytest

from proofcheck.kernel.errors import ResourceLimit
from proofcheck.kernel.verdicts import Verdict


def _long_dataset(path, n: int):
    """Two pairs in d = 2, the first with one sequence of ``n`` distinct tokens."""
    pairs = [{"input": [[str(i), "1"] for i in range(n)], "output": [["0", "5"]]},
             {"input": [["1", "2"], ["3", "4"]], "output": [["7", "7"]]}]
    path.write_text(json.dumps({"format": "proofcheck-dataset/1", "name": "long", "d": 2,
                                "pairs": pairs}))
    return path


@pytest.mark.parametrize("theorem", ["1.6", "1.8"])
def test_one_long_sequence_is_a_resource_limit(theorem, tmp_path, capsys):
    from proofcheck.frontend.cli import main
    f = _long_dataset(tmp_path / "long.json", 2000)
    code = main(["theorem", theorem, "--dataset", str(f), "--no-report"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert code == Verdict.RESOURCE_LIMIT.exit_code == 4
    assert last.split(" ")[:2] == ["VERDICT:", Verdict.RESOURCE_LIMIT.value]
    assert list(tmp_path.iterdir()) == [f]  # nothing written


def test_the_budget_scales_with_the_run():
    """The same check passes with short sequences (the budget grows with the input and
    the network), and stops with one long one; run_bytes counts the numbers' sizes."""
    from fractions import Fraction

    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    from proofcheck.constructions.claim_check import check_network, run_bytes
    short = [[(Fraction(i), Fraction(1)) for i in range(k, k + 3)] for k in (0, 10)]
    targets = [[(Fraction(0), Fraction(5))], [(Fraction(7), Fraction(7))]]
    c = construct(short, targets, 2)
    assert check_network(c.net, short, targets, c.claims).verdict == Verdict.VERIFIED
    long_ = [[(Fraction(i), Fraction(1)) for i in range(2000)], short[1]]
    c2 = construct(long_, targets, 2)
    with pytest.raises(ResourceLimit, match=r"construction's own check .*: block \d+ SA: "):
        check_network(c2.net, long_, targets, c2.claims)
    from proofcheck.constructions.afz.softmax_certifier import prepare
    with pytest.raises(ResourceLimit, match="certifier's hardmax trajectory"):
        prepare(c2.net, long_)
    assert prepare(c.net, short).stop is None  # the short one is within its budget
    assert run_bytes(c2.net, long_, targets) > run_bytes(c.net, short, targets)


def test_generated_instances_narrow_a_dataset_scope():
    """`lemma 1.6` without --dataset runs the statement's generated instances: a check
    "on this dataset" there holds on one generated instance, so its scope (and the
    VERDICT line's) is "on these instances only"; on the user's dataset it stays."""
    from types import SimpleNamespace

    from proofcheck.constructions.afz.instances import scoped
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Scope

    def check(ds):
        return [CheckResult("exact interpolation", Verdict.VERIFIED, scope=Scope.DATASET)]
    a, b = (SimpleNamespace(name=n, d=2, N=1) for n in "ab")
    assert [r.scope for r in scoped("T", check, [a, b])[1:]] == [Scope.INSTANCES] * 2
    assert [r.scope for r in scoped("T", check, a)[1:]] == [Scope.DATASET]


def test_a_failed_verdict_line_names_its_witness():
    """An INCONCLUSIVE or REFUTED VERDICT line carries the kernel's witness line (what
    could not be decided, where the claim fails); a pass carries its scope only."""
    from proofcheck.kernel.verify import Outcome
    from proofcheck.frontend.cli.common import outcome_line
    lines = ["route: plain", "witness: block 3, sub-layer SA, sequence 0, token 1"]
    for v in (Verdict.INCONCLUSIVE, Verdict.REFUTED):
        assert outcome_line(Outcome(v, lines)) == f"VERDICT: {v.value} ({lines[1]})"
    assert outcome_line(Outcome(Verdict.ERROR, lines)) == "VERDICT: ERROR"
    assert outcome_line(Outcome(Verdict.INCONCLUSIVE, lines[:1])) == "VERDICT: INCONCLUSIVE"
