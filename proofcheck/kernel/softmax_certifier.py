"""Certified softmax evaluation (SPEC §4 "Softmax", trusted kernel).

The certificate at temperature ``tau`` encloses every token ``i`` of the softmax
network, for EVERY temperature ``0 < tau' <= tau``, in the box
``xhat_i +- r_i`` (per-coordinate radius ``r_i >= 0``), where ``xhat_i`` is the
token's exact HARDMAX value at that layer.  It is computed in two passes:

1. :func:`prepare` (independent of tau, done once per network and dataset) runs
   the exact hardmax trajectory with the structure the construction has, and
   records per sub-layer what the bounds need:

   * identity sub-layers are skipped;
   * FF with ``U`` of rank one (``U = c w^T``) and bounded support: the layer is
     affine on each interval of ``t = <w, x>`` between its kinks; only the tokens
     whose projection lies in ``[first kink, last kink]`` can change, found per
     SEQUENCE from the range of its projections; the distance ``D`` from the
     support to the nearest other projection is recorded;
   * SA with rank-one ``A`` (``s_il = <b, x_i> <a, x_l>``), ``rho = 1`` and every
     token of a sequence attending the same token: the whole sequence is shifted by
     one vector ``V x_c``.  Shifts are kept per sequence (``x = base + shift_j``), so
     a layer costs O(N d) instead of O(T d); projections of a sequence are shifted by
     one number, so the gaps inside a sequence do not change;
   * FF with ``eta = 0`` and ``U`` of rank one (non-residual): a function of
     ``<w, x>``, evaluated per group of equal tokens (section "non-residual FF
     layers" at the end of this file);
   * any other layer is evaluated token by token (exact scores per sequence);
   * per SA layer: the smallest hardmax score gap ``Ghat`` between a token's
     argmax and its best competitor (with its token), the largest number of
     competitors, the largest coordinate range inside a sequence ``S`` and the
     largest coordinate modulus ``Xmax``.  A tie in the hardmax argmax stops the
     pass (no certificate can be given: INCONCLUSIVE with the tie as witness).

2. :func:`certify` propagates the radii (one shared radius vector plus
   per-token overrides for the tokens FF layers touched since the last SA):

   * SA: a score moves by at most ``E(r)`` (bilinear error bound from ``Xmax`` and
     the factors of ``A``), so the certified gap is ``G = Ghat - 2E > 0`` (else
     INCONCLUSIVE, witness: block, sequence, token, competitor, certified gap).
     softmax-gap: the mass off the argmax is ``<= eps = min(1, (n-1) e^{-G/tau})``
     (rigorous upper bound, :mod:`.expbounds`, floored at ``2^-floor_bits``); the
     attended mean is within ``r + eps (S + 2r)`` of ``xhat_c``; the output radius
     is ``|rho| r + |V| (r + eps (S + 2r))``;
   * FF: a candidate token whose box projection stays in one linear piece gets
     ``|eta| r + |g| (|w| . r)`` (``0`` in the snapped coordinates of a snap), a
     box straddling a kink is evaluated by sound interval arithmetic (counted in
     ``straddles``); a non-candidate token whose box could reach the support
     (``|w| . r > D``) makes the certificate INCONCLUSIVE; a non-residual layer maps
     a box to the exact range of its profile over the box's projection interval
     (:func:`nonresidual_radius`: 0 on a flat piece).
   * Radii are rounded UP to 64-bit mantissas (sizes stay bounded).

Monotonicity: every step is increasing in ``eps`` and in the radii, and
``e^{-G/tau}`` increases with ``tau``, so a certificate at tau also bounds every
``tau' <= tau``: it covers ``(0, tau]``.

The verdict is VERIFIED-CERTIFIED only if every final radius is 0 and the exact
final tokens equal the targets as sets (both inclusions); a failed gap, a
non-point final box, a tie or an exception is INCONCLUSIVE / ERROR, never a pass.
Imports nothing from ``lemmas``.
"""
from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from operator import is_
from dataclasses import dataclass, field
from fractions import Fraction

from flint import fmpq, fmpq_mat

from proofcheck.kernel.backends.flint import _rank_one, affine_pieces, f2q
from proofcheck.kernel.checker import interpolation_witness
from proofcheck.kernel.expbounds import FLOOR_BITS, exp_neg_upper_q
from proofcheck.kernel.model import FF, SA, Transformer
from proofcheck.kernel.verdicts import Verdict, Witness, fmt_num

ZERO = fmpq(0)
ONE = fmpq(1)


def _q(v) -> fmpq:
    if isinstance(v, fmpq):
        return v
    v = Fraction(v)
    return fmpq(v.numerator, v.denominator)


def _dotq(w, x):
    s = ZERO
    for a, b in zip(w, x):
        if a != 0:
            s += a * b
    return s


def _absdot(wabs, r):
    """``sum_k |w_k| r_k`` (``wabs`` already absolute)."""
    s = ZERO
    for a, b in zip(wabs, r):
        if a != 0 and b != 0:
            s += a * b
    return s


