"""Exact maxima and minima over sequences and tokens for the SA records of the fast
trajectory (:mod:`.softmax`), found through a float64 pre-filter with a rigorous
error bound: floats only narrow the candidates; every value kept is exact (fmpq),
computed for the candidates alone, and among equal exact values the first one
(lowest sequence, then token) is kept, as on the plain route.

* **Enclosures** (:func:`enclose`).  A per-sequence sum ``s_j = sum_t +-term_t``
  whose terms are float64 mantissas and exponents ``(m, e)`` with ``term = m 2^e (1 +
  delta)``, ``|delta| <= 2^-50`` (:func:`~.flint._frexp` gives ``2^-53``, the offsets'
  ``proj_frexp`` ``2^-50``, its mantissas in ``(1/4, 2)``), is scaled by its own largest
  exponent ``E_j``: each scaled term has modulus below 2 (the largest at least 1/4)
  and is exact but for an underflow below ``2^-1074``; two float additions round by
  at most ``2^-53`` of the sum of the moduli each.  So
  ``|s_j 2^-E_j - v_j| <= 2^-48 sum|t| + 2^-1072``, below ``err_j = REL sum|t| + TINY``
  (``REL = 2^-40``, ``TINY = 2^-1000``) with room for the rounding of ``v_j +- err_j``
  and of ``err_j`` itself: ``s_j`` lies in ``[v_j - err_j, v_j + err_j] 2^E_j``.
* **Largest value** (:func:`max_candidates`): scaled to the largest ``E_j`` (a shift
  down: exact but for results below ``2^-1022``, off by at most ``2^-1075``), the
  sequence attaining the true maximum has an upper end at least the largest lower
  end, up to ``2 TINY``; so the candidates hold every maximiser.
* **Smallest positive product** (:func:`min_product_candidates`): ``g_j = s_j dl_j``
  with ``s_j`` enclosed in ``[l_j, u_j] 2^E_j``, ``l_j = v_j - err_j > 0``, and ``dl_j =
  dm_j 2^de_j (1 + delta)``, ``|delta| <= 2^-53``, lies in ``[l_j dm_j (1 - 2^-50), u_j
  dm_j (1 + 2^-50)] 2^(E_j + de_j)``: the products are normal floats (``err_j >= 2^-42``,
  the largest scaled term having modulus at least 1/4, so ``l_j``, a positive
  difference of floats above ``2^-42``, is at least ``2^-95``) and round by ``2^-53``
  each.  Scaled to the smallest exponent (a shift up: exact, or ``inf`` for values
  above ``2^1024`` times the scale, while the sequence of the smallest exponent has a
  finite upper end), every minimiser has its lower end at most the smallest upper
  end.
* **Largest modulus of a coordinate** (:func:`max_abs_columns`): rounding to the
  nearest float64 is monotone, so an exact maximiser's copy is the largest copy.
* **Attention gaps of ``A = lam I``** (:func:`lam_identity_gaps`, ``lam > 0``: the
  argmax sets are those of ``g_il = <x_i, x_l>``): with every nonzero coordinate's
  modulus in ``[2^-400, 2^400]`` and ``d <= 64``, the float64 Gram entry ``G_il`` is
  within ``e_il = (d + 3) 2^-53 B_il < 2^-46 B_il`` of ``g_il`` (``B_il = sum_c |x_ic|
  |x_lc|``; no overflow or underflow), below ``M_i / 64`` with ``M_i = 2^-40 max_l
  B_il``.  The largest and the second largest entry of a row (with repetition) move
  by at most ``max_l e_il`` each under such errors, so the exact margin of token i
  (0 on a tie) lies in ``[h_i - M_i, h_i + M_i]`` with ``h_i`` the float64 difference
  of the two largest ``G_il`` (its own rounding is below ``2^-11 M_i``).  Every
  token of the smallest margin, every tie among them, has ``h_i - M_i <= min_k (h_k +
  M_k)``: those tokens are scored exactly.
"""
from __future__ import annotations

import numpy as np
from flint import fmpq

from proofcheck.kernel.evaluate import score_units
from proofcheck.kernel.fast import witness
from proofcheck.kernel.fast.flint import REL, TINY, FlintBackend, gram_floats
from proofcheck.kernel.limits import charge
from proofcheck.kernel.model import Factored

