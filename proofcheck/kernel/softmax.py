"""The check of ONE softmax certificate at its stated tau, exp-bound floor ``2^-F`` and per-layer
bounds (docs/spec.md §4 "Softmax"), in one pass, with no search.  Every token i lies, for EVERY ``0 < tau'
<= tau``, in the box ``xhat_i +- r_i`` around its exact HARDMAX value; the pass walks the records of
the hardmax trajectory with the radii:

* SA: with ``R`` the largest radius since the last SA layer a score moves by at most ``E(R)``
  (:func:`score_error`); stated ``0 < min_gap <= Ghat - 2 E(R)``, ``max_eps >= min(1, (n-1)
  e^{-gap/tau})`` (:func:`exp_upper`), ``radius >= |rho| R + |V| (R + eps (S + 2R))`` (the attended
  mean is within ``R + eps (S + 2R)`` of ``xhat_c``), which, rounded up once to a 64-bit
  mantissa, becomes every token's radius (a larger box: sound, as every later bound is derived
  from the rounded one);
* FF: on a box where no ReLU argument changes sign the layer is ``x -> J x + c``, the radius
  becomes ``|J| r``; across a kink see :meth:`DenseFF.propagate`; the stated ``radius`` must be at
  least the largest.

Every step is monotone in eps and the radii and ``e^{-gap/tau}`` grows with tau, so the certificate
covers ``(0, tau]``.  VERIFIED-CERTIFIED needs every final radius 0 and the final tokens equal to
the targets as sets.  Stated bounds are hints, never replaced by derived ones: ``min_gap`` null
(no token has a competitor) where a token has one is false at the exact hardmax tokens, REFUTED
with that token and competitor; a stated number that does not follow (a gap above the derived
one, an eps or radius below it), or a sub-layer the certificate states no bound for, is
INCONCLUSIVE: nothing is exhibited against the claim; ``hints=None`` derives them all (the
certifier, a certificate that states none).  Resources: the plain trajectory applies the value
bound after every sub-layer and charges its work; its FF records keep the ReLU arguments or the
projections of the tokens, never the tokens; streamed (:func:`plain_trajectory`) it keeps one."""
from dataclasses import dataclass, field
from functools import partial

from flint import arb, ctx, fmpq, fmpq_mat

from proofcheck.kernel.evaluate import (PlainBackend, allowed, f2q, factor_projections,
                                        interpolation_witness, locate, mat_units, q, rows,
                                        score_units, sequence_scores, spans_of)
from proofcheck.kernel.lemma_checks.profile import EXACT, NotAlong, Profile, direction
from proofcheck.kernel.limits import charge, check_bits
from proofcheck.kernel.model import SA, Factored
from proofcheck.kernel.numbers import fmt_num
from proofcheck.kernel.verdicts import Stop, Verdict, Witness

ZERO, ONE = fmpq(0), fmpq(1)
LN2_UPPER = fmpq(6932, 10000)
FLOOR_BITS = 256          # the floor 2^-256 of a certificate that states none
MAX_FLOOR_BITS = 1 << 16


class Undecided(Exception):
    """A fast route's record cannot decide this step as the plain route would: the
    caller re-runs the check on the plain route; ``where``: (block, sequence, token)."""

    def __init__(self, message: str, where: tuple = (None, None, None)):
        super().__init__(message)
        self.where = where


