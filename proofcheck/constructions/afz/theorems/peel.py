"""The ``peel`` construction of the Theorem 1.6 network (proofcheck's own; a
shorter alternative to the reconstruction of the seed's proof in
:mod:`proofcheck.constructions.afz.theorems.theorem_1_6`):  ``L = R + 1 + (M - N) + ceil(M/4)``.

=================  =======================  =====================================
blocks             FF                       SA
=================  =======================  =====================================
1 .. R+1           phase S (translation,    tags; when every m_j = 1 the last tag
                   probes)                  is replaced by the top collapse
R+2 .. R+1+M-N     extra-leader moves       identity; the last one is the top
                   (3.2p, one per leader)   collapse
then ceil(M/4)     peels (4 targets each)   identity
=================  =======================  =====================================

Why it is shorter.  The default spends one FF per leader to move it to the
collapse geometry and one snap per leader.  Here (i) each sequence's top after
phase S serves as its first leader — under ``A = mu I + u u^T`` every positive
token attends to it (:mod:`proofcheck.constructions.afz.phases.top_collapse`), so only the
``M - N`` extra leaders move (onto an ellipsoid in the negative orthant, where
they attend to themselves), and when every ``m_j = 1`` the collapse needs only
distinct tops, which the last probe already gives, so it replaces the last tag;
(ii) a peel layer places four targets per width-4 FF instead of one
(:mod:`proofcheck.constructions.afz.layers.peel`, :mod:`proofcheck.constructions.afz.phases.peeling`).

Parameter count (stored scalars, docs/spec.md §1): phase S ``(10d+8) R + 4d + 5``, extra
leaders ``(8d+8)(M-N)``, peels ``(2d+1) M + 4 ceil(M/4)`` (one ReLU unit per
target plus eta and three identity-SA scalars per layer), and the collapse adds
``2d`` over the tag it replaces (every ``m_j = 1``) or ``4d`` over an identity SA.
With ``R <= N - 1`` and ``N <= M``:  ``P <= (12d + 10) M - 2d <= 17 d M`` for d >= 2.
"""
from __future__ import annotations

import time
from fractions import Fraction

from flint import fmpq

from proofcheck.constructions.afz.layers.hat import plateau_ff
from proofcheck.constructions.afz.phases.peeling import peels
from proofcheck.constructions.afz.phases.separation import separate
from proofcheck.constructions.afz.phases.top_collapse import (
    choose_mu,
    ellipsoid_points,
    scaled_k,
    top_collapse_claim,
    top_collapse_sa,
    tops_of,
)
from proofcheck.constructions.afz.theorems.theorem_1_6 import Construction, low_rank_check
from proofcheck.kernel.evaluate import spans_of
from proofcheck.constructions.claims import Fixed, Moves
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block, Transformer, dot
from proofcheck.kernel.statements import KNOWN_CONSTRUCTIONS, peel_param_formula

ID = "1.6"
NAME = "peel"
BLOCKS = "R + 1 + (M - N) + ceil(M/4)"
PARAMS = "(10d+8)R + (8d+8)(M-N) + (2d+1)M + 4 ceil(M/4) + 4d + 5 + (2d if M = N else 4d)"
PARAM_CONSTANT = KNOWN_CONSTRUCTIONS[NAME].param_constant  # 17, the kernel's


