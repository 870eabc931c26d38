"""E.1 (Takakura–Suzuki, proof of Theorem 4.2, Appendix E): softmax error with few
competitors.

The seed: "s^{(h)}_{j_h} >= s^{(h)}_j + chi/U^2, and j <= U, so by Lemma C.1
||e_{j_h} - softmax(s^{(h)})||_1 <= 2U e^{-chi/U^2}."

Two readings, both checked:

* **At most U competitors** (the seed's "j <= U"): the score vector has the target
  ``j_h`` and ``m <= U`` other entries, each at least ``chi/U^2`` below.  By C.1 with
  ``n - 1 = m`` and ``delta = chi/U^2`` (``x = e^{-delta}``),
  ``||e - softmax(s)||_1 <= 2mx/(1+mx) <= 2mx <= 2Ux``.  VERIFIED: sympy proves
  ``2Ux - 2mx/(1+mx) = 2x((U-m) + Umx)/(1+mx) >= 0`` for ``m <= U``, and arb checks
  instances.
* **Window i-U..i+U** (the attention class of the seed, ``X[i-U:i+U]``): the window
  has ``2U + 1`` positions, so the target has ``2U`` competitors.  The bound
  ``2U e^{-chi/U^2}`` is then FALSE whenever ``x < 1/(2U)``, i.e.
  ``chi > U^2 ln(2U)`` — exactly the regime where the bound is below 1 and says
  something: with all ``2U`` competitors exactly ``chi/U^2`` below,
  ``||e - softmax||_1 = 4Ux/(1+2Ux) > 2Ux``.  REFUTED with an exact witness (U, chi,
  the scores) and a certified arb enclosure of both sides (disjoint balls).  The
  bound that holds for the window is C.1's ``4U e^{-chi/U^2}`` (or the sharp
  ``4Ux/(1+2Ux)``): VERIFIED.

In general the bound ``2Ux`` holds for every ``chi > 0`` iff ``m <= U`` (sympy: for
``m > U`` it fails as soon as ``x < (m - U)/(U m)``).

Readings (``READINGS``, docs/spec.md §2): the default is reading A, the note's own premise
``j <= U`` (at most U competitors): ``lemma E.1`` is VERIFIED and prints reading B as
a note with its witness.  ``lemma E.1 --reading window`` runs reading B: REFUTED
with the witness (exit 1), beside the window's corrected bound ``4U e^{-chi/U^2}``.

Conventions: ``||.||_1`` the l1 norm; softmax at temperature 1; "competitor" = an
entry of the score vector other than the target; the gap hypothesis
``s_{j_h} >= s_j + chi/U^2`` for every competitor; ``chi > 0``, ``U >= 1`` integer.
"""
from __future__ import annotations

from fractions import Fraction

from proofcheck.constructions.ts.readings import note, resolve
from proofcheck.constructions.ts.search import search
from proofcheck.constructions.ts.softmax_concentration import l1_distance
from proofcheck.constructions.ts import balls
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness, combine, fmt_value

ID = "E.1"

READINGS = {
    "at-most-U": "at most U competitors, the note's premise j <= U (default)",
    "window": "the attention window i-U..i+U, i.e. 2U competitors",
}

CONVENTIONS = [
    "convention: ||.||_1 = l1 norm; softmax at temperature 1; delta = chi/U^2, x = e^{-delta}",
    "convention: a competitor is any score other than the target's; every competitor is at "
    "least chi/U^2 below the target",
    "convention: reading A = 'at-most-U' (the note's 'j <= U': at most U competitors; the "
    "default); reading B = 'window' (window i-U..i+U = 2U + 1 positions, 2U competitors)",
    "convention: claimed bound 2U e^{-chi/U^2}",
]


def check_instance(inst, factor: int = 2) -> tuple[bool | None, dict]:
    """Three-valued ``||e_{j} - softmax(s)||_1 <= factor * U * e^{-chi/U^2}`` for an
    instance ``(U, chi, scores, j)``; raises ``ValueError`` if the gap hypothesis fails."""
    U, chi, s, j = inst
    s = tuple(Fraction(v) for v in s)
    delta = Fraction(chi) / U ** 2
    if any(s[j] - v < delta for k, v in enumerate(s) if k != j):
        raise ValueError("gap hypothesis s_j >= s_k + chi/U^2 fails")
    state = {}

    def cmp():
        state["lhs"] = l1_distance(s)
        state["rhs"] = factor * U * balls.exp_q(-delta)
        return balls.le(state["lhs"], state["rhs"])
    t, bits = balls.decide(cmp)
    return t, {"U": U, "chi": Fraction(chi), "scores": s, "target": j, "m": len(s) - 1,
               "lhs": state["lhs"], "rhs": state["rhs"], "bits": bits}