SHIFT = 2100        # exponent shifts are clipped here (the result is then 0 or inf)
GRAM_FLOATS = FlintBackend.GRAM_FLOATS  # float64 Gram entries per block


def enclose(terms):
    """``(v, err, E)``: per sequence, ``s_j`` lies in ``[v_j - err_j, v_j + err_j] 2^E_j``
    for ``s_j = sum sign m 2^e`` over ``terms = [(sign, m, e)]`` (float64 mantissas,
    int64 exponents, one entry per sequence; see the module docstring)."""
    E = np.maximum.reduce([e for _, _, e in terms]) if len(terms) > 1 else terms[0][2]
    v, mag = 0.0, 0.0
    for sign, m, e in terms:
        t = np.ldexp(m, np.clip(e - E, -SHIFT, 0).astype(np.int32))
        v = v + t if sign > 0 else v - t
        mag = mag + np.abs(t)
    return v, REL * mag + TINY, E


def max_candidates(bounds) -> list:
    """Sequences that may attain ``max_j max_k x_kj`` for enclosures ``bounds = [(v, err,
    E)]`` of the ``x_k`` (every maximiser is among them), ascending."""
    Es = max(int(E.max()) for _, _, E in bounds)
    ups, los = [], []
    for v, err, E in bounds:
        sh = np.clip(E - Es, -SHIFT, 0).astype(np.int32)
        ups.append(np.ldexp(v + err, sh))
        los.append(np.ldexp(v - err, sh))
    thr = max(float(x.max()) for x in los) - TINY
    keep = np.logical_or.reduce([u + TINY >= thr for u in ups])
    return np.flatnonzero(keep).tolist()


def min_product_candidates(js, v, err, E, dm, de) -> list:
    """Among the sequences ``js`` (an int64 array, each with ``v_j - err_j > 0``), those
    that may attain ``min_j s_j dl_j`` (see the module docstring), ascending."""
    if not len(js):
        return []
    G = E[js] + de[js]
    sh = np.clip(G - G.min(), 0, SHIFT).astype(np.int32)
    with np.errstate(over="ignore"):
        L = np.ldexp((v[js] - err[js]) * dm[js] * (1 - 2.0 ** -50), sh)
        U = np.ldexp((v[js] + err[js]) * dm[js] * (1 + 2.0 ** -50), sh)
    return js[L <= U.min()].tolist()


def max_abs_columns(e, n, d):
    """Per coordinate ``max_i |x_ic|`` over the ``n`` rows of the entries ``e``
    (fmpq, row-major), exact; candidates: the rows whose correctly rounded float64
    copy is the largest (see the module docstring; all copies are 0 only when all
    values are, in the checked range)."""
    F = gram_floats(e, n, d)
    if F is None:
        return [max(map(abs, e[c::d]), default=fmpq(0)) for c in range(d)]
    A = np.abs(F)
    out = []
    for c in range(d):
        rows_ = _top_copies(A[:, c])
        m = max((abs(e[i * d + c]) for i in rows_), default=fmpq(0))
        # witness: no row's copy is above the maximum's correctly rounded copy
        witness.all_true(witness.MAX_MODULUS, A[:, c] <= float(m),
                         f"a coordinate {c} modulus above the chosen maximum")
        out.append(m)
    return out


def _top_copies(a):
    """The rows whose float64 copy is the largest (none when all are 0)."""
    top = a.max(initial=0.0)
    return np.flatnonzero(a == top).tolist() if top else []


def _exact_row(e, d, lam, lo, hi, i):
    """Scores ``lam <x_i, x_l>`` of row ``i`` over the rows of its sequence (exact)."""
    xi = e[i * d:(i + 1) * d]
    zero = fmpq(0)
    return [lam * sum((a * b for a, b in zip(xi, e[l * d:(l + 1) * d])), zero)
            for l in range(lo, hi)]


