"""The construction's own check (docs/spec.md §1, §5): ``check_network`` pushes the input
sequences through the network with an exact evaluator of the kernel and (1)
compares every sub-layer's output with the construction's claim for it (the
claims of :mod:`proofcheck.constructions.claims`), naming the first block / sub-layer / sequence /
token / coordinate that differs, and (2) checks exact interpolation with the
kernel's :func:`~proofcheck.kernel.evaluate.interpolation_witness`.  The claims are
diagnostics: the verdict of record is the kernel's ``verify`` of the certificate.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.errors import ResourceLimit
from proofcheck.kernel.evaluate import f2q, interpolation_witness
from proofcheck.kernel.fast import get_backend
from proofcheck.kernel.limits import budget, check_bits
from proofcheck.kernel.model import Transformer
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import plural
from proofcheck.kernel.verdicts import Scope, Verdict, Witness


@dataclass
class NetworkCheck:
    """Result of :func:`check_network`.

    ``outputs[j]``: list of output tokens of sequence j (Fractions);
    ``multiplicities[j]``: target token -> number of output tokens equal to it;
    ``claims_checked``: number of sub-layer claims compared; ``seconds``: wall time.
    """

    verdict: Verdict
    results: list[CheckResult] = field(default_factory=list)
    witness: Witness | None = None
    outputs: list[list[tuple]] = field(default_factory=list)
    multiplicities: list[dict] = field(default_factory=list)
    claims_checked: int = 0
    seconds: float = 0.0


def _first_diff(exp, got):
    for c, (e, g) in enumerate(zip(exp, got)):
        if e != g:
            return c
    return None


def _same_seq_of(backend, state, claim) -> bool:
    """``claim.seq_of`` equals the state's row -> sequence map (checked once per list
    object; the object is kept so its id cannot be reused)."""
    meta = backend._meta(state)
    if any(o is claim.seq_of for o in meta["seq_ok"]):
        return True
    if list(claim.seq_of) == meta["seq"]:
        meta["seq_ok"].append(claim.seq_of)
        return True
    return False


def _compare(backend, claim, old_state, new_state, touched, before, block, sub):
    """Witness of the first row whose new value differs from the claim, or None.
    ``before``: old values of rows the backend updated in place (else None)."""
    claim.bind(backend.num)
    cr = claim.rows()
    if claim.kind == "sequence-shift" and getattr(new_state, "tag", None) is not None:
        # offset tag: the backend added lam * (row tops[j]) to every row of sequence j,
        # deciding tops[j] exactly; the claim says row i moves by claim.lam times
        # row claim.top[claim.seq_of[i]].  Same attended rows, same factor and the
        # same row -> sequence map make the two formulas identical row by row.
        tops, lam = new_state.tag
        if claim.lam == lam and list(claim.top) == tops and _same_seq_of(backend, new_state, claim):
            return None
    if claim.kind == "sequence-shift" and new_state is not old_state:
        src = [claim.top[claim.seq_of[i]] for i in range(old_state.n)]
        shift = getattr(new_state, "shift", None)
        if shift is not None and shift == (src, 1, claim.lam):
            # the backend computed X_new = 1 X + lam X[src] with exactly the claimed
            # attended rows and factor: the claim's formula, term for term
            return None
        if hasattr(backend, "gather_axpy") and getattr(old_state, "off", None) is None \
                and getattr(new_state, "off", None) is None and \
                backend.gather_axpy(old_state, src, 1, claim.lam) == new_state.X:
            return None  # (with pending offsets X holds base rows only: compare rows)
    if claim.kind == "translate" and hasattr(backend, "translated") and \
            getattr(old_state, "off", None) is None and getattr(new_state, "off", None) is None \
            and backend.translated(old_state, claim.c) == new_state.X:
        return None  # every row moved by exactly c (one exact matrix comparison)
    n = new_state.n
    if cr is not None:  # a claim about rows the state does not have is malformed
        bad = next((r for r in cr if type(r) is not int or not 0 <= r < n), None)
        if bad is not None:
            return Witness(f"{sub} claim ({claim.kind}) names a row outside the state",
                           block=block, sublayer=sub, expected=f"a row in 0..{n - 1}",
                           got=bad, code="claim-shape")
    if touched is None or cr is None:
        rows = range(n)
    else:
        rows = sorted(set(touched).union(cr))
    if before:
        old = lambda i: before[i] if i in before else backend.row(old_state, i)  # noqa: E731
    else:
        old = lambda i: backend.row(old_state, i)  # noqa: E731
    for i in rows:
        try:
            exp = tuple(claim.expected(i, old))
        except (IndexError, KeyError) as exc:  # the claim does not describe this row
            j, t = new_state.locate(i)
            return Witness(f"{sub} claim ({claim.kind}) does not cover the row "
                           f"({type(exc).__name__}: {exc})", block=block, sublayer=sub,
                           sequence=j, token=t, code="claim-shape")
        got = backend.row(new_state, i)
        if exp == got:  # exact equality of every coordinate (the common case)
            continue
        c = _first_diff(exp, got)
        if c is not None:
            conv = f2q
            j, t = new_state.locate(i)
            return Witness(f"{sub} output differs from the claim ({claim.kind})",
                           block=block, sublayer=sub, sequence=j, token=t, coordinate=c,
                           expected=conv(exp[c]), got=conv(got[c]), code="claim-mismatch")
    return None


def _guard(be, old, new, touched, where) -> None:
    """The bit bound after one sub-layer (proofcheck.kernel.limits), as the kernel's
    evaluation checks it; the work is charged by the backend, as in the kernel."""
    if new is old and touched == []:
        return
    rows = [] if getattr(new, "tag", None) is not None else touched
    check_bits(be.max_bits(new, rows), where)


def check_network(net: Transformer, inputs, targets, claims=None, backend: str = "flint",
                  rule=HARDMAX, progress: Callable[[int], None] | None = None) -> NetworkCheck:
    """Exact check of ``net`` on ``inputs`` against ``claims`` and ``targets``.

    ``inputs[j]``: ``(n_j, d)`` tokens; ``targets[j]``: ``(m_j, d)`` tokens, or
    ``targets=None`` to check the claims only (then ``outputs`` holds the state);
    ``claims``: ``None`` or a list of ``(ff_claim, sa_claim)`` per block.
    Any exception during evaluation gives verdict ERROR (fail closed).  The check
    runs under the kernel's work rule (:mod:`proofcheck.kernel.limits`) for
    :func:`run_bytes` bytes, so an input the kernel would stop on (e.g. one sequence
    of 60,000 tokens: 3.6 * 10^9 attention scores per layer) raises
    :class:`~proofcheck.kernel.errors.ResourceLimit` before its work, here too.
    """
    with run_budget("the construction's own check", run_bytes(net, inputs, targets)):
        return _check_network(net, inputs, targets, claims, backend, rule, progress)


#: the run's budget over the kernel's rule for its certificate: the run charges the same
#: evaluation work as the kernel's re-check (the backend's charges); the estimate below
#: is about 0.8x the certificate's canonical bytes (digits-like data, T = 100,000)
RUN_BUDGET_FACTOR = 4


def run_bytes(net: Transformer, inputs, targets) -> int:
    """:data:`RUN_BUDGET_FACTOR` times the bytes of a certificate stating ``net`` and the
    dataset, estimated from the bit sizes of their numbers (log10 2 < 0.31 digits per
    bit, 4 bytes of punctuation per number).  The run's verdict stays the kernel's
    re-check of the certificate it writes, under that certificate's own budget: this
    bound only stops, before its work, an input no certificate budget would cover (a
    sequence of 60,000 tokens needs 3.6 * 10^9 scores per SA layer)."""
    def size(x) -> int:
        x = x if type(x) is Fraction else Fraction(x)
        return (31 * (x.numerator.bit_length() + x.denominator.bit_length())) // 100 + 4
    data = sum(size(v) for seqs in (inputs, targets or ()) for seq in seqs
               for tok in seq for v in tok)
    return RUN_BUDGET_FACTOR * (data + sum(size(x) for *_, x in net.parameters()))


@contextmanager
def run_budget(what: str, size: int):
    """The kernel's work rule for ``size`` bytes (:func:`run_bytes`) around a run's own
    computation ``what``; its :class:`~proofcheck.kernel.errors.ResourceLimit` names it."""
    try:
        with budget(size):
            yield
    except ResourceLimit as e:
        raise ResourceLimit(f"{what} (budgeted for {size} bytes, {RUN_BUDGET_FACTOR}x its "
                            f"certificate's estimated size): {e}") from e


def _check_network(net, inputs, targets, claims, backend, rule, progress) -> NetworkCheck:
    """:func:`check_network` within its budget."""
    t0 = time.perf_counter()
    res = NetworkCheck(Verdict.ERROR)
    try:
        be = get_backend(backend)
        if claims is not None and len(claims) != net.L:
            raise ValueError(f"{len(claims)} claims for {net.L} blocks")
        state = be.load(inputs)
        for bi, blk in enumerate(net.blocks, start=1):
            for sub, layer, fn in (("FF", blk.ff, be.ff), ("SA", blk.sa,
                                   lambda l, s: be.sa(l, s, rule))):
                try:
                    new, touched, before = fn(layer, state)
                except ResourceLimit as e:  # name the sub-layer it stopped before
                    raise ResourceLimit(f"block {bi} {sub}: {e}") from e
                _guard(be, state, new, touched, f"block {bi} {sub}")
                if claims is not None:
                    claim = claims[bi - 1][0 if sub == "FF" else 1]
                    w = _compare(be, claim, state, new, touched, before, bi, sub)
                    res.claims_checked += 1
                    if w is not None:
                        res.verdict, res.witness = Verdict.REFUTED, w
                        res.results.append(CheckResult(
                            f"block {bi} {sub}: {layer.label or 'layer'} matches its claim",
                            Verdict.REFUTED, witness=w))
                        res.seconds = time.perf_counter() - t0
                        return res
                state = new
            if progress:
                progress(bi)
        if claims is not None:
            res.results.append(CheckResult(
                f"every sub-layer matches its construction claim ({res.claims_checked} claims)",
                Verdict.VERIFIED))
        rows = be.to_fractions(state)
        res.outputs = [rows[lo:hi] for lo, hi in state.spans]
        if targets is None:  # claims only (a prefix of a construction)
            res.verdict = Verdict.VERIFIED if claims is not None else Verdict.ERROR
            res.seconds = time.perf_counter() - t0
            return res
        tg = [[tuple(x if type(x) is Fraction else Fraction(x) for x in y) for y in ys]
              for ys in targets]
        w, res.multiplicities = interpolation_witness(res.outputs, tg)
        if w is not None:
            res.verdict, res.witness = Verdict.REFUTED, w
            res.results.append(CheckResult("exact interpolation {T(X_j)} = {Y_j}",
                                           Verdict.REFUTED, witness=w))
        else:
            res.verdict = Verdict.VERIFIED
            res.results.append(CheckResult(
                f"exact interpolation {{T(X_j)}} = {{Y_j}} for all {plural(len(tg), 'pair')} (both inclusions)",
                Verdict.VERIFIED, scope=Scope.DATASET))
    except ResourceLimit:
        raise  # a resource bound: the caller reports RESOURCE-LIMIT
    except Exception as exc:  # fail closed
        res.verdict = Verdict.ERROR
        res.results.append(CheckResult("evaluation", Verdict.ERROR,
                                       details=[f"{type(exc).__name__}: {exc}"]))
    res.seconds = time.perf_counter() - t0
    return res
