"""Lemma 3.1 (translation) from an instance's data ``{"c"}`` (docs/spec.md §2): ``c != 0``;
FF of width 1, ``eta = 1``, ``U = 0``; then the layer adds the constant
``W_0 relu(b_0)``, which must equal c: ``FF(x) = x + c`` for EVERY token."""
from proofcheck.kernel import lemma_checks as D
from proofcheck.kernel.lemma_checks.profile import EXACT, Profile, ff_form, profile_failure
from proofcheck.kernel.verdicts import Verdict, Witness


def check(statement, data, layer, semantics, path, d):
    """See ``proofcheck.kernel.lemma_checks``; ``statement`` is ``"3.1"``."""
    lines = ff_form(layer, 1, statement, semantics)
    if isinstance(lines, tuple):
        return lines
    c = D.vector(D.get(data, "c", f"{path}.data"), d, f"{path}.data.c")
    if not any(c):
        why = "not an instance of a translation: c = 0 moves nothing"
        return Verdict.REFUTED, [why], Witness(why, code="hypothesis")
    if any(x != 0 for x in layer.U[0]):
        why, c = "Lemma 3.1 needs U = 0 (rank 0): the added vector would depend on x", next(
            i for i, x in enumerate(layer.U[0]) if x != 0)
        return Verdict.REFUTED, lines + [why], Witness(why, coordinate=c, expected=0,
                                                       got=layer.U[0][c], code="form")
    prof = Profile.along(layer, tuple(int(i == 0) for i in range(d)), EXACT)
    w = profile_failure(prof, None, None, lambda t: c, lambda t: (0,) * d, "FF(x) = x + c")
    if w is not None:
        return Verdict.REFUTED, lines + ["conclusion FF(x) = x + c: fails"], w
    return Verdict.VERIFIED, lines + ["U = 0 (rank 0)",
                                      "conclusion re-derived: FF(x) = x + c for every x"], None
