"""The construction's own checks run under the kernel's work budget: an input the kernel
would stop on (one long sequence: n^2 attention scores per layer) ends RESOURCE-LIMIT,
exit 4, before its work — not a FLINT allocation abort (exit 134) after it."""
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
    from proofcheck.cli import main
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

    from lemmas.afz.theorems.theorem_1_6 import construct
    from lemmas.claim_check import check_network, run_bytes
    short = [[(Fraction(i), Fraction(1)) for i in range(k, k + 3)] for k in (0, 10)]
    targets = [[(Fraction(0), Fraction(5))], [(Fraction(7), Fraction(7))]]
    c = construct(short, targets, 2)
    assert check_network(c.net, short, targets, c.claims).verdict == Verdict.VERIFIED
    long_ = [[(Fraction(i), Fraction(1)) for i in range(2000)], short[1]]
    c2 = construct(long_, targets, 2)
    with pytest.raises(ResourceLimit, match="construction's own check"):
        check_network(c2.net, long_, targets, c2.claims)
    assert run_bytes(c2.net, long_, targets) > run_bytes(c.net, short, targets)
