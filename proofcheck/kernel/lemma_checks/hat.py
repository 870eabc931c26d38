"""Lemmas 3.2 (relocation, hat) and 3.2p (plateau) from an instance's data ``{"S", "p", "q"}``
(3.2p: also ``"delta1", "delta2"``; docs/spec.md §2), comparing numbers. Hypotheses: S pairwise distinct, p
in S, q != p; 3.2p: ``0 < delta1 < delta2``. Form: FF of width 3 (3.2) or 4 (3.2p), ``eta = 1``,
every row of U along ``w`` (the first non-zero row), so ``FF(x) = x + G(<w,x>)`` for EVERY x
(:mod:`.profile`). Conclusion: 3.2: ``FF(p) = q``, ``FF(x) = x`` on ``S - {p}``, ``G = 0`` beyond
the outermost kinks; 3.2p: ``FF(x) = x + (q - p)`` wherever ``|<w,x> - <w,p>| <= delta1``, ``FF(x)
= x`` wherever it is ``>= delta2`` and on ``S - {p}``."""
from fractions import Fraction

from proofcheck.kernel import lemma_checks as D
from proofcheck.kernel.lemma_checks.profile import (EXACT, NotAlong, Profile, direction, ff_form,
                                                    profile_failure)
from proofcheck.kernel.model import dot
from proofcheck.kernel.verdicts import Verdict, Witness
from proofcheck.kernel.verdicts import fmt_value as _fmt


def check(statement, data, layer, semantics, path, d):
    """See ``proofcheck.kernel.lemma_checks``; ``statement`` is ``"3.2"`` or ``"3.2p"``."""
    width = 3 if statement == "3.2" else 4
    lines = ff_form(layer, width, statement, semantics)
    if isinstance(lines, tuple):
        return lines
    dp = f"{path}.data"
    S = D.points(D.get(data, "S", dp), d, f"{dp}.S")
    p = D.vector(D.get(data, "p", dp), d, f"{dp}.p")
    q = D.vector(D.get(data, "q", dp), d, f"{dp}.q")
    if len(set(S)) != len(S):
        i = next(i for i, x in enumerate(S) if x in S[:i])
        return Verdict.REFUTED, lines, Witness(f"hypothesis fails: S repeats the point {_fmt(S[i])}",
                                               token=i, code="hypothesis")
    if p not in S:
        return Verdict.REFUTED, lines, Witness("hypothesis fails: p is not a point of S",
                                               code="hypothesis")
    if q == p:
        return Verdict.REFUTED, lines, Witness("not an instance of a relocation: q = p",
                                               code="hypothesis")
    if statement == "3.2p":
        d1 = D.parse_exact(D.get(data, "delta1", dp), f"{dp}.delta1")
        d2 = D.parse_exact(D.get(data, "delta2", dp), f"{dp}.delta2")
        if not 0 < d1 < d2:
            return Verdict.REFUTED, lines, Witness(
                f"hypothesis fails: need 0 < delta1 < delta2, got delta1 = {d1}, delta2 = {d2}",
                code="hypothesis")
    lines.append(f"hypotheses: |S| = {len(S)} distinct points, p in S, q != p")
    w = direction(layer)
    if w is None:
        why = f"Lemma {statement} needs rank(U) = 1 (one direction w); the layer has U = 0"
        return Verdict.REFUTED, lines + [why], Witness(why, code="form")
    try:
        prof = Profile.along(layer, w, EXACT)
    except NotAlong as e:
        why = f"Lemma {statement} needs rank(U) = 1: {e}"
        return Verdict.REFUTED, lines + [why], Witness(why, code="form")
    lines.append(f"rank(U) = 1, direction w = {_fmt(w)}, kinks at "
                 f"{_fmt(sorted(set(prof.kinks())))}")
    ww = dot(w, w)
    tp = dot(w, p)

    def token_at(t):
        return tuple(a + (t - tp) * b / ww for a, b in zip(p, w))

    shift = tuple(b - a for a, b in zip(p, q))
    zero = (Fraction(0),) * d
    for j, x in enumerate(S):
        g = prof.value(dot(w, x))
        want = shift if x == p else zero
        if tuple(g) != want:
            c = next(i for i in range(d) if g[i] != want[i])
            what = "FF(p) = q" if x == p else "FF(x) = x for x in S other than p"
            return Verdict.REFUTED, lines + [f"conclusion {what}: fails"], Witness(
                f"{what} fails at S[{j}] = {_fmt(x)}", token=j, coordinate=c,
                expected=x[c] + want[c], got=x[c] + g[c], code="conclusion")
    lines.append("conclusion re-derived on S: FF(p) = q and FF(x) = x for the other points")
    if statement == "3.2":
        claims = [(None, min(prof.kinks()), "the layer is local: FF(x) = x left of its kinks", zero),
                  (max(prof.kinks()), None, "the layer is local: FF(x) = x right of its kinks", zero)]
    else:
        claims = [(None, tp - d2, "FF(x) = x when <w,x> <= <w,p> - delta2", zero),
                  (tp - d1, tp + d1, "FF(x) = x + (q - p) when |<w,x> - <w,p>| <= delta1", shift),
                  (tp + d2, None, "FF(x) = x when <w,x> >= <w,p> + delta2", zero)]
    for lo, hi, text, value in claims:
        wit = profile_failure(prof, lo, hi, lambda t, v=value: v, token_at, text)
        if wit is not None:
            return Verdict.REFUTED, lines + [f"conclusion {text}: fails"], wit
        lines.append(f"conclusion re-derived for every x: {text}")
    return Verdict.VERIFIED, lines, None
