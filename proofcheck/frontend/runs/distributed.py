"""The exact hardmax check sharded by sequence over a Dask distributed cluster.

Under the network every sequence is evaluated on its own (FF layers are
token-wise, attention stays inside a sequence), so the exact check of docs/spec.md §5
splits into shards of consecutive sequences:

* the problem — network, construction claims, inputs and targets — reaches
  every worker ONCE, by one of two transports:

  - ``fork`` (default for ``workers=K`` where the platform can fork): the
    client registers the problem, then starts the local cluster with forked
    worker processes, which inherit it — no serialisation, no transfer, no
    decoding (the client's objects are frozen out of the collector first so
    the copy-on-write pages stay shared);
  - ``broadcast`` (``scheduler=ADDRESS``, any number of machines): the client
    pickles the problem into one byte string (:func:`dumps_problem`: Fractions
    as ``(p, q)`` integer pairs, rebuilt on the worker without
    ``Fraction.__new__``'s parsing, after a ``gcd`` check) and broadcasts it
    (``scatter(broadcast=True)``);

  a shard task carries only its bounds ``(j0, j1, r0, r1)``, so the client
  does O(1) work per shard;
* each worker decodes a broadcast problem once (cached by a per-run token), restricts
  the claims to its rows (``Claim.restrict``) and runs
  :func:`proofcheck.constructions.claim_check.check_network` on its sequences; it returns
  its verdict, its first witness (sequence index made global), the number of
  claims compared and the multiplicities of its pairs;
* the client merges: ERROR if any shard failed, did not return or raised
  (fail closed: a shard that cannot complete never counts as passed), else
  REFUTED with the first witness in (block, sub-layer, sequence, token) order —
  the witness the single-process run finds — else VERIFIED.

Default: one shard per worker (the check of a shard pays a per-block floor of
O(L) however few tokens it has, so more shards cost more in total).  A worker
that dies mid-run has its shards recomputed by the scheduler on another worker
(which holds the problem: inherited or broadcast); Dask does so up to
``distributed.scheduler.allowed-failures`` times, then raises ``KilledWorker``,
which makes the run ERROR here.

Dask is imported only inside :func:`check_distributed` (the optional extra
``dist``); the single-process path never imports it.  See docs/howto/distributed.md.
"""
from __future__ import annotations

import copyreg
import dataclasses
import gc
import io
import math
import multiprocessing
import os
import pickle
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Callable

from proofcheck.constructions.claim_check import NetworkCheck, check_network
from proofcheck.kernel.limits import collector_paused
from proofcheck.kernel.model import FF
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import plural
from proofcheck.kernel.verdicts import Verdict, Witness


def shard_bounds(lengths, shards: int):
    """Split sequences with ``lengths[j]`` tokens into at most ``shards`` runs of
    consecutive sequences with about equal token counts.  Returns a list of
    ``(j0, j1, r0, r1)``: sequences ``j0 <= j < j1``, rows ``r0 <= i < r1``."""
    total = sum(lengths)
    shards = max(1, min(shards, len(lengths)))
    out, j0, r0, acc = [], 0, 0, 0
    for j, n in enumerate(lengths):
        acc += n
        if acc * shards >= total * (len(out) + 1) and len(out) < shards - 1:
            out.append((j0, j + 1, r0, acc))
            j0, r0 = j + 1, acc
    if j0 < len(lengths):
        out.append((j0, len(lengths), r0, acc))
    return out


def _check_claim_rows(claim, n_rows: int, block: int, sub: str) -> None:
    """The rows a claim names (``claim.rows()``, sorted) lie in ``0 <= i < n_rows``:
    restricting it to a shard would otherwise drop a row that does not exist,
    which the single-process check rejects (ValueError, naming block and row)."""
    rows = claim.rows()
    if rows and (rows[0] < 0 or rows[-1] >= n_rows):
        bad = rows[0] if rows[0] < 0 else rows[-1]
        raise ValueError(f"block {block} {sub}: the {claim.kind} claim names row "
                         f"{bad}, outside the rows 0..{n_rows - 1}")