def _margins(F, rows_):
    """Per token of the ``(k, m)`` row blocks: float argmax ``k``, ``h`` and ``M``."""
    Fg = F[rows_]
    G = np.einsum("kic,klc->kil", Fg, Fg)
    M = np.einsum("kic,klc->kil", np.abs(Fg), np.abs(Fg)).max(axis=2) * 2.0 ** -40
    two = np.partition(G, -2, axis=2)
    return two[:, :, -1] - two[:, :, -2], M


def _token_bounds(F, spans):
    """``(h, M)`` per row (NaN for rows of one-token sequences)."""
    n = F.shape[0]
    h, M = np.full(n, np.nan), np.full(n, np.nan)
    by_len: dict = {}
    for lo, hi in spans:
        if hi - lo > 1:
            by_len.setdefault(hi - lo, []).append(lo)
    for m, los in by_len.items():
        los = np.asarray(los, dtype=np.int64)
        chunk = max(1, GRAM_FLOATS // (m * m))
        for c0 in range(0, len(los), chunk):
            rows_ = los[c0:c0 + chunk, None] + np.arange(m)[None, :]
            hh, MM = _margins(F, rows_)
            h[rows_], M[rows_] = hh, MM
    return h, M


def lam_identity_gaps(lam, X, spans):
    """For ``A = lam I`` (``lam > 0``) on the tokens ``X`` (``fmpq_mat``, offsets folded
    in): ``(gap, (j, i, c))``, the smallest argmax margin over the sequences of two
    tokens or more and its first place, ``(None, (j, i, (c1, c2)))`` for the first tie,
    ``(None, None)`` without such a sequence, or ``None`` when the pre-filter does
    not apply (see the module docstring).  The same values and places as the plain
    route's :func:`~proofcheck.kernel.softmax.sequence_stats` over the sequences, and the
    same charge to the work budget: per sequence of ``m >= 2`` tokens,
    :func:`~proofcheck.kernel.evaluate.score_units` at twice its values' bit size (the
    budget is the certificate's, whichever route checks it)."""
    n, d = X.nrows(), X.ncols()
    e = X.entries()
    F = gram_floats(e, n, d)
    if F is None or max((hi - lo for lo, hi in spans), default=0) ** 2 > GRAM_FLOATS:
        return None
    A = Factored(lam)
    for lo, hi in spans:
        if hi - lo > 1:
            charge(score_units(A, hi - lo, d), "an SA layer (scores)",
                   2 * max(x.height_bits() for x in e[lo * d:hi * d]))
    h, M = _token_bounds(F, spans)
    many = ~np.isnan(h)
    if not many.any():
        return None, None
    cand = _gap_candidates(h, M, many)
    got = _exact_gaps(e, d, lam, spans, cand)
    out = fmpq(0) if got[0] is None else got[0] / fmpq(lam.numerator, lam.denominator)
    excluded = many.copy()  # h, M are of <x_i, x_l>; the margins of lam <x_i, x_l>
    excluded[cand] = False
    low = (h - M)[excluded]
    low = low - np.abs(low) * 2.0 ** -52  # below the exact difference's rounding
    witness.all_true(witness.GRAM_GAP, witness.exceeds(low, np.zeros(len(low), np.int64), out),
                     "a token left out whose stated lower bound is not above the smallest margin")
    return got


def _gap_candidates(h, M, many):
    """Tokens that may attain the smallest margin (``h - M`` at most every ``h + M``)."""
    return np.flatnonzero(many & (h - M <= (h[many] + M[many]).min()))


def _exact_gaps(e, d, lam, spans, cand):
    """The smallest exact margin over the tokens ``cand`` and its first place, or the
    first tie (as :func:`lam_identity_gaps`)."""
    seq = np.searchsorted(np.asarray([lo for lo, _ in spans]), cand, side="right") - 1
    best, lam = None, fmpq(lam.numerator, lam.denominator)
    for i, j in zip(cand.tolist(), seq.tolist()):
        lo, hi = spans[j]
        row = _exact_row(e, d, lam, lo, hi, i)
        top = max(row)
        k = row.index(top)
        if row.count(top) > 1:
            return None, (j, i - lo, (k, row.index(top, k + 1)))
        second = max(row[:k] + row[k + 1:])
        if best is None or top - second < best[0]:
            best = (top - second, (j, i - lo, row.index(second)))
    return best
