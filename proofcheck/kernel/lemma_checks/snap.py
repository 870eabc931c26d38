"""Lemma 3.3 (interval-to-point snap) from an instance's data ``{"line": e_a, "kappa", "delta",
"target": y}`` (docs/spec.md §2), comparing numbers.  Hypotheses: ``delta > 0``, e a coordinate axis.
Form: FF of width 4, ``eta = 1``, every row of U along e, so ``FF(x) = x + G(x_a)`` for EVERY x.
Conclusion: ``FF(t e) = y`` for ``|t - kappa| <= delta`` and ``FF(x) = x`` for ``x_a`` outside
``(kappa - 2 delta, kappa + 2 delta)``, decided on the exact profile G (:mod:`.profile`)."""
from fractions import Fraction

from proofcheck.kernel import lemma_checks as D
from proofcheck.kernel.lemma_checks.profile import EXACT, NotAlong, Profile, ff_form, profile_failure
from proofcheck.kernel.verdicts import Verdict, Witness


def check(statement, data, layer, semantics, path, d):
    """See ``proofcheck.kernel.lemma_checks``; ``statement`` is ``"3.3"``."""
    lines = ff_form(layer, 4, statement, semantics)
    if isinstance(lines, tuple):
        return lines
    dp = f"{path}.data"
    e = D.vector(D.get(data, "line", dp), d, f"{dp}.line")
    kappa = D.parse_exact(D.get(data, "kappa", dp), f"{dp}.kappa")
    delta = D.parse_exact(D.get(data, "delta", dp), f"{dp}.delta")
    y = D.vector(D.get(data, "target", dp), d, f"{dp}.target")
    if sorted(e) != [0] * (d - 1) + [1]:
        raise_bad = "hypothesis fails: the line must be spanned by a coordinate axis e_a"
        return Verdict.REFUTED, lines, Witness(raise_bad, code="hypothesis")
    if delta <= 0:
        return Verdict.REFUTED, lines, Witness(f"hypothesis fails: delta = {delta} is not positive",
                                               code="hypothesis")
    a = e.index(1)
    lines.append(f"hypotheses: line Q e_{a}, delta = {delta} > 0, kappa = {kappa}")
    try:
        prof = Profile.along(layer, e, EXACT)
    except NotAlong as exc:
        why = f"Lemma 3.3 needs every row of U along e_{a}: {exc}"
        return Verdict.REFUTED, lines + [why], Witness(why, code="form")
    lines.append(f"rank(U) = 1 along e_{a}; kinks at "
                 + ", ".join(str(k) for k in sorted(set(prof.kinks()))))
    zero = (Fraction(0),) * d

    def token_at(t):
        return tuple(t * x for x in e)

    claims = [(None, kappa - 2 * delta, f"FF(x) = x when x_{a} <= kappa - 2 delta", lambda t: zero),
              (kappa - delta, kappa + delta, "FF(t e) = target when |t - kappa| <= delta",
               lambda t: tuple(yi - t * ei for yi, ei in zip(y, e))),
              (kappa + 2 * delta, None, f"FF(x) = x when x_{a} >= kappa + 2 delta", lambda t: zero)]
    for lo, hi, text, target in claims:
        wit = profile_failure(prof, lo, hi, target, token_at, text)
        if wit is not None:
            return Verdict.REFUTED, lines + [f"conclusion {text}: fails"], wit
        lines.append(f"conclusion re-derived for every x: {text}")
    return Verdict.VERIFIED, lines, None
