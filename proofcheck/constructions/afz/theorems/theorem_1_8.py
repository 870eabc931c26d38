"""Theorem 1.8 (softmax exact interpolation below a temperature tau*), docs/spec.md §2, §4.

**Which construction is verified.** By default (``--construction default``)
proofcheck's own construction: the network of Theorem 1.6 with larger leader
scales (:data:`SCALES`, so the network differs from 1.6's) evaluated with softmax
attention, ``L = 2M + R + 1 <= 2M + N`` blocks, every FF layer residual (``eta =
1``); whole certified intervals are snapped onto the targets by plateau FF layers.
The seed's proof instead adds O(N) blocks of non-residual ReLU FF layers (budget
``2M + 3N``) because one softmax SA layer cannot collapse a cluster exactly — that
remark is checked separately by statement ``1.8-collapse``
(:mod:`proofcheck.constructions.afz.theorems.softmax_collapse`); ``--construction seed`` builds that
mechanism (:mod:`proofcheck.constructions.afz.theorems.theorem_1_8_seed`).  The first check line of
every output names the construction that ran (:func:`construction_note`, or the
construction's own ``notes``) and how its network differs from Theorem 1.6's;
:func:`compare_constructions` puts constructions side by side.

Temperatures reported:

* ``tau_cert`` — the largest tau among those tried, by galloping over exponents (no
  built-in cap: it grows until a certificate fails, or stops at a stated bound
  with the reason) and then ``bisect_steps`` bisection steps (a larger passing tau
  may lie within the last step), whose certificate
  (:func:`proofcheck.constructions.afz.softmax_certifier.certify`) passes; the certificate
  at tau_cert covers every tau in (0, tau_cert] (monotonicity, see the
  certifier).  When no softmax layer has a competitor the certificate does not
  depend on tau: every tau > 0 is certified (``tau_free``).
* ``tau_closed`` — a paper-style closed form ``Delta / ln((n-1) |V| S / slack)``
  from the smallest hardmax gap ``Delta``, the largest ``|V|_inf`` times range
  ``S`` of an SA layer and the smallest plateau half-width ``slack``; an estimate
  (arb, no float), certified separately and the result reported.
* ``tau_num`` — the numerical threshold from the mpmath simulation
  (:func:`proofcheck.constructions.provers.simulate.search_tau_num`, cost bounded by a budget): the
  largest dyadic tau at which the simulated outputs match the targets to
  ``10^-(dps/2)``; an audit and search aid, never a proof: it is not a check and
  never changes the verdict, which is the certificate's.  When it is absent,
  ``simulation.note`` says why.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from proofcheck.constructions.afz.softmax_certifier import (
    Certificate,
    Trajectory,
    certify,
    choose_floor,
    prepare,
    sa_records,
    v_norm_inf,
)
from proofcheck.constructions.afz.theorems.theorem_1_6 import Construction
from proofcheck.constructions.afz.theorems.phase_spans import phase_spans_check
from proofcheck.kernel.fast.softmax import RankOneFF
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, fmt_num

ID = "1.8"
SCALES = {"r": Fraction(64), "margin": Fraction(64), "spacing": Fraction(16)}
BISECT_STEPS = 3


def construction_note(L: int, M: int, N: int, R: int) -> str:
    """One line naming the verified construction and its block count against the
    seed's ``2M + 3N`` (docs/spec.md §2 row 1.8), and how its network differs from 1.6's."""
    return (f"construction verified: proofcheck's 'default' (2M + R + 1 = {L} blocks, residual "
            f"FF layers only, plateau snaps of certified intervals), a reconstruction, not the "
            f"seed's (up to 2M + 3N = {2 * M + 3 * N} blocks, with O(N) extra non-residual ReLU "
            f"FF blocks because the softmax collapse is never exact; see lemma 1.8-collapse); "
            f"its network is not the one Theorem 1.6 checks: the same phases with larger leader "
            f"scales (r = {SCALES['r']}, margin {SCALES['margin']}, spacing "
            f"{SCALES['spacing']}; 1.6 uses r = 32, 1, 1); R = {R}, M = {M}, N = {N}")



@dataclass
class TauSearch:
    """Outcome of :func:`search_tau_cert`: ``tau`` (None: nothing certified),
    the certificate at tau (or the failing one), the trials ``[(tau, verdict)]``,
    ``tau_free`` (every tau > 0 certified), ``note`` (why the search stopped where
    it did) and the exp-bound floor used."""

    tau: Fraction | None
    cert: Certificate
    trials: list
    tau_free: bool = False
    note: str = ""
    floor_note: str = ""

    def __iter__(self):  # tau, cert, trials = search_tau_cert(...)
        return iter((self.tau, self.cert, self.trials))


@dataclass
class SoftmaxCheck:
    construction: Construction
    certificate: Certificate
    tau_cert: Fraction | None
    tau_closed: Fraction | None
    tau_closed_certified: Verdict | None
    tau_num: Fraction | None
    trials: list = field(default_factory=list)       # (tau, verdict) of the search
    sim_curve: list = field(default_factory=list)    # (tau, error) samples
    results: list = field(default_factory=list)
    constants: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    tau_free: bool = False
    search_note: str = ""
    tau_num_note: str = ""
    floor_note: str = ""
    construction_name: str = "default"
    comparison: list = field(default_factory=list)  # rows of compare_constructions
    simulation: object = None  # proofcheck.constructions.provers.simulate.SimulationAudit (an audit, no verdict)


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


def _log2_floor(x: Fraction) -> int:
    """floor(log2 x) for rational x > 0, with integers only."""
    p, q = x.numerator, x.denominator
    e = p.bit_length() - q.bit_length()
    if (p << max(0, -e)) < (q << max(0, e)):
        e -= 1
    return e


def _gaps(traj: Trajectory):
    return [Fraction(int(r.gap.p), int(r.gap.q)) for r in sa_records(traj) if r.gap is not None]


def search_tau_cert(net, inputs, targets, bisect_steps: int = BISECT_STEPS, progress=None,
                    trajectory: Trajectory | None = None, prep_progress=None) -> TauSearch:
    """Largest dyadic tau whose certificate passes (see the module docstring).

    1. the tau -> 0 limit certificate (:func:`choose_floor`) must pass, else no
       tau can be certified: the certificate at the search's first temperature (below)
       is returned, a positive tau a run's certificate can state;
    2. galloping over exponents from ``2^floor(log2 Delta) - 4`` (``Delta`` the
       smallest hardmax gap): steps 1, 2, 4, ... up until a certificate fails, or
       down until one passes (it must: tiny tau gives the limit certificate);
       upward the search stops, and says so, once ``tau >= 2^64 * (largest gap)``
       (every exp bound is then within 2^-64 of its supremum 1);
    3. bisection over exponents, then ``bisect_steps`` dyadic bisections.

    ``progress(tau, verdict)`` after each certificate; ``prep_progress(block,
    total)`` during the tau-independent pass."""
    traj = trajectory if trajectory is not None else prepare(net, inputs, progress=prep_progress)
    trials, results = [], {}
    F, limit, fnote = choose_floor(traj, targets, net, inputs)
    gaps = _gaps(traj)
    if limit.verdict != Verdict.VERIFIED_CERTIFIED:
        t = Fraction(2) ** (_log2_floor(min(gaps)) - 4) if gaps else Fraction(1)
        c = certify(net, inputs, targets, t, trajectory=traj, floor_bits=F)
        trials.append((t, c.verdict))
        if progress:
            progress(t, c.verdict)
        return TauSearch(None, c, trials, note="the tau -> 0 limit certificate fails, so no "
                         "temperature can be certified: " + (limit.witness.describe() if
                                                            limit.witness else limit.reason)
                         + f"; the run's certificate states the search's first temperature "
                         f"{fmt_num(t)}", floor_note=fnote)
    if not gaps:
        c = certify(net, inputs, targets, Fraction(1), trajectory=traj, floor_bits=F)
        trials.append((Fraction(1), c.verdict))
        if progress:
            progress(Fraction(1), c.verdict)
        return TauSearch(Fraction(1) if c.verdict == Verdict.VERIFIED_CERTIFIED else None, c,
                         trials, tau_free=c.verdict == Verdict.VERIFIED_CERTIFIED,
                         note="no token has an attention competitor (every softmax layer is "
                         "exact): the certificate does not depend on tau, every tau > 0 is "
                         "certified", floor_note=fnote)

    def attempt(e_or_t):
        t = Fraction(2) ** e_or_t if isinstance(e_or_t, int) else e_or_t
        if t not in results:
            c = certify(net, inputs, targets, t, trajectory=traj, floor_bits=F)
            results[t] = c
            trials.append((t, c.verdict))
            if progress:
                progress(t, c.verdict)
        return results[t].verdict == Verdict.VERIFIED_CERTIFIED

    e_top = _log2_floor(max(gaps)) + 65   # tau >= 2^64 max gap: every bound ~ its sup
    e0 = _log2_floor(min(gaps)) - 4
    note = ""
    if attempt(e0):
        lo, step, hi = e0, 1, None
        while hi is None:
            if lo >= e_top:
                note = (f"the search stopped at tau = 2^{lo}: certificates still pass there, "
                        f"and every exp bound is within 2^-64 of its supremum (tau >= 2^64 times "
                        f"the largest attention gap), so larger tau change nothing material")
                return TauSearch(Fraction(2) ** lo, results[Fraction(2) ** lo], trials,
                                 note=note, floor_note=fnote)
            cand = min(lo + step, e_top)
            if attempt(cand):
                lo, step = cand, step * 2
            else:
                hi = cand
    else:
        hi, step, lo = e0, 1, None
        while lo is None:
            cand = hi - step
            if attempt(cand):
                lo = cand
            else:
                hi, step = cand, step * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if attempt(mid):
            lo = mid
        else:
            hi = mid
    good, _ = bisect_dyadic(Fraction(2) ** lo, Fraction(2) ** hi, bisect_steps, attempt)
    note = (f"2^{lo} passes, 2^{hi} fails; {bisect_steps} bisection steps between them: "
            f"tau_cert is the largest passing tau tried (a larger one may pass within the "
            f"last step)")
    return TauSearch(good, results[good], trials, note=note, floor_note=fnote)


def closed_form_tau(net, traj: Trajectory) -> Fraction | None:
    """Paper-style estimate ``Delta / ln(max(2, (n-1) |V| S / slack))`` (module
    docstring), computed with arb (no float) and returned as a dyadic rational
    rounded to 64 bits; None when no SA layer has a competitor."""
    from flint import arb, fmpq
    gaps = [(r.gap, r) for r in sa_records(traj) if r.gap is not None]
    if not gaps:
        return None
    delta = min(g for g, _ in gaps)
    B = max(max(v_norm_inf(r), fmpq(1)) * max(r.S) * max(r.nmax1, 1) for _, r in gaps)
    slacks = []
    for r in traj.records:
        if isinstance(r, RankOneFF) and len(r.kinks) == 4:
            ks = r.kinks
            s = min(ks[1] - ks[0], ks[3] - ks[2])
            if s > 0:
                slacks.append(s)
    slack = min(slacks) if slacks else fmpq(1)
    arg = B / slack
    if arg < 2:
        arg = fmpq(2)
    val = arb(delta) / arb(arg).log()
    m, e = val.mid().man_exp()
    m, e = int(m), int(e)
    shift = max(0, m.bit_length() - 64)
    m >>= shift
    e += shift
    if m <= 0:
        return None
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** -e)


def verify(dataset, tau=None, simulate_num: bool = True, dps: int = 40, progress=None,
           prep_progress=None, sim_progress=None, sim_budget: int | None = None,
           construction: str = "default", options=None) -> SoftmaxCheck:
    """Theorem 1.8 on ``dataset``: certify the given ``tau`` (rational) or search
    tau_cert; closed form and tau_num (the simulation, an audit bounded by
    ``sim_budget`` work units, default :data:`proofcheck.constructions.provers.simulate.SIM_BUDGET`).
    ``progress(tau, verdict)`` per certificate, ``prep_progress(block, total)`` during
    the tau-independent pass, ``sim_progress(tau)`` per simulation.  ``construction``
    names the construction (:data:`proofcheck.constructions.afz.theorems.constructions.CONSTRUCTIONS`,
    one serving 1.8; ``KeyError`` otherwise), built with :data:`SCALES`; ``options``:
    construction options (:class:`proofcheck.constructions.afz.options.ConstructionOptions`; None: the
    default)."""
    from proofcheck.constructions.afz.theorems.constructions import get
    spec = get(construction, ID)
    inputs = [list(p.inputs) for p in dataset.pairs]
    targets = [list(p.outputs) for p in dataset.pairs]
    secs = {}
    t0 = time.perf_counter()
    c = build(spec, dataset, inputs, targets, options)
    secs["construct"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    traj = prepare(c.net, inputs, progress=prep_progress)
    secs["hardmax trajectory"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    tau_cert, cert, trials, tau_free, note, fnote = _certify(c.net, inputs, targets, tau,
                                                              traj, progress)
    refute_at_limit(cert, traj, targets)
    secs["certify"] = time.perf_counter() - t0
    tau_closed = closed_form_tau(c.net, traj) if traj.stop is None else None
    closed_v = None
    if tau_closed is not None:
        closed_v = certify(c.net, inputs, targets, tau_closed, trajectory=traj).verdict
    t0 = time.perf_counter()
    sim = simulation_audit(c.net, inputs, targets, tau_cert, tau_free, simulate_num, dps,
                           sim_progress, sim_budget)
    secs["simulate"] = time.perf_counter() - t0
    notes = (spec.notes(c, cert) if spec.notes is not None else
             [construction_note(c.net.L, dataset.M, dataset.N, c.info["R"])])
    res = [CheckResult("construction", Verdict.VERIFIED, notes),
           _certificate_check(cert, tau_cert, tau, tau_free, trials, note, fnote)]
    if cert.verdict != Verdict.VERIFIED_CERTIFIED:
        t0 = time.perf_counter()
        res += claims_at_limit(c, inputs, targets)
        secs["hardmax claims"] = time.perf_counter() - t0
    if spec.softmax_checks is not None:
        res += spec.softmax_checks(c, cert, inputs, targets)
    res.append(phase_spans_check(c))
    if spec.conclusions is not None:  # the construction's stated conclusions, on its network
        res += spec.conclusions(c, inputs, targets, dataset.d)
    checks, consts = _constants(spec, c, dataset)
    return SoftmaxCheck(c, cert, tau_cert, tau_closed, closed_v, sim.tau_num, trials, sim.curve,
                        res + checks, consts, secs, tau_free, note, sim.note, fnote,
                        construction_name=spec.name, simulation=sim)


def build(spec, dataset, inputs, targets, options):
    """``spec.build`` on the admissible ``dataset`` with :data:`SCALES`; an exception on it
    (other than bad input or a resource bound) is the construction's failure there:
    :class:`~proofcheck.constructions.afz.theorems.theorem_1_6.ConstructionFailed` (REFUTED, witness code
    ``construction-raised``)."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import ConstructionFailed, construction_failure
    from proofcheck.kernel.errors import BadInput, ResourceLimit
    try:
        return spec.build(inputs, targets, dataset.d, **SCALES,
                          **({"options": options} if options is not None else {}))
    except (BadInput, ResourceLimit, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001  (a failure on an admissible input refutes)
        raise ConstructionFailed(construction_failure(
            f"Theorem {ID}, construction {spec.name}", dataset, exc)) from exc


def refute_at_limit(cert: Certificate, traj: Trajectory, targets) -> None:
    """A certificate that does not pass becomes REFUTED, with the kernel's witness, when
    the exact hardmax trajectory (no tie) misses the targets: the softmax network then
    misses them for every small enough tau (:func:`proofcheck.kernel.theorem.limit_witness`,
    the rule the kernel re-checks)."""
    from proofcheck.kernel.theorem import limit_witness
    if cert.verdict in (Verdict.VERIFIED_CERTIFIED, Verdict.REFUTED, Verdict.ERROR):
        return
    w = limit_witness(traj, targets, cert.tau, cert.witness, cert.raw)
    if w is not None:
        cert.reason = ("the certificate at this tau: " + (cert.witness.describe() if
                       cert.witness else cert.reason or cert.verdict.value))
        cert.verdict, cert.witness = Verdict.REFUTED, w


def claims_at_limit(c: Construction, inputs, targets) -> list:
    """Where the hardmax network (the tau -> 0 limit) first leaves the construction's
    claims (block, sub-layer, sequence, token, coordinate, exact values), by the exact
    claim check of Theorem 1.6 (:func:`proofcheck.constructions.claim_check.check_network`): run when the
    softmax certificate does not pass, to locate the failure."""
    from proofcheck.constructions.claim_check import check_network
    nc = check_network(c.net, inputs, targets, c.claims)
    return [CheckResult(f"hardmax limit: {r.name}", r.verdict, r.details, r.witness, scope=r.scope)
            for r in nc.results]


def _certify(net, inputs, targets, tau, traj, progress):
    """``(tau_cert, certificate, trials, tau_free, search note, floor note)``: the
    certificate at the given ``tau``, or the search for tau_cert."""
    if tau is None:
        s = search_tau_cert(net, inputs, targets, progress=progress, trajectory=traj)
        return s.tau, s.cert, s.trials, s.tau_free, s.note, s.floor_note
    tau = Fraction(tau)
    F, _, fnote = choose_floor(traj, targets, net, inputs)
    cert = certify(net, inputs, targets, tau, trajectory=traj, floor_bits=F)
    if progress:
        progress(tau, cert.verdict)
    tau_cert = tau if cert.verdict == Verdict.VERIFIED_CERTIFIED else None
    return tau_cert, cert, [(tau, cert.verdict)], tau_cert is not None and not _gaps(traj), "", \
        fnote


def _certificate_check(cert, tau_cert, tau, tau_free, trials, note, fnote) -> CheckResult:
    """The check line of the softmax certificate (what it covers, or why it fails)."""
    if cert.verdict != Verdict.VERIFIED_CERTIFIED:
        t = trials[-1][0] if trials else tau
        at = f"tau = {fmt_num(t)}" if t is not None else "the tau -> 0 limit"
        return CheckResult(f"softmax certificate ({at})", cert.verdict,
                           ([cert.reason] if cert.reason else []) + ([note] if note else []),
                           cert.witness)
    gaps = [b.min_gap for b in cert.bounds if b.min_gap is not None]
    span = "every tau > 0" if tau_free else f"every tau in (0, {fmt_num(tau_cert)}]"
    return CheckResult(
        f"softmax certificate at tau = {fmt_num(tau_cert)} covers {span}",
        Verdict.VERIFIED_CERTIFIED,
        [f"{sum(1 for b in cert.bounds if b.max_eps is not None)} softmax SA layers bounded"
         + (f", smallest certified gap {fmt_num(min(gaps))}" if gaps else
            " (no token has a competitor)"),
         "every final box is a single point; exact interpolation {T_tau(X_j)} = {Y_j} "
         "for all pairs"] + ([note] if note else []) + ([fnote] if fnote else []))


def _constants(spec, c, dataset):
    """The construction's constant checks and the seed's 1.8 budget ``L <= 2M + 3N``."""
    checks, consts = spec.constant_checks(c.net, dataset.d, dataset.N, dataset.M, c.info,
                                          [list(p.outputs) for p in dataset.pairs])
    L, budget = c.net.L, 2 * dataset.M + 3 * dataset.N
    consts["construction"] = spec.name
    consts.setdefault("block_formula", spec.blocks)
    consts["L_seed_softmax"] = budget
    if not any(r.name.startswith("L <= 2M + 3N") for r in checks):
        checks.append(CheckResult("L <= 2M + 3N (the seed's count of Theorem 1.8, read as a bound)",
                                  Verdict.VERIFIED if L <= budget else Verdict.REFUTED,
                                  [f"L = {L} <= {budget}"]))
    return checks, consts


def comparison_row(sc: SoftmaxCheck) -> dict:
    """One row of the side-by-side table: construction, verdict, L, P, exact
    ``||theta*||^2``, tau_cert (None: not certified) and the run's seconds."""
    from proofcheck.kernel.verdicts import combine
    net = sc.construction.net
    return {"construction": sc.construction_name, "verdict": combine(
                r.verdict for r in sc.results).value, "L": net.L, "P": net.n_params(),
            "theta_sq_norm": net.sq_norm(), "tau_cert": sc.tau_cert,
            "seconds": sum(sc.seconds.values())}


def compare_constructions(dataset, sc: SoftmaxCheck, others=("default",)) -> list[dict]:
    """Rows of :func:`comparison_row` for ``sc`` and for each construction in
    ``others`` run on the same dataset (tau searched, no simulation); each row also
    has ``theta_sq_diff``, its exact ``||theta*||^2`` minus the first row's."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import ConstructionFailed
    rows = [comparison_row(sc)]
    for name in others:
        if name != sc.construction_name:
            try:
                rows.append(comparison_row(verify(dataset, simulate_num=False, construction=name)))
            except ConstructionFailed:  # the row says so: no network, no L, P or tau
                rows.append({"construction": name, "verdict": "REFUTED (construction raised)",
                             "L": None, "P": None, "theta_sq_norm": None, "tau_cert": None,
                             "seconds": 0.0})
    for r in rows:
        r["theta_sq_diff"] = (None if r["theta_sq_norm"] is None else
                              r["theta_sq_norm"] - rows[0]["theta_sq_norm"])
    return rows


def simulation_audit(net, inputs, targets, tau_cert, tau_free: bool, simulate_num: bool = True,
                     dps: int = 40, progress=None, budget: int | None = None):
    """The mpmath audit of a Theorem 1.8 run (:class:`proofcheck.constructions.provers.simulate.SimulationAudit`):
    not run, with the reason as its note, when switched off, when nothing is certified
    or when the certificate already covers every tau (no attention competitor); else
    :func:`proofcheck.constructions.provers.simulate.search_tau_num` within ``budget``.  Never a verdict."""
    from proofcheck.constructions.provers.simulate import SIM_BUDGET, SimulationAudit, search_tau_num
    budget = SIM_BUDGET if budget is None else budget
    why = ("simulation switched off (--no-simulation)" if not simulate_num else
           "no certified tau to start from" if tau_cert is None else
           "the certificate already covers every tau > 0 (no token has an attention "
           "competitor), so there is no threshold to locate" if tau_free else
           "simulation budget 0 (--simulation-budget)" if budget <= 0 else None)
    if why is not None:
        return SimulationAudit(budget=budget, note=f"tau_num not computed: {why}")
    return search_tau_num(net, inputs, targets, tau_cert, dps=dps, progress=progress,
                          budget=budget)


def run(dataset, seed: int = 0):
    """``lemma 1.8``: Theorem 1.8 on ``dataset`` (by default the registry's seeded random
    admissible datasets in several dimensions, :func:`proofcheck.constructions.afz.instances.scoped`)."""
    from proofcheck.constructions.afz.instances import scoped
    return scoped("Theorem 1.8", _lemma_results, dataset)


def _lemma_results(ds) -> list:
    """``verify(ds).results`` with the simulation's lines added to the certificate's
    details as an audit (no verdict of their own)."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import ConstructionFailed
    try:
        sc = verify(ds)
    except ConstructionFailed as e:
        return [e.result]
    res = list(sc.results)
    audit = [f"audit (mpmath simulation, not part of the check): tau_num = "
             f"{fmt_num(sc.tau_num) if sc.tau_num is not None else 'n/a'}"]
    audit += [f"audit: {line}" for line in sc.simulation.lines(sc.tau_cert)]
    res[1] = CheckResult(res[1].name, res[1].verdict, list(res[1].details) + audit,
                         res[1].witness)
    return res