def restrict_claims(claims, j0, j1, r0, r1, n_rows: int):
    """The claims of one shard (rows renumbered from 0); ``None`` stays ``None``.
    ``n_rows``: rows of the whole problem; a claim naming a row outside
    ``0..n_rows - 1`` raises ``ValueError`` (the shard then fails: ERROR)."""
    if claims is None:
        return None
    memo: dict = {}
    out = []
    for bi, (a, b) in enumerate(claims, start=1):
        _check_claim_rows(a, n_rows, bi, "FF")
        _check_claim_rows(b, n_rows, bi, "SA")
        out.append((a.restrict(r0, r1, j0, j1, memo), b.restrict(r0, r1, j0, j1, memo)))
    return out


def check_shard(net, claims, j0: int, inputs, targets, backend: str = "flint") -> dict:
    """Exact check of one shard (runs on a worker).  ``claims`` are already
    restricted; ``j0`` is the global index of the shard's first sequence."""
    nc = check_network(net, inputs, targets, claims, backend=backend)
    w = nc.witness
    if w is not None and w.sequence is not None:
        w = dataclasses.replace(w, sequence=w.sequence + j0)  # every field kept, code included
    errors = [d for r in nc.results if r.verdict == Verdict.ERROR for d in r.details]
    return {"j0": j0, "verdict": nc.verdict.value, "witness": w,
            "claims_checked": nc.claims_checked, "multiplicities": nc.multiplicities,
            "errors": errors, "seconds": nc.seconds}


def _fraction(p: int, q: int) -> Fraction:
    """``Fraction(p, q)`` for a pair known to be in lowest terms, built without
    ``Fraction.__new__`` (about 10x faster, which matters for the ~10^6
    parameters of a large network).  Raises ``ValueError`` unless ``q > 0`` and
    ``gcd(p, q) == 1``, so a corrupted payload cannot make a non-canonical
    Fraction (whose equality and hashing would be wrong)."""
    if type(p) is not int or type(q) is not int or q <= 0 or math.gcd(p, q) != 1:
        raise ValueError(f"not a reduced fraction: {p!r}/{q!r}")
    x = object.__new__(Fraction)
    x._numerator, x._denominator = p, q
    return x


def _reduce_fraction(x: Fraction):
    return _fraction, (x._numerator, x._denominator)  # the slots: no property calls


def _make_ff(d: int, width: int, shared: bool, ints: tuple, label: str) -> FF:
    """The FF of :func:`_reduce_ff`: ``ints`` = p, q of eta, U (its first row only
    when ``shared``: then every row is that one tuple object, as built), b, W."""
    fr = [_fraction(p, q) for p, q in zip(ints[0::2], ints[1::2])]
    at = 1
    if shared:
        row = tuple(fr[1:1 + d])
        U, at = (row,) * width, 1 + d
    else:
        U, at = tuple(tuple(fr[1 + k * d:1 + (k + 1) * d]) for k in range(width)), 1 + width * d
    b = tuple(fr[at:at + width])
    at += width
    W = tuple(tuple(fr[at + k * d:at + (k + 1) * d]) for k in range(width))
    if at + width * d != len(fr):
        raise ValueError("FF payload of the wrong length")
    return FF(fr[0], U, b, W, label)


def _reduce_ff(ff: FF):
    """An FF as one flat tuple of integers (one Python call per layer instead of
    one per Fraction: the bulk of a network's parameters)."""
    width = len(ff.U)
    d = len(ff.U[0]) if width else 0
    shared = width > 0 and all(u is ff.U[0] for u in ff.U)
    nums = [ff.eta, *(ff.U[0] if shared else (x for u in ff.U for x in u)), *ff.b,
            *(x for w in ff.W for x in w)]
    ints = tuple(v for x in nums for v in ((x._numerator, x._denominator) if type(x) is Fraction
                                            else (x.numerator, x.denominator)))
    return _make_ff, (d, width, shared, ints, ff.label)


