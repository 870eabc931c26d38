"""High-precision softmax simulation with mpmath (docs/spec.md §4) — a numerical
cross-check and search aid, NEVER a proof: no verdict is decided here.  Its cost is
bounded (:data:`SIM_BUDGET` work units by default, :func:`pass_cost`); what it could
not compute, and why, is a line of its own (:class:`SimulationAudit`).

Evaluates the network with softmax attention at temperature tau in mpmath at
``dps`` decimal digits (scores shifted by their maximum before exponentiating, so
nothing overflows) and reports the largest distance from an output token to its
target set and from a target to the outputs (the two halves of the Hausdorff
distance, in the max-norm).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from proofcheck.kernel.model import Transformer


@dataclass
class Simulation:
    tau: Fraction
    dps: int
    out_to_target: object  # mpf: max over outputs of distance to the target set
    target_to_out: object  # mpf: max over targets of distance to the outputs
    magnitude: object = 1  # mpf: the largest |coordinate| met during the pass

    @property
    def error(self):
        return max(self.out_to_target, self.target_to_out)


def _mp(q):
    return mpmath.mpf(q.numerator) / q.denominator


def simulate(net: Transformer, inputs, targets, tau, dps: int = 60) -> Simulation:
    """Softmax forward pass at ``tau`` with ``dps`` digits; ``inputs[j]``: ``(n_j, d)``."""
    tau = Fraction(tau)
    with mpmath.workdps(dps):
        t = _mp(tau)
        seqs = [[[_mp(Fraction(v)) for v in x] for x in X] for X in inputs]
        big = mpmath.mpf(1)
        for blk in net.blocks:
            ff = blk.ff
            if not ff.is_identity:
                U = [[_mp(v) for v in u] for u in ff.U]
                b = [_mp(v) for v in ff.b]
                W = [[_mp(v) for v in w] for w in ff.W]
                eta = _mp(ff.eta)
                for s in seqs:
                    for i, x in enumerate(s):
                        y = [eta * v for v in x]
                        for uk, bk, wk in zip(U, b, W):
                            z = mpmath.fsum(a * c for a, c in zip(uk, x)) + bk
                            if z > 0:
                                y = [yi + wi * z for yi, wi in zip(y, wk)]
                        s[i] = y
            sa = blk.sa
            if not sa.is_identity:
                for j, x in enumerate(seqs):
                    seqs[j] = _sa_mp(sa, x, t, net.d)
            big = max([big] + [abs(v) for s in seqs for x in s for v in x])
        o2t = t2o = mpmath.mpf(0)
        for s, ys in zip(seqs, targets):
            Y = [[_mp(Fraction(v)) for v in y] for y in ys]
            dist = lambda a, b: max(abs(p - q) for p, q in zip(a, b))  # noqa: E731
            o2t = max([o2t] + [min(dist(x, y) for y in Y) for x in s])
            t2o = max([t2o] + [min(dist(x, y) for x in s) for y in Y])
        return Simulation(tau, dps, o2t, t2o, big)


def _sa_mp(sa, s, t, d):
    """One softmax SA layer on one sequence at ``dps`` digits: per head, over the keys
    each token may see (docs/spec.md §1 "Extensions")."""
    out = [[_mp(sa.rho) * a for a in x] for x in s]
    for Ah, Vh in sa.heads:
        A = [[_mp(v) for v in row] for row in Ah.dense(d)]
        V = [[_mp(v) for v in row] for row in Vh.dense(d)]
        Ax = [[mpmath.fsum(a * c for a, c in zip(row, x)) for row in A] for x in s]
        for i in range(len(s)):
            keys = s[:i + 1] if sa.causal else s
            sc = [mpmath.fsum(a * c for a, c in zip(Ax[i], xl)) for xl in keys]
            top = max(sc)
            e = [mpmath.exp((v - top) / t) for v in sc]
            z = mpmath.fsum(e)
            m = [mpmath.fsum(e[l] * keys[l][k] for l in range(len(keys))) / z for k in range(d)]
            out[i] = [o + mpmath.fsum(a * c for a, c in zip(row, m)) for o, row in zip(out[i], V)]
    return out


#: default cost bound of the tau_num search, in work units (:func:`pass_cost`): it
#: covers at least one pass on the shipped digits sample with the default construction
#: (6,904,320 units at 56 digits; a test keeps it so), so that a default ``theorem 1.8``
#: shows tau_num (then a lower bound: the search stops at the budget)
SIM_BUDGET = 10_000_000
#: work units charged for one ``exp`` (about four multiply-adds at 40 digits)
EXP_UNITS = 4


def pass_cost(net: Transformer, inputs, dps: int) -> int:
    """Work units of one simulated forward pass of :func:`simulate`: one unit is one
    multiply-add of two numbers at 40 digits, counted for what the pass computes —
    per non-identity FF of width w, ``T (d + 2 w d)``; per non-identity SA, ``2 T d^2``
    (the products with the dense A and V) plus ``sum_j n_j^2 (2 d + EXP_UNITS)`` (scores,
    exps, weighted means) plus ``T d`` — times ``ceil(dps / 40)``.  Identity
    sub-layers cost nothing (the pass skips them).  So the cost grows with d as the
    pass does (a unit count without d let a wide dataset run for many minutes within
    the budget).  Deterministic, so the search stops at the same pass on every
    machine (a few tenths of a microsecond per unit on the project's 2-core machine)."""
    T = sum(len(X) for X in inputs)
    pairs = sum(len(X) ** 2 for X in inputs)
    d = net.d
    units = 0
    for blk in net.blocks:
        if not blk.ff.is_identity:
            units += T * (d + 2 * blk.ff.width * d)
        if not blk.sa.is_identity:
            units += blk.sa.H * (2 * T * d * d + pairs * (2 * d + EXP_UNITS) + T * d)
    return units * -(-dps // 40)


@dataclass
class SimulationAudit:
    """What the mpmath simulation saw (an audit: it never changes a verdict).

    ``tau_num``: the largest dyadic tau (from tau_cert upwards) whose simulated outputs
    are within ``tol`` of the targets, or None; ``curve``: ``[(tau, error)]`` of every
    pass; ``error_at_cert``: the error at tau_cert (None: not simulated); ``note``: why
    the search stopped where it did, or why it did not run; ``work`` / ``budget`` in
    units of :func:`pass_cost`."""

    tau_num: Fraction | None = None
    curve: list = field(default_factory=list)
    error_at_cert: object = None
    tol: object = None
    dps: int = 0
    work: int = 0
    budget: int = 0
    note: str = ""
    magnitude: object = 1  # the largest |coordinate| met in any pass

    @property
    def floor(self):
        """The precision floor: an error below ``10^-dps`` times the largest magnitude
        met is rounding noise of the simulation, not resolved (None: not run)."""
        return mpmath.mpf(10) ** (-self.dps) * self.magnitude if self.curve else None

    @property
    def agrees(self) -> bool | None:
        """True/False: the simulation at tau_cert is/is not within tolerance; None: not run."""
        if self.error_at_cert is None:
            return None
        return bool(self.error_at_cert <= self.tol)

    def lines(self, tau_cert) -> list[str]:
        """The audit lines printed after tau_num (exact numbers via ``fmt_num``)."""
        from proofcheck.kernel.verdicts import fmt_num
        out = []
        if self.error_at_cert is not None:
            e = mpmath.nstr(self.error_at_cert, 3)
            tol = mpmath.nstr(self.tol, 3)
            if self.agrees and self.error_at_cert <= self.floor:  # rounding noise, not resolved
                out.append(f"simulation at tau_cert = {fmt_num(tau_cert)}: outputs within the "
                           f"simulation's precision floor {mpmath.nstr(self.floor, 3)} of the "
                           f"targets (an error below it is not resolved; tolerance {tol}, "
                           f"{self.dps} digits): agrees with the certificate")
            elif self.agrees:
                out.append(f"simulation at tau_cert = {fmt_num(tau_cert)}: outputs within {e} of "
                           f"the targets (tolerance {tol}, {self.dps} digits): agrees with the "
                           "certificate")
            else:
                out.append(f"simulation at tau_cert = {fmt_num(tau_cert)}: outputs {e} from the "
                           f"targets, above the tolerance {tol} ({self.dps} digits): it DISAGREES "
                           "with the certificate (too little simulation precision, or a "
                           "certifier bug); the verdict is the certificate's")
            out.append(f"simulation cost: {len(self.curve)} forward passes, {self.work} of "
                       f"{self.budget} work units (--simulation-budget)")
        if self.note:
            out.append(self.note)
        return out


class _Budget(Exception):
    """The next pass would exceed the simulation budget."""


def search_tau_num(net, inputs, targets, tau_cert: Fraction, dps: int = 40, steps: int = 6,
                   progress=None, max_doublings: int = 256,
                   budget: int = SIM_BUDGET) -> SimulationAudit:
    """Largest dyadic tau (galloping up from tau_cert: x2, x4, x16, ..., then bisection
    over exponents, then ``steps`` dyadic bisections, then a few points on both sides
    for the plot) whose simulation matches the targets to ``10^-(dps/2) (1 + max
    |target|)``; the precision grows with the network's largest rational.  Every pass
    costs :func:`pass_cost`; the search stops, and says so, before a pass that would take
    the work past ``budget`` (so tau_num is then a lower bound of the simulated
    threshold), and after ``max_doublings`` doublings.  ``inputs[j]``: ``(n_j, d)``,
    ``targets[j]``: ``(m_j, d)`` rationals.  Never raises for a simulation it cannot
    afford or compute (any ``Exception`` inside a pass becomes the note: an audit only,
    it must not turn the certificate's verdict into an internal error)."""
    dps = max(dps, int(0.61 * net.max_bits()) + 30)
    scale = 1 + max((abs(v) for ys in targets for y in ys for v in y), default=0)
    with mpmath.workdps(dps):
        tol = mpmath.mpf(10) ** (-(dps // 2)) * (mpmath.mpf(scale.numerator) / scale.denominator)
    a = SimulationAudit(tol=tol, dps=dps, budget=budget)
    cost = pass_cost(net, inputs, dps)

    def ok(t):
        if a.work + cost > budget:
            raise _Budget
        a.work += cost
        s = simulate(net, inputs, targets, t, dps=dps)
        a.curve.append((t, s.error))
        a.magnitude = max(a.magnitude, s.magnitude)
        if progress:
            progress(t)
        return s.error <= tol
    try:
        _gallop(a, ok, tau_cert, steps, max_doublings)
    except _Budget:
        a.note = (f"simulation not run: one forward pass costs {cost} work units, more than "
                  f"the budget of {budget} (--simulation-budget)" if not a.curve else
                  "simulation stopped at its budget (--simulation-budget): tau_num is the "
                  "largest tau simulated within tolerance so far, a lower bound of the "
                  "simulated threshold")
    except Exception as exc:  # noqa: BLE001  an audit never decides, nor changes the exit code
        a.note = f"simulation could not compute: {type(exc).__name__}: {exc}"[:300]
    if a.curve:
        a.error_at_cert = a.curve[0][1]
    return a


def _gallop(a: SimulationAudit, ok, tau_cert: Fraction, steps: int, max_doublings: int):
    """The search of :func:`search_tau_num`, recording ``a.tau_num`` as it goes."""
    if not ok(tau_cert):
        a.note = "tau_num not located: the simulation misses the targets already at tau_cert"
        return
    a.tau_num = tau_cert
    lo, step, hi = 0, 1, None
    while hi is None:
        if lo >= max_doublings:
            a.note = (f"tau_num search stopped at tau_cert * 2^{lo}: the simulation still "
                      f"matches the targets there (stated bound of {max_doublings} doublings)")
            return
        cand = min(lo + step, max_doublings)
        if ok(tau_cert * Fraction(2) ** cand):
            lo, step, a.tau_num = cand, step * 2, tau_cert * Fraction(2) ** cand
        else:
            hi = cand
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(tau_cert * Fraction(2) ** mid):
            lo, a.tau_num = mid, tau_cert * Fraction(2) ** mid
        else:
            hi = mid
    good, bad = tau_cert * Fraction(2) ** lo, tau_cert * Fraction(2) ** hi
    for _ in range(steps):
        mid = (good + bad) / 2
        if ok(mid):
            good = a.tau_num = mid
        else:
            bad = mid
    for k in (2, 4, 16, 64):  # both sides of the threshold, for the plot
        ok(bad * k)
        ok(tau_cert / k)
