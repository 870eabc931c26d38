"""``theorem 1.6 --attention causal``: a construction's network run under the causal
mask (docs/spec.md §1 "Extensions") by the kernel's exact evaluators.

* A construction for unmasked attention (``default``, ``peel``, ``bounded``): its
  network with every SA layer masked (:func:`proofcheck.constructions.causal.with_mask`) is checked
  against the construction's own claims, which are those of the unmasked semantics;
  the first block / sub-layer / sequence / token / coordinate where the masked
  network leaves them is the witness (REFUTED).  Then the masked network is run to
  the end and exact interpolation is checked in the all-outputs reading (the
  construction's reading), and the dataset's prefix conflicts are listed
  (statement ``causal-first-token``: where one exists no causal transformer
  interpolates in that reading, whatever its construction).
* ``causal-last`` / ``causal-all`` (:mod:`proofcheck.constructions.causal.prefix_construction`): the
  network is causal by construction; the check is its claims, every SA layer masked,
  and exact interpolation in its reading (``last-outputs`` / ``all-outputs``).
"""
from __future__ import annotations

import time

from proofcheck.constructions.causal import with_mask
from proofcheck.constructions.causal.constructions import READING
from proofcheck.constructions.causal.readings import ALL, prefix_conflicts, read_outputs
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import plural
from proofcheck.kernel.verdicts import Scope, Verdict, fmt_value



def mask_check(net) -> CheckResult:
    """Every SA layer of ``net`` is masked (exact, from the network)."""
    bad = [bi for bi, b in enumerate(net.blocks, start=1) if not b.sa.causal]
    name = f"every SA layer is causal ({net.L} layers)"
    if bad:
        return CheckResult(name, Verdict.REFUTED, [f"unmasked SA in block(s) {bad[:10]}"])
    return CheckResult(name, Verdict.VERIFIED)


def interpolation_check(outputs, targets, reading: str) -> CheckResult:
    """Exact set equality per pair, both inclusions, on the outputs the ``reading``
    reads; a witness's token is the position in the whole sequence."""
    from proofcheck.kernel.evaluate import interpolation_witness
    read, first = read_outputs(outputs, targets, reading)
    tg = [[tuple(y) for y in ys] for ys in targets]
    w, _ = interpolation_witness(read, tg)
    what = ("{T(X_j)_i : all i}" if reading == ALL else
            "{T(X_j)_i : i > n_j - m_j} (the last m_j outputs)")
    if w is not None:
        if w.token is not None:
            w.token += first[w.sequence]
        return CheckResult(f"exact interpolation under the causal mask, reading {reading}: "
                           f"{what} = Y_j", Verdict.REFUTED, witness=w)
    return CheckResult(f"exact interpolation under the causal mask, reading {reading}: {what} "
                       f"= Y_j for all {plural(len(tg), 'pair')} (both inclusions)", Verdict.VERIFIED,
                       scope=Scope.DATASET)


def conflict_check(dataset, reading: str) -> CheckResult | None:
    """An obstruction of ``dataset`` in ``reading`` as a VERIFIED check (no causal
    transformer interpolates it there): a pairwise prefix conflict with its witness,
    else the exact search finding no prefix map; None when a prefix map exists
    (undecided searches: INCONCLUSIVE)."""
    from proofcheck.constructions.causal.readings import impossibility, prefix_map
    cs = prefix_conflicts(dataset, reading)
    name = f"no causal transformer interpolates '{dataset.name}' in the reading {reading}"
    if cs:
        c = cs[0]
        pre = ", ".join(fmt_value(x) for x in dataset.pairs[c.j].inputs[:c.i + 1])
        det = [f"sequences {c.j} and {c.k} share the prefix ({pre}) of length {c.i + 1}, and "
               f"position {c.i + 1} is read in both; Y_{c.j} ∩ Y_{c.k} = ∅, so "
               f"T(X_{c.j})_{c.i + 1} = T(X_{c.k})_{c.i + 1} cannot be a target of both "
               "(causal-first-token)",
               f"{len(cs)} such pair(s) of read positions in '{dataset.name}'"]
        return CheckResult(name + " (a prefix conflict)", Verdict.VERIFIED, det,
                           scope=Scope.DATASET)
    io = [list(p.inputs) for p in dataset.pairs], [list(p.outputs) for p in dataset.pairs]
    sol = prefix_map(*io, reading)
    if sol.status == "possible":
        return None
    det = [f"no two sequences with a common read prefix have disjoint targets; exact search "
           f"for a prefix map ({sol.nodes} node(s))"]
    if sol.status == "impossible":
        return CheckResult(name + " (no prefix map)", Verdict.VERIFIED,
                           det + [impossibility(sol)], scope=Scope.DATASET)
    return CheckResult(f"prefix map of '{dataset.name}' in the reading {reading}: undecided",
                       Verdict.INCONCLUSIVE, det + ["search bound reached"])