class _Pickler(pickle.Pickler):
    """Pickler that writes a Fraction as ``_fraction(p, q)`` and an FF layer as one
    flat tuple of integers (:func:`_reduce_ff`); pickle's memo still stores an
    object referenced twice once."""

    dispatch_table = copyreg.dispatch_table.copy()
    dispatch_table[Fraction] = _reduce_fraction
    dispatch_table[FF] = _reduce_ff


def dumps_problem(net, claims, inputs, targets) -> bytes:
    """The network, claims, inputs and targets as one byte string (pickle
    protocol 5 with Fractions as integer pairs); :func:`loads_problem` inverts it
    exactly (tested: equal objects)."""
    buf = io.BytesIO()
    with collector_paused():  # the temporary tuples would trigger collections over the heap
        _Pickler(buf, protocol=5).dump((net, claims, inputs, targets))
    return buf.getvalue()


def loads_problem(blob: bytes):
    """``(net, claims, inputs, targets)`` from :func:`dumps_problem`.  The cyclic
    garbage collector is paused while the ~10^6 objects are created (it would
    otherwise traverse them again and again: 5x the decoding time at 10^5 tokens)."""
    with collector_paused():
        return pickle.loads(blob)


_LOADED: dict = {}  # worker-side: run token -> decoded problem (the current run only)
# client-side, local clusters started by fork: run token -> problem.  Set before the
# worker processes are forked, so every worker (and a worker the nanny restarts
# after a crash, forked again from this process) holds it without any transfer.
_INHERITED: dict = {}
_AT_FORK = []  # the child-side fork handler, registered once per client process


def _fresh_offload_executor() -> None:
    """After a fork, in the child: a new Dask offload thread pool.  The child
    inherits the client's pool object but not its thread, so a message above
    ``distributed.comm.offload`` (10 MiB: a shard's result at 10^6 tokens) would
    wait forever for a thread that does not exist (seen at 10^6 tokens: the
    second local run in one client process hung)."""
    u = sys.modules.get("distributed.utils")
    if u is not None and isinstance(getattr(u, "_offload_executor", None), ThreadPoolExecutor):
        u._offload_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="Dask-Offload")


def run_shard(blob: bytes | None, token: str, j0: int, j1: int, r0: int, r1: int,
              backend: str = "flint") -> dict:
    """Dask task: the exact check of sequences ``j0 <= j < j1`` (rows ``r0 <= i < r1``)
    of the broadcast problem ``blob``, or, when ``blob`` is None (fork transport),
    of the problem this worker process inherited from the client under ``token``
    (RuntimeError if it has none).  A broadcast problem is decoded once per worker
    process and run (``token``); the claims are restricted to the shard's rows
    here, on the worker.  Returns :func:`check_shard`'s dict plus ``timing`` (seconds
    spent decoding, restricting and checking on the worker; ``problem``: "inherited",
    "decoded" here or "cached" from an earlier shard of the run)."""
    t0, c0 = time.perf_counter(), time.process_time()
    prob = _LOADED.get(token)
    source = "inherited" if blob is None else "cached" if prob is not None else "decoded"
    if blob is None:  # fork transport: the problem came with the process
        prob = _INHERITED.get(token)
        if prob is None:
            raise RuntimeError("this worker was not forked from the client of this run "
                               "(fork transport needs a local cluster started by the run)")
    elif prob is None:
        if _LOADED:  # keep one problem per worker process
            _LOADED.clear()
            gc.unfreeze()
        prob = _LOADED[token] = loads_problem(blob)
        # the decoded problem lives until the next run: out of the collector's
        # reach, so no collection traverses its ~10^6 objects again
        gc.freeze()
    net, claims, inputs, targets = prob
    t1 = time.perf_counter()
    whole = j0 == 0 and j1 == len(inputs)
    sc = claims if whole else restrict_claims(claims, j0, j1, r0, r1,
                                              sum(len(x) for x in inputs))
    t2 = time.perf_counter()
    out = check_shard(net, sc, j0, inputs[j0:j1],
                      None if targets is None else targets[j0:j1], backend)
    out["timing"] = {"decode_s": t1 - t0, "restrict_s": t2 - t1,
                     "check_s": time.perf_counter() - t2, "cpu_s": time.process_time() - c0,
                     "pid": os.getpid(), "problem": source}
    return out


