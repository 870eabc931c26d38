"""The *bounded* construction of the Theorem 1.6 network (issue 24 item 4).

proofcheck's own construction, not the seed's proof: the same plan (separate the
sequences, collapse each onto one value, snap the values onto the targets) with a
separation whose numbers grow at most linearly in N
(:mod:`proofcheck.constructions.afz.phases.bounded_separation`): every tag adds a multiple of one fixed
direction read off a 0/1 flag, never a token, so nothing compounds over the R rounds.

=================  ===========================  =====================================
blocks             FF                           SA
=================  ===========================  =====================================
1                  layout (scale, translate,    signature tag (mean or max of a
                   fold: frees flag/signature)  small direction)
2..R+1             probe: flag lift (+ reset)   flag tag (signature += g on the
                                                sequences holding the lifted point)
all m_j = 1:       leader flag lifts            identity; the last: flag collapse
                   snaps (off-line targets)     identity
some m_j > 1:      phases L, C, I of the        default construction on the
                   separated tokens             separated tokens
=================  ===========================  =====================================

``L = R + 1 + max(1, M') + D'`` when every pair has one output (``M'``: pairs whose
target is not 0, ``D'``: distinct targets off the ray ``{t e_1 : t >= 0}``), else
``L = 2M + R + 1``; ``R <= N - 1`` in both.

Magnitudes (checked on the returned network, :func:`constant_checks`): every
signature is at most ``4N``; every stored scalar of the signature tag, the rounds
and the leader lifts is at most ``B_S`` (:func:`magnitude_bound`), a bound linear in
the largest signature whose other factors depend only on the layout of the data,
not on N or R (block 1's FF is the layout itself: D, fold scales, translations).
"""
from __future__ import annotations

import time
from fractions import Fraction

from proofcheck.constructions.afz.phases.bounded_separation import separate_bounded
from proofcheck.constructions.afz.theorems.theorem_1_6 import Construction
from proofcheck.kernel.statements import KNOWN_CONSTRUCTIONS, bounded_base_of

ID = "bounded"


