"""Theorem 1.6 (hardmax exact interpolation), docs/spec.md §4.

For an admissible dataset, builds a transformer of width <= 4 with
``L = 2M + R + 1 <= 2M + N`` blocks (the paper allows ``2M + 2N + 1``):

=========  ======================  ==========================================
blocks     FF                      SA
=========  ======================  ==========================================
1          translation (3.1)       tag (4.1)
2..R+1     probe (3.2p)            tag (4.1)
R+2..R+1+M leader moves (3.2p)     identity; the last one is the collapse
R+2+M..L   snaps (3.3)             identity
=========  ======================  ==========================================

Parameter count (stored scalars, docs/spec.md §1):
``P = (16d + 16) M + (10d + 8) R + 6d + 5``; with ``R <= N - 1 <= M - 1`` and
``d >= 2`` this is ``<= (26d + 24) M <= 38 d M``  (``PARAM_CONSTANT = 38``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from proofcheck.constructions.afz.phases.collapse import choose_k, collapse_claim, collapse_sa
from proofcheck.constructions.afz.phases.interpolation import snaps
from proofcheck.constructions.afz.phases.leaders import place_leaders
from proofcheck.constructions.afz.phases.separation import separate
from proofcheck.kernel.evaluate import spans_of
from proofcheck.constructions.claims import Fixed
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block, Transformer
# the parameter formula and constant are the kernel's (one place; re-exported here)
from proofcheck.kernel.statements import PARAM_CONSTANT, param_formula  # noqa: F401

ID = "1.6"


@dataclass
class Construction:
    """The network, one ``(ff_claim, sa_claim)`` per block, and what was chosen."""

    net: Transformer
    claims: list
    phases: dict = field(default_factory=dict)   # name -> (first block, last block)
    info: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)  # phase -> construction time


def construct(inputs, targets, d: int, r=Fraction(32), margin=Fraction(1),
              spacing=Fraction(1), options=None, progress=None) -> Construction:
    """Build the Theorem 1.6 network.  ``inputs[j]``: ``(n_j, d)``, ``targets[j]``:
    ``(m_j, d)`` tuples of Fractions of an admissible dataset (not re-validated).
    ``progress(phase)`` (optional) is called after each separation round ("S"),
    each sequence's leaders ("L"), once for the collapse ("C") and once per snap
    ("I")."""
    secs = {}
    t0 = time.perf_counter()
    fmt = options.float_format if options else None
    sep = separate(inputs, d, float_format=fmt,
                   progress=(lambda: progress("S")) if progress else None)
    secs["S"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    spans = spans_of(len(X) for X in inputs)
    m = [len(y) for y in targets]
    lead = place_leaders(sep.rows, spans, m, sep.u, r=r, margin=margin, spacing=spacing,
                         float_format=fmt,
                         progress=(lambda: progress("L")) if progress else None)
    secs["L"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    order = [row for lr in lead.leader_rows for row in lr]
    leader_targets = [tuple(y) for ys in targets for y in ys]
    k, kappas = choose_k([lead.positions[row] for row in order],
                         {y[0] for y in leader_targets}, d)
    csa = collapse_sa(k)
    cclaim = collapse_claim(k, spans, lead.leader_rows)
    secs["C"] = time.perf_counter() - t0
    if progress:
        progress("C")

    t0 = time.perf_counter()
    attending = []
    for (lo, hi), lr in zip(spans, lead.leader_rows):
        ls = set(lr)
        attending.append([i for i in range(lo, hi) if i not in ls or i == lr[0]])
        attending += [[row] for row in lr[1:]]
    sffs, sclaims, deltas = snaps(kappas, leader_targets, attending, d,
                                  float_format=fmt,
                                  progress=(lambda: progress("I")) if progress else None)
    secs["I"] = time.perf_counter() - t0

    blocks, claims = list(sep.blocks), list(sep.claims)
    M = len(order)
    for i, (ff, cl) in enumerate(zip(lead.ffs, lead.claims)):
        last = i == M - 1
        blocks.append(Block(ff, csa if last else identity_sa(), phase="L" if not last else "L+C"))
        claims.append((cl, cclaim if last else Fixed()))
    for ff, cl in zip(sffs, sclaims):
        blocks.append(Block(ff, identity_sa(), phase="I"))
        claims.append((cl, Fixed()))
    R = sep.R
    phases = {"S": (1, R + 1), "L": (R + 2, R + 1 + M), "C": (R + 1 + M, R + 1 + M),
              "I": (R + 2 + M, 2 * M + R + 1)}
    info = {"u": sep.u, "R": R, "lambdas": sep.lambdas,
            "classes_after_first_tag": sep.classes_after_first_tag,
            "t": lead.t, "r": lead.r, "beta": lead.beta, "k": k, "kappas": kappas,
            "snap_deltas": deltas, "leader_rows": lead.leader_rows}
    return Construction(Transformer(d, blocks), claims, phases, info, secs)


def construction_failure(name: str, ds, exc: Exception):
    """The REFUTED result for a construction that raised on the admissible dataset
    ``ds``: the constructive claim fails there; the witness names the dataset and
    the exception."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness
    return CheckResult(f"{name}: the construction builds a network", Verdict.REFUTED,
                       ["the construction raised on an admissible input"],
                       Witness(f"construction raised on an admissible input "
                               f"({type(exc).__name__}: {str(exc)[:160]})",
                               got=f"dataset '{ds.name}' (d = {ds.d}, N = {ds.N})",
                               code="construction-raised"))