def up64(x: fmpq) -> fmpq:
    """Smallest dyadic >= x (x >= 0) with a 64-bit mantissa (monotone in x)."""
    p, qq = int(x.p), int(x.q)
    if p == 0 or (qq & (qq - 1) == 0 and p.bit_length() <= 64):
        return x
    e = p.bit_length() - qq.bit_length() - 64
    if e >= 0:
        return fmpq((-((-p) // (qq << e))) << e)
    return fmpq(-((-(p << -e)) // qq), 1 << -e)


def down64(x: fmpq) -> fmpq:
    """Largest dyadic <= x (x > 0) with a 64-bit mantissa."""
    p, qq = int(x.p), int(x.q)
    e = p.bit_length() - qq.bit_length() - 64
    return fmpq((p // (qq << e)) << e) if e >= 0 else fmpq((p << -e) // qq, 1 << -e)


def exp_upper(y: fmpq, F: int) -> fmpq:
    """An exact dyadic ``>= e^{-y}`` (``y >= 0``): ``2^-F`` once ``y >= F ln 2`` (``ln 2
    < 0.6932``), else the upper end of arb's 64-bit ball (never ``mpmath.iv``: docs/spec.md §6)."""
    if y >= F * LN2_UPPER:
        return fmpq(1, 1 << F)
    with ctx.workprec(64):
        man, exp = arb(-y).exp().upper().man_exp()
    man, exp = int(man), int(exp)
    return fmpq(man << exp) if exp >= 0 else fmpq(man, 1 << -exp)


def absdot(a, r) -> fmpq:
    return sum((abs(x) * y for x, y in zip(a, r) if x != 0 and y != 0), ZERO)


def abs_apply(F: Factored, r) -> list:
    """``(|lam| I + sum_r |a_r| |b_r|^T) r``, an entrywise upper bound of ``|M| r``."""
    out = [abs(q(F.lam)) * x for x in r]
    for a, b in zip(F.left, F.right):
        c = absdot([q(x) for x in b], r)
        if c != 0:
            out = [o + abs(q(x)) * c for o, x in zip(out, a)]
    return out


class Radii:
    """Per-token radii: a shared vector, the tokens that differ from it, and ``top``,
    the componentwise largest radius given since the shared one was set (an upper
    bound of every radius, independent of the order tokens are visited in)."""

    def __init__(self, n: int, d: int):
        self.n, self.base, self.over, self.top, self.seen = n, [ZERO] * d, {}, [ZERO] * d, {}

    def get(self, i: int) -> list:
        return self.over.get(i, self.base)

    def set(self, i: int, r: list) -> None:
        self.over[i] = r
        if id(r) not in self.seen:  # (kept alive in ``seen``: ids are not reused)
            self.seen[id(r)] = r
            self.top = [x if x >= y else y for x, y in zip(self.top, r)]

    def reset(self, r: list) -> None:
        self.base, self.over, self.top, self.seen = list(r), {}, list(r), {}


@dataclass
class SARecord:
    """One non-identity SA layer on its exact hardmax input: the smallest argmax
    margin ``gap`` (``None``: no competitor) at ``gap_at = (sequence, token,
    competitor)``; ``nmax1`` the most competitors of a token; per coordinate the
    largest within-sequence range ``S`` and modulus ``Xmax`` (zeros unless ``lam_A !=
    0``); per factor of A ``P[r] = max |<a_r, x>|``, ``Q[r] = max |<b_r, x>|``.  These
    are head 1's; ``more`` holds heads 2..H, each a record of ``SA(0, A_h, V_h)``."""

    block: int
    layer: SA
    gap: fmpq | None
    gap_at: tuple | None
    nmax1: int
    S: list
    Xmax: list
    P: list
    Q: list
    more: list = field(default_factory=list)

    @property
    def heads(self) -> list:
        return [self] + self.more


def straddle_radius(eta, G, kinks, t, rho, r) -> list:
    """The radius of a box's image under ``x -> eta x + G(<w, x>)``: ``|eta| r + max |G(s)
    - G(t)|`` over ``s`` in ``[t - rho, t + rho]`` (attained at its ends or a kink: G is
    piecewise affine), rounded up to 64-bit mantissas."""
    c = G(t)
    vals = [G(x) for x in [t - rho, t + rho] + [k for k in kinks if t - rho < k < t + rho]]
    return [up64(abs(eta) * x + max(abs(v[k] - c[k]) for v in vals)) for k, x in enumerate(r)]


@dataclass
class DenseFF:
    """One FF layer with what its boxes need of every token: the ReLU arguments ``z[i] = U xhat_i
    + b`` (``U`` of rank >= 2), or for ``U = c w^T`` the projections ``t[i] = <w, xhat_i>`` (then
    ``z_ik = c_k t_i + b_k``), ``|w|`` and the profile ``prof``; never the tokens themselves.
    ``locate``: global row -> ``(sequence, token)``."""

    block: int
    eta: fmpq
    U: list
    W: list
    z: list | None
    locate: object
    w: list | None = None
    t: list | None = None
    prof: object = None
    straddles: int = 0
    c: list | None = None
    b: list | None = None

    def args(self, i: int) -> list:
        """The ReLU arguments of token ``i``."""
        if self.z is not None:
            return self.z[i]
        if self.t is None:  # U = 0: the biases
            return self.b
        t = self.t[i]
        return [ck * t + bk for ck, bk in zip(self.c, self.b)]

    def propagate(self, radii: Radii) -> None:
        if not radii.over and not any(radii.base):  # every box a point: nothing moves
            return
        charge(radii.n * (len(self.U) + 1), f"block {self.block} FF bounds",
               max(map(fmpq.height_bits, radii.top)))
        Ua = [[abs(x) for x in u] for u in self.U]
        d = len(radii.base)
        Js = {}    # active units -> |J|
        reach = {}  # id(radius) -> [|U_k|.r] (None: r = 0), once per distinct radius
        memo = {}   # (active units, id(radius)) -> new radius (shared by the tokens)
        for i in range(radii.n):
            r = radii.get(i)
            ds = reach.get(id(r), 0)
            if ds == 0:
                ds = reach[id(r)] = [absdot(u, r) for u in Ua] if any(r) else None
            if ds is None:
                continue
            act, straddle = [], None
            for k, (zk, dk) in enumerate(zip(self.args(i), ds)):
                if zk - dk < 0 < zk + dk:
                    straddle = (k, zk, dk)
                if zk - dk > 0 or (zk - dk == 0 and dk > 0):
                    act.append(k)
            if straddle is not None:
                radii.set(i, self._straddle(i, r, *straddle))
                continue
            key = (tuple(act), id(r))
            new = memo.get(key)
            if new is None:
                J = Js.get(key[0])
                if J is None:
                    J = Js[key[0]] = [[abs((self.eta if a == c else ZERO) + sum(
                        (self.W[k][a] * self.U[k][c] for k in act), ZERO)) for c in range(d)]
                        for a in range(d)]
                new = [absdot(row, r) for row in J]
                new = memo[key] = r if new == r else [up64(x) for x in new]  # 64-bit mantissas
            if new is not r:
                radii.set(i, new)

    def _straddle(self, i, r, k, zk, dk) -> list:
        """A box across a kink: the profile's range (rank-one U), else INCONCLUSIVE."""
        if self.prof is None:
            j, t = self.locate(i)
            raise Stop(Verdict.INCONCLUSIVE, Witness(
                f"a box straddles the kink of ReLU unit {k}: its argument ranges over "
                f"{fmt_num(zk - dk)} .. {fmt_num(zk + dk)}", block=self.block, sublayer="FF",
                sequence=j, token=t, code="box-straddles-kink"))
        self.straddles += 1
        kinks = sorted({q(x) for x in self.prof.kinks()})
        return straddle_radius(self.eta, lambda s: [q(v) for v in self.prof.value(f2q(s))],
                               kinks, self.t[i], absdot(self.w, r), r)


@dataclass
class Trajectory:
    """The records of the non-identity sub-layers, the exact final tokens (``None``
    after a stop) and ``stop = (index, witness)`` for a hardmax tie (no certificate).
    ``records`` is a list, or (``plain_trajectory(..., stream=True)``) an iterator that
    computes each record when it is reached and keeps none."""

    n: int
    d: int
    spans: list
    records: list = field(default_factory=list)
    outputs: list | None = None
    stop: tuple | None = None


def sequence_stats(A: Factored, Xs, causal: bool = False):
    """``(gap, token, competitor)``: the smallest argmax margin of one sequence (``n >=
    2``) over the keys each token may see, or ``(None, token, (c1, c2))`` when a
    token's top score is attained twice."""
    n, d = Xs.nrows(), Xs.ncols()
    charge(score_units(A, n, d), "an SA layer (scores)",
           2 * max((x.height_bits() for x in Xs.entries()), default=0))
    S = sequence_scores(A, Xs, *factor_projections(A, Xs)).entries()
    best = None
    for i in range(1 if causal else 0, n):
        row = S[i * n:i * n + len(allowed(i, n, causal))]
        top = max(row)
        k = row.index(top)
        if row.count(top) > 1:
            return None, i, (k, row.index(top, k + 1))
        second = max(row[:k] + row[k + 1:])
        if best is None or top - second < best[0]:
            best = (top - second, i, row.index(second))
    return best


def tie_witness(block, j, i, c1, c2, head=None) -> Witness:
    return Witness(f"hardmax tie: tokens {c1} and {c2} both maximise the score of this token, "
                   "so softmax attention does not concentrate on one token for any tau (no "
                   "certificate)", block=block, sublayer="SA", sequence=j, token=i,
                   code="hardmax-tie", head=head)


def projections(X, v) -> list:
    """``<v, x_i>`` for every row of ``X``."""
    return (X * fmpq_mat(X.ncols(), 1, [q(x) for x in v])).entries()


def sa_record(sa: SA, X, spans, block: int, b: int = 0):
    """``(SARecord, None)`` of ``sa`` on ``X`` (one per head, see ``more``), or ``(None,
    tie witness)``; ``b`` bounds the values' bit sizes (for the charge)."""
    recs, n, d, e = [], X.nrows(), X.ncols(), X.entries()
    charge(3 * n * d, f"block {block} SA (ranges)", b)
    S = [max((max(e[lo * d + c:hi * d:d]) - min(e[lo * d + c:hi * d:d]) for lo, hi in spans
              if hi > lo), default=ZERO) for c in range(d)]
    nmax1 = max((hi - lo - 1 for lo, hi in spans), default=0)
    for h, (A, V) in enumerate(sa.heads, start=1):
        gap = at = None
        for j, (lo, hi) in enumerate(spans):
            if hi - lo > 1:
                g, i, c = sequence_stats(A, rows(X, lo, hi), sa.causal)
                if g is None:
                    return None, tie_witness(block, j, i, *c, h if sa.H > 1 else None)
                if gap is None or g < gap:
                    gap, at = g, (j, i, c)
        charge(mat_units(n, d, 2 * len(A.left)) + 2 * n * (len(A.left) + 1),
               f"block {block} SA (projections)", b)
        Xm = [max(map(abs, e[c::d]), default=ZERO) if A.lam != 0 else ZERO for c in range(d)]
        P = [max(map(abs, projections(X, a)), default=ZERO) for a in A.left]
        Q = [max(map(abs, projections(X, b_)), default=ZERO) for b_ in A.right]
        recs.append(SARecord(block, sa if h == 1 else SA(ZERO, A, V), gap, at, nmax1, S, Xm, P, Q))
    recs[0].more = recs[1:]
    return recs[0], None


def dense_ff_record(ff, X, block: int, spans, b: int = 0) -> DenseFF:
    """The :class:`DenseFF` of ``ff`` on the tokens ``X`` (``spans``: the sequences)."""
    n, d, w = X.nrows(), X.ncols(), ff.width
    U = [[q(x) for x in u] for u in ff.U]
    rec = DenseFF(block, q(ff.eta), U, [[q(x) for x in col] for col in ff.W], None,
                  partial(locate, spans), b=[q(x) for x in ff.b])
    u = direction(ff)
    if u is not None:
        try:
            rec.prof = Profile.along(ff, u, EXACT)
        except NotAlong:
            pass
    if rec.prof is not None:  # U = c w^T: the projections only
        charge(mat_units(n, d, 1) + n, f"block {block} FF (projections)", b)
        rec.w, rec.t = [abs(q(x)) for x in u], projections(X, u)
        rec.c = [q(a) for a in rec.prof.alphas]
    elif u is not None and w:  # U of rank >= 2: every ReLU argument
        charge(mat_units(n, d, w) + 2 * n * w, f"block {block} FF (ReLU arguments)", b)
        z = (X * fmpq_mat(d, w, [U[k][c] for c in range(d) for k in range(w)])).entries()
        rec.z = [[z[i * w + k] + rec.b[k] for k in range(w)] for i in range(n)]
    return rec


def _advance(be, state, step, where: str):
    """The state after one sub-layer, its new values within the bit bound."""
    new, touched, _ = step
    if not (new is state and touched == []):
        check_bits(be.max_bits(new, touched), where)
    return new


def _walk(net, inputs, tr: Trajectory):
    """Yield the record of every non-identity sub-layer (computed before the sub-layer is
    applied), the values bounded as in :func:`~proofcheck.kernel.evaluate.run`; sets
    ``tr.stop`` (a hardmax tie) or ``tr.outputs``."""
    be = PlainBackend()
    st = be.load(inputs)
    count = 0
    for bi, blk in enumerate(net.blocks, start=1):
        if not blk.ff.is_identity:
            rec = dense_ff_record(blk.ff, st.X, bi, st.spans, be.bits)
            st = _advance(be, st, be.ff(blk.ff, st), f"block {bi} FF")
            count += 1
            yield rec
        if not blk.sa.is_identity:
            rec, tie = sa_record(blk.sa, st.X, st.spans, bi, be.bits)
            if tie is not None:
                tr.stop = (count, tie)
                return
            st = _advance(be, st, be.sa(blk.sa, st), f"block {bi} SA")
            count += 1
            yield rec
    rows_ = be.to_fractions(st)
    tr.outputs = [rows_[lo:hi] for lo, hi in st.spans]


def plain_trajectory(net, inputs, stream: bool = False) -> Trajectory:
    """The records of ``net`` on ``inputs`` by the plain evaluator: a list, or with ``stream``
    an iterator that computes them one at a time for one pass of :func:`check_bounds` (memory:
    the tokens and one record)."""
    tr = Trajectory(sum(len(s) for s in inputs), next((len(t) for s in inputs for t in s), 0),
                    spans_of(len(s) for s in inputs))
    walk = _walk(net, inputs, tr)
    tr.records = walk if stream else list(walk)
    return tr


def steps(net) -> list[tuple]:
    """``(block, sublayer, heads)`` of every non-identity sub-layer of ``net``, in order: the
    records of a trajectory (up to a stop)."""
    out = []
    for bi, blk in enumerate(net.blocks, start=1):
        if not blk.ff.is_identity:
            out.append((bi, "FF", 0))
        if not blk.sa.is_identity:
            out.append((bi, "SA", blk.sa.H))
    return out


def score_error(rec: SARecord, R) -> fmpq:
    """``E(R)``: how far a score may move when every token moves by at most ``R``."""
    A = rec.layer.A
    e = abs(q(A.lam)) * sum((r * (2 * x + r) for r, x in zip(R, rec.Xmax) if r != 0), ZERO)
    for a, b, P, Q in zip(A.left, A.right, rec.P, rec.Q):
        da, db = absdot([q(x) for x in a], R), absdot([q(x) for x in b], R)
        e += Q * da + P * db + da * db
    return e


@dataclass
class Result:
    """Of :func:`check_bounds`: verdict, witness, every record's bounds (stated or
    derived), ``tau_free`` (no SA competitor) and ``floored`` (an exp bound was ``2^-F``)."""

    verdict: Verdict
    witness: Witness | None = None
    bounds: list = field(default_factory=list)
    tau_free: bool = False
    floored: bool = False


def _implied(stated, derived, block, sub, name, at_most=False, **where) -> None:
    """``stated >= derived`` (``at_most``: ``<=``), else INCONCLUSIVE with both values
    (``where``: the head, sequence and token the bound is about)."""
    if (stated > derived) if at_most else (stated < derived):
        raise Stop(Verdict.INCONCLUSIVE, Witness(
            f"the stated {name} {fmt_num(stated)} does not follow from the previous bounds "
            f"(derived: {'at most' if at_most else 'at least'} {fmt_num(derived)})",
            block=block, sublayer=sub, expected=f2q(derived), got=f2q(stated),
            code="bound-not-implied", **where))


#: an entry of the stated hints where the certificate states no bound (a truncated list)
MISSING = {"missing": True}


def _no_competitor(rec: SARecord, head) -> Stop:
    """REFUTED: the certificate states ``min_gap`` null (no token of the layer has a
    competitor, so its softmax weights do not depend on tau), but the token ``gap_at`` has one."""
    j, t, comp = rec.gap_at
    return Stop(Verdict.REFUTED, Witness(
        f"the certificate states that no token has an attention competitor here (min_gap "
        f"null), but at the exact hardmax tokens the argmax beats competitor token {comp} by "
        f"{fmt_num(rec.gap)}", block=rec.block, sublayer="SA", sequence=j, token=t,
        expected=f2q(rec.gap), got=None, code="stated-bound-false", head=head))


def _head_step(rec: SARecord, R, tau, F: int, h, res: Result, head) -> tuple:
    """``(gap, eps)`` of one head: the certified gap and the off-argmax mass."""
    g, eps = None, ZERO
    if rec.gap is not None:
        if h is not None and h["min_gap"] is None:
            raise _no_competitor(rec, head)
        E = score_error(rec, R)
        gd = rec.gap - 2 * E
        g = h["min_gap"] if h is not None else (down64(gd) if gd > 0 else gd)
        j, t, comp = rec.gap_at
        if g <= 0 or gd <= 0:
            raise Stop(Verdict.INCONCLUSIVE, Witness(
                f"softmax gap not certified: the argmax beats competitor token {comp} by "
                f"{fmt_num(rec.gap)}, but with boxes of radius up to {fmt_num(max(R))} each "
                f"score may move by {fmt_num(E)}: certified gap {fmt_num(gd)}",
                block=rec.block, sublayer="SA", sequence=j, token=t, expected="> 0", got=f2q(gd),
                code="gap-not-certified", head=head))
        _implied(g, gd, rec.block, "SA", "min_gap", True, head=head, sequence=j, token=t)
        ub = fmpq(1, 1 << F) if tau is None else exp_upper(g / tau, F)
        res.floored |= ub == fmpq(1, 1 << F)
        eps = min(ONE, rec.nmax1 * ub)
    e = eps if h is None or h["max_eps"] is None else h["max_eps"]
    _implied(e, eps, rec.block, "SA", "max_eps", head=head)
    return g, e


def _sa_step(rec: SARecord, radii: Radii, tau, F: int, h, res: Result) -> dict:
    """The bounds of one SA record; every token's radius becomes the stated one (derived:
    rounded up to 64-bit mantissas), itself rounded up once to a 64-bit mantissa: a box that
    contains the stated one, and every later bound is derived from it, so the pass stays sound
    and later steps work on numbers of bounded size."""
    R = radii.top
    multi = len(rec.heads) > 1
    rad = [abs(q(rec.layer.rho)) * r for r in R]
    heads = []
    for k, hr in enumerate(rec.heads):
        hk = h["heads"][k] if h is not None and multi else h
        g, e = _head_step(hr, R, tau, F, hk, res, k + 1 if multi else None)
        heads.append({"min_gap": g, "max_eps": e})
        m = [r + e * (s + 2 * r) for r, s in zip(R, hr.S)]
        rad = [x + v for x, v in zip(rad, abs_apply(hr.layer.V, m))]
    stated = [up64(x) for x in rad] if h is None or h["radius"] is None else h["radius"]
    for x, y in zip(stated, rad):
        _implied(x, y, rec.block, "SA", "radius")
    radii.reset([up64(x) for x in stated])
    return {"block": rec.block, "sublayer": "SA", **({"heads": heads} if multi else heads[0]),
            "radius": list(stated)}


def _missing(rec) -> Stop:
    kind = "SA" if isinstance(rec, SARecord) else "FF"
    return Stop(Verdict.INCONCLUSIVE, Witness(
        "the certificate states no bound for this sub-layer (its list of bounds ends before "
        "it); a bound is not derived in its place", block=rec.block, sublayer=kind,
        code="bound-missing"))


def check_bounds(traj: Trajectory, tau, F: int, targets, hints=None) -> Result:
    """One pass over ``traj`` at ``tau`` (``None``: the tau -> 0 limit, every exp bound
    ``2^-F``) with the stated ``hints`` (per record: SA ``{"min_gap", "max_eps",
    "radius"}``, FF ``{"radius"}``; ``None``: derive them; :data:`MISSING`: INCONCLUSIVE).
    A stated ``min_gap`` null where a token has a competitor is REFUTED, any stated bound that
    does not follow INCONCLUSIVE (module text).  A streamed trajectory is walked to its end
    even after a stop, so that its value and work bounds end the check as on the fast route."""
    res = Result(Verdict.ERROR)
    tau = None if tau is None else q(tau)
    radii = Radii(traj.n, traj.d)
    free = True
    try:
        for k, rec in enumerate(traj.records):
            h = None if hints is None else hints[k]
            if h is MISSING:
                raise _missing(rec)
            charge(traj.d * 8, f"block {rec.block} bounds")
            if isinstance(rec, SARecord):
                free &= rec.gap is None
                res.bounds.append(_sa_step(rec, radii, tau, F, h, res))
                continue
            rec.straddles = 0
            rec.propagate(radii)
            m = radii.top
            stated = m if h is None or h["radius"] is None else h["radius"]
            for x, y in zip(stated, m):
                _implied(x, y, rec.block, "FF", "radius")
            res.bounds.append({"block": rec.block, "sublayer": "FF", "radius": list(stated),
                               "straddles": rec.straddles})
        res.tau_free = free
        if traj.stop is not None:
            raise Stop(Verdict.INCONCLUSIVE, traj.stop[1])
        _final(traj, radii, targets)
        res.verdict = Verdict.VERIFIED_CERTIFIED
    except Stop as s:
        res.verdict, res.witness = s.verdict, s.witness
        if not isinstance(traj.records, list):
            for _ in traj.records:  # the rest of the trajectory: its bounds as on the fast route
                pass
    except Undecided as e:
        e.bounds = res.bounds  # the bounds up to the undecided step (for the certifier)
        raise
    return res


def _final(traj: Trajectory, radii: Radii, targets) -> None:
    """Every final box a point and the final tokens equal to the targets (set
    equality computed once per trajectory and targets)."""
    shared = len(radii.over) < radii.n and any(radii.base)
    bad = [i for i, r in radii.over.items() if any(r)]
    if shared:
        bad.append(next(i for i in range(radii.n) if i not in radii.over))
    if bad:
        i = min(bad)
        j, t = next((j, i - lo) for j, (lo, hi) in enumerate(traj.spans) if lo <= i < hi)
        r = radii.get(i)
        c = next(c for c, x in enumerate(r) if x != 0)
        raise Stop(Verdict.INCONCLUSIVE, Witness(
            f"final box is not a single point (exactness not certified): radius "
            f"{fmt_num(r[c])}", sequence=j, token=t, coordinate=c, expected=0,
            got=f2q(r[c]), code="final-box-not-a-point"))
    cached = getattr(traj, "interpolation", None)
    if cached is None or cached[0] is not targets:
        cached = traj.interpolation = (targets, interpolation_witness(traj.outputs, targets)[0])
    if cached[1] is not None:
        raise Stop(Verdict.REFUTED, cached[1])
