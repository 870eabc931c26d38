"""The lemma checks of 3.1, 3.2, 3.2p and 3.3 as one test: the command mutmut runs
against the construction modules (``[tool.mutmut]`` in pyproject.toml,
docs/mutation.md).  Each statement must be VERIFIED on several instances (built-in
d = 2 at three seeds, datasets in d = 2, 3, 4), and the kernel must re-derive the
conclusion from the certificate of each run.  A mutant of a construction routine
that changes what the layer does is killed here by a REFUTED verdict."""
from __future__ import annotations

import pytest
from conftest import NAMED

from proofcheck.catalogue import find
from proofcheck.io.certificate_writer import lemma_certificate
from proofcheck.kernel.verdicts import Verdict, combine
from proofcheck.kernel.verify import verify_certificate

FF_STATEMENTS = ["3.1", "3.2", "3.2p", "3.3"]
INSTANCES = [(None, 0), (None, 1), (None, 2), ("tie-heavy", 5), ("union-3d", 3),
             ("overlap-4d", 1)]


@pytest.mark.parametrize("sid", FF_STATEMENTS)
def test_ff_lemma_checks_verify_and_kernel_agrees(sid):
    for dname, seed in INSTANCES:
        res = find(sid).runner()(NAMED[dname] if dname else None, seed)
        verdicts = [r.verdict for r in res]
        assert verdicts and all(v == Verdict.VERIFIED for v in verdicts), \
            (dname, seed, [ln for r in res for ln in r.lines()])
        cert = lemma_certificate(sid, res, combine(verdicts))
        got, lines = verify_certificate(cert)
        assert got == Verdict.VERIFIED, (dname, seed, lines)
        assert any("conclusion re-derived" in ln for ln in lines)


def test_constructions_reject_violated_hypotheses():
    """Each FF construction refuses parameters outside its lemma's hypotheses with a
    clear ValueError (naming the hypothesis), never a layer."""
    from lemmas.afz import hat, snap
    bad_calls = [
        (lambda: hat.hat_ff((1, 0), 0, 0, (1, 1)), "delta must be positive"),
        (lambda: hat.hat_ff((1, 0), 0, -1, (1, 1)), "delta must be positive"),
        (lambda: hat.plateau_ff((1, 0), 0, 0, 1, (1, 1)), "0 < delta1 < delta2"),
        (lambda: hat.plateau_ff((1, 0), 0, -1, 1, (1, 1)), "0 < delta1 < delta2"),
        (lambda: hat.plateau_ff((1, 0), 0, 1, 1, (1, 1)), "0 < delta1 < delta2"),
        (lambda: hat.plateau_ff((1, 0), 0, 2, 1, (1, 1)), "0 < delta1 < delta2"),
        (lambda: snap.snap_ff(0, 2, 0, 0, (1, 1)), "delta > 0"),
        (lambda: snap.snap_ff(0, 2, 0, -1, (1, 1)), "delta > 0"),
        (lambda: snap.snap_ff(2, 2, 0, 1, (1, 1)), "0 <= axis < d"),
        (lambda: snap.snap_ff(-1, 2, 0, 1, (1, 1)), "0 <= axis < d"),
        (lambda: snap.snap_ff(0, 2, 0, 1, (1, 1, 1)), "y of length d"),
    ]
    for call, msg in bad_calls:
        with pytest.raises(ValueError, match=msg):
            call()