def _scores(d, U: int, m: int) -> tuple[int, Fraction, tuple, int]:
    delta = d.fraction(Fraction(1, 50), 40, 20)
    chi = delta * U ** 2
    top = d.fraction(-10, 10, 10)
    comp = [top - delta - (d.fraction(0, 8, 8) if d.boolean() else 0) for _ in range(m)]
    j = d.integer(0, m)
    return U, chi, tuple(comp[:j] + [top] + comp[j:]), j


def gen_at_most_U(d):
    """Reading A: ``m <= U`` competitors."""
    U = d.integer(1, 6)
    return _scores(d, U, d.integer(1, U))


def gen_window(d):
    """Reading B: a window ``i-U..i+U``, target at the centre, ``2U`` competitors."""
    U = d.integer(1, 6)
    U_, chi, s, j = _scores(d, U, 2 * U)
    # put the target at the centre of the window
    s = list(s)
    top = s.pop(j)
    return U, chi, tuple(s[:U] + [top] + s[U:]), U


def symbolic() -> CheckResult:
    """sympy: reduction to C.1 and the exact threshold of the window reading."""
    import sympy as sp

    from proofcheck.constructions.provers.symbolic import ProofSteps, is_zero
    x, U, m = sp.symbols("x U m", positive=True)
    k = sp.Symbol("k", nonnegative=True)  # k = U - m >= 0
    proof = ProofSteps()
    need = proof.need
    sharp = lambda mm: 2 * mm * x / (1 + mm * x)  # noqa: E731  (C.1, n - 1 = mm)
    d1 = 2 * (m + k) * x - sharp(m)   # U = m + k, k = U - m >= 0
    closed = 2 * x * (k + (m + k) * m * x) / (1 + m * x)
    need(is_zero(d1 - closed) and closed.is_positive,
         "m <= U competitors (U = m + k, k >= 0): 2Ux - 2mx/(1+mx) = 2x((U-m) + U m x)/(1+mx) "
         "> 0 for all x > 0: reading A holds for every chi > 0")
    d2 = 2 * U * x - sharp(2 * U)
    need(is_zero(d2 - 2 * U * x * (2 * U * x - 1) / (1 + 2 * U * x)),
         "m = 2U (window): 2Ux - 4Ux/(1+2Ux) = 2Ux(2Ux - 1)/(1+2Ux) < 0 iff x < 1/(2U) "
         "iff chi > U^2 ln(2U): reading B fails there (tight instance: all competitors "
         "exactly chi/U^2 below)")
    d3 = 4 * U * x - sharp(2 * U)
    need(is_zero(d3 - 8 * U ** 2 * x ** 2 / (1 + 2 * U * x)) and
         (8 * U ** 2 * x ** 2 / (1 + 2 * U * x)).is_positive,
         "window, corrected: 4Ux - 4Ux/(1+2Ux) = 8U^2x^2/(1+2Ux) > 0, so 4U e^{-chi/U^2} holds")
    mm = sp.Symbol("mm", positive=True)
    thr = sp.solve(sp.Eq(sp.numer(sp.together(2 * U * x - sharp(mm))) / (2 * x), 0), x)
    need(len(thr) == 1 and is_zero(thr[0] - (mm - U) / (U * mm)),
         "general m: 2Ux >= 2mx/(1+mx) iff U(1 + m x) >= m iff x >= (m - U)/(U m): "
         "for every chi > 0 iff m <= U")
    return proof.result("E.1 for all parameters (symbolic: sympy): reduction to C.1, reading A holds, reading B "
                       "fails iff chi > U^2 ln(2U)",
                       CONVENTIONS + ["method: sympy, C.1's sharp bound 2mx/(1+mx) with m "
                                      "competitors, symbolic U, m, x"])


def numeric_at_most_U(seed: int = 0, max_examples: int = 60) -> CheckResult:
    name = "E.1 reading A (at most U competitors), on these instances: ||e - softmax(s)||_1 <= 2U e^{-chi/U^2}"
    det = ["method: python-flint arb, three-valued (decided only by disjoint balls)"]
    out = search(gen_at_most_U, check_instance, seed, max_examples)
    det.append(f"search: {out.method}; {out.checked} instances (U <= 6, 1 <= m <= U, "
               "chi/U^2 in [1/50, 40]) certified" if out.t else f"search: {out.method}")
    if out.t is True:
        return CheckResult(name, Verdict.VERIFIED, det)
    inst = out.counterexample or out.undecided
    return CheckResult(name, balls.verdict(out.t), det + [f"instance {fmt_value(inst[2])}"],
                       _witness(out.info, "reading A") if out.t is False else None)


