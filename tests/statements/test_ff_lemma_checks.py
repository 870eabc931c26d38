"""The lemma checks of 3.1, 3.2, 3.2p and 3.3 as one test: the command mutmut runs
against the construction modules (``[tool.mutmut]`` in pyproject.toml,
docs/measurements/mutation.md).  Each statement must be VERIFIED on several instances (built-in
d = 2 at three seeds, datasets in d = 2, 3, 4), and the kernel must re-derive the
conclusion from the certificate of each run.  A mutant of a construction routine
that changes what the layer does is killed here by a REFUTED verdict."""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from conftest import NAMED

from proofcheck.constructions.afz.layers import hat, snap
from proofcheck.kernel.dataset import Dataset, Pair

from proofcheck.frontend.registry import find
from proofcheck.frontend.runs.lemma import run_checks
from proofcheck.frontend.io.certificate_writer import lemma_certificate
from proofcheck.kernel.verdicts import Verdict, combine
from proofcheck.kernel.verify import verify_certificate

FF_STATEMENTS = ["3.1", "3.2", "3.2p", "3.3"]
# small datasets that reach corner cases of the constructions: S = {p} (no other
# projection: the default half-width), and a pair on which the direction k = 2 does
# not separate (so the search must start at k = 1)
EXTRA = {
    "single-point": Dataset("single-point", 3, (Pair(((F(1), F(2), F(3)),), ((F(0), F(0), F(1)),)),)),
    "k2-collides": Dataset("k2-collides", 2, (Pair(((F(0), F(0)), (F(2), F(-1))),
                                                   ((F(5), F(5)),)),)),
}
INSTANCES = [(None, 0), (None, 1), (None, 2), ("tie-heavy", 5), ("union-3d", 3),
             ("overlap-4d", 1), ("single-point", 0), ("k2-collides", 0)]


def dataset(name):
    return None if name is None else EXTRA.get(name) or NAMED[name]


@pytest.fixture(autouse=True)
def _fresh_symbolic_proofs():
    """The symbolic proofs are cached per process; a mutated construction must be
    proved afresh (mutmut forks every mutant from one process)."""
    hat._symbolic.cache_clear()
    snap._symbolic.cache_clear()


@pytest.mark.parametrize("sid", FF_STATEMENTS)
def test_ff_lemma_checks_verify_and_kernel_agrees(sid):
    for dname, seed in INSTANCES:
        res = run_checks(find(sid), dataset(dname), seed)
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
    import sympy as sp
    x = sp.Symbol("x", real=True)
    H, P = "hat: delta must be positive", "plateau hat: need 0 < delta1 < delta2"
    A, SD = "snap: need 0 <= axis < d and y of length d", "snap: need delta > 0"
    bad_calls = [
        (lambda: hat.hat_ff((1, 0), 0, x, (1, 1)),
         H + " (not decided by the symbols' assumptions)"),
        (lambda: hat.hat_ff((1, 0), 0, 0, (1, 1)), H),
        (lambda: hat.hat_ff((1, 0), 0, -1, (1, 1)), H),
        (lambda: hat.plateau_ff((1, 0), 0, 0, 1, (1, 1)), P),
        (lambda: hat.plateau_ff((1, 0), 0, -1, 1, (1, 1)), P),
        (lambda: hat.plateau_ff((1, 0), 0, 1, 1, (1, 1)), P),
        (lambda: hat.plateau_ff((1, 0), 0, 2, 1, (1, 1)), P),
        (lambda: snap.snap_ff(0, 2, 0, 0, (1, 1)), SD),
        (lambda: snap.snap_ff(0, 2, 0, -1, (1, 1)), SD),
        (lambda: snap.snap_ff(2, 2, 0, 1, (1, 1)), A),
        (lambda: snap.snap_ff(-1, 2, 0, 1, (1, 1)), A),
        (lambda: snap.snap_ff(0, 2, 0, 1, (1, 1, 1)), A),
    ]
    from proofcheck.constructions.afz.scalars import scalar, scalars
    R = "scalar: x must be a rational number or a sympy expression, got "
    V = "scalars: xs must be a vector (list or tuple of scalars), got "
    bad_calls += [
        (lambda: scalar(None), R + "None"),
        (lambda: scalar(0.5), R + "0.5"),
        (lambda: scalar(True), R + "True"),
        (lambda: scalars(None), V + "None"),
        (lambda: scalars("12"), V + "'12'"),
        (lambda: hat.hat_ff((1, 0.5), 0, 1, (1, 1)), R + "0.5"),
    ]
    for call, msg in bad_calls:
        with pytest.raises(ValueError) as exc:
            call()
        assert str(exc.value) == msg