class ConstructionFailed(Exception):
    """Raised by :func:`verify` when the construction raises on the admissible
    dataset; ``result`` is the REFUTED :func:`construction_failure`."""

    def __init__(self, result):
        super().__init__(result.witness.describe())
        self.result = result


@dataclass
class TheoremCheck:
    """Everything a Theorem 1.6 run measured; ``results`` are the named checks."""

    construction: Construction
    network_check: object
    results: list
    constants: dict
    seconds: dict


def constant_checks(net: Transformer, d: int, N: int, M: int, R: int):
    """The theorem's constants as exact checks (regression-tested)."""
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict, Witness

    def res(name, ok, detail):
        return CheckResult(name, Verdict.VERIFIED if ok else Verdict.REFUTED, [detail],
                           None if ok else Witness(f"{name} fails: {detail}"))
    P = net.n_params()
    L = net.L
    lr_check, lr_consts = low_rank_check(net)
    consts = {"N": N, "M": M, "d": d, "R": R, "L": L, "L_construction": 2 * M + R + 1,
              "L_paper_hardmax": 2 * M + 2 * N + 1, "L_paper_softmax": 2 * M + 3 * N,
              "max_width": net.max_width, "P": P, "P_formula": param_formula(d, M, R),
              "P_bound": PARAM_CONSTANT * d * M, "param_constant": PARAM_CONSTANT,
              "max_bits": net.max_bits(), **lr_consts}
    checks = [
        res("L = 2M + R + 1", L == 2 * M + R + 1, f"L = {L}, 2M + R + 1 = {2 * M + R + 1}"),
        res("R <= N - 1", R <= N - 1, f"R = {R}, N - 1 = {N - 1}"),
        res("L <= 2M + 2N + 1 (the seed's count of Theorem 1.6, read as a bound)",
            L <= 2 * M + 2 * N + 1, f"L = {L} <= {2 * M + 2 * N + 1}"),
        res("width <= 4", net.max_width <= 4, f"max width = {net.max_width}"),
        res("P = (16d+16)M + (10d+8)R + 6d + 5", P == param_formula(d, M, R),
            f"P = {P}, formula = {param_formula(d, M, R)}"),
        res(f"P <= {PARAM_CONSTANT} d M", P <= PARAM_CONSTANT * d * M,
            f"P = {P} <= {PARAM_CONSTANT * d * M} = {PARAM_CONSTANT} * {d} * {M}"),
        lr_check,
    ]
    return checks, consts