def _why(c, w, lengths) -> str:
    """The reason the masked network leaves the claim at witness ``w``: for a tag claim
    (each token adds lam times its sequence's top), where the top is."""
    from proofcheck.kernel.evaluate import spans_of
    text = ("the construction's claims are those of unmasked attention; under the mask "
            "token i attends to the tokens 0..i only (0-based, as in the witness)")
    claim = c.claims[w.block - 1][1] if w is not None and w.sublayer == "SA" else None
    if getattr(claim, "kind", None) == "sequence-shift" and w.sequence is not None:
        t = claim.top[w.sequence] - spans_of(lengths)[w.sequence][0]
        if w.token < t:
            return (f"{text}: the tag adds lam times the sequence's top, token {t} of "
                    f"sequence {w.sequence}, which token {w.token} cannot see")
    return text


def _run_to_end(net, inputs, backend: str):
    """``(outputs, [])`` of the masked network by the kernel's evaluator, or
    ``(None, [ERROR check])`` if the evaluation raises (fail closed)."""
    from proofcheck.kernel.errors import ResourceLimit
    from proofcheck.kernel.evaluate import run
    from proofcheck.kernel.fast import get_backend
    try:
        return run(net, inputs, backend=get_backend(backend)), []
    except ResourceLimit:
        raise
    except Exception as exc:  # noqa: BLE001  (fail closed)
        return None, [CheckResult("evaluation under the causal mask", Verdict.ERROR,
                                  [f"{type(exc).__name__}: {exc}"])]


def _build(spec, dataset, inputs, targets, options):
    """``spec.build`` on the dataset.  A causal construction's hypothesis failing
    (``NoCausalInterpolant``: no prefix map) and resource bounds propagate (exit 2 / 4); any
    other exception on the admissible input refutes
    (:class:`proofcheck.constructions.afz.theorems.theorem_1_6.ConstructionFailed`)."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import ConstructionFailed, construction_failure
    from proofcheck.kernel.errors import BadInput, ResourceLimit
    try:
        return spec.build(inputs, targets, dataset.d, **options)
    except (BadInput, ResourceLimit):
        raise
    except Exception as exc:  # noqa: BLE001  (a failure on an admissible input refutes)
        raise ConstructionFailed(construction_failure("Theorem 1.6 (causal mask)", dataset,
                                                      exc)) from exc


def verify_causal(dataset, spec, backend: str = "flint", progress=None, **options):
    """``theorem 1.6 --attention causal`` with construction ``spec``: a
    :class:`proofcheck.constructions.afz.theorems.theorem_1_6.TheoremCheck` whose results say where the
    masked network leaves the claims (or that it keeps them) and whether it
    interpolates in the construction's reading."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import TheoremCheck
    from proofcheck.constructions.claim_check import check_network
    from proofcheck.kernel.dataset import check_admissible
    if spec.name not in READING:
        check_admissible(dataset)  # the construction's own hypothesis: distinct sets
    inputs = [list(p.inputs) for p in dataset.pairs]
    targets = [list(p.outputs) for p in dataset.pairs]
    t0 = time.perf_counter()
    c = _build(spec, dataset, inputs, targets, options)
    t_build = time.perf_counter() - t0
    reading = READING.get(spec.name)
    if reading is None:
        reading = ALL
        c.net = with_mask(c.net)
    prog = (lambda b: progress(b, c.net.L)) if progress else None
    nc = check_network(c.net, inputs, None, c.claims, backend=backend, progress=prog)
    results = [mask_check(c.net)] + nc.results
    outputs, t_end = nc.outputs, None
    if nc.verdict == Verdict.REFUTED:
        results[-1].details.append(_why(c, nc.witness, [len(X) for X in inputs]))
        t1 = time.perf_counter()
        outputs, err = _run_to_end(c.net, inputs, backend)
        t_end = time.perf_counter() - t1
        results += err
    if outputs:
        results.append(interpolation_check(outputs, targets, reading))
    obstruction = conflict_check(dataset, reading)
    if obstruction is not None:
        results.append(obstruction)
    t1 = time.perf_counter()
    checks, consts = spec.constant_checks(c.net, dataset.d, dataset.N, dataset.M, c.info, targets)
    from proofcheck.constructions.afz.theorems.phase_spans import phase_spans_check
    checks.append(phase_spans_check(c))
    if spec.name in READING and spec.conclusions is not None:  # a causal construction's own
        checks += spec.conclusions(c, inputs, targets, dataset.d)
    consts.setdefault("construction", spec.name)
    consts.setdefault("block_formula", spec.blocks)
    c.info.update(attention="causal", reading=reading)  # not constants: no certificate states them
    secs = {"construct total": t_build, "exact check": nc.seconds,
            **({} if t_end is None else {"masked run to the end": t_end}),
            "constants": time.perf_counter() - t1}
    return TheoremCheck(c, nc, results + checks, consts, secs)


def run_causal(dataset, construction: str = "default", backend: str = "flint"):
    """:func:`verify_causal` with the construction named ``construction`` (any
    construction of Theorem 1.6's table; ``KeyError`` if unknown)."""
    from proofcheck.constructions.causal.constructions import get
    return verify_causal(dataset, get(construction), backend=backend)
