"""The one table of named cases the per-statement tests share (like a compiler's
table of test programs): each case names a statement, the dataset it runs on (a name
of ``conftest.named_datasets()``, or ``None`` for the statement's default instances),
an optional mutation of the construction, the verdict ``lemma ID`` must give and the
structured fields of the first witness when it refutes."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction as F

from proofcheck.kernel.verdicts import Verdict

VERIFIED, REFUTED = Verdict.VERIFIED, Verdict.REFUTED


def _snap_off_target(real):
    """Every snap aims one unit above its target in each coordinate."""
    return lambda axis, d, kappa, delta, y, *r, **kw: real(axis, d, kappa, delta,
                                                           tuple(v + 1 for v in y), *r, **kw)


def _hat_four_times_wider(real):
    """Every hat of Lemma 3.2 gets four times its half-width delta: it reaches other
    points of S."""
    return lambda w, t_p, delta, shift, *a, **k: real(w, t_p, 4 * delta, shift, *a, **k)


@dataclass(frozen=True)
class Case:
    statement: str
    name: str
    dataset: str | None
    verdict: Verdict
    #: ``(module, attribute, wrapper)``: ``module.attribute`` replaced by ``wrapper(real)``
    mutation: tuple | None = None
    #: fields of the first witness of the run (``Witness`` attributes)
    witness: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.statement}-{self.name}"


CASES = [
    # phase statements of the Theorem 1.6 construction
    Case("separation", "every-round-needed", "common-top", VERIFIED),
    Case("separation", "overlaps-in-4d", "overlap-4d", VERIFIED),
    Case("leaders", "ties", "tie-heavy", VERIFIED),
    Case("collapse", "lattice", "lattice-builtin", VERIFIED),
    Case("interpolation", "square", "square-builtin", VERIFIED),
    Case("interpolation", "snap-off-target", "square-builtin", REFUTED,
         ("proofcheck.constructions.afz.phases.interpolation", "snap_ff", _snap_off_target),
         {"code": "claim-mismatch", "block": 6, "sublayer": "FF", "sequence": 0, "token": 0,
          "coordinate": 0, "expected": F(1), "got": F(2)}),
    Case("tag-growth", "rounds", "needs-rounds", VERIFIED),
    Case("tag-growth", "every-round-needed", "common-top", VERIFIED),
    # layer lemmas on datasets the theorems would refuse (repeated tokens) or in 3-d
    Case("3.2", "ties", "tie-heavy", VERIFIED),
    Case("3.2", "hat-too-wide", "tie-heavy", REFUTED,
         ("proofcheck.constructions.afz.layers.hat", "hat_ff", _hat_four_times_wider),
         {"code": "layer-output", "sequence": 0, "token": 0, "coordinate": 0, "expected": F(0),
          "got": F(1, 14)}),
    Case("4.1", "union-3d", "union-3d", VERIFIED),
    Case("1.8-collapse", "square", "square-builtin", VERIFIED),
    Case("softmax-gap", "built-in", None, VERIFIED),
]
