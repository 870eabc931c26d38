"""proofcheck's reconstruction of the seed's Theorem 1.8 mechanism (``theorem 1.8
--construction seed``; the seed gives a sketch, no construction), with three departures:
the dimension reduction happens in proofcheck's rank-one collapse, so the non-residual
``eta = 0`` reduces nothing there; the tokens converge onto ``f(kappa)`` (each leader's
image on the line), not onto the leaders; phase V takes ``ceil(M/2)`` blocks where the
seed's count leaves ``N - 1``.

The seed: "one softmax SA layer cannot collapse a cluster exactly; O(N) additional
blocks of non-residual ReLU FF layers iteratively converge small neighbourhoods of
tokens onto the leaders", then the interpolation by hat functions, in
``L = 2M + 3N`` blocks.  Built here:

=============================  ==============================  ==============
blocks                         FF                              SA
=============================  ==============================  ==============
1 .. R+1  (phase S)            as proofcheck's construction    tag (4.1)
R+2 .. R+1+M  (phase L)        leader moves (3.2p)             the last: collapse
R+2+M .. R+1+M+K  (phase V)    converge (eta = 0, width 4)     identity
R+2+M+K .. L  (phase I)        point hats (3.2, width 3)       identity
=============================  ==============================  ==============

``K = ceil(M / 2)``, ``L = 2M + R + 1 + K``.  Phases S, L and the collapse are those
of proofcheck's construction (leader scales of :data:`theorem_1_8.SCALES`): after the
collapse (``V = e_1 k^T``, ``rho = 0``) every token lies EXACTLY on the line ``Q e_1``
under softmax too, and the tokens of leader l's cluster lie in a certified interval
around the leader's hardmax image ``kappa_l e_1`` — the neighbourhood.

Choices the seed does not make (printed by :func:`notes`, tested):

* **onto the leader** = onto the leader's own image: every token of leader l's
  neighbourhood lands exactly where the leader lands (the hardmax image).  The
  leaders' positions in ``R^d`` cannot be the targets of a non-residual FF of width
  <= 4 in general: its output lies in the span of its <= 4 W columns.
* **non-residual** = ``eta = 0``; every row of U and column of W is ``+- e_1``, so the
  layer is ``x -> f(x_1) e_1`` (:mod:`proofcheck.constructions.afz.layers.converge`): coordinates 2..d
  of every token are set to 0 (they are 0 after the collapse already); each layer
  maps two neighbourhoods onto one point each and translates the rest along e_1.
* **how many**: two neighbourhoods per block (the two lowest not yet converged, in
  the order along e_1; a continuous profile with at most 4 kinks has at most two
  bounded flat pieces; the first block could also use an unbounded one, not done),
  not one block per sequence: ``K = ceil(M/2)``, which is O(N) when the m_j are
  bounded.  ``L <= 2M + 3N`` holds iff ``R + 1 + K <= 3N`` (always when M <= 4N);
  when it does not, the budget check fails with the phase counts as its witness.
* **radius vs tau**: the flats are fixed by the construction, independent of tau:
  around each neighbourhood's centre the half-width ``delta = min(1/3 of the distance
  to the nearest other unconverged centre, 1/2 of the distance to the nearest
  converged point)`` (1 without neighbours).  The certificate at tau must show the
  box after the collapse inside the flat (radius <= delta), else a box straddles a
  kink and the final box is not a point (INCONCLUSIVE); tau_cert is the largest tau
  where it is.  The last layer's half-widths are scaled by ``s`` and ``s^2`` (s = 1
  first) until no final point equals a target's first coordinate (a hat along e_1
  would otherwise move a placed target).
* **interpolation**: Lemma 3.2 point hats along e_1 (exact at one point only), not
  plateau snaps, so exactness rests on the convergence: without it the certificate
  fails (tested).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from proofcheck.constructions.afz.layers.converge import converge_ff, image
from proofcheck.constructions.afz.layers.hat import hat_ff
from proofcheck.constructions.afz.phases.interpolation import quarter_gaps
from proofcheck.constructions.afz.theorems.theorem_1_6 import Construction
from proofcheck.constructions.afz.theorems.theorem_1_6 import construct as construct_1_6
from proofcheck.kernel.evaluate import spans_of
from proofcheck.constructions.claims import Fixed, Moves
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block, Transformer
from proofcheck.kernel.statements import KNOWN_CONSTRUCTIONS, seed_param_formula

NAME = "seed"
PARAM_CONSTANT = KNOWN_CONSTRUCTIONS[NAME].param_constant  # 42, the kernel's


def converge_blocks(M: int) -> int:
    """``K = ceil(M / 2)``: two neighbourhoods per converge block."""
    return (M + 1) // 2


def param_formula(d: int, M: int, R: int) -> int:
    """Exact P: the kernel's :func:`proofcheck.kernel.statements.seed_param_formula`
    (proofcheck's ``(16d+16)M + (10d+8)R + 6d + 5`` with the M snaps replaced by point
    hats, plus K converge blocks; ``<= (28d + 27) M + 1 <= 42 d M`` for ``d >= 2``)."""
    return seed_param_formula(d, M, R)


@dataclass
class ConvergeClaim:
    """What a converge block's FF does, for every token: ``x -> f(x_axis) e_axis`` with
    the profile of :func:`proofcheck.constructions.afz.layers.converge.profile` (proved for all
    parameters by its ``symbolic``); the kernel compares every token exactly."""

    kinks: tuple
    axis: int = 0
    kind = "converge"
    _k: tuple = None
    _zero: object = None

    def bind(self, num):
        self._k, self._zero = tuple(num(k) for k in self.kinks), num(Fraction(0))
        return self

    def rows(self):
        return None

    def expected(self, i, old):
        x = old(i)
        out = [self._zero] * len(x)
        out[self.axis] = image(*self._k, x[self.axis])
        return tuple(out)

    def restrict(self, r0, r1, j0, j1, memo=None):
        return ConvergeClaim(self.kinks, self.axis)


@dataclass
class Schedule:
    """The converge phase: ``kinks[i]`` of block i; per leader (leader order) the
    block that converges it, its half-width ``deltas[l]`` and its final point
    ``final[l]`` (the e_1 coordinate); ``scale``: the s of the last block."""

    kinks: list
    block_of: list
    deltas: list
    final: list
    scale: Fraction


def _half_width(v, active_nbrs, point):
    """``min(1/3 distance to the nearest value in active_nbrs, 1/2 distance to the
    converged point below)``, 1 when there is neither."""
    cands = [abs(u - v) / 3 for u in active_nbrs] + ([(v - point) / 2] if point is not None else [])
    return min(cands) if cands else Fraction(1)


def _pair_kinks(va, vb, da, db):
    if vb is None:  # odd M: the second flat above every token (it holds none)
        return (va - da, va + da, va + 2 * da, va + 3 * da)
    return (va - da, va + da, vb - db, vb + db)


def schedule(kappas, forbidden) -> Schedule:
    """Plan the K converge blocks for the distinct leader images ``kappas`` (leader
    order): block i converges the (2i)-th and (2i+1)-th smallest; each leader's half-width
    is read back from the kinks (:func:`flat_half_widths`).  Converged points
    stay below every unconverged centre (f is monotone and sends the points left of
    its first flat further left), so the unconverged centres move by one common
    offset and their distances do not change.  ``forbidden``: values no final point
    may take (the targets' first coordinates); the last block's half-widths are
    scaled by ``(s, s^2)``, ``s = 1 - j / (2 c)``, j = 0, 1, ... — every final point
    is a non-constant polynomial of degree <= 2 in s, so at most ``2 M |forbidden|``
    values of s fail and ``c = 2 M |forbidden| + 1`` candidates suffice.  Raises
    ``RuntimeError`` if none works (impossible; report it)."""
    M = len(kappas)
    order = sorted(range(M), key=kappas.__getitem__)
    K = converge_blocks(M)
    kinks, block_of = [], [None] * M
    shift_act = Fraction(0)            # unconverged centre = kappa + shift_act
    pts = []                           # converged: (leader, value - shift_pt)
    shift_pt = Fraction(0)
    for i in range(K):
        a = order[2 * i]
        b = order[2 * i + 1] if 2 * i + 1 < M else None
        n = order[2 * i + 2] if 2 * i + 2 < M else None
        va = kappas[a] + shift_act
        vb = None if b is None else kappas[b] + shift_act
        vn = None if n is None else kappas[n] + shift_act
        top = pts[-1][1] + shift_pt if pts else None
        da = _half_width(va, [vb] if b is not None else [], top)
        db = None if b is None else _half_width(vb, [va] + ([vn] if n is not None else []), None)
        block_of[a] = i
        if b is not None:
            block_of[b] = i
        if i == K - 1:
            return _last_block(kappas, forbidden, kinks, block_of, pts, shift_pt,
                               (a, va, da), (b, vb, db))
        k1, k2, k3, k4 = _pair_kinks(va, vb, da, db)
        kinks.append((k1, k2, k3, k4))
        shift_pt -= k3
        pts.append((a, k1 - k3 - shift_pt))
        pts.append((b, k1 - k2 - shift_pt))
        shift_act += k1 - k2 - k4
    raise AssertionError("K >= 1 blocks")


def _last_block(kappas, forbidden, kinks, block_of, pts, shift_pt, A, B):
    """The last converge block, with the scale search of :func:`schedule`."""
    (a, va, da), (b, vb, db) = A, B
    M = len(kappas)
    c = 2 * M * len(forbidden) + 1
    for j in range(c):
        s = 1 - Fraction(j, 2 * c)
        k1, k2, k3, k4 = _pair_kinks(va, vb, da * s, None if b is None else db * s * s)
        final = [None] * M
        for l, v in pts:
            final[l] = v + shift_pt - k3
        final[a] = k1 - k3
        if b is not None:
            final[b] = k1 - k2
        if not forbidden.intersection(final):
            kinks = kinks + [(k1, k2, k3, k4)]
            return Schedule(kinks, block_of, flat_half_widths(kinks, kappas), final, s)
    raise RuntimeError(f"converge: no scale among {c} candidates keeps the final points off "
                       "the targets' first coordinates (impossible; report this)")


def flat_half_widths(kinks, kappas) -> list:
    """Per leader (leader order) the half-width of the flat that converges it, read from
    the kinks of the converge layers (``kinks[i]`` of block i): block i converges the
    (2i)-th smallest image on ``[k1, k2]`` and the (2i+1)-th on ``[k3, k4]``."""
    order = sorted(range(len(kappas)), key=kappas.__getitem__)
    out = [None] * len(kappas)
    for pos, leader in enumerate(order):
        k1, k2, k3, k4 = kinks[pos // 2]
        out[leader] = (k2 - k1) / 2 if pos % 2 == 0 else (k4 - k3) / 2
    return out


def _clusters(spans, leader_rows):
    """Rows at each leader's image after the collapse, in leader order: the region-P
    leader's cluster holds the non-leaders of its sequence; a sphere leader is alone."""
    out = []
    for (lo, hi), lr in zip(spans, leader_rows):
        ls = set(lr)
        out.append([i for i in range(lo, hi) if i not in ls or i == lr[0]])
        out += [[row] for row in lr[1:]]
    return out


def construct(inputs, targets, d: int, r=Fraction(32), margin=Fraction(1), spacing=Fraction(1),
              options=None, progress=None) -> Construction:
    """Build the network of the module docstring for an admissible dataset
    (``inputs[j]``: ``(n_j, d)``, ``targets[j]``: ``(m_j, d)`` Fractions).  Phases S,
    L, C come from :func:`proofcheck.constructions.afz.theorems.theorem_1_6.construct` with the given
    leader scales (its snaps are dropped).  Raises ``ValueError`` for construction
    options (float-safe layers are not provided for this construction)."""
    if options is not None and options.float_format is not None:
        raise ValueError("construction seed: float-safe options are not provided")
    base = construct_1_6(inputs, targets, d, r=r, margin=margin, spacing=spacing,
                         progress=progress)
    info = dict(base.info)
    M = len(info["kappas"])
    head = base.net.blocks[:len(base.net.blocks) - M]
    claims = list(base.claims[:len(head)])
    leader_targets = [tuple(y) for ys in targets for y in ys]
    sch = schedule(list(info["kappas"]), {y[0] for y in leader_targets})
    blocks = list(head)
    for ks in sch.kinks:
        blocks.append(Block(converge_ff(0, d, *ks), identity_sa(), phase="V"))
        claims.append((ConvergeClaim(ks), Fixed()))
    e1 = tuple(Fraction(int(i == 0)) for i in range(d))
    rows = _clusters(spans_of(len(X) for X in inputs), info["leader_rows"])
    hat_deltas = quarter_gaps(sch.final, leader_targets)
    for p, y, rs, dl in zip(sch.final, leader_targets, rows, hat_deltas):
        shift = tuple(yi - (p if i == 0 else 0) for i, yi in enumerate(y))
        blocks.append(Block(hat_ff(e1, p, dl, shift), identity_sa(), phase="I"))
        claims.append((Moves({row: y for row in rs}), Fixed()))
        if progress:
            progress("I")
    R, K = info["R"], len(sch.kinks)
    phases = {"S": (1, R + 1), "L": (R + 2, R + 1 + M), "C": (R + 1 + M, R + 1 + M),
              "V": (R + 2 + M, R + 1 + M + K), "I": (R + 2 + M + K, 2 * M + R + 1 + K)}
    info.update({"K": K, "converge_kinks": sch.kinks, "converge_block_of": sch.block_of,
                 "deltas": sch.deltas, "min_delta": min(sch.deltas), "final_points": sch.final,
                 "scale": sch.scale, "hat_deltas": hat_deltas, "snap_deltas": None})
    secs = {k: v for k, v in base.seconds.items() if k != "I"}
    return Construction(Transformer(d, blocks), claims, phases, info, secs)


def constant_checks(net: Transformer, d: int, N: int, M: int, info):
    """The construction's constants as exact checks on the returned network: its
    block formula, K, R, the Theorem 1.8 budget ``L <= 2M + 3N`` (failing: the
    obstruction, with the count of every phase as its witness), width, ``eta = 0``
    in every converge FF, P against :func:`param_formula` and ``42 d M``."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness

    def res(name, ok, detail, witness=None):
        return CheckResult(name, Verdict.VERIFIED if ok else Verdict.REFUTED, [detail],
                           None if ok else witness)
    from proofcheck.constructions.afz.low_rank_summary import summary
    from proofcheck.kernel import low_rank
    R, K, L, P = info["R"], info["K"], net.L, net.n_params()
    lr = summary(net)
    budget = 2 * M + 3 * N
    conv = [b.ff for b in net.blocks if b.phase == "V"]
    bad_eta = next((i for i, f in enumerate(conv) if f.eta != 0 or f.width != 4), None)
    counts = (f"phase S {R + 1} blocks (R = {R} probe rounds + 1), phase L {M} (the last one "
              f"holds the collapse), phase V {K} = ceil(M/2) converge blocks (two "
              f"neighbourhoods each), phase I {M} hats")
    consts = {"N": N, "M": M, "d": d, "L": L, "K": K, "R": R,
              "L_construction": 2 * M + R + 1 + K, "L_paper_hardmax": 2 * M + 2 * N + 1,
              "L_paper_softmax": budget, "max_width": net.max_width, "P": P,
              "P_formula": param_formula(d, M, R), "max_bits": net.max_bits(),
              "param_constant": PARAM_CONSTANT, "P_bound": PARAM_CONSTANT * d * M,
              "min_delta": info["min_delta"], "construction": NAME,
              "block_formula": KNOWN_CONSTRUCTIONS[NAME].blocks,
              "sa_layers": lr["sa_layers"], "max_rank_A_minus_lam_I": lr["max_rank_A"],
              "max_rank_V_minus_lam_I": lr["max_rank_V"]}
    checks = [
        res("L = 2M + R + 1 + K (seed reconstruction)", L == 2 * M + R + 1 + K,
            f"L = {L}: {counts}"),
        res("K = ceil(M/2) converge blocks", K == converge_blocks(M) == len(conv),
            f"K = {K}, ceil(M/2) = {converge_blocks(M)}, phase-V blocks {len(conv)}"),
        res("R <= N - 1", R <= N - 1, f"R = {R}, N - 1 = {N - 1}"),
        res("L <= 2M + 3N (the seed's count of Theorem 1.8, read as a bound)", L <= budget,
            f"L = {L} <= {budget}" if L <= budget else
            f"obstruction at phase V: {counts}; L = {L} > 2M + 3N = {budget} (R + 1 + K = "
            f"{R + 1 + K} > 3N = {3 * N}): this reconstruction does not meet the seed's count here",
            Witness("block budget of Theorem 1.8 exceeded", expected=budget, got=L)),
        res("width <= 4", net.max_width <= 4, f"max width = {net.max_width}"),
        res("every converge FF is non-residual (eta = 0) of width 4", bad_eta is None,
            f"{len(conv)} converge FF layers",
            Witness("converge FF with eta != 0 or width != 4", block=None if bad_eta is None
                    else info["R"] + 2 + M + bad_eta, sublayer="FF")),
        res("P = (16d+16)M + (10d+8)R + 6d + 5 - (2d+1)M + (8d+8)K", P == param_formula(d, M, R),
            f"P = {P}, formula = {param_formula(d, M, R)}"),
        res(f"P <= {PARAM_CONSTANT} d M", P <= PARAM_CONSTANT * d * M,
            f"P = {P} <= {PARAM_CONSTANT * d * M} = {PARAM_CONSTANT} * {d} * {M}"),
        res("low-rank: A and V of every SA layer = lam I + rank <= 1", not low_rank.failures(net),
            f"{lr['sa_layers']} SA layers; largest rank of A - lam I: {lr['max_rank_A']}, of "
            f"V - lam I: {lr['max_rank_V']}"),
    ]
    return checks, consts


def notes(c: Construction, cert=None) -> list[str]:
    """The lines ``theorem 1.8 --construction seed`` prints about the construction:
    what ran, how its network differs from Theorem 1.6's, every choice the seed's
    sketch leaves open and, given a certificate ``cert`` that does not pass, the
    certified radius after the collapse against the smallest flat half-width (for a
    passing one that comparison is a check, :func:`softmax_checks`)."""
    from proofcheck.kernel.verdicts import Verdict, fmt_num
    i = c.info
    M, K, R = len(i["kappas"]), i["K"], i["R"]
    L = c.net.L
    out = [f"construction verified: proofcheck's reconstruction of the seed's Theorem 1.8 "
           f"mechanism (departures: dimension reduced by the rank-one collapse, not by eta = 0; "
           f"tokens onto f(kappa), not onto the leaders; ceil(M/2) converge blocks where the "
           f"seed's count leaves N - 1): L = 2M + R + 1 + ceil(M/2) = {L} blocks (R = {R}, M = {M}, K = {K} "
           f"non-residual converge blocks); not proofcheck's shorter default (2M + R + 1, "
           f"plateau snaps)",
           "its network differs from Theorem 1.6's: leader scales r = "
           f"{fmt_num(i['r'])}, region-P margin/spacing of theorem_1_8.SCALES; {K} converge blocks "
           "(FF with eta = 0) after the collapse; M point hats (Lemma 3.2) instead of plateau snaps",
           "choice (onto the leader): each neighbourhood converges onto its leader's own image "
           "kappa_l e_1 after the collapse (a width <= 4, eta = 0 FF outputs in the span of its "
           "<= 4 W columns, so the leaders' positions in R^d are not its targets in general)",
           "choice (non-residual): eta = 0, U rows and W columns +- e_1: x -> f(x_1) e_1 sets "
           "coordinates 2..d to 0 (0 already after the collapse), maps two neighbourhoods onto "
           "one point each and translates the others along e_1",
           f"choice (how many): two neighbourhoods per block, the two lowest unconverged along "
           f"e_1, not one block per sequence: K = ceil(M/2) = {K} (O(N) when the m_j are bounded; "
           f"here M/N = {fmt_num(Fraction(M, max(1, len(i['leader_rows']))))})",
           f"choice (radius vs tau): flats fixed before any tau, half-width delta = min(1/3 "
           f"distance to the nearest unconverged centre, 1/2 distance to the nearest converged "
           f"point); smallest delta = {fmt_num(i['min_delta'])} (last block scaled by s = "
           f"{fmt_num(i['scale'])}); a certificate needs the box after the collapse inside "
           "its flat",
           "choice (interpolation): point hats along e_1 (exact at one point only): the final "
           "boxes are points only if the convergence made them so"]
    if cert is not None and cert.verdict != Verdict.VERIFIED_CERTIFIED:
        w, delta = collapse_half_width(c, cert), min(built_flats(c))
        if w is not None:
            out.append(f"certified half-width after the collapse (block {i['R'] + 1 + M}) at tau "
                       f"= {fmt_num(cert.tau)}: {fmt_num(w)} {'<=' if w <= delta else '>'} "
                       f"smallest delta {fmt_num(delta)} (the certificate at this tau does not "
                       "pass)")
    return out


def converge_layers(c: Construction) -> list[tuple[int, object]]:
    """``(block, FF)`` of every phase-V block of the returned network."""
    return [(bi, b.ff) for bi, b in enumerate(c.net.blocks, start=1) if b.phase == "V"]


def kinks_of(ff) -> tuple:
    """The kinks ``(k1, k2, k3, k4)`` a converge FF states through its biases
    (``b = (-k1, -k2, k3, -k4)``, :func:`proofcheck.constructions.afz.layers.converge.converge_ff`)."""
    b = list(ff.b) + [Fraction(0)] * (4 - len(ff.b))
    return (-b[0], -b[1], b[2], -b[3])


def built_flats(c: Construction) -> list:
    """Per leader the half-width of its flat, read from the returned converge layers."""
    return flat_half_widths([kinks_of(ff) for _, ff in converge_layers(c)], list(c.info["kappas"]))


def collapse_half_width(c: Construction, cert):
    """The certified half-width of the boxes after the collapse SA in ``cert``, or None."""
    blk = c.info["R"] + 1 + len(c.info["kappas"])
    w = next((b.max_width for b in cert.bounds if b.block == blk and b.sublayer == "SA"), None)
    return None if w is None else w / 2


def softmax_checks(c: Construction, cert, inputs, targets) -> list:
    """The seed's converge phase as checks of the run (``theorem 1.8 --construction seed``):
    the converge layer's profile proved for all parameters on the routine's layer
    (:func:`proofcheck.constructions.afz.layers.converge.symbolic`, along the first axis, which the
    construction uses, and the last: the routine states every axis); every phase-V FF
    the network holds is that routine's layer for increasing kinks (read from its biases
    and rebuilt: equal in every stored scalar); and, when ``cert`` passes, no certified box straddles a kink of
    a converge layer (the mechanism the construction states: each neighbourhood converges
    inside a flat), with the certified half-width after the collapse against the
    smallest flat half-width of the built layers."""
    from proofcheck.constructions.afz.layers import converge
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness, fmt_num
    d = c.net.d
    dd = max(d, 2)  # the routine is generic in its axis: proved at the first and the last
    out = [converge.symbolic(dd, 0), converge.symbolic(dd, dd - 1)]
    name = "every converge FF is the proved layer converge_ff(0, d, k1, k2, k3, k4), k1 < k2 < k3 < k4"
    bad = None
    for bi, ff in converge_layers(c):
        ks = kinks_of(ff)
        try:
            same = converge_ff(0, d, *ks, label=ff.label) == ff
        except ValueError as exc:  # kinks not increasing (ParameterError)
            bad = Witness(f"its kinks {tuple(fmt_num(k) for k in ks)} are not increasing ({exc})",
                          block=bi, sublayer="FF", code="not-the-proved-layer")
            break
        if not same:
            bad = Witness("the FF is not converge_ff of the kinks its biases state", block=bi,
                          sublayer="FF", code="not-the-proved-layer")
            break
    n = len(converge_layers(c))
    out.append(CheckResult(name, Verdict.REFUTED if bad else Verdict.VERIFIED,
                           [f"{n} converge FF layer{'s' * (n != 1)}, each rebuilt from its kinks"],
                           bad))
    if cert.verdict == Verdict.VERIFIED_CERTIFIED:
        out.append(_flat_check(c, cert))
    return out


def _flat_check(c: Construction, cert):
    """No certified box straddles a converge kink at the passing certificate's tau."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness, fmt_num
    blocks = {bi for bi, _ in converge_layers(c)}
    hit = next((b for b in cert.bounds if b.block in blocks and b.straddles), None)
    w, delta = collapse_half_width(c, cert), min(built_flats(c))
    detail = (f"certified half-width after the collapse (block {c.info['R'] + 1 + len(c.info['kappas'])}) "
              f"at tau = {fmt_num(cert.tau)}: {fmt_num(w)} {'<=' if w is not None and w <= delta else '>'} "
              f"smallest delta {fmt_num(delta)} (flats of the built layers)")
    return CheckResult(
        "each neighbourhood converges inside a flat: no certified box straddles a converge kink",
        Verdict.REFUTED if hit else Verdict.VERIFIED, [detail],
        None if hit is None else Witness(f"{hit.straddles} box(es) straddle a kink of this "
                                         "converge FF", block=hit.block, sublayer="FF",
                                         expected=0, got=hit.straddles,
                                         code="box-straddles-converge-kink"))