def witness_order(w: Witness):
    """Sort key: (block, sub-layer, sequence, token); checks on the final outputs
    (no block) come after every sub-layer."""
    big = float("inf")
    return (w.block if w.block is not None else big,
            {"FF": 0, "SA": 1}.get(w.sublayer, 2),
            w.sequence if w.sequence is not None else big,
            w.token if w.token is not None else big)


def merge(results, n_shards: int, n_pairs: int, claims_given: bool,
          targets_given: bool = True) -> NetworkCheck:
    """Merge shard results (dicts of :func:`check_shard`, or an exception / ``None``
    for a shard that did not complete) into one :class:`NetworkCheck`.  Without
    targets (``targets_given=False``) only the claims were checked, as in
    :func:`check_network`: VERIFIED needs claims, and no interpolation is reported."""
    res = NetworkCheck(Verdict.ERROR)
    if n_shards < 1:
        res.results.append(CheckResult("distributed exact check", Verdict.ERROR,
                                       ["no shard: the dataset has no sequence"]))
        return res
    done = [r for r in results if isinstance(r, dict)]
    failed = [r for r in results if not isinstance(r, dict)]
    if failed or len(done) != n_shards:
        why = [f"{type(e).__name__}: {e}" for e in failed if e is not None]
        res.results.append(CheckResult(
            "distributed exact check", Verdict.ERROR,
            [f"{n_shards - len(done)} of {n_shards} shard(s) did not complete"] + why[:5]))
        return res
    bad = [d for r in done if r["verdict"] == Verdict.ERROR.value for d in r["errors"]]
    if any(r["verdict"] not in (Verdict.VERIFIED.value, Verdict.REFUTED.value) for r in done):
        res.results.append(CheckResult("distributed exact check", Verdict.ERROR,
                                       bad[:5] or ["a shard ended without a verdict"]))
        return res
    done.sort(key=lambda r: r["j0"])
    res.claims_checked = max(r["claims_checked"] for r in done)
    refuted = [r["witness"] for r in done if r["verdict"] == Verdict.REFUTED.value]
    if refuted:
        w = min(refuted, key=witness_order)
        res.verdict, res.witness = Verdict.REFUTED, w
        what = (f"block {w.block} {w.sublayer}: matches its claim" if w.block is not None
                else "exact interpolation {T(X_j)} = {Y_j}")
        res.results.append(CheckResult(what, Verdict.REFUTED, witness=w))
        return res
    if claims_given:
        res.results.append(CheckResult(
            f"every sub-layer matches its construction claim ({res.claims_checked} claims, "
            f"{n_shards} shard{'s' if n_shards != 1 else ''})", Verdict.VERIFIED))
    if not targets_given:  # claims only (a prefix of a construction)
        res.verdict = Verdict.VERIFIED if claims_given else Verdict.ERROR
        return res
    res.multiplicities = [m for r in done for m in r["multiplicities"]]
    res.verdict = Verdict.VERIFIED
    res.results.append(CheckResult(
        f"exact interpolation {{T(X_j)}} = {{Y_j}} for all {plural(n_pairs, 'pair')} (both inclusions)",
        Verdict.VERIFIED))
    return res