def _up(x: fmpq) -> fmpq:
    """Smallest dyadic ``>= x`` with a 64-bit mantissa (``x >= 0``; monotone in x)."""
    p, q = int(x.p), int(x.q)
    if p == 0 or (q & (q - 1) == 0 and p.bit_length() <= 64):
        return x
    e = p.bit_length() - q.bit_length() - 64
    if e >= 0:
        return fmpq((-((-p) // (q << e))) << e)
    return fmpq(-((-(p << -e)) // q), 1 << -e)


def _vmax(a, b):
    return [x if x >= y else y for x, y in zip(a, b)]


def _imul(a, b):
    """Product of two intervals (sign cases first, the general case last)."""
    a0, a1 = a
    b0, b1 = b
    if a0 >= 0:
        if b0 >= 0:
            return (a0 * b0, a1 * b1)
        if b1 <= 0:
            return (a1 * b0, a0 * b1)
    elif a1 <= 0:
        if b1 <= 0:
            return (a1 * b1, a0 * b0)
        if b0 >= 0:
            return (a0 * b1, a1 * b0)
    p = (a0 * b0, a0 * b1, a1 * b0, a1 * b1)
    return (min(p), max(p))


def _scale(c, iv):
    return (c * iv[0], c * iv[1]) if c >= 0 else (c * iv[1], c * iv[0])


def _dot(w, box):
    """Interval of ``<w, x>`` over the box (``w`` exact)."""
    lo = hi = ZERO
    for c, (a, b) in zip(w, box):
        if c > 0:
            lo += c * a
            hi += c * b
        elif c < 0:
            lo += c * b
            hi += c * a
    return lo, hi


def _ff_interval(Uq, eta, W, b, box, rec):
    """Sound interval evaluation of ``eta x + W relu(U x + b)`` on a box."""
    res = [_scale(eta, iv) for iv in box]
    for k, u in enumerate(Uq):
        lo, hi = _dot(u, box)
        lo, hi = lo + b[k], hi + b[k]
        if lo < 0 < hi:
            rec.straddles += 1
        rl = (lo if lo > 0 else ZERO, hi if hi > 0 else ZERO)
        for i in range(len(res)):
            a, c = _scale(W[k][i], rl)
            res[i] = (res[i][0] + a, res[i][1] + c)
    return res


def _ff_exact(Uq, eta, W, b, x):
    out = [eta * v for v in x]
    for k, u in enumerate(Uq):
        z = _dotq(u, x) + b[k]
        if z > 0:
            out = [o + W[k][i] * z for i, o in enumerate(out)]
    return out


class _Fact:
    """A :class:`Factored` with fmpq entries: ``lam I + sum_r a_r b_r^T``."""

    def __init__(self, f):
        self.lam = _q(f.lam)
        self.pairs = [([_q(x) for x in a], [_q(x) for x in b]) for a, b in zip(f.left, f.right)]
        self.abs_pairs = [([abs(x) for x in a], [abs(x) for x in b]) for a, b in self.pairs]

    def apply(self, x):
        out = [self.lam * v for v in x] if self.lam != 0 else [ZERO] * len(x)
        for a, b in self.pairs:
            c = _dotq(b, x)
            if c != 0:
                out = [o + ai * c for o, ai in zip(out, a)]
        return out

    def abs_apply(self, r):
        """``|M| r`` with ``|M|`` the entrywise absolute value (an upper bound of it:
        ``|lam| I + sum |a_r| |b_r|^T``)."""
        out = [abs(self.lam) * v for v in r]
        for a, b in self.abs_pairs:
            c = _absdot(b, r)
            if c != 0:
                out = [o + ai * c for o, ai in zip(out, a)]
        return out

    def norm_inf(self):
        d = len(self.pairs[0][0]) if self.pairs else 0
        if d == 0:
            return abs(self.lam)
        return max(self.abs_apply([ONE] * d))


@dataclass
class LayerBound:
    """Per sub-layer record of a certificate: block (1-based), 'FF'/'SA', the
    certified minimum attention gap, the bound on the off-argmax mass, the
    largest box width (2 x radius) after the layer, kinks straddled."""

    block: int
    sublayer: str
    min_gap: Fraction | None = None
    max_eps: Fraction | None = None
    max_width: Fraction = Fraction(0)
    straddles: int = 0

    def to_json(self) -> dict:
        f = lambda v: None if v is None else str(v)  # noqa: E731
        return {"block": self.block, "sublayer": self.sublayer, "min_gap": f(self.min_gap),
                "max_eps": f(self.max_eps), "max_width": str(self.max_width),
                "straddles": self.straddles}


@dataclass
class Certificate:
    """Outcome of :func:`certify` at temperature ``tau``.  ``floored``: some
    ``e^{-G/tau}`` was replaced by the floor ``2^-floor_bits`` (a failure then may
    be the floor's, not tau's); ``tau_free``: no softmax layer has a competitor,
    so the certificate does not depend on tau."""

    verdict: Verdict
    tau: Fraction
    witness: Witness | None = None
    bounds: list[LayerBound] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0
    floor_bits: int = FLOOR_BITS
    floored: bool = False
    tau_free: bool = False


class _Fail(Exception):
    def __init__(self, verdict, witness):
        super().__init__(witness.reason)
        self.verdict, self.witness = verdict, witness


@dataclass
class _FFRec:
    block: int
    dense: bool
    eta: fmpq
    Uq: list
    W: list
    b: list
    w: list | None = None
    wabs: list | None = None
    kinks: list | None = None
    maps: list | None = None
    cands: list = field(default_factory=list)  # (token, t, old centre, new centre)
    reach: tuple | None = None                  # (D, sequence, token) nearest non-candidate
    absG: list | None = None                    # per piece: |eta I + g w^T| (None: identity)


@dataclass
class _SARec:
    block: int
    rho: fmpq
    A: _Fact
    V: _Fact
    gap: fmpq | None = None        # smallest hardmax score gap (None: no competitor)
    gap_at: tuple | None = None    # (sequence, token, competitor) attaining it
    nmax1: int = 0                 # largest number of competitors of a token
    S: list | None = None          # largest within-sequence range per coordinate
    Xmax: list | None = None       # largest |coordinate| per coordinate
    Pmax: list | None = None       # per factor r: bound of |<a_r, x>|
    Qmax: list | None = None       # per factor r: bound of |<b_r, x>|


@dataclass
class Trajectory:
    """Output of :func:`prepare`: the exact hardmax trajectory's data for the
    bounds (``records``: ``("FF"|"SA", record)`` in order), the final exact tokens
    (``outputs[j]``), or ``stop = (index in records, verdict, witness)`` when the
    hardmax pass itself rules out a certificate (a tie)."""

    d: int
    spans: list
    records: list
    outputs: list | None
    stop: tuple | None = None
    n_blocks: int = 0
    seconds: float = 0.0
    interp: tuple | None = None   # (targets object, interpolation witness) cache
    floor: tuple | None = None    # choose_floor cache


class _Dir:
    """Projections ``<w, base_i>`` of all tokens, their per-sequence extremes and,
    once a direction is queried twice without a shift change in between, a sorted
    index of the true projections ``<w, x_i>`` (kept up to date token by token)."""

    def __init__(self, w, base, nseq):
        self.w = w
        self.pb = [_dotq(w, x) for x in base]
        self.ext = [None] * nseq   # (min, argmin, 2nd min, max, argmax, 2nd max) of pb
        self.sp = [None] * nseq    # <w, shift_j>
        self.keys = None           # sorted true projections
        self.rows = None           # token of each key
        self.queries = 0           # FF queries since the last shift change

    def extremes(self, j, lo, hi):
        e = self.ext[j]
        if e is None:
            pb = self.pb
            order = sorted(range(lo, hi), key=pb.__getitem__)
            mn, mx = order[0], order[-1]
            m2 = pb[order[1]] if len(order) > 1 else None
            x2 = pb[order[-2]] if len(order) > 1 else None
            e = self.ext[j] = (pb[mn], mn, m2, pb[mx], mx, x2)
        return e

    def shifts_changed(self):
        self.sp = [None] * len(self.sp)
        self.keys = self.rows = None
        self.queries = 0


class _Pass:
    """The hardmax state ``x_i = base_i + shift_{seq(i)}`` with caches."""

    def __init__(self, inputs, d):
        self.d = d
        self.spans, s = [], 0
        self.base = []
        for X in inputs:
            self.spans.append((s, s + len(X)))
            s += len(X)
            self.base += [[_q(v) for v in x] for x in X]
        self.seq_of = [j for j, (lo, hi) in enumerate(self.spans) for _ in range(lo, hi)]
        self.N = len(self.spans)
        self.shift = [None] * self.N
        self.dirs = {}
        self.cext = [None] * self.N  # per sequence: (mins, maxs) of base coordinates

    def token(self, i):
        sh = self.shift[self.seq_of[i]]
        x = self.base[i]
        return list(x) if sh is None else [a + b for a, b in zip(x, sh)]

    def dir(self, w):
        key = tuple(w)
        dr = self.dirs.get(key)
        if dr is None:
            dr = self.dirs[key] = _Dir(list(w), self.base, self.N)
        return dr

    def shift_proj(self, dr, j):
        v = dr.sp[j]
        if v is None:
            sh = self.shift[j]
            v = dr.sp[j] = ZERO if sh is None else _dotq(dr.w, sh)
        return v

    def set_token(self, i, x):
        j = self.seq_of[i]
        sh = self.shift[j]
        self.base[i] = list(x) if sh is None else [a - b for a, b in zip(x, sh)]
        for dr in self.dirs.values():
            new = _dotq(dr.w, self.base[i])
            if dr.keys is not None:
                s = self.shift_proj(dr, j)
                old = dr.pb[i] + s
                k = bisect_left(dr.keys, old)
                while dr.rows[k] != i:
                    k += 1
                del dr.keys[k], dr.rows[k]
                t = new + s
                k = bisect_left(dr.keys, t)
                dr.keys.insert(k, t)
                dr.rows.insert(k, i)
            dr.pb[i] = new
            dr.ext[j] = None
        self.cext[j] = None

    def build_index(self, dr):
        t = [dr.pb[i] + self.shift_proj(dr, self.seq_of[i]) for i in range(len(self.base))]
        order = sorted(range(len(t)), key=t.__getitem__)
        dr.keys = [t[i] for i in order]
        dr.rows = order

    def materialise(self, new_rows):
        self.base = new_rows
        self.shift = [None] * self.N
        self.dirs = {}
        self.cext = [None] * self.N

    def coord_ext(self, j):
        c = self.cext[j]
        if c is None:
            lo, hi = self.spans[j]
            rows = self.base[lo:hi]
            c = self.cext[j] = ([min(col) for col in zip(*rows)], [max(col) for col in zip(*rows)])
        return c

    def ranges(self):
        """``(S, Xmax)``: largest within-sequence range and largest modulus per coordinate."""
        d = self.d
        S = [ZERO] * d
        X = [ZERO] * d
        for j in range(self.N):
            mn, mx = self.coord_ext(j)
            sh = self.shift[j]
            for k in range(d):
                r = mx[k] - mn[k]
                if r > S[k]:
                    S[k] = r
                a, b = (mn[k], mx[k]) if sh is None else (mn[k] + sh[k], mx[k] + sh[k])
                m = -a if -a > b else b
                if m > X[k]:
                    X[k] = m
        return S, X


def _prep_ff(ps: _Pass, ff: FF, block: int) -> _FFRec:
    d = ps.d
    eta = _q(ff.eta)
    Uq = [[_q(x) for x in u] for u in ff.U]
    W = [[_q(x) for x in w] for w in ff.W]
    b = [_q(x) for x in ff.b]
    r1 = _rank_one(ff.U)
    if r1 is not None:
        w, kinks, maps = affine_pieces(ff, r1)
        w = [_q(x) for x in w]
        if maps[0] is None and maps[-1] is None and kinks:
            rec = _FFRec(block, False, eta, Uq, W, b, list(w), [abs(x) for x in w], kinks, maps)
            # |G| entrywise for G = eta I + g w^T on each piece (exact cancellations kept:
            # a snap's G has a zero row, so its snapped coordinate gets radius 0)
            rec.absG = [None if m is None else
                        [[abs((eta if i == k else ZERO) + m[0][i] * w[k]) for k in range(d)]
                         for i in range(d)] for m in maps]
            dr = ps.dir(w)
            k0, kL = kinks[0], kinks[-1]
            best = None  # (D, j, side)
            hits = []
            dr.queries += 1
            if dr.keys is None and dr.queries >= 2:
                ps.build_index(dr)
            if dr.keys is not None:
                a = bisect_left(dr.keys, k0)
                b_ = bisect_right(dr.keys, kL)
                hits = [(dr.rows[k], dr.keys[k]) for k in range(a, b_)]
                if a > 0:
                    best = (k0 - dr.keys[a - 1], dr.rows[a - 1])
                if b_ < len(dr.keys) and (best is None or dr.keys[b_] - kL < best[0]):
                    best = (dr.keys[b_] - kL, dr.rows[b_])
                if best is not None:
                    i = best[1]
                    j = ps.seq_of[i]
                    best = (best[0], j, i)
            for j, (lo, hi) in (enumerate(ps.spans) if dr.keys is None else ()):
                mn, _, _, mx, _, _ = dr.extremes(j, lo, hi)
                s = ps.shift_proj(dr, j)
                a, c = mn + s, mx + s
                if c < k0:
                    if best is None or k0 - c < best[0]:
                        best = (k0 - c, j, "max")
                elif a > kL:
                    if best is None or a - kL < best[0]:
                        best = (a - kL, j, "min")
                else:
                    for i in range(lo, hi):
                        t = dr.pb[i] + s
                        if t < k0:
                            if best is None or k0 - t < best[0]:
                                best = (k0 - t, j, i)
                        elif t > kL:
                            if best is None or t - kL < best[0]:
                                best = (t - kL, j, i)
                        else:
                            hits.append((i, t))
            if best is not None:
                D, j, side = best
                lo, hi = ps.spans[j]
                if side in ("max", "min"):
                    e = dr.extremes(j, lo, hi)
                    side = e[4] if side == "max" else e[1]
                rec.reach = (D, j, side - lo)
            for i, t in hits:
                old = ps.token(i)
                m = maps[bisect_left(kinks, t)]
                new = old if m is None else [eta * x + g * t + h for x, g, h in zip(old, *m)]
                rec.cands.append((i, t, old, new))
                if m is not None:
                    ps.set_token(i, new)
            return rec
    if r1 is not None and eta == 0:  # non-residual: a function of <w, x> (section below)
        return _prep_ff_nonresidual(ps, ff, block, r1)
    # dense: every token, exactly
    rec = _FFRec(block, True, eta, Uq, W, b)
    new_rows = []
    for i in range(len(ps.base)):
        old = ps.token(i)
        new = _ff_exact(Uq, eta, W, b, old)
        rec.cands.append((i, None, old, new))
        new_rows.append(new)
    ps.materialise(new_rows)
    return rec


def _tie(block, j, i, c1, c2):
    return Witness(f"hardmax tie: tokens {c1} and {c2} both maximise the score of this token, "
                   "so softmax attention does not concentrate on one token for any tau "
                   "(no certificate)", block=block, sublayer="SA", sequence=j, token=i)


def _prep_sa(ps: _Pass, sa: SA, block: int) -> tuple[_SARec, Witness | None]:
    d = ps.d
    rec = _SARec(block, _q(sa.rho), _Fact(sa.A), _Fact(sa.V))
    rec.S, rec.Xmax = ps.ranges()
    A, V = rec.A, rec.V
    gmin, at, nmax1 = None, None, 0
    if A.lam == 0 and len(A.pairs) == 1 and rec.rho == 1:
        a, bb = A.pairs[0]
        pd = ps.dir(a)
        qd = pd if tuple(bb) == tuple(a) else ps.dir(bb)
        plan = []
        pmax = qmax = ZERO
        for j, (lo, hi) in enumerate(ps.spans):
            pmn, pimn, p2mn, pmx, pimx, p2mx = pd.extremes(j, lo, hi)
            qmn, _, _, qmx, qimx, _ = qd.extremes(j, lo, hi)
            sp, sq = ps.shift_proj(pd, j), ps.shift_proj(qd, j)
            pmax = max(pmax, abs(pmn + sp), abs(pmx + sp))
            qa, qb = qmn + sq, qmx + sq
            qmax = max(qmax, abs(qa), abs(qb))
            n = hi - lo
            if n == 1:
                plan.append(lo)
                continue
            if qa > 0:
                if p2mx == pmx:
                    c2 = next(l for l in range(lo, hi) if l != pimx and pd.pb[l] == pmx)
                    return rec, _tie(block, j, qimx - lo, pimx - lo, c2 - lo)
                g = qa * (pmx - p2mx)
                c = pimx
            elif qb < 0:
                if p2mn == pmn:
                    c2 = next(l for l in range(lo, hi) if l != pimn and pd.pb[l] == pmn)
                    return rec, _tie(block, j, lo, pimn - lo, c2 - lo)
                g = -qb * (p2mn - pmn)
                c = pimn
            else:
                plan = None
                break
            plan.append(c)
            nmax1 = max(nmax1, n - 1)
            if gmin is None or g < gmin:
                # the token attaining it: smallest |q| on the attending side
                i = qd.extremes(j, lo, hi)[1 if qa > 0 else 4]
                comp = next(l for l in range(lo, hi) if l != c and
                            pd.pb[l] == (p2mx if qa > 0 else p2mn))
                gmin, at = g, (j, i - lo, comp - lo)
        if plan is not None:
            rec.gap, rec.gap_at, rec.nmax1 = gmin, at, nmax1
            rec.Pmax, rec.Qmax = [pmax], [qmax]
            for j, (lo, hi) in enumerate(ps.spans):
                c = plan[j]
                xc = ps.token(c)
                add = V.apply(xc)
                sh = ps.shift[j]
                ps.shift[j] = add if sh is None else [u + v for u, v in zip(sh, add)]
            for dr in ps.dirs.values():
                dr.shifts_changed()
            return rec, None
    # generic: exact scores per sequence
    rows = [ps.token(i) for i in range(len(ps.base))]
    new_rows = [None] * len(rows)
    Ad = fmpq_mat([[_q(x) for x in row] for row in sa.A.dense(d)])
    AdT = Ad.transpose()
    for j, (lo, hi) in enumerate(ps.spans):
        seq = rows[lo:hi]
        n = hi - lo
        Xs = fmpq_mat(n, d, [x for r in seq for x in r])
        Sm = (Xs * AdT * Xs.transpose()).entries()  # s_il = <A x_i, x_l>
        for i in range(n):
            sc = Sm[i * n:(i + 1) * n]
            top = max(sc)
            cs = [l for l in range(n) if sc[l] == top]
            if len(cs) > 1:
                return rec, _tie(block, j, i, cs[0], cs[1])
            c = cs[0]
            if n > 1:
                second = max(sc[l] for l in range(n) if l != c)
                g = top - second
                nmax1 = max(nmax1, n - 1)
                if gmin is None or g < gmin:
                    comp = next(l for l in range(n) if l != c and sc[l] == second)
                    gmin, at = g, (j, i, comp)
            vx = V.apply(seq[c])
            new_rows[lo + i] = [rec.rho * x + v for x, v in zip(seq[i], vx)]
    rec.gap, rec.gap_at, rec.nmax1 = gmin, at, nmax1
    rec.Pmax = [_absdot(aa, rec.Xmax) for aa, _ in A.abs_pairs]
    rec.Qmax = [_absdot(bb, rec.Xmax) for _, bb in A.abs_pairs]
    ps.materialise(new_rows)
    return rec, None


def prepare(net: Transformer, inputs, progress=None) -> Trajectory:
    """The tau-independent pass (see the module docstring).  ``inputs[j]``:
    ``(n_j, d)`` exact tokens.  ``progress(block, total)`` after each block.
    Raises whatever the evaluation raises (callers fail closed)."""
    t0 = time.perf_counter()
    ps = _Pass(inputs, net.d)
    records = []
    stop = None
    for bi, blk in enumerate(net.blocks, start=1):
        if not blk.ff.is_identity:
            records.append(("FF", _prep_ff(ps, blk.ff, bi)))
        if not blk.sa.is_identity:
            rec, tie = _prep_sa(ps, blk.sa, bi)
            records.append(("SA", rec))
            if tie is not None:
                stop = (len(records) - 1, Verdict.INCONCLUSIVE, tie)
                break
        if progress:
            progress(bi, net.L)
    outputs = None
    if stop is None:
        outputs = [[tuple(f2q(v) for v in ps.token(i)) for i in range(lo, hi)]
                   for lo, hi in ps.spans]
    return Trajectory(net.d, ps.spans, records, outputs, stop, net.L,
                      time.perf_counter() - t0)


def _score_error(rec: _SARec, R) -> fmpq:
    """Bound on ``|s_il - shat_il|`` when every token moves by at most ``R``
    (per coordinate): ``|lam| sum_k R_k (2 Xmax_k + R_k)`` plus, per factor,
    ``Qmax |a|.R + Pmax |b|.R + (|a|.R)(|b|.R)`` (``|uv - uhat vhat| <= |uhat| dv +
    |vhat| du + du dv``)."""
    A = rec.A
    e = ZERO
    if A.lam != 0:
        s = ZERO
        for r, xm in zip(R, rec.Xmax):
            if r != 0:
                s += r * (2 * xm + r)
        e += abs(A.lam) * s
    for (aa, bb), pm, qm in zip(A.abs_pairs, rec.Pmax, rec.Qmax):
        da, db = _absdot(aa, R), _absdot(bb, R)
        e += qm * da + pm * db + da * db
    return e


def certify(net: Transformer, inputs, targets, tau, round_bits: int | None = None,
            progress=None, trajectory: Trajectory | None = None,
            floor_bits: int | None = None) -> Certificate:
    """Certify exact interpolation of ``net`` under softmax for every temperature
    in ``(0, tau]`` (SPEC §4).  ``inputs[j]``: ``(n_j, d)``, ``targets[j]``:
    ``(m_j, d)``; ``tau`` a positive rational.  ``trajectory``: the result of
    :func:`prepare` for the same net and inputs (computed when absent; pass it to
    certify many temperatures cheaply).  ``floor_bits``: the exp bounds are floored
    at ``2^-floor_bits`` (default: adaptive — start at 256 and multiply by 4 while
    a failed certificate used the floor).  ``round_bits`` is accepted for
    compatibility and ignored (radii are rounded to 64-bit mantissas).  Never
    raises: any exception gives verdict ERROR (fail closed)."""
    t0 = time.perf_counter()
    try:
        tau = Fraction(tau)
    except (TypeError, ValueError) as exc:
        return Certificate(Verdict.ERROR, Fraction(0), reason=f"bad tau: {exc}")
    cert = Certificate(Verdict.ERROR, tau)
    try:
        if tau <= 0:
            raise ValueError("tau must be positive")
        traj = trajectory if trajectory is not None else prepare(net, inputs)
        F = floor_bits if floor_bits is not None else choose_floor(traj, targets)[0]
        cert = _radius_pass(traj, tau, targets, F, progress)
    except Exception as exc:  # fail closed
        cert = Certificate(Verdict.ERROR, tau, reason=f"{type(exc).__name__}: {exc}")
    cert.seconds = time.perf_counter() - t0
    return cert


def _interpolation(traj: Trajectory, targets):
    """Exact set equality of the final hardmax tokens and the targets (the same for
    every tau, so computed once per trajectory and targets object)."""
    cached = traj.interp
    if cached is not None and cached[0] is targets:
        return cached[1]
    w, _ = interpolation_witness(traj.outputs, [[tuple(Fraction(v) for v in y) for y in ys]
                                                for ys in targets])
    traj.interp = (targets, w)
    return w


def _bits(x) -> int:
    return max(int(x.p).bit_length(), int(x.q).bit_length())


def choose_floor(traj: Trajectory, targets) -> tuple[int, Certificate, str]:
    """The floor ``2^-F`` of the exp bounds, chosen from the data (cached on the
    trajectory): the smallest ``F = 256 * 4^k`` for which the tau -> 0 limit
    certificate (every ``e^{-G/tau}`` replaced by exactly ``2^-F``) passes.  Then a
    failure at any tau is tau's, never the floor's (each bound at tau is >= its
    floored value and every step is monotone).  The search stops, and says so, once
    ``F`` exceeds ``4 B + 1024`` with ``B`` the largest bit size of a gap, range,
    coordinate bound, kink or reach distance of the trajectory (a finer floor then
    cannot matter).  Returns ``(F, limit certificate, note)``."""
    if traj.floor is not None and traj.floor[3] is targets:
        return traj.floor[:3]
    B = 0
    for kind, rec in traj.records:
        if kind == "SA":
            vals = list(rec.S or []) + list(rec.Xmax or []) + ([rec.gap] if rec.gap else [])
        else:
            vals = list(rec.kinks or []) + ([rec.reach[0]] if rec.reach else [])
        for v in vals:
            if v != 0:
                B = max(B, _bits(v))
    stop = 4 * B + 1024
    F = FLOOR_BITS
    while True:
        c = _radius_pass(traj, None, targets, F, None)
        if c.verdict != Verdict.INCONCLUSIVE:
            note = f"exp bounds floored at 2^-{F} (the tau -> 0 limit certificate passes)"
            break
        if F * 4 > stop:
            note = (f"exp bounds floored at 2^-{F}: the tau -> 0 limit certificate still fails "
                    f"there and a finer floor cannot help (data bit size {B}; search stopped "
                    f"at 2^-{F})")
            break
        F *= 4
    traj.floor = (F, c, note, targets)
    return F, c, note


def _radius_pass(traj: Trajectory, tau, targets, F: int, progress) -> Certificate:
    """One certificate at ``tau`` (``None``: the tau -> 0 limit, every exp bound
    replaced by the floor ``2^-F``)."""
    cert = Certificate(Verdict.ERROR, tau if tau is not None else Fraction(0), floor_bits=F)
    tq = _q(tau) if tau is not None else None
    floor_q = fmpq(1, 1 << F)
    d = traj.d
    Rg = [ZERO] * d          # radius shared by every token without an override
    over: dict = {}          # token -> radius, set by FF layers since the last SA
    rmax = list(Rg)          # componentwise max of all current radii
    any_comp = False
    bounds = cert.bounds
    try:
        for idx, (kind, rec) in enumerate(traj.records):
            if traj.stop is not None and idx == traj.stop[0]:
                lb = LayerBound(rec.block, kind)
                bounds.append(lb)
                raise _Fail(traj.stop[1], traj.stop[2])
            lb = LayerBound(rec.block, kind)
            if kind == "SA":
                R = rmax
                if rec.gap is not None:
                    any_comp = True
                    E = _score_error(rec, R)
                    G = rec.gap - 2 * E
                    lb.min_gap = f2q(G)
                    if G <= 0:
                        j, t, comp = rec.gap_at
                        raise _Fail(Verdict.INCONCLUSIVE, Witness(
                            f"softmax gap not certified: in the hardmax trajectory the argmax "
                            f"beats competitor token {comp} by {fmt_num(rec.gap)}, but with boxes "
                            f"of radius up to {fmt_num(max(R))} each score may move by "
                            f"{fmt_num(E)}, so the certified gap is {fmt_num(G)} <= 0",
                            block=rec.block, sublayer="SA", sequence=j, token=t,
                            expected="> 0", got=f2q(G)))
                    ub, fl = (floor_q, True) if tq is None else exp_neg_upper_q(G / tq, F)
                    cert.floored |= fl
                    eps = rec.nmax1 * ub
                    if eps > 1:
                        eps = ONE
                else:
                    eps = ZERO
                lb.max_eps = f2q(eps)
                rm = [r + eps * (s + 2 * r) for r, s in zip(R, rec.S)]
                Rn = [abs(rec.rho) * r + v for r, v in zip(R, rec.V.abs_apply(rm))]
                Rg = [_up(x) for x in Rn]
                over = {}
                rmax = list(Rg)
            elif isinstance(rec, _NonResFFRec):
                Rg, over, rmax = _nonresidual_pass(rec, Rg, over, lb)
            else:
                if rec.dense:
                    if any(x != 0 for x in rmax):
                        newover = {}
                        for i, _, old, new in rec.cands:
                            r = over.get(i, Rg)
                            if all(x == 0 for x in r):
                                continue
                            box = [(c - x, c + x) for c, x in zip(old, r)]
                            iv = _ff_interval(rec.Uq, rec.eta, rec.W, rec.b, box, lb)
                            rn = [_up(max(hi - c, c - lo)) for (lo, hi), c in zip(iv, new)]
                            newover[i] = rn
                        Rg = [ZERO] * d
                        over = newover
                        rmax = list(Rg)
                        for r in over.values():
                            rmax = _vmax(rmax, r)
                else:
                    wR = _absdot(rec.wabs, rmax)
                    if rec.reach is not None and wR > rec.reach[0]:
                        D, j, t = rec.reach
                        raise _Fail(Verdict.INCONCLUSIVE, Witness(
                            f"a box may reach the support of this FF layer: the token's "
                            f"projection is {fmt_num(D)} away from the nearest kink, boxes "
                            f"reach {fmt_num(wR)} along the layer's direction", block=rec.block,
                            sublayer="FF", sequence=j, token=t))
                    wRg = _absdot(rec.wabs, Rg)
                    kinks = rec.kinks
                    for i, t, old, new in rec.cands:
                        r = over.get(i)
                        wr = wRg if r is None else _absdot(rec.wabs, r)
                        if r is None:
                            r = Rg
                        hi = t + wr
                        piece = bisect_left(kinks, hi)
                        if piece == 0 or t - wr >= kinks[piece - 1]:
                            G = rec.absG[piece]
                            if G is None:
                                continue
                            rn = [_up(_absdot(row, r)) for row in G]
                        else:
                            box = [(c - x, c + x) for c, x in zip(old, r)]
                            iv = _ff_interval(rec.Uq, rec.eta, rec.W, rec.b, box, lb)
                            rn = [_up(max(hi_ - c, c - lo_)) for (lo_, hi_), c in zip(iv, new)]
                            lb.straddles += 1
                        over[i] = rn
                        rmax = _vmax(rmax, rn)
            lb.max_width = f2q(2 * max(rmax, default=ZERO))
            bounds.append(lb)
            if progress:
                progress(rec.block)
        if traj.stop is not None:  # stop after the last record (cannot happen) – fail closed
            raise _Fail(traj.stop[1], traj.stop[2])
        cert.tau_free = not any_comp
        # final boxes must be points
        outs = traj.outputs
        if any(x != 0 for x in Rg) or any(any(x != 0 for x in r) for r in over.values()):
            for j, (lo, hi) in enumerate(traj.spans):
                for i in range(lo, hi):
                    r = over.get(i, Rg)
                    for k, x in enumerate(r):
                        if x != 0:
                            c = outs[j][i - lo][k]
                            raise _Fail(Verdict.INCONCLUSIVE, Witness(
                                "final box is not a single point (exactness not certified): "
                                f"radius {fmt_num(x)} around {fmt_num(c)}",
                                sequence=j, token=i - lo, coordinate=k,
                                expected=Fraction(0), got=f2q(x)))
        w = _interpolation(traj, targets)
        if w is not None:
            raise _Fail(Verdict.REFUTED, w)
        cert.verdict = Verdict.VERIFIED_CERTIFIED
    except _Fail as f:
        cert.verdict, cert.witness = f.verdict, f.witness
    return cert


# --- non-residual FF layers (eta = 0, U of rank one) ---------------------------------
#
# Such a layer is FF(x) = G(<w, x>) with G: R -> Q^d continuous and affine between the
# kinks of :func:`affine_pieces` (no ``eta x`` term).  Over a box around ``xhat`` with
# radius ``r`` the projection ``t = <w, x>`` ranges over exactly ``[that - |w|.r,
# that + |w|.r]``, so FF(box) lies in the box around ``G(that)`` whose radius in
# coordinate k is ``max |G_k(s) - G_k(that)|`` over s in {both ends, the kinks between
# them} (a continuous piecewise-affine function attains its extremes on an interval
# there): sound, and exact given the projection interval.  Inside one piece it is
# ``|g_k| |w|.r``, and 0 on a flat piece (g = 0): a whole box maps onto one exact point.
# It grows with r (a larger interval has a larger range), so a certificate stays
# monotone in tau.
#
# Every token is moved, so the layer is evaluated per GROUP of tokens sharing one
# hardmax value (their outputs are one shared tuple); consecutive such layers keep the
# groups (chained records), so a layer costs O(groups), not O(tokens), in both passes.


@dataclass
class _NonResFFRec:
    """A non-residual rank-one FF layer: direction ``w``, ``kinks``, ``maps`` (per
    piece ``(g, h)``: ``FF(x) = g t + h``); per group of input tokens its exact
    projection ``ts[g]`` and its piece ``piece[g]`` (``bisect_left(kinks, t)``); each
    group's tokens share one output value.  ``gid`` (token -> group) for the first
    record of a chain; ``prev``: the previous record of the chain, whose groups
    (hence whose ``gid``) this record keeps."""

    block: int
    w: list
    wabs: list
    kinks: list
    maps: object
    ts: list = field(default_factory=list)
    piece: list = field(default_factory=list)
    gid: list | None = None
    prev: object = None
    dense = True      # read by closed_form_tau (no plateau of its own)
    reach = None      # read by choose_floor: every token is a candidate


def _prep_ff_nonresidual(ps: _Pass, ff: FF, block: int, r1) -> _NonResFFRec:
    """Hardmax pass through a non-residual (``eta = 0``) FF with ``U = c w^T``.  Chained
    when every token is still the very output object of the previous such layer
    (``ps._nonres``: that record, its outputs per group, the rows it set, and the
    token -> group array); else the tokens are grouped by exact value."""
    import numpy as np
    w, kinks, maps = affine_pieces(ff, r1)
    w = [_q(x) for x in w]
    rec = _NonResFFRec(block, w, [abs(x) for x in w], kinks, maps)
    st = getattr(ps, "_nonres", None)
    if (st is not None and all(sh is None for sh in ps.shift) and len(ps.base) == len(st[2])
            and all(map(is_, ps.base, st[2]))):
        rec.prev, reps, tok = st[0], st[1], st[3]
    else:
        keys, reps, gid = {}, [], []
        for i in range(len(ps.base)):
            x = ps.token(i)
            k = tuple((int(v.p), int(v.q)) for v in x)  # lowest terms: keys equal iff values
            g = keys.get(k)
            if g is None:
                g = keys[k] = len(reps)
                reps.append(x)
            gid.append(g)
        rec.gid, tok = gid, np.array(gid, dtype=np.int64)
    nz = [(k, c) for k, c in enumerate(w) if c != 0]
    if len(nz) == 1 and nz[0][1] == 1:
        k0 = nz[0][0]
        ts = [x[k0] for x in reps]
    else:
        ts = [sum((c * x[k] for k, c in nz), ZERO) for x in reps]
    outs, forms, pieces = [], {}, rec.piece
    for t in ts:
        p = bisect_left(kinks, t)
        f = forms.get(p)
        if f is None:  # piece p: FF = g t + h; the coordinates where g != 0
            g, h = maps[p]
            f = forms[p] = (list(h), [(k, gk, h[k]) for k, gk in enumerate(g) if gk != 0])
        y = list(f[0])
        for k, gk, hk in f[1]:
            y[k] = gk * t + hk
        outs.append(tuple(y))
        pieces.append(p)
    rec.ts = ts
    arr = np.empty(len(outs), dtype=object)
    arr[:] = outs
    rows = arr[tok].tolist()
    ps.materialise(rows)
    ps._nonres = (rec, outs, tuple(rows), tok)
    return rec


def _g_value(rec: _NonResFFRec, s):
    g, h = rec.maps[bisect_left(rec.kinks, s)]
    return [gi * s + hi for gi, hi in zip(g, h)]


def nonresidual_radius(rec: _NonResFFRec, t, r, lb: LayerBound | None = None) -> list:
    """Radius of the box around ``G(t)`` that holds the image of every token in the
    box of radius ``r`` (``(d,)``, >= 0) around a hardmax token with projection
    ``t`` (see the section comment): exact range of G over ``[t - |w|.r, t + |w|.r]``,
    rounded up to 64-bit mantissas (fmpq).  ``t``, ``r``: rationals (Fraction or fmpq).
    Counts a straddled kink in ``lb.straddles``."""
    t, r = _q(t), [_q(v) for v in r]
    rho = _absdot(rec.wabs, r)
    if rho == 0:
        return [ZERO] * len(rec.w)
    lo, hi = t - rho, t + rho
    kinks = rec.kinks
    a, b = bisect_right(kinks, lo), bisect_left(kinks, hi)
    if a >= b:  # [lo, hi] inside one closed piece: slope times rho
        g = rec.maps[b][0]
        return [_up(abs(gi) * rho) for gi in g]
    if lb is not None:
        lb.straddles += 1
    c = _g_value(rec, t)
    vals = [_g_value(rec, s) for s in [lo, hi] + kinks[a:b]]
    return [_up(max(abs(v[k] - c[k]) for v in vals)) for k in range(len(c))]


class _GroupRadii(dict):
    """Token radii after a non-residual FF layer: one radius per group of that layer
    (``radii``; token i is in group ``gid[i]``); entries set later (per token, by FF
    layers further on) override it."""

    def __init__(self, rec, gid, radii):
        super().__init__()
        self.rec, self.gid, self.radii = rec, gid, radii

    def get(self, i, default=None):
        v = dict.get(self, i)
        return v if v is not None else self.radii[self.gid[i]]

    def values(self):
        return list(dict.values(self)) + list(self.radii)


def _nonresidual_pass(rec: _NonResFFRec, Rg, over, lb: LayerBound):
    """Radius pass through a non-residual FF record: ``(Rg, over, rmax)`` after it.
    Raises ``RuntimeError`` when a chained record does not follow its predecessor's
    radii (never expected: the caller fails closed)."""
    d = len(rec.w)
    if rec.prev is not None:
        if not (isinstance(over, _GroupRadii) and over.rec is rec.prev and not dict.__len__(over)):
            raise RuntimeError(f"block {rec.block}: chained non-residual FF record without its "
                               "predecessor's radii")
        rin, gid = over.radii, over.gid
    else:
        rin, gid = [None] * len(rec.ts), rec.gid
        for i, g in enumerate(gid):
            r = over.get(i, Rg)
            cur = rin[g]
            rin[g] = r if cur is None or cur is r else _vmax(cur, r)
    zero, kinks, last = [ZERO] * d, rec.kinks, len(rec.kinks)
    rho_of, cache, seen, radii, rmax = {}, {}, set(), [], zero
    for t, p, r in zip(rec.ts, rec.piece, rin):
        rho = rho_of.get(id(r))
        if rho is None:
            rho = rho_of[id(r)] = _absdot(rec.wabs, r)
        if rho == 0:
            radii.append(zero)
            continue
        if (p == 0 or t - rho >= kinks[p - 1]) and (p == last or t + rho <= kinks[p]):
            rn = cache.get((id(r), p))
            if rn is None:  # inside one closed piece: |g| rho
                rn = cache[(id(r), p)] = [_up(abs(gi) * rho) for gi in rec.maps[p][0]]
        else:
            rn = nonresidual_radius(rec, t, r, lb)
        if id(rn) not in seen:
            seen.add(id(rn))
            rmax = _vmax(rmax, rn)
        radii.append(rn)
    return zero, _GroupRadii(rec, gid, radii), rmax
