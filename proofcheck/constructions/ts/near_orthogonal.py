"""C.3 (Takakura–Suzuki Lemma C.3): N nearly orthogonal unit vectors in dimension
``D = O(eps^-2 log N)``.

The seed: vectors whose pairwise inner products are at most ``eps`` get "the status
of an orthonormal basis", and the dimension this needs is only logarithmic in N;
the proof is by Chernoff bounds.

Statement checked (a reconstruction: the seed gives the number, the claim in words
and "Chernoff bounds"; the constant ``C = 4``, Hoeffding's inequality and the natural
log are the project's).  For ``N >= 2`` and ``0 < eps < 1`` there are unit vectors
``u_1..u_N`` in R^D, ``D >= C eps^-2 ln N`` with ``C = 4``, such that
``|<u_i, u_j>| <= eps`` for all ``i != j``.  Hoeffding's inequality is substituted into,
not proved.

Proof, checked with sympy for ALL N and eps (``union_bound_all``).  Draw ``v_i``
uniform in ``{-1, +1}^D`` and put ``u_i = v_i / sqrt D`` (unit vectors exactly).  For
``i != j``, ``<v_i, v_j>`` is a sum of ``D`` independent signs (range 2), so by Hoeffding
``Pr(|<v_i, v_j>| >= eps D) <= 2 exp(-2 (eps D)^2 / (4 D)) = 2 exp(-D eps^2/2)``; a union
bound over the ``N(N-1)/2`` pairs gives failure probability at most
``f(D) = N(N-1) exp(-D eps^2/2)``.  The step that turns this into a logarithmic
dimension: ``f`` decreases in D, and at ``D = C eps^-2 ln N + t`` (``t >= 0``)
``f = (1 - 1/N) N^{-(C-4)/2} e^{-t eps^2/2}``, so for every ``C >= 4``
``f <= 1 - 1/N < 1``: a good draw exists (with ``C >= 6``, ``f < 1/N``).  Below 4 the
union-bound argument fails for large N: for ``C < 4`` the same expression at
``D = C eps^-2 ln N`` tends to infinity with N, and ``union_bound(C)`` exhibits an exact
``(N, eps, D)`` with integer ``D >= C eps^-2 ln N`` and ``f >= 1`` (arb, certified).  That
is all that is proved about 4: it is not shown to be the least constant of the lemma
(the C = 3 illustration finds near-orthogonal vectors at N = 200).

Illustrations (exact, seeded).  The construction *exhibits* near-orthogonal vectors:
a seeded draw whose integer Gram matrix ``G = V V^T`` (exact integer
arithmetic: numpy int64, where no partial sum can exceed ``D`` in absolute value, or
python-flint ``fmpz_mat``; the tests check they agree) has ``G_ii = D`` and ``|G_ij| <= floor(eps D)`` off the diagonal,
i.e. ``|<u_i, u_j>| = |G_ij|/D <= eps`` exactly.  A failed draw is retried with the next
seed (the number of draws is reported); ``D = ceil(6 eps^-2 ln N)`` by default.

Reported against the bound: the ``D`` used, the value ``C eps^-2 ln N`` (arb), the
worst ``|<u_i, u_j>|`` of the certificate, ``D/N``, and the Welch lower bound: any N
unit vectors with coherence ``<= eps`` need ``D >= N / (1 + (N-1) eps^2)`` (from
``N^2/D <= ||G||_F^2 <= N + N(N-1) eps^2``).  A dimension below the Welch bound is
impossible: the construction fails there and the verdict is REFUTED with a witness
pair ``(i, j, <u_i, u_j>)``; a failure above it only says the random draws failed
(INCONCLUSIVE).  A further instance uses ``C = 3``, where the union bound gives no
guarantee, and shows the retry loop at work.

Conventions: Euclidean inner product; ``u_i = v_i/sqrt D`` with ``v_i`` in {-1, 1}^D;
``log`` is the natural logarithm; ``|<u_i, u_j>| <= eps`` non-strict.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction

from flint import arb, fmpz_mat

from proofcheck.constructions.ts import balls
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value

ID = "C.3"

C_DEFAULT = 6
C_MIN = 4  # least constant for which the union bound is < 1 for every N >= 2

CONVENTIONS = [
    "convention: u_i = v_i / sqrt(D), v_i in {-1, +1}^D (unit vectors exactly); Euclidean "
    "inner product; <u_i, u_j> = G_ij / D with G = V V^T (exact integers)",
    "reconstruction: the seed gives the number, the claim in words and 'Chernoff bounds'; the "
    "constant C = 4 in D >= C eps^-2 ln N, the natural log and Hoeffding's inequality "
    "Pr(|<v_i,v_j>| >= eps D) <= 2 exp(-D eps^2/2) (with a union bound over N(N-1)/2 pairs) are "
    "the project's; the illustrations use D = ceil(6 eps^-2 ln N) (failure probability < 1/N)",
    "convention: near-orthogonal means |<u_i, u_j>| <= eps for all i != j (non-strict)",
]


def dimension(N: int, eps: Fraction, C=C_DEFAULT) -> int:
    """``ceil(C eps^-2 ln N)`` (at least 1), decided with arb: ``C eps^-2 ln N`` is not an
    integer for ``N >= 2`` (ln N is irrational), so a fine enough ball has one floor."""
    if N < 2:
        return 1
    eps, C = Fraction(eps), Fraction(C)
    state = {}

    def f():
        y = balls.ball(C / eps ** 2) * arb(N).log()
        lo, hi = balls.interval(y)
        if math.floor(lo) != math.floor(hi):
            return None
        state["D"] = math.floor(lo) + 1
        return True
    t, _ = balls.decide(f)
    if t is None:
        raise ArithmeticError("could not decide ceil(C eps^-2 ln N)")
    return max(1, state["D"])


def welch_min_dimension(N: int, eps: Fraction) -> int:
    """Smallest D allowed by the Welch bound ``D >= N / (1 + (N-1) eps^2)`` (exact)."""
    b = Fraction(N) / (1 + (N - 1) * Fraction(eps) ** 2)
    return math.ceil(b)


def draw(N: int, D: int, seed: int) -> list[list[int]]:
    """``N x D`` seeded signs (``random.Random(seed)``), as a list of rows."""
    rng = random.Random(seed)
    return [[1 if rng.getrandbits(1) else -1 for _ in range(D)] for _ in range(N)]


def gram(V, backend: str = "numpy"):
    """Exact integer Gram matrix ``V V^T`` as a list of rows of Python ints.

    ``numpy``: int64 matrix product — integer arithmetic, exact because every partial
    sum of products of signs is bounded by ``D < 2^62`` in absolute value (asserted),
    so nothing can overflow.  ``flint``: python-flint ``fmpz_mat`` (arbitrary
    precision; slower to read back).  The tests check that both agree."""
    N, D = len(V), len(V[0])
    if backend == "flint":
        G = fmpz_mat(V) * fmpz_mat(V).transpose()
        return [[int(G[i, j]) for j in range(N)] for i in range(N)]
    import numpy as np
    if D >= 2 ** 62:
        raise OverflowError("dimension too large for exact int64 Gram")
    A = np.asarray(V, dtype=np.int64)
    if not np.all(np.abs(A) == 1):
        raise ValueError("entries must be +-1")
    return A @ A.T


def certify(V, eps: Fraction, backend: str = "numpy"):
    """Exact Gram check of the sign matrix ``V`` (rows v_i).  Returns
    ``(ok, worst, bad)``: ``worst = (i, j, G_ij)`` with the largest ``|G_ij|`` off the
    diagonal, ``bad`` the first pair (row-major) with ``|G_ij| > eps D`` (or ``None``)."""
    N, D = len(V), len(V[0])
    thr = math.floor(Fraction(eps) * D)  # |G_ij| <= eps D  iff  |G_ij| <= floor(eps D)
    G = gram(V, backend)
    if backend == "flint":
        diag_ok = all(G[i][i] == D for i in range(N))
        off = [(abs(G[i][j]), i, j) for i in range(N) for j in range(i + 1, N)]
        worst_abs, wi, wj = max(off, default=(0, 0, 0), key=lambda x: x[0])
        bad_pairs = [(i, j) for a, i, j in off if a > thr]
    else:
        import numpy as np
        diag_ok = bool(np.all(np.diag(G) == D))
        U = np.abs(np.triu(G, 1))
        wi, wj = (int(k) for k in np.unravel_index(int(np.argmax(U)), U.shape))
        bad_pairs = [(int(i), int(j)) for i, j in np.argwhere(U > thr)[:1]]
    if not diag_ok:
        raise ArithmeticError("Gram diagonal differs from D")
    worst = (wi, wj, int(G[wi][wj])) if N > 1 else (0, 0, 0)
    bad = (bad_pairs[0][0], bad_pairs[0][1], int(G[bad_pairs[0][0]][bad_pairs[0][1]])) \
        if bad_pairs else None
    return bad is None, worst, bad


def failure_bound(N: int, D: int, eps: Fraction) -> arb:
    """``N (N - 1) exp(-D eps^2 / 2)``: union-bound probability that a draw fails."""
    return N * (N - 1) * balls.exp_q(-Fraction(D) * Fraction(eps) ** 2 / 2)


def construct(N: int, eps, seed: int = 0, C=C_DEFAULT, D: int | None = None,
              max_draws: int = 20, name: str | None = None) -> CheckResult:
    """Seeded construction with exact certification, retrying draws ``seed, seed+1, ...``."""
    eps = Fraction(eps)
    D_formula = dimension(N, eps, C)
    D = D_formula if D is None else D
    welch = welch_min_dimension(N, eps)
    name = name or (f"C.3 illustration on this instance, construction with C = {fmt_value(Fraction(C))}: N = {N}, "
                    f"eps = {fmt_value(eps)}, D = {D}")
    det = ["method: seeded +-1 draws, exact integer Gram matrix G = V V^T (int64 integer "
           "arithmetic, |partial sums| <= D so no overflow)",
           f"D used = {D}; ceil(C eps^-2 ln N) with C = {fmt_value(Fraction(C))}: {D_formula}; "
           f"Welch lower bound: D >= {welch}; D/N = {fmt_value(Fraction(D, N))}"]
    last_bad = None
    for k in range(max_draws):
        ok, worst, bad = certify(draw(N, D, seed + k), eps)
        if ok:
            i, j, g = worst
            det += [f"draw seed {seed + k} accepted after {k + 1} draw(s) ({k} failed)",
                    f"certificate: G_ii = {D} for all i; max_(i<j) |G_ij| = {abs(g)} at "
                    f"(i, j) = ({i}, {j}) <= floor(eps D) = {math.floor(eps * D)}; worst "
                    f"|<u_i, u_j>| = {fmt_value(Fraction(abs(g), D))} <= eps = {fmt_value(eps)}"]
            return CheckResult(name, Verdict.VERIFIED, det)
        last_bad = bad
    i, j, g = last_bad
    wit = Witness(f"pair (i, j) = ({i}, {j}) of draw seed {seed + max_draws - 1}: G_ij = {g}, "
                  f"|<u_i, u_j>| = |G_ij|/D > eps (expected = eps, got = <u_i, u_j>)",
                  sequence=i, token=j, expected=eps, got=Fraction(g, D))
    det.append(f"all {max_draws} draws failed")
    if D < welch:
        det.append(f"D = {D} < {welch} (Welch): N unit vectors with coherence <= eps do not "
                   "exist in this dimension")
        return CheckResult(name, Verdict.REFUTED, det, wit)
    det.append("D is above the Welch bound: failed draws do not refute existence; last "
               "failing pair: " + wit.describe())
    return CheckResult(name, Verdict.INCONCLUSIVE, det)


def union_bound_all() -> CheckResult:
    """sympy proof, for every real ``N >= 2``, ``eps > 0``, ``C >= 4`` and
    ``D >= C eps^-2 ln N``, that ``N(N-1) e^{-D eps^2/2} <= 1 - 1/N < 1`` (and ``< 1/N``
    for ``C >= 6``); plus the Hoeffding and union-bound algebra before it and the
    failure of this argument below ``C = 4``."""
    import sympy as sp

    from proofcheck.constructions.provers.symbolic import ProofSteps, is_zero
    m, k, t = sp.symbols("m k t", nonnegative=True)        # N = 2 + m, C = 4 + k, D = D0 + t
    eps, D, Ns = sp.symbols("epsilon D N", positive=True)
    N = 2 + m
    proof = ProofSteps()
    need = proof.need
    need(is_zero(2 * (eps * D) ** 2 / (D * 2 ** 2) - D * eps ** 2 / 2),
         "for a sum of D independent signs (each of range 2): "
         "Pr(|<v_i,v_j>| >= eps D) <= 2 exp(-2 (eps D)^2 / (D 2^2)) = 2 exp(-D eps^2/2)",
         "Hoeffding's inequality")
    f = N * (N - 1) * sp.exp(-D * eps ** 2 / 2)
    need(is_zero(N * (N - 1) / 2 * 2 * sp.exp(-D * eps ** 2 / 2) - f),
         "union bound over the N(N-1)/2 pairs: Pr(some pair fails) <= f(D) = "
         "N(N-1) exp(-D eps^2/2)")
    need(sp.diff(f, D).is_negative is True,
         "f'(D) = -(eps^2/2) f(D) < 0 for N >= 2: f decreases in D, so D >= D0 gives f(D) <= f(D0)")
    C = 4 + k
    D0 = C * sp.log(N) / eps ** 2
    g = f.subs(D, D0 + t)
    need(is_zero(g - N * (N - 1) * N ** (-C / 2) * sp.exp(-t * eps ** 2 / 2)),
         "at D = C eps^-2 ln N + t: f = N(N-1) N^{-C/2} e^{-t eps^2/2} (e^{-(C/2) ln N} = N^{-C/2})")
    need(is_zero(sp.powsimp(Ns * (Ns - 1) * Ns ** (-(4 + k) / 2) - (1 - 1 / Ns) * Ns ** (-k / 2))),
         "with C = 4 + k: N(N-1) N^{-C/2} = (1 - 1/N) N^{-k/2}")
    E = -(k / 2) * sp.log(N) - t * eps ** 2 / 2
    need(sp.log(N).is_positive is True and E.is_nonpositive is True and
         is_zero(sp.exp(E) - N ** (-k / 2) * sp.exp(-t * eps ** 2 / 2)),
         "N^{-k/2} e^{-t eps^2/2} = e^E with E = -(k/2) ln N - t eps^2/2 <= 0 (k, t >= 0, "
         "ln N > 0), hence e^E <= e^0 = 1 (exp is increasing)")
    need(is_zero(1 - (1 - 1 / N) * sp.exp(E) - (1 / N + (1 - 1 / N) * (1 - sp.exp(E)))) and
         (1 / N).is_positive is True and (1 - 1 / N).is_positive is True,
         "1 - f = 1/N + (1 - 1/N)(1 - e^E) >= 1/N > 0: f < 1 for EVERY N >= 2, eps > 0, "
         "C >= 4, D >= C eps^-2 ln N (so for every 0 < eps < 1)")
    need(is_zero(sp.powsimp(Ns * (Ns - 1) * Ns ** (-(6 + k) / 2) - (1 - 1 / Ns) / Ns * Ns ** (-k / 2))),
         "C >= 6 (the illustrations' constant): f <= (1 - 1/N)/N < 1/N")
    kk = sp.Symbol("k", positive=True)
    need(sp.limit((1 - 1 / Ns) * Ns ** (kk / 2), Ns, sp.oo) == sp.oo,
         "the union-bound argument fails below 4: for C = 4 - k (k > 0), f(C eps^-2 ln N) = "
         "(1 - 1/N) N^{k/2} -> infinity as N -> infinity (this argument gives no C < 4 for all "
         "N; the lemma itself may hold with less: the C = 3 illustration succeeds at N = 200)")
    return proof.result("C.3 union bound for all N >= 2 and 0 < eps < 1 (symbolic), substituted "
                        "into Hoeffding's inequality: D >= 4 eps^-2 ln N gives N(N-1) "
                        "e^{-D eps^2/2} < 1, so a good draw exists",
                        CONVENTIONS + ["method: sympy on symbolic N = 2 + m, C = 4 + k, "
                                       "D = C eps^-2 ln N + t (m, k, t >= 0, eps > 0)"])


def union_bound(C=C_MIN, max_N: int = 2 ** 20) -> CheckResult:
    """The union-bound step for the constant ``C``: for ``C >= 4`` the sympy proof of
    :func:`union_bound_all`; for ``C < 4`` a certified failure of the union-bound step
    ``(N, eps, D)`` with integer ``D = ceil(C eps^-2 ln N)`` and ``N(N-1) e^{-D eps^2/2} >= 1``
    (REFUTED: the bound proves nothing there — not a counterexample to C.3, whose vectors
    may still exist, e.g. N <= D orthonormal ones), searched over ``N = 2, 3, 4, 8, ...,
    max_N`` and ``eps in {1/2, 1/10, 1/100}``."""
    C = Fraction(C)
    if C >= C_MIN:
        return union_bound_all()
    name = (f"C.3 union bound with C = {fmt_value(C)}: D >= C eps^-2 ln N gives "
            "N(N-1) e^{-D eps^2/2} < 1 for all N")
    det = CONVENTIONS + ["method: exact search over (N, eps), D = ceil(C eps^-2 ln N), "
                         "python-flint arb, three-valued"]
    Ns = [2, 3] + [2 ** e for e in range(2, max_N.bit_length())]
    for eps in (Fraction(1, 2), Fraction(1, 10), Fraction(1, 100)):
        for N in Ns:
            D = dimension(N, eps, C)
            st = {}

            def cmp():
                st["b"] = failure_bound(N, D, eps)
                return balls.le(1, st["b"])
            t, bits = balls.decide(cmp)
            if t is True:
                iv = balls.outward(st["b"], 8)
                det.append(f"N = {N}, eps = {fmt_value(eps)}, D = {D}: N(N-1) e^(-D eps^2/2) in "
                           f"{balls.fmt_interval(iv)} >= 1 ({bits} bits)")
                return CheckResult(name, Verdict.REFUTED, det, Witness(
                    f"N = {N}, eps = {fmt_value(eps)}, D = {D} = ceil(C eps^-2 ln N): the union "
                    "bound is not below 1, so it proves nothing there (a failure of the argument, "
                    "not of the lemma; expected = 1, got = enclosure of N(N-1) e^(-D eps^2/2))",
                    expected=Fraction(1), got=iv))
    return CheckResult(name, Verdict.INCONCLUSIVE,
                       det + [f"no counterexample with N <= {max_N}; the sympy proof needs C >= 4"])


def probabilistic(N: int, eps, C=C_DEFAULT) -> CheckResult:
    """arb certificate of the proof: ``N(N-1) exp(-D eps^2/2) < 1/N`` for ``D`` of the
    formula, so a random draw succeeds with probability > 1 - 1/N."""
    eps = Fraction(eps)
    D = dimension(N, eps, C)
    st = {}

    def cmp():
        st["b"] = failure_bound(N, D, eps)
        return balls.lt(st["b"], Fraction(1, N))
    t, bits = balls.decide(cmp)
    iv = balls.outward(st["b"], 8)
    return CheckResult(f"C.3 union bound on this instance (illustration): N = {N}, eps = "
                       f"{fmt_value(eps)}, D = {D}: N(N-1) e^(-D eps^2/2) < 1/N",
                       balls.verdict(t),
                       ["method: python-flint arb, three-valued",
                                      f"N(N-1) exp(-D eps^2/2) in {balls.fmt_interval(iv)} "
                                      f"< 1/N = {fmt_value(Fraction(1, N))} ({bits} bits): a good "
                                      "draw exists"])


def run(dataset=None, seed: int = 0):
    """C.3: the union bound proved for all N and eps (sympy), then illustrations: one
    arb instance and seeded constructions with exact Gram matrices (``dataset``
    ignored)."""
    return [union_bound(C_MIN),
            probabilistic(1000, Fraction(1, 2)),
            construct(1000, Fraction(1, 2), seed, C=C_MIN),
            construct(1000, Fraction(1, 2), seed),
            construct(500, Fraction(3, 4), seed),
            construct(200, Fraction(1, 2), seed, C=3, max_draws=40,
                      name="C.3 illustration on this instance, construction with C = 3 (no union-bound guarantee): N = 200, "
                           "eps = 1/2, retrying draws")]