_RUN_LOCK = threading.Lock()  # one run at a time per client process (see below)


def _error(reason: str, t0: float) -> NetworkCheck:
    res = NetworkCheck(Verdict.ERROR)
    res.results.append(CheckResult("distributed exact check", Verdict.ERROR, [reason]))
    res.seconds = time.perf_counter() - t0
    return res


def dask_available() -> bool:
    """True when ``dask.distributed`` can be imported (the ``dist`` extra)."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        return False
    return True


def parse_scheduler(address: str) -> None:
    """Raise ``ValueError`` unless ``address`` is a Dask scheduler address (``tcp://host:port``,
    ``tls://...``, ``inproc://...``); needs the ``dist`` extra."""
    from distributed.comm import parse_address, parse_host_port
    scheme, loc = parse_address(address)
    if scheme in ("tcp", "tls"):
        parse_host_port(loc)


def check_distributed(net, inputs, targets, claims=None, *, workers: int | None = None,
                      scheduler: str | None = None, shards: int | None = None,
                      backend: str = "flint", transport: str | None = None,
                      progress: Callable[[int, int], None] | None = None,
                      on_shard_done: Callable | None = None,
                      stats: dict | None = None) -> NetworkCheck:
    """:func:`check_network` with the sequences sharded over Dask workers.

    ``inputs[j]``: ``(n_j, d)`` tokens; ``targets[j]``: ``(m_j, d)`` tokens (one set
    per input) or None (claims only); ``claims``: as for :func:`check_network`.
    ``workers``: start a local cluster of ``min(workers, len(inputs))``
    single-threaded worker processes; ``scheduler``: address of a running Dask
    scheduler (exactly one of the two).  ``shards``: number of shards (default one
    per worker).  ``transport``: how the problem reaches the workers —
    ``"broadcast"`` (the bytes of :func:`dumps_problem`, once per worker; the only
    choice with ``scheduler``) or ``"fork"`` (local cluster only: the worker
    processes, and any the nanny restarts, are forked from this process after the
    problem is registered, so they hold it with no serialisation, transfer or
    decoding); default ``"fork"`` for a local cluster where the platform can fork,
    else ``"broadcast"``.  Runs that start a local cluster hold a process-wide lock
    (Dask's configuration and the garbage collector's freeze are process-global):
    runs from several threads of one process take turns.
    ``progress(0, total)`` when the shards are submitted and ``progress(done, total)``
    after each shard; ``on_shard_done(client, k)`` is a
    test hook; ``stats`` (a dict, optional) receives the wall seconds of each
    client phase (``cluster_s``: start or connect; ``serialize_s``, in a thread
    during the start; ``broadcast_s``; ``shards_s``), the ``transport``
    and the workers' own ``timing`` per shard (with the worker's ``pid``).
    Raises ``ImportError`` without dask (the ``dist`` extra), ``ValueError`` for
    a bad option combination; every failure during the run (unequal numbers of
    inputs and target sets, no sequence, an unreachable scheduler, a shard that
    does not complete) gives verdict ERROR.
    Outputs are not gathered (``outputs`` stays empty); multiplicities are.
    """
    transport = _transport(workers, scheduler, transport)
    stats = {} if stats is None else stats
    stats["transport"] = transport
    t0 = time.perf_counter()
    if not inputs:
        return _error("no sequence to check", t0)
    if targets is not None and len(targets) != len(inputs):
        return _error(f"{len(inputs)} input sequences but {len(targets)} target sets", t0)
    blob_job = _serialize_in_thread(net, claims, inputs, targets, stats) \
        if transport == "broadcast" else None
    job = (inputs, claims, targets, shards, backend, progress, on_shard_done, stats, t0)
    if scheduler is not None:
        return _on_scheduler(scheduler, blob_job, job)
    return _on_local_cluster(net, workers, transport, blob_job, job)


def _transport(workers, scheduler, transport) -> str:
    """The transport to use (see :func:`check_distributed`); ``ValueError`` for a bad
    option combination."""
    if (workers is None) == (scheduler is None):
        raise ValueError("give exactly one of workers / scheduler")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if transport is None:
        transport = ("fork" if scheduler is None
                     and "fork" in multiprocessing.get_all_start_methods() else "broadcast")
    if transport not in ("fork", "broadcast"):
        raise ValueError(f"transport must be 'fork' or 'broadcast', got {transport!r}")
    if transport == "fork" and scheduler is not None:
        raise ValueError("the fork transport needs a local cluster (workers=K), "
                         "not a running scheduler")
    return transport


def _on_scheduler(scheduler, blob_job, job) -> NetworkCheck:
    """The run on the running Dask scheduler at ``scheduler`` (broadcast transport)."""
    from dask.distributed import Client
    t0 = job[-1]
    try:
        client = Client(scheduler)
    except (OSError, TimeoutError, ValueError) as exc:
        blob_job.cancel()
        return _error(f"cannot connect to the Dask scheduler at {scheduler}: "
                      f"{type(exc).__name__}: {exc}", t0)
    try:
        return _run(client, None, blob_job, *job)
    finally:
        client.close()


def _on_local_cluster(net, workers, transport, blob_job, job) -> NetworkCheck:
    """The run on a local cluster of ``workers`` processes.  The fork start method
    must stay configured while the cluster lives (the nanny restarts a killed worker
    with the method configured then)."""
    import dask
    from dask.distributed import Client, LocalCluster
    inputs, claims, targets = job[0], job[1], job[2]
    cfg = {"distributed.worker.profile.enabled": False}  # no stack sampling every 10 ms
    if transport == "fork":
        cfg["distributed.worker.multiprocessing-method"] = "fork"
    with _RUN_LOCK, dask.config.set(cfg):
        token = f"{time.time_ns()}-{id(net)}"
        froze = transport == "fork" and _inherit(token, (net, claims, inputs, targets))
        try:
            with warnings.catch_warnings():  # the scheduler's HTTP server on a busy port
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                cluster = LocalCluster(n_workers=min(workers, len(inputs)),
                                       threads_per_worker=1, processes=True,
                                       dashboard_address=None)
            try:
                with Client(cluster) as client:
                    return _run(client, token, blob_job, *job)
            finally:
                cluster.close()
        finally:
            _INHERITED.pop(token, None)
            if froze:
                gc.unfreeze()


def _inherit(token: str, problem) -> bool:
    """Register ``problem`` for the workers forked next; returns whether the garbage
    collector was frozen here.  The forked workers share the client's pages until
    they write to them: their collector must stay off the inherited objects (a
    collection would touch, and so copy, every page of the problem).  A caller's
    own freeze is left as it was (gc cannot undo only ours)."""
    if not _AT_FORK:
        os.register_at_fork(after_in_child=_fresh_offload_executor)
        _AT_FORK.append(_fresh_offload_executor)
    _INHERITED[token] = problem
    if gc.get_freeze_count() == 0:
        gc.freeze()
        return True
    return False


def _serialize_in_thread(net, claims, inputs, targets, stats):
    """The broadcast bytes, computed in a thread while the cluster starts."""
    def serialize():
        t = time.perf_counter()
        blob = dumps_problem(net, claims, inputs, targets)
        stats["serialize_s"], stats["problem_bytes"] = time.perf_counter() - t, len(blob)
        return blob
    pool = ThreadPoolExecutor(1)
    job = pool.submit(serialize)
    pool.shutdown(wait=False)
    return job


def _run(client, token, blob_job, inputs, claims, targets, shards, backend,
         progress, on_shard_done, stats, t0) -> NetworkCheck:
    """The shards of one run on a connected client (see :func:`check_distributed`):
    ``blob_job`` the future of the broadcast bytes, or None for the fork transport
    (``token`` names the inherited problem)."""
    from dask.distributed import as_completed
    n_workers = max(1, len(client.scheduler_info().get("workers", {})))
    bounds = shard_bounds([len(x) for x in inputs], shards or n_workers)
    results: list = [None] * len(bounds)
    stats["cluster_s"] = time.perf_counter() - t0
    try:
        blob_f = None
        if blob_job is not None:
            blob = blob_job.result()
            t1 = time.perf_counter()
            blob_f = client.scatter(blob, broadcast=True)  # the problem, once per worker
            del blob
            stats["broadcast_s"] = time.perf_counter() - t1
            token = f"{time.time_ns()}-{id(blob_f)}"
        t1 = time.perf_counter()
        if progress:
            progress(0, len(bounds))  # the phase has started: its heartbeat from now on
        futs = {client.submit(run_shard, blob_f, token, *b, backend,
                              key=f"proofcheck-shard-{k}-{token}", pure=False): k
                for k, b in enumerate(bounds)}
        for n_done, fut in enumerate(as_completed(list(futs)), start=1):
            k = futs[fut]
            try:
                results[k] = fut.result()
            except Exception as exc:  # a shard that cannot complete: fail closed
                results[k] = exc
            if progress:
                progress(n_done, len(bounds))
            if on_shard_done:
                on_shard_done(client, k)
        stats["shards_s"] = time.perf_counter() - t1
        stats["worker_timing"] = [r.get("timing") if isinstance(r, dict) else None
                                  for r in results]
    except Exception as exc:  # serialize / scatter / submit / scheduler failure
        res = merge([exc], len(bounds), len(inputs), claims is not None, targets is not None)
        res.seconds = time.perf_counter() - t0
        return res
    res = merge(results, len(bounds), len(inputs), claims is not None, targets is not None)
    res.seconds = time.perf_counter() - t0
    return res


# ------------------------------------------------------------ the kernel's re-check, sharded

def kernel_shards(*, workers: int | None = None, scheduler: str | None = None,
                  shards: int | None = None, transport: str | None = None,
                  stats: dict | None = None) -> Callable:
    """The ``shards`` argument of :func:`proofcheck.kernel.verify.verify_certificate`: a
    function ``job -> (spans, results)`` that runs the kernel's shard runner
    (:func:`proofcheck.kernel.shards.run_shard`) on shards of consecutive pairs of the
    certificate's dataset over Dask; the kernel combines the results
    (:func:`proofcheck.kernel.shards.combine`: a shard that did not complete is ERROR).
    Options as for :func:`check_distributed`: ``workers`` (a local cluster forked after the
    kernel has read the certificate, so each worker inherits the kernel's own network and
    dataset) or ``scheduler`` (the job pickled once, :func:`dumps_problem`'s Fractions, and
    broadcast); ``shards`` (default one per worker); ``stats`` receives the wall seconds of
    the cluster's start and of the shards, and each shard's own ``units`` and status.
    Raises ``ValueError`` for a bad option combination."""
    transport = _transport(workers, scheduler, transport)
    stats = {} if stats is None else stats

    def run(job):
        stats["transport"] = transport
        if scheduler is not None:
            return _kernel_on_scheduler(job, scheduler, shards, stats)
        return _kernel_on_local_cluster(job, workers, transport, shards, stats)
    return run


def dumps_job(job) -> bytes:
    """A :class:`~proofcheck.kernel.shards.PairsJob` as one byte string (the pickler of
    :func:`dumps_problem`; backend classes by reference)."""
    buf = io.BytesIO()
    with collector_paused():
        _Pickler(buf, protocol=5).dump(job)
    return buf.getvalue()


def run_kernel_shard(blob: bytes | None, token: str, j0: int, j1: int) -> dict:
    """Dask task: the kernel's shard runner on pairs ``j0 <= j < j1`` of the job inherited
    under ``token`` (``blob`` None: fork transport) or broadcast as ``blob`` (decoded once
    per worker process and run, as :func:`run_shard` does)."""
    from proofcheck.kernel.shards import run_shard as kernel_run_shard
    if blob is None:
        job = _INHERITED.get(token)
        if job is None:
            raise RuntimeError("this worker was not forked from the client of this re-check")
    else:
        job = _LOADED.get(token)
        if job is None:
            if _LOADED:
                _LOADED.clear()
                gc.unfreeze()
            job = _LOADED[token] = loads_problem(blob)
            gc.freeze()
    t0, c0 = time.perf_counter(), time.process_time()
    out = kernel_run_shard(job, j0, j1)
    out["timing"] = {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                     "pid": os.getpid()}
    return out


def _kernel_spans(job, n_workers: int, shards: int | None) -> list:
    from proofcheck.kernel.shards import bounds
    return bounds([len(x) for x in job.inputs], shards or n_workers)


def _kernel_tasks(client, blob_f, token, spans, stats) -> list:
    """Submit one task per span; the results in span order (an exception for a shard that
    raised or was lost: the kernel's combination makes it ERROR)."""
    from dask.distributed import as_completed
    t1 = time.perf_counter()
    futs = {client.submit(run_kernel_shard, blob_f, token, j0, j1,
                          key=f"proofcheck-kernel-shard-{k}-{token}", pure=False): k
            for k, (j0, j1) in enumerate(spans)}
    results: list = [None] * len(spans)
    for fut in as_completed(list(futs)):
        try:
            results[futs[fut]] = fut.result()
        except Exception as exc:  # a lost or failing shard: fail closed (ERROR)
            results[futs[fut]] = exc
    stats["shards_s"] = time.perf_counter() - t1
    stats["shard_timing"] = [r.get("timing") if isinstance(r, dict) else None for r in results]
    return results


def _kernel_on_local_cluster(job, workers, transport, shards, stats):
    import dask
    from dask.distributed import Client, LocalCluster
    t0 = time.perf_counter()
    cfg = {"distributed.worker.profile.enabled": False}
    if transport == "fork":
        cfg["distributed.worker.multiprocessing-method"] = "fork"
    n = min(workers, job.n_pairs)
    spans = _kernel_spans(job, n, shards)
    with _RUN_LOCK, dask.config.set(cfg):
        token = f"kernel-{time.time_ns()}-{id(job)}"
        froze = transport == "fork" and _inherit(token, job)
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
            try:
                with Client(cluster) as client:
                    stats["cluster_s"] = time.perf_counter() - t0
                    blob_f = None
                    if transport == "broadcast":
                        blob_f = client.scatter(dumps_job(job), broadcast=True)
                    return spans, _kernel_tasks(client, blob_f, token, spans, stats)
            finally:
                cluster.close()
        finally:
            _INHERITED.pop(token, None)
            if froze:
                gc.unfreeze()


def _kernel_on_scheduler(job, scheduler, shards, stats):
    from dask.distributed import Client
    t0 = time.perf_counter()
    try:
        client = Client(scheduler)
    except (OSError, TimeoutError, ValueError) as exc:  # no shard ran: every one is lost
        spans = _kernel_spans(job, 1, shards)
        return spans, [ConnectionError(f"cannot connect to the Dask scheduler at {scheduler}: "
                                       f"{type(exc).__name__}: {exc}")] * len(spans)
    try:
        stats["cluster_s"] = time.perf_counter() - t0
        n = max(1, len(client.scheduler_info().get("workers", {})))
        spans = _kernel_spans(job, n, shards)
        blob_f = client.scatter(dumps_job(job), broadcast=True)
        token = f"kernel-{time.time_ns()}-{id(blob_f)}"
        return spans, _kernel_tasks(client, blob_f, token, spans, stats)
    finally:
        client.close()