def construct(inputs, targets, d: int, options=None, progress=None, **scales) -> Construction:
    """Build the bounded network.  ``inputs[j]``: ``(n_j, d)``, ``targets[j]``:
    ``(m_j, d)`` tuples of Fractions of an admissible dataset (not re-validated).
    ``options.float_format``: every stored scalar must then be a value of that
    format (``ValueError`` naming the first one that is not; snaps are made
    float-safe as in the default).  ``scales`` (``r``, ``margin``, ``spacing``)
    apply to the general path only.  ``progress(phase)`` as in
    :func:`proofcheck.constructions.afz.theorems.theorem_1_6.construct`."""
    fmt = options.float_format if options else None
    secs = {}
    t0 = time.perf_counter()
    sep = separate_bounded(inputs, d, progress=(lambda: progress("S")) if progress else None)
    secs["S"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    one = all(len(y) == 1 for y in targets)
    if one:
        from proofcheck.constructions.afz.phases.flag_collapse import flag_phases
        rest = flag_phases(sep, targets, d, float_format=fmt,
                           progress=(lambda: progress("L")) if progress else None)
        blocks, claims = rest.blocks, rest.claims
        info = {"path": "flag", "kappas": rest.kappa, "lifts": sum(k != 0 for k in rest.kappa),
                "snaps": len(rest.snapped), "lift_hats": rest.hats}
        info_paths = {"phases L, C, I": f"flag lifts of {info['lifts']} leaders along "
                      f"{tuple(rest.hats[0][0]) if rest.hats else '-'}, flag collapse, "
                      f"{info['snaps']} snaps"}
    else:
        blocks, claims, info = _general(sep, inputs, targets, d, fmt, progress, scales)
        info_paths = {"phases L, C, I": "the default's, along the lexicographic "
                      f"u = {tuple(int(x) for x in info['u'])}"}
    secs["L, C, I"] = time.perf_counter() - t0
    from proofcheck.kernel.model import Transformer
    net = Transformer(d, list(sep.blocks) + blocks)
    info.update(_info(sep, net))
    info["report"].update(info_paths)
    R = sep.R
    phases = {"S": (1, R + 1), "L, C, I": (R + 2, net.L)}
    c = Construction(net, list(sep.claims) + claims, phases, info, secs)
    if fmt is not None:
        _require_representable(net, fmt)
    return c


def _info(sep, net) -> dict:
    """What the constant checks and the reports need from the separation; ``report``:
    the choices made, as display strings."""
    lay = sep.layout
    sigs = sep.signature
    sig = None if sigs is None else {"kind": sigs.kind, "v": sigs.v, "lam": sigs.lam,
                                     "classes": sigs.classes}
    report = {"layout": f"scale D = {lay.D}, flag coordinate {lay.F}, signature "
                        + (f"coordinate {lay.Z}" if lay.Z is not None else
                           f"along z = {tuple(lay.z)}") + f", content coordinates {lay.content}",
              "signature tag": "none (one class)" if sig is None else
              f"{sig['kind']} of v = {sig['v']} (factor {sig['lam']}): {sig['classes']} classes",
              "largest signature": max(sep.sig)}
    return {"R": sep.R, "S_max": max(sep.sig), "N": len(sep.sig), "layout": lay,
            "signature_tag": sig, "rounds": sep.stats["rounds"], "phase_S_blocks": sep.R + 1,
            "report": report}


def _general(sep, inputs, targets, d, fmt, progress, scales):
    """Some pair has several outputs: the default phases L, C, I (docs/spec.md §4) on the
    separated tokens, with the lexicographic direction ``u`` (injective on them)."""
    from proofcheck.constructions.afz.phases.collapse import choose_k, collapse_claim, collapse_sa
    from proofcheck.constructions.afz.phases.interpolation import snaps
    from proofcheck.constructions.afz.phases.leaders import place_leaders
    from proofcheck.constructions.claims import Fixed
    from proofcheck.constructions.layers import identity_sa
    from proofcheck.kernel.model import Block
    rows = sep.rows()
    u = lexicographic_u(sep)
    m = [len(y) for y in targets]
    lead = place_leaders(rows, sep.spans, m, u, float_format=fmt,
                         progress=(lambda: progress("L")) if progress else None,
                         **{k: Fraction(v) for k, v in scales.items()
                            if k in ("r", "margin", "spacing")})
    order = [row for lr in lead.leader_rows for row in lr]
    leader_targets = [tuple(y) for ys in targets for y in ys]
    k, kappas = choose_k([lead.positions[row] for row in order], {y[0] for y in leader_targets}, d)
    attending = []
    for (lo, hi), lr in zip(sep.spans, lead.leader_rows):
        ls = set(lr)
        attending.append([i for i in range(lo, hi) if i not in ls or i == lr[0]])
        attending += [[row] for row in lr[1:]]
    sffs, sclaims, _ = snaps(kappas, leader_targets, attending, d, float_format=fmt,
                             progress=(lambda: progress("I")) if progress else None)
    cclaim = collapse_claim(k, sep.spans, lead.leader_rows)
    blocks, claims, M = [], [], len(order)
    for i, (ff, cl) in enumerate(zip(lead.ffs, lead.claims)):
        last = i == M - 1
        blocks.append(Block(ff, collapse_sa(k) if last else identity_sa(),
                            phase="L+C" if last else "L"))
        claims.append((cl, cclaim if last else Fixed()))
    for ff, cl in zip(sffs, sclaims):
        blocks.append(Block(ff, identity_sa(), phase="I"))
        claims.append((cl, Fixed()))
    return blocks, claims, {"path": "general", "u": u, "k": k, "t": lead.t, "r": lead.r}


def lexicographic_u(sep) -> tuple[Fraction, ...]:
    """Positive integer ``u`` injective on every position after phase S: mixed radix
    over the content coordinates (base = their largest value), then the signature
    (``Z``, or stacked in the content axis for d = 2), then the flag (0 or 1)."""
    lay = sep.layout
    d = lay.d
    u, mult = [0] * d, 1
    for k in lay.content:
        u[k] = mult
        mult *= lay.cmax[k] + 1
    smax = max(sep.sig)
    if lay.Z is not None:
        u[lay.Z] = mult
        mult *= smax + 1
    else:
        mult = (lay.z[lay.content[0]]) * (smax + 1)
    u[lay.F] = mult
    return tuple(Fraction(x) for x in u)


def _require_representable(net, fmt_name: str) -> None:
    """Raise ``ValueError`` naming the first stored scalar that is not a ``fmt_name``
    value (the bounded network is float-safe exactly when it is representable)."""
    from proofcheck.constructions.floats import get_format, is_representable
    fmt = get_format(fmt_name)
    for bi, sub, name, v in net.parameters():
        if not is_representable(v, fmt):
            raise ValueError(f"bounded construction, float-safe {fmt_name}: block {bi} {sub} "
                             f"{name} = {v} is not a {fmt_name} value")


def param_formula(net) -> int:
    """``P`` from the block structure: ``1 + w (2d + 1)`` per FF of width w and
    ``3 + 2d (rank A + rank V)`` per SA (docs/spec.md §1's stored scalars)."""
    d = net.d
    return sum(1 + b.ff.width * (2 * d + 1) + 3 + 2 * d * (len(b.sa.A.left) + len(b.sa.V.left))
               for b in net.blocks)


def block_formula(info, M: int) -> int:
    """The block count the construction promises (module docstring)."""
    if info["path"] == "flag":
        return info["R"] + 1 + max(1, info["lifts"]) + info["snaps"]
    return 2 * M + info["R"] + 1


def magnitude_bound(info) -> int:
    """``B_S`` for every stored scalar of block 1's SA, the rounds and the leader
    lifts.  With ``S`` the largest signature, ``C`` the largest content coordinate,
    ``W`` the largest weight sum of a candidate content direction (at least 6, the
    mixed radix's if larger), ``Z`` the largest entry of the signature direction
    ``z`` and ``K`` the largest kappa: a hat direction is ``w_c + k e_Z`` with
    ``k <= W C + 1`` (or ``e_i`` for d = 2), so every projection is
    ``<= (W C + 1)(S + 1) Z``; centres, kinks, the reset's ``gamma`` and ``t_r + 1`` are
    within 2 of a projection; slopes are ``a, -2a, -1`` with ``|a| <= K``; a flag tag's
    value map is ``g z`` with ``|g| <= S``; the signature tag's is ``lam z v^T``.
    Nothing depends on R; the only N-dependent factor is ``S <= 4N``."""
    lay = info["layout"]
    C = max(lay.cmax[k] for k in lay.content)
    radix, W = 1, 0
    for k in lay.content:
        W += radix
        radix *= lay.cmax[k]
    W = max(W, 6)
    Z = max(abs(x) for x in lay.z)
    S = info["S_max"]
    K = max((abs(k) for k in info.get("kappas", [0])), default=0)
    sig = info["signature_tag"]
    tag = 0 if sig is None else sig["lam"] * max(sig["v"]) * Z
    return max(2 * (W * C + 1) * (S + 1) * Z + 2, 2 * K, tag, 1)


NAME = "bounded"
PARAM_CONSTANT = KNOWN_CONSTRUCTIONS[NAME].param_constant  # 42, the kernel's (derived there)
BLOCKS = "R + 1 + max(1, M') + D' (one output per pair), else 2M + R + 1"
ROUND_TEXT = ("each round lifts the flag of a point shared by some but not all sequences of a "
              "class and moves the sequences holding it to a new signature")


def constant_checks(net, d: int, N: int, M: int, info, targets=None):
    """The construction's constants as exact checks: L against its block formula (with
    ``targets[j]``, the m_j targets of pair j, its ``M'`` and ``D'`` computed from the
    dataset by the kernel's :func:`~proofcheck.kernel.statements.bounded_base_of`; without
    them, from the construction's report) and Theorem 1.6's budget, R <= N - 1, width
    <= 4, P against the block structure and ``P <= 42 d M``, the SA layers' form, the
    largest signature <= 4N and every phase-S / leader-lift scalar <= B_S.

    P: block 1 costs <= 10d + 7 scalars, a round 12d + 8, a leader block or a snap
    block 8d + 8 (the collapse adds 4d, or 2d on the general path), so with
    R <= N - 1 <= M - 1, M' <= M and D' <= M: ``P <= (28d + 24) M + 2d <= 42 d M``
    for d >= 2."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import low_rank_check
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness

    def res(name, ok, detail):
        return CheckResult(name, Verdict.VERIFIED if ok else Verdict.REFUTED, [detail],
                           None if ok else Witness(f"{name} fails: {detail}"))
    L, P, R = net.L, net.n_params(), info["R"]
    Lf = block_formula(info, M) if targets is None else R + bounded_base_of(targets)[0]
    B = magnitude_bound(info)
    nS = info["phase_S_blocks"] + (info.get("lifts", 0) if info["path"] == "flag" else 0)
    big = max((abs(v) for bi, sub, _, v in net.parameters()
               if bi <= nS and (bi > 1 or sub == "SA")), default=0)
    layout_big = max(abs(v) for bi, sub, _, v in net.parameters() if bi == 1 and sub == "FF")
    formula = ("R + 1 + max(1, M') + D'" if info["path"] == "flag" else "2M + R + 1") + (
        " (M', D' from the dataset)" if targets is not None else " (from the construction's report)")
    lr_check, lr_consts = low_rank_check(net)
    consts = {"construction": NAME, "block_formula": BLOCKS, "round_text": ROUND_TEXT,
              "N": N, "M": M, "d": d, "R": R,
              "L": L, "L_construction": Lf, "L_default": 2 * M + R + 1,
              "L_paper_hardmax": 2 * M + 2 * N + 1, "L_paper_softmax": 2 * M + 3 * N,
              "max_width": net.max_width, "P": P, "P_formula": param_formula(net),
              "P_bound": PARAM_CONSTANT * d * M, "param_constant": PARAM_CONSTANT,
              "max_bits": net.max_bits(), "S_max": info["S_max"], "B_S": B,
              "largest_phase_S_scalar": big, "largest_layout_scalar": layout_big, **lr_consts}
    checks = [
        res(f"L = {formula}", L == Lf, f"L = {L}, {formula} = {Lf}"),
        res("R <= N - 1", R <= N - 1, f"R = {R}, N - 1 = {N - 1}"),
        res("L <= 2M + 2N + 1 (Theorem 1.6)", L <= 2 * M + 2 * N + 1,
            f"L = {L} <= {2 * M + 2 * N + 1}"),
        res("width <= 4", net.max_width <= 4, f"max width = {net.max_width}"),
        res("P = sum over blocks of 1 + w(2d+1) + 3 + 2d(rank A + rank V)",
            P == param_formula(net), f"P = {P}, formula = {param_formula(net)}"),
        res(f"P <= {PARAM_CONSTANT} d M", P <= PARAM_CONSTANT * d * M,
            f"P = {P} <= {PARAM_CONSTANT * d * M} = {PARAM_CONSTANT} * {d} * {M}"),
        lr_check,
        res("largest signature <= 4N", info["S_max"] <= 4 * N,
            f"largest signature {info['S_max']} <= {4 * N}"),
        res("every scalar of block 1 SA .. block R+1+M' <= B_S (linear in the largest "
            "signature, independent of R)", big <= B,
            f"largest |scalar| there: {big} <= B_S = {B} (block 1 FF, the data's layout: "
            f"largest {layout_big})"),
    ]
    return checks, consts