def window_witness(seed: int = 0) -> tuple:
    """The seeded tight window instance: ``U = 1 + seed % 4``, gap ``g = U + 1``
    (``ln 2U = ln 2 + ln U <= ln 2 + U - 1 < g``), ``chi = g U^2``, target score ``g``
    at the centre, the ``2U`` others 0."""
    U = 1 + seed % 4
    g = U + 1
    s = (Fraction(0),) * U + (Fraction(g),) + (Fraction(0),) * U
    return U, Fraction(g * U ** 2), s, U


def _witness(info, label) -> Witness:
    sep = balls.separated(info["rhs"], info["lhs"])
    return Witness(f"{label}: U = {info['U']}, chi = {fmt_value(info['chi'])}, scores "
                   f"{fmt_value(info['scores'])} (target index {info['target']}, {info['m']} "
                   f"competitors): ||e - softmax(s)||_1 > 2U e^{{-chi/U^2}} "
                   "(expected = enclosure of the bound, got = enclosure of the l1 distance; "
                   f"disjoint at {info['bits']} bits)",
                   token=info["target"], expected=sep[0] if sep else None,
                   got=sep[1] if sep else None)


def window_refuted(seed: int = 0, max_examples: int = 40) -> CheckResult:
    name = ("E.1 reading B (window i-U..i+U, 2U competitors): "
            "||e - softmax(s)||_1 <= 2U e^{-chi/U^2} is FALSE")
    inst = window_witness(seed)
    t, info = check_instance(inst)
    det = ["method: exact witness (rational scores) + python-flint arb enclosures of both "
           "sides, decided only by disjoint balls",
           "reading B is a variant: the note's own premise is at most U competitors (reading "
           "A, the default, VERIFIED); with a window of 2U competitors the bound fails, the "
           "window's correct bound 4U e^{-chi/U^2} holds",
           f"witness instance: U = {inst[0]}, chi = {fmt_value(inst[1])} "
           f"(chi/U^2 = {fmt_value(inst[1] / inst[0] ** 2)} > ln(2U)), target at the centre, "
           f"all {2 * inst[0]} competitors exactly chi/U^2 below"]
    out = search(gen_window, check_instance, seed, max_examples)
    if out.counterexample is not None:
        ci = out.info
        det.append(f"independent search ({out.method}) found a counterexample after "
                   f"{out.checked} evaluations (shrunk): U = {ci['U']}, chi = "
                   f"{fmt_value(ci['chi'])}, scores {fmt_value(ci['scores'])}")
    else:
        det.append(f"independent search ({out.method}): no counterexample among "
                   f"{out.checked} instances")
    if t is False:
        return CheckResult(name, Verdict.REFUTED, det, _witness(info, "reading B"))
    return CheckResult(name, Verdict.INCONCLUSIVE if t is None else Verdict.ERROR,
                       det + ["the witness instance was not certified (internal error?)"])


def window_corrected(seed: int = 0, max_examples: int = 40) -> CheckResult:
    name = "E.1 reading B corrected: window with 2U competitors: ||e - softmax(s)||_1 <= 4U e^{-chi/U^2}"
    det = ["method: python-flint arb, three-valued; bound = C.1 with n - 1 = 2U"]
    out = search(gen_window, lambda i: check_instance(i, factor=4), seed, max_examples)
    t_w, info_w = check_instance(window_witness(seed), factor=4)
    det.append(f"search: {out.method}; {out.checked} instances; plus the reading-B witness "
               f"instance: {'holds' if t_w else 'NOT certified'}")
    v = combine([balls.verdict(out.t), balls.verdict(t_w)])
    wit = None
    if out.t is False:
        wit = _witness(out.info, "reading B corrected")
    elif t_w is False:
        wit = _witness(info_w, "reading B corrected")
    return CheckResult(name, v, det, wit)


def run(dataset=None, seed: int = 0, reading: str | None = None):
    """E.1 under ``reading`` (``READINGS``; default ``at-most-U``): symbolic reduction
    to C.1, then reading A's instances (VERIFIED) and reading B as a note, or, for
    ``window``, reading B REFUTED with its witness and the window's corrected bound
    (``dataset`` ignored).  Raises ``ValueError`` for an unknown reading."""
    reading = resolve(READINGS, reading)
    if reading == "window":
        return [symbolic(), window_refuted(seed), window_corrected(seed)]
    return [symbolic(), numeric_at_most_U(seed),
            note(ID, "window", READINGS["window"], window_refuted(seed))]
