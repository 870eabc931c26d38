"""Lemma 4.1 (hyperplane clustering) and its tag variant from an instance's data ``{"u"}`` (4.1:
``A = u u^T``, ``V = I``, ``rho = 0``) or ``{"u", "lambda"}`` (tag: ``V = lambda I``, ``rho = 1``;
docs/spec.md §2), comparing numbers.  Hypotheses: ``u != 0``, hardmax.  Form: rho and V as stated, ``A = u
u^T`` entry by entry.  Conclusion: by bilinearity ``<A x_i, x_l - x_k> = p(x_i)(p(x_l) - p(x_k))``
with ``p = <u, .>`` for all tokens, so ``p > 0`` attends to the p-maximal tokens, ``p < 0`` to the
p-minimal ones, ``p = 0`` to all; the output is the attended mean (4.1: at most 3 images per
sequence) or ``x + lambda`` times it (tag)."""
from fractions import Fraction

from proofcheck.kernel import lemma_checks as D
from proofcheck.kernel.lemma_checks.sa_form import (Refuted, dense, expect_matrix, expect_value,
    fmt_value, identity, rank, require_hardmax, require_sa, run_check)
from proofcheck.kernel.verdicts import Witness


def check(statement: str, data: dict, layer, semantics: dict, path: str, d: int):
    """``(verdict, lines, witness)`` of a Lemma 4.1 instance; bad data: ``BadInput`` at ``path.data``."""
    dp = f"{path}.data"
    u = D.vector(D.get(data, "u", dp), d, f"{dp}.u")
    tag = isinstance(data, dict) and "lambda" in data
    lam = D.parse_exact(data["lambda"], f"{dp}.lambda") if tag else None

    def body(lines):
        require_hardmax(statement, semantics, path)
        if all(x == 0 for x in u):
            raise Refuted(Witness("hypothesis: u must be nonzero", expected="u != 0", got=u,
                                  code="hypothesis"))
        lines.append(f"hypothesis: u = {fmt_value(u)} != 0 (d = {d}); hardmax")
        sa = require_sa(layer, d)
        if tag:
            expect_value("rho", sa.rho, Fraction(1))
            expect_matrix("V", dense(sa.V, d), identity(d, lam))
        else:
            expect_value("rho", sa.rho, Fraction(0))
            expect_matrix("V", dense(sa.V, d), identity(d))
        A = dense(sa.A, d)
        expect_matrix("A", A, [[a * b for b in u] for a in u])
        lines.append(f"form: rho = {sa.rho}, V = " + (f"{fmt_value(lam)} I" if tag else "I")
                     + f" (rank {rank(dense(sa.V, d))}), A = u u^T (rank {rank(A)})")
        lines.append("conclusion: <A e_a, e_b> = u_a u_b for all a, b, so <A x_i, x_l - x_k> = "
                     "<u,x_i>(<u,x_l> - <u,x_k>) for all tokens: p > 0 attends to the u-maximal, "
                     "p < 0 to the u-minimal, p = 0 to all tokens; "
                     + ("x -> x + lambda mean(argmax)" if tag else
                        "x -> mean(argmax): at most 3 images per sequence"))
    return run_check(body)