def low_rank_check(net: Transformer):
    """``(check, constants)``: A and V of every SA layer = lam I + rank <= 1 (the seed's
    form, :mod:`proofcheck.kernel.low_rank`), shared by every construction."""
    from proofcheck.constructions.afz.low_rank_summary import summary
    from proofcheck.kernel import low_rank
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict
    lr = summary(net)
    check = CheckResult("low-rank: A and V of every SA layer = lam I + rank <= 1",
                        Verdict.REFUTED if low_rank.failures(net) else Verdict.VERIFIED,
                        [f"{lr['sa_layers']} SA layers; largest rank of A - lam I: "
                         f"{lr['max_rank_A']}, of V - lam I: {lr['max_rank_V']}; V = lam I "
                         f"alone (the tags) in {lr['V_multiple_of_identity']}"])
    return check, {"sa_layers": lr["sa_layers"], "max_rank_A_minus_lam_I": lr["max_rank_A"],
                   "max_rank_V_minus_lam_I": lr["max_rank_V"]}


def verify(dataset, backend: str = "flint", progress=None, r=Fraction(32),
           construction=None, checker=None, options=None) -> TheoremCheck:
    """Construct the network for an admissible ``dataset`` and check Theorem 1.6
    exactly: every construction claim, exact set equality for every pair, and the
    constants.  ``progress(block, L)`` is called after each evaluated block.
    ``construction``: a :class:`proofcheck.constructions.afz.theorems.constructions.ConstructionSpec`
    (``None``: this module's :func:`construct` and :func:`constant_checks`).
    ``checker(net, inputs, targets, claims, backend=..., progress=...)`` replaces the
    kernel's :func:`~proofcheck.constructions.claim_check.check_network` (the pipeline layer
    passes the Dask-sharded check here).  ``options``: construction options
    (:class:`proofcheck.constructions.afz.options.ConstructionOptions`; None: the default).
    Raises :class:`ConstructionFailed` (REFUTED) if the construction raises on the
    dataset (admissible: the caller validated it)."""
    from proofcheck.constructions.afz.theorems.phase_spans import phase_spans_check
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.errors import BadInput, ResourceLimit
    if isinstance(construction, str):
        raise TypeError("verify(construction=...) takes a ConstructionSpec: pass "
                        f"proofcheck.constructions.afz.theorems.constructions.get({construction!r}, '1.6')")
    inputs = [list(p.inputs) for p in dataset.pairs]
    targets = [list(p.outputs) for p in dataset.pairs]
    t0 = time.perf_counter()
    try:
        if construction is None:
            c = construct(inputs, targets, dataset.d, r=r, options=options)
        else:
            c = construction.build(inputs, targets, dataset.d, r=r, options=options)
    except (BadInput, ResourceLimit, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001  (any failure on an admissible input refutes)
        raise ConstructionFailed(construction_failure(f"Theorem {ID}", dataset, exc)) from exc
    t_build = time.perf_counter() - t0
    prog = (lambda b: progress(b, c.net.L)) if progress else None
    nc = (checker or check_network)(c.net, inputs, targets, c.claims, backend=backend,
                                    progress=prog)
    t0 = time.perf_counter()
    if construction is None:
        checks, consts = constant_checks(c.net, dataset.d, dataset.N, dataset.M, c.info["R"])
    else:
        checks, consts = construction.constant_checks(c.net, dataset.d, dataset.N, dataset.M,
                                                      c.info, targets)
    checks.append(phase_spans_check(c))
    if construction is not None and construction.conclusions is not None:
        checks += construction.conclusions(c, inputs, targets, dataset.d)
    consts.setdefault("construction", construction.name if construction else "default")
    consts.setdefault("block_formula", construction.blocks if construction else "2M + R + 1")
    secs = {f"construct phase {k}": v for k, v in c.seconds.items()}
    secs["construct total"] = t_build
    secs["exact check"] = nc.seconds
    secs["constants"] = time.perf_counter() - t0
    return TheoremCheck(c, nc, nc.results + checks, consts, secs)


def run(dataset=None, seed: int = 0):
    """``lemma 1.6``: Theorem 1.6 on ``dataset`` (by default the registry's seeded random
    admissible datasets in several dimensions, :func:`proofcheck.constructions.afz.instances.scoped`); a
    construction failing on an instance is REFUTED there."""
    from proofcheck.constructions.afz.instances import scoped

    def check(ds):
        try:
            return verify(ds).results
        except ConstructionFailed as e:
            return [e.result]
    return scoped("Theorem 1.6", check, dataset)
