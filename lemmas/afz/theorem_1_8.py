"""Theorem 1.8 (softmax exact interpolation below a temperature tau*), SPEC §4.

The network of Theorem 1.6 (with larger leader scales, :data:`SCALES`) is
evaluated with softmax attention.  Three temperatures are reported:

* ``tau_cert`` — the largest dyadic tau found by exponential search and then
  bisection whose certificate (:func:`proofcheck.certify.certify`) passes; the
  certificate at tau_cert covers every tau in (0, tau_cert] (monotonicity: each
  bound exp(-gap/tau) grows with tau and the enclosures only use "off-argmax mass
  <= that bound").
* ``tau_closed`` — a paper-style closed form from the certified minimum attention
  gap ``Delta``: ``Delta / ln((n_max - 1) * B / slack)`` with ``B`` the largest
  ``|V|_inf * spread`` of an SA layer and ``slack`` the smallest plateau half-width;
  an estimate (computed in floating point), not a proof; it is certified
  separately and the result reported.
* ``tau_num`` — the numerical threshold from the mpmath simulation (small
  datasets): the largest dyadic tau at which the simulated outputs match the
  targets to ``10^-(dps/2)``; a search aid, never a proof.

Block budget: L = 2M + R + 1 <= 2M + N, below the paper's 2M + 3N.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from lemmas.afz.theorem_1_6 import Construction, constant_checks, construct
from proofcheck.kernel.softmax_certifier import Certificate, certify
from proofcheck.kernel.verdicts import CheckResult, Verdict
from proofcheck.simulate import simulate

ID = "1.8"
SCALES = {"r": Fraction(64), "margin": Fraction(64), "spacing": Fraction(16)}
SIM_BUDGET = 40_000  # tokens x blocks above which tau_num is not simulated


@dataclass
class SoftmaxCheck:
    construction: Construction
    certificate: Certificate
    tau_cert: Fraction | None
    tau_closed: float | None
    tau_closed_certified: Verdict | None
    tau_num: Fraction | None
    trials: list = field(default_factory=list)       # (tau, verdict) of the search
    sim_curve: list = field(default_factory=list)    # (tau, error) samples
    results: list = field(default_factory=list)
    constants: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)


def bisect_dyadic(good: Fraction, bad: Fraction, steps: int, passes):
    """``steps`` bisections of ``[good, bad]`` (``passes(good)`` holds, ``passes(bad)``
    fails); midpoints of dyadics are dyadic.  Returns the final ``(good, bad)``."""
    for _ in range(steps):
        mid = (good + bad) / 2
        if passes(mid):
            good = mid
        else:
            bad = mid
    return good, bad


def search_tau_cert(net, inputs, targets, bisect_steps: int = 3, floor_exp: int = -1000,
                    progress=None):
    """Largest dyadic tau whose certificate passes.

    1. a probe at ``2^-40`` (lowered by factors ``2^40`` until it passes) gives the
       certified gaps, hence the closed-form estimate and a starting exponent;
    2. galloping over exponents in steps of 4 finds a passing ``2^e`` and a
       failing ``2^(e+4)`` (or hits ``2^60``), refined to adjacent exponents;
    3. ``bisect_steps`` dyadic bisections between the last pass and first failure.

    Returns ``(tau or None, certificate at tau, trials)`` with trials
    ``[(tau, verdict), ...]`` in order."""
    trials = []
    results = {}

    def attempt(e_or_t):
        t = Fraction(2) ** e_or_t if isinstance(e_or_t, int) else e_or_t
        if t not in results:
            c = certify(net, inputs, targets, t)
            results[t] = c
            trials.append((t, c.verdict))
            if progress:
                progress(t, c.verdict)
        return results[t].verdict == Verdict.VERIFIED_CERTIFIED

    e = -40
    while not attempt(e):
        e -= 40
        if e < floor_exp:
            t = Fraction(2) ** (e + 40)
            return None, results[t], trials
    est = closed_form_tau(net, results[Fraction(2) ** e], inputs)
    if est and est > 0:
        e0 = max(e, min(60, math.floor(math.log2(est))))
    else:
        e0 = e
    if attempt(e0):
        lo, hi = e0, None
        while hi is None:
            if lo >= 60:
                return Fraction(2) ** 60, results[Fraction(2) ** 60], trials
            cand = min(lo + 4, 60)
            if attempt(cand):
                lo = cand
            else:
                hi = cand
    else:
        lo, hi = None, e0
        while lo is None:
            cand = max(hi - 4, e)
            if attempt(cand):
                lo = cand
            else:
                hi = cand
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if attempt(mid):
            lo = mid
        else:
            hi = mid
    good, _ = bisect_dyadic(Fraction(2) ** lo, Fraction(2) ** hi, bisect_steps, attempt)
    return good, results[good], trials


def closed_form_tau(net, cert: Certificate, inputs) -> float | None:
    """Paper-style estimate from the certified minimum gap (see module docstring)."""
    gaps = [b.min_gap for b in cert.bounds if b.min_gap is not None]
    if not gaps:
        return None
    delta = min(gaps)
    n_max = max(len(x) for x in inputs)
    coords = [abs(float(v)) for X in inputs for x in X for v in x]
    spread = 1.0
    B = 0.0
    for blk in net.blocks:
        if not blk.sa.is_identity:
            V = blk.sa.V.dense(net.d)
            B = max(B, max(sum(abs(float(v)) for v in row) for row in V))
    spread = max(coords + [1.0]) * 2 ** (net.max_bits() // 2)
    slacks = []
    for blk in net.blocks:
        ff = blk.ff
        if ff.width == 4:
            ks = sorted(-bk for bk in ff.b)  # kinks when U rows are unit multiples
            slacks.append(float(min(ks[1] - ks[0], ks[3] - ks[2])))
    slack = min([s for s in slacks if s > 0] + [1.0])
    arg = max(2.0, (n_max - 1) * max(B, 1.0) * spread / slack)
    return float(delta) / math.log(arg)


def search_tau_num(net, inputs, targets, tau_cert: Fraction, dps: int = 40, steps: int = 6):
    """Largest dyadic tau (doubling from tau_cert, then bisection) whose mpmath
    simulation matches the targets to ``10^-(dps/2) (1 + max |target|)``; the
    precision grows with the network's largest rational.  Returns
    ``(tau_num, curve, error_at_tau_cert)``; ``tau_num`` is None when the simulation
    already fails at tau_cert (a contradiction the caller reports)."""
    dps = max(dps, int(0.61 * net.max_bits()) + 30)
    scale = 1 + max(abs(v) for ys in targets for y in ys for v in y)
    tol = 10 ** (-(dps // 2)) * float(scale)
    curve = []

    def ok(t):
        s = simulate(net, inputs, targets, t, dps=dps)
        curve.append((t, s.error))
        return s.error <= tol
    if not ok(tau_cert):
        return None, curve, curve[0][1]
    good, bad = tau_cert, None
    for _ in range(60):
        t = good * 2
        if ok(t):
            good = t
        else:
            bad = t
            break
    if bad is None:
        return good, curve, curve[0][1]
    good, bad = bisect_dyadic(good, bad, steps, ok)
    for k in (2, 4, 16, 64):  # both sides of the threshold, for the plot
        ok(bad * k)
        ok(tau_cert / k)
    return good, curve, curve[0][1]


def verify(dataset, tau=None, simulate_num: bool = True, dps: int = 40, progress=None) -> SoftmaxCheck:
    """Theorem 1.8 on ``dataset``: certify the given ``tau`` (rational) or search
    tau_cert; closed form and (small datasets) tau_num."""
    inputs = [list(p.inputs) for p in dataset.pairs]
    targets = [list(p.outputs) for p in dataset.pairs]
    secs = {}
    t0 = time.perf_counter()
    c = construct(inputs, targets, dataset.d, **SCALES)
    secs["construct"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    trials = []
    if tau is not None:
        cert = certify(c.net, inputs, targets, Fraction(tau))
        trials.append((Fraction(tau), cert.verdict))
        tau_cert = Fraction(tau) if cert.verdict == Verdict.VERIFIED_CERTIFIED else None
    else:
        tau_cert, cert, trials = search_tau_cert(c.net, inputs, targets, progress=progress)
    secs["certify"] = time.perf_counter() - t0
    tau_closed = closed_form_tau(c.net, cert, inputs) if cert.bounds else None
    closed_v = None
    if tau_closed is not None and tau_closed > 0:
        tc = Fraction(tau_closed).limit_denominator(2 ** 64)
        closed_v = certify(c.net, inputs, targets, tc).verdict if tc > 0 else None
    tau_num, curve, err_at_cert = None, [], None
    t0 = time.perf_counter()
    simulated = simulate_num and tau_cert is not None and dataset.n_tokens * c.net.L <= SIM_BUDGET
    if simulated:
        tau_num, curve, err_at_cert = search_tau_num(c.net, inputs, targets, tau_cert, dps=dps)
    secs["simulate"] = time.perf_counter() - t0
    res = []
    if cert.verdict == Verdict.VERIFIED_CERTIFIED:
        res.append(CheckResult(
            f"softmax certificate at tau = {tau_cert} covers every tau in (0, {tau_cert}]",
            Verdict.VERIFIED_CERTIFIED,
            [f"{sum(1 for b in cert.bounds if b.max_eps is not None)} softmax SA layers bounded, "
             f"smallest certified gap {min(b.min_gap for b in cert.bounds if b.min_gap is not None)}",
             "every final box is a single point; exact interpolation {T_tau(X_j)} = {Y_j} for all pairs"]))
    else:
        res.append(CheckResult(f"softmax certificate (tau = {trials[-1][0] if trials else tau})",
                               cert.verdict, [cert.reason] if cert.reason else [], cert.witness))
    if simulated and tau_num is None:
        res.append(CheckResult("simulation at tau_cert agrees with the certificate", Verdict.ERROR,
                               [f"the mpmath simulation at tau_cert = {tau_cert} misses the targets "
                                f"by {float(err_at_cert):.3g}: certifier or simulation is wrong"]))
    if tau_num is not None and tau_cert is not None:
        ok = tau_cert <= tau_num
        res.append(CheckResult("tau_cert <= tau_num (simulation cross-check)",
                               Verdict.VERIFIED if ok else Verdict.ERROR,
                               [f"tau_cert = {tau_cert} ({float(tau_cert):.3g}), tau_num = {tau_num} "
                                f"({float(tau_num):.3g}), mpmath {dps} digits"]))
    R = c.info["R"]
    checks, consts = constant_checks(c.net, dataset.d, dataset.N, dataset.M, R)
    L = c.net.L
    checks.append(CheckResult("L <= 2M + 3N (Theorem 1.8)",
                              Verdict.VERIFIED if L <= 2 * dataset.M + 3 * dataset.N else Verdict.REFUTED,
                              [f"L = {L} <= {2 * dataset.M + 3 * dataset.N}"]))
    return SoftmaxCheck(c, cert, tau_cert, tau_closed, closed_v, tau_num, trials, curve,
                        res + checks, consts, secs)


def run(dataset=None, seed: int = 0):
    """``lemma 1.8``: Theorem 1.8 on the dataset (or a seeded random admissible one)."""
    from proofcheck.io.generate import random_dataset
    ds = dataset if dataset is not None else random_dataset(seed, d=2, N=4, style="mixed")
    return verify(ds).results
