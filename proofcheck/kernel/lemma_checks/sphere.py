"""Lemma 4.3 (sphere leaders) from an instance's data ``{"r", "points"}`` (docs/spec.md §2), comparing
numbers.  Hypotheses: ``r > 0``; the points pairwise distinct, on ``|s|^2 = r^2`` exactly, in the
open negative orthant; hardmax.  Form: ``rho = 0``, ``V = I``, ``A = I``.  Conclusion, per point s:
``<A s, s> > <A s, s'>`` for every other point, ``A s <= 0`` and ``<A s, s> > 0`` (so every token z
of the closed positive orthant scores ``<A s, z> <= 0 < <A s, s>``), and ``rho s + V s = s``: each
sphere point attends only to itself and is fixed."""
from fractions import Fraction

from proofcheck.kernel import lemma_checks as D
from proofcheck.kernel.lemma_checks.sa_form import (Refuted, charge, dense, expect_matrix,
    expect_value, fmt_value, identity, rank, require_hardmax, require_sa, run_check)
from proofcheck.kernel.model import dot
from proofcheck.kernel.verdicts import Witness


def check(statement: str, data: dict, layer, semantics: dict, path: str, d: int):
    """``(verdict, lines, witness)`` of a Lemma 4.3 instance; bad data: ``BadInput`` at ``path.data``."""
    dp = f"{path}.data"
    r = D.parse_exact(D.get(data, "r", dp), f"{dp}.r")
    pts = D.points(D.get(data, "points", dp), d, f"{dp}.points")

    def body(lines):
        require_hardmax(statement, semantics, path)
        if r <= 0:
            raise Refuted(Witness("hypothesis: the radius must be positive", expected="> 0", got=r,
                                  code="hypothesis"))
        seen = {}
        for k, s in enumerate(pts):
            n2 = dot(s, s)
            if n2 != r * r:
                raise Refuted(Witness(f"hypothesis: point {k} is not on the sphere |s| = r",
                                      token=k, expected=r * r, got=n2, code="hypothesis"))
            c = next((c for c in range(d) if s[c] >= 0), None)
            if c is not None:
                raise Refuted(Witness(f"hypothesis: point {k} is not in the open negative orthant",
                                      token=k, coordinate=c, expected="< 0", got=s[c],
                                      code="hypothesis"))
            if s in seen:
                raise Refuted(Witness(f"hypothesis: points {seen[s]} and {k} coincide", token=k,
                                      got=s, code="hypothesis"))
            seen[s] = k
        lines.append(f"hypotheses: {len(pts)} distinct points with |s|^2 = r^2 = {fmt_value(r * r)} "
                     f"in the open negative orthant of Q^{d}; hardmax")
        sa = require_sa(layer, d)
        expect_value("rho", sa.rho, Fraction(0))
        V, A = dense(sa.V, d), dense(sa.A, d)
        expect_matrix("V", V, identity(d))
        expect_matrix("A", A, identity(d))
        lines.append(f"form: rho = 0, A = I (rank {rank(A)}), V = I (rank {rank(V)})")
        charge(40 * len(pts) ** 2 * d, "the pairwise scores of Lemma 4.3's points (Fractions)")
        for k, s in enumerate(pts):
            As = sa.A.apply(s)
            own = dot(As, s)
            for k2, s2 in enumerate(pts):
                if k2 != k and dot(As, s2) >= own:
                    raise Refuted(Witness(f"conclusion: point {k} does not beat point {k2}",
                                          token=k, expected=f"< {fmt_value(own)}",
                                          got=dot(As, s2), code="conclusion"))
            c = next((c for c in range(d) if As[c] > 0), None)
            if own <= 0 or c is not None:
                raise Refuted(Witness(f"conclusion: point {k} does not beat every token of the "
                                      "positive orthant", token=k, coordinate=c,
                                      expected="A s <= 0 < <A s, s>", got=tuple(As),
                                      code="conclusion"))
            img = [sa.rho * a + b for a, b in zip(s, sa.V.apply(s))]
            if tuple(img) != s:
                raise Refuted(Witness(f"conclusion: point {k} is not fixed", token=k, expected=s,
                                      got=tuple(img), code="conclusion"))
        lines.append("conclusion: every point scores itself strictly above every other point and "
                     "every token of the closed positive orthant, and rho s + V s = s: sphere "
                     "points attend only to themselves and are fixed")
    return run_check(body)