def block_formula(N: int, M: int, R: int) -> int:
    """``R + 1 + (M - N) + ceil(M/4)``."""
    return R + 1 + (M - N) + -(-M // 4)


def param_formula(d: int, N: int, M: int, R: int) -> int:
    """Exact parameter count (module docstring): the kernel's
    :func:`proofcheck.kernel.statements.peel_param_formula`."""
    return peel_param_formula(d, N, M, R)


def construct(inputs, targets, d: int, progress=None, options=None, **_geometry) -> Construction:
    """Build the ``peel`` network.  ``inputs[j]``: ``(n_j, d)``, ``targets[j]``:
    ``(m_j, d)`` tuples of Fractions of an admissible dataset (not re-validated).
    The default construction's geometry options (``r``, ``margin``, ``spacing``) have
    no counterpart here and are ignored; float-safe ``options`` are refused
    (``ParameterError``: this construction has no float-safe variant).
    ``progress(phase)`` (optional) after each separation round ("S"), extra leader
    ("L"), the collapse ("C") and each peel ("I")."""
    if options is not None and getattr(options, "float_format", None) is not None:
        from proofcheck.kernel.model import ParameterError
        raise ParameterError("peel: options.float_format must be None (no float-safe variant)",
                             "peel", "options")
    secs = {}
    t0 = time.perf_counter()
    sep = separate(inputs, d, progress=(lambda: progress("S")) if progress else None)
    secs["S"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    spans = spans_of(len(X) for X in inputs)
    m = [len(y) for y in targets]
    M, N = sum(m), len(m)
    rows, u = sep.rows, sep.u
    proj = rows.projections() if hasattr(rows, "projections") else [dot(u, x) for x in rows]
    tops = tops_of(proj, spans)
    if M == N:  # the collapse replaces the last tag: its input is the state before it
        f = 1 + sep.lambdas[-1]  # the tag sent each top T to (1 + lam) T
        top_pts = [tuple(x / f for x in rows[t]) for t in tops]
        mu, lffs, lclaims, extra = Fraction(0), [], [], {}
    else:
        top_pts = [rows[t] for t in tops]
        beta = rows.max_coordinate() if hasattr(rows, "max_coordinate") else \
            max(max(x) for x in rows)
        mu = choose_mu(proj, spans, tops, beta, u)
        lffs, lclaims, extra = _extra_leaders(rows, proj, spans, tops, m, u, mu, progress)
    secs["L"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    pts, ys, attending = [], [], []
    for j, ((lo, hi), t) in enumerate(zip(spans, tops)):
        ex = [i for i in range(lo, hi) if i in extra]
        pts += [top_pts[j]] + [extra[i] for i in ex]
        ys += [tuple(y) for y in targets[j]]
        attending += [[i for i in range(lo, hi) if i not in extra]] + [[i] for i in ex]
    k, kappas = scaled_k(pts, ys, d)
    csa, cclaim = top_collapse_sa(u, mu, k), top_collapse_claim(k, spans, tops, set(extra))
    secs["C"] = time.perf_counter() - t0
    if progress:
        progress("C")
    t0 = time.perf_counter()
    pffs, pclaims = peels(kappas, ys, attending, d,
                          progress=(lambda: progress("I")) if progress else None)
    secs["I"] = time.perf_counter() - t0
    blocks, claims, phases = _assemble(sep, csa, cclaim, lffs, lclaims, pffs, pclaims)
    info = {"u": u, "R": sep.R, "lambdas": sep.lambdas,
            "classes_after_first_tag": sep.classes_after_first_tag, "mu": mu, "k": k,
            "kappas": kappas, "tops": tops, "extra_leaders": len(extra), "peels": len(pffs),
            "leader_rows": [[t] + [i for i in range(lo, hi) if i in extra]
                            for (lo, hi), t in zip(spans, tops)]}
    return Construction(Transformer(d, blocks), claims, phases, info, secs)


def _assemble(sep, csa, cclaim, lffs, lclaims, pffs, pclaims):
    """Blocks, claims and phase ranges: phase S, the extra-leader moves (the last
    SA is the collapse; with none the collapse replaces the last tag), the peels."""
    blocks, claims = list(sep.blocks), list(sep.claims)
    R = sep.R
    if not lffs:
        last = blocks[-1]
        blocks[-1] = Block(last.ff, csa, phase="S+C")
        claims[-1] = (claims[-1][0], cclaim)
    for i, (ff, cl) in enumerate(zip(lffs, lclaims)):
        end = i == len(lffs) - 1
        blocks.append(Block(ff, csa if end else identity_sa(), phase="L+C" if end else "L"))
        claims.append((cl, cclaim if end else Fixed()))
    c = len(blocks)
    for ff, cl in zip(pffs, pclaims):
        blocks.append(Block(ff, identity_sa(), phase="I"))
        claims.append((cl, Fixed()))
    phases = {"S": (1, R + 1), "C": (c, c), "I": (c + 1, len(blocks))}
    if lffs:
        phases["L"] = (R + 2, c)
    return blocks, claims, phases


def _extra_leaders(rows, proj, spans, tops, m, u, mu, progress=None):
    """The first ``m_j - 1`` non-top tokens of each sequence (input order) move onto
    ``c Q = c^2 Q(-1)``, c = 1, 2, ... per sequence (scaled points of
    :func:`ellipsoid_points`), one plateau hat (3.2p) along u each,
    its support inside half the distance to the nearest other projection (the
    projections are injective after phase S; moved leaders go below every positive
    token).  Returns ``(ffs, claims, {row: new point})``."""
    from bisect import bisect_left, insort
    from itertools import islice
    # m_max - 1 base points on the ellipsoid; sequence number c (counting those with
    # extra leaders) takes its m_j - 1 first ones times c: equal A-norms inside a
    # sequence (all that self-attention needs), distinct points across sequences,
    # and only m_max - 1 distinct denominators
    base = list(islice(ellipsoid_points(u, mu), max(m) - 1))
    scale = 0
    fq = lambda x: fmpq(x.numerator, x.denominator)  # noqa: E731
    srt = sorted(fq(x) for x in proj)  # every projection (a list: insort is a C memmove)
    ffs, claims, extra = [], [], {}
    for (lo, hi), t, mj in zip(spans, tops, m):
        scale += mj > 1
        for b, row in zip(base, [i for i in range(lo, hi) if i != t][:mj - 1]):
            s, p, tp = tuple(scale * x for x in b), rows[row], proj[row]
            i = bisect_left(srt, fq(tp))
            near = min(abs(srt[k] - fq(tp)) for k in (i - 1, i + 1) if 0 <= k < len(srt))
            d2 = Fraction(int(near.p), int(near.q)) / 2
            ffs.append(plateau_ff(u, tp, d2 / 2, d2, tuple(b - a for a, b in zip(p, s)),
                                  label="extra leader (3.2p)"))
            claims.append(Moves({row: s}))
            del srt[i]
            insort(srt, fq(dot(u, s)))
            extra[row] = s
            if progress:
                progress("L")
    return ffs, claims, extra


def constant_checks(net: Transformer, d: int, N: int, M: int, info: dict):
    """The construction's constants as exact checks: L against its block formula,
    fewer blocks than the default's ``2M + R + 1``, the theorem's budget
    ``2M + 2N + 1``, width <= 4, P against its exact formula and ``17 d M``."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness

    def res(name, ok, detail):
        return CheckResult(name, Verdict.VERIFIED if ok else Verdict.REFUTED, [detail],
                           None if ok else Witness(f"{name} fails: {detail}"))
    R, L, P = info["R"], net.L, net.n_params()
    Lf, Pf = block_formula(N, M, R), param_formula(d, N, M, R)
    lr_check, lr_consts = low_rank_check(net)
    consts = {"construction": NAME, "block_formula": BLOCKS, "param_formula_text": PARAMS,
              "N": N, "M": M, "d": d, "R": R, "L": L, "L_construction": Lf,
              "L_default": 2 * M + R + 1, "L_paper_hardmax": 2 * M + 2 * N + 1,
              "L_paper_softmax": 2 * M + 3 * N, "max_width": net.max_width, "P": P,
              "P_formula": Pf, "P_bound": PARAM_CONSTANT * d * M,
              "param_constant": PARAM_CONSTANT, "max_bits": net.max_bits(), **lr_consts}
    checks = [
        res(f"L = {BLOCKS}", L == Lf, f"L = {L}, {BLOCKS} = {Lf}"),
        res("R <= N - 1", R <= N - 1, f"R = {R}, N - 1 = {N - 1}"),
        res("L < 2M + R + 1 (the default construction's count)", L < 2 * M + R + 1,
            f"L = {L} < {2 * M + R + 1}"),
        res("L <= 2M + 2N + 1 (the seed's count of Theorem 1.6, read as a bound)",
            L <= 2 * M + 2 * N + 1, f"L = {L} <= {2 * M + 2 * N + 1}"),
        res("width <= 4", net.max_width <= 4, f"max width = {net.max_width}"),
        res(f"P = {PARAMS}", P == Pf, f"P = {P}, formula = {Pf}"),
        res(f"P <= {PARAM_CONSTANT} d M", P <= PARAM_CONSTANT * d * M,
            f"P = {P} <= {PARAM_CONSTANT * d * M} = {PARAM_CONSTANT} * {d} * {M}"),
        lr_check,
    ]
    return checks, consts
