"""Lemma 4.2 (corner collapse) from an instance's data ``{"box": {"lower", "upper"}, "t"}`` (docs/spec.md
§2), comparing numbers.  Hypotheses: ``lower = 0``, every ``upper_c > 0``, ``t >= upper_c`` (so ``t
1 - x' >= 0`` for every box token x', 0 only at ``x' = t 1``); hardmax.  Form: ``rho = 0``, ``V =
I``, ``A = I``.  Conclusion: every row of A is nonnegative and nonzero — exactly "``<A x, y> > 0``
for all ``x > 0``, ``y >= 0, y != 0``", so ``t 1`` is the unique argmax of every box query — and
``V (t 1) = t 1``: every token of the box maps to ``t 1``."""
from fractions import Fraction

from proofcheck.kernel import lemma_checks as D
from proofcheck.kernel.lemma_checks.sa_form import (Refuted, dense, expect_matrix, expect_value,
    fmt_value, identity, rank, require_hardmax, require_sa, run_check)
from proofcheck.kernel.verdicts import Witness


def check(statement: str, data: dict, layer, semantics: dict, path: str, d: int):
    """``(verdict, lines, witness)`` of a Lemma 4.2 instance; bad data: ``BadInput`` at ``path.data``."""
    dp = f"{path}.data"
    box = D.get(data, "box", dp)
    lower = D.vector(D.get(box, "lower", f"{dp}.box"), d, f"{dp}.box.lower")
    upper = D.vector(D.get(box, "upper", f"{dp}.box"), d, f"{dp}.box.upper")
    t = D.parse_exact(D.get(data, "t", dp), f"{dp}.t")

    def body(lines):
        require_hardmax(statement, semantics, path)
        for c in range(d):
            if lower[c] != 0:
                raise Refuted(Witness("hypothesis: the box must be (0, upper] (positive box)",
                                      coordinate=c, expected=Fraction(0), got=lower[c],
                                      code="hypothesis"))
            if upper[c] <= 0:
                raise Refuted(Witness("hypothesis: the box is empty (upper <= 0)", coordinate=c,
                                      expected="> 0", got=upper[c], code="hypothesis"))
            if t < upper[c]:
                raise Refuted(Witness("hypothesis: t must be >= every upper bound of the box "
                                      "(t 1 above every box token)", coordinate=c,
                                      expected=f">= {fmt_value(upper[c])}", got=t,
                                      code="hypothesis"))
        lines.append(f"hypotheses: box (0, {fmt_value(upper)}] in d = {d}, t = {fmt_value(t)} >= "
                     "every upper bound; hardmax")
        sa = require_sa(layer, d)
        expect_value("rho", sa.rho, Fraction(0))
        V, A = dense(sa.V, d), dense(sa.A, d)
        expect_matrix("V", V, identity(d))
        expect_matrix("A", A, identity(d))
        lines.append(f"form: rho = 0, A = I (rank {rank(A)}), V = I (rank {rank(V)})")
        for a, row in enumerate(A):
            if any(x < 0 for x in row) or all(x == 0 for x in row):
                raise Refuted(Witness("conclusion: a row of A is not nonnegative and nonzero, so "
                                      "some box query does not prefer t 1", token=a, got=tuple(row),
                                      code="conclusion"))
        T = (t,) * d
        out = sa.V.apply(T)
        for c in range(d):
            if out[c] != t:
                raise Refuted(Witness("conclusion: V (t 1) != t 1", coordinate=c, expected=t,
                                      got=out[c], code="conclusion"))
        lines.append("conclusion: <A x, t1 - x'> > 0 for every query x > 0 and box key x' != t1 "
                     "(rows of A nonnegative, nonzero); rho = 0 and V t1 = t1: every box token "
                     f"maps to {fmt_value(T)}")
    return run_check(body)
