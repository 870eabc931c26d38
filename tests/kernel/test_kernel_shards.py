"""The kernel's re-check in shards of consecutive pairs (proofcheck.kernel.shards,
proofcheck.frontend.runs.distributed.kernel_shards): on refuted certificates (weights mutated so that
several pairs fail) every split gives the verdict, route and witness of one process; a
shard that did not complete, raised or failed a witness check is ERROR, never a pass; a
shard over the value bound or the shards together over the certificate's budget are
RESOURCE-LIMIT; a run's re-check in a forked process gives the in-process verdict, and a
forked re-check that dies is ERROR."""
from __future__ import annotations

import copy
import os
import signal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import proofcheck.kernel.fast  # noqa: F401  (the fast route, as verify loads it)
from proofcheck.frontend.io.certificate_writer import certificate_bytes, seal
from proofcheck.frontend.io.examples import sample
from proofcheck.kernel.errors import ResourceLimit, WitnessCheckFailed
from proofcheck.kernel.shards import PairsJob, ShardFailed, bounds, combine, run_shard
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate
from proofcheck.frontend.runs.theorem import run_theorem

PAIRS = 24
#: the pairs whose snap (one phase-I block per target, in pair order) is mutated
BROKEN = (5, 9, 17)


@pytest.fixture(scope="module")
def certs():
    """The digits sample's first 24 pairs: the run's certificate, and one with the snaps of
    pairs 5, 9 and 17 moved off their targets (re-sealed: only the content is wrong)."""
    run = run_theorem("1.6", sample(limit=PAIRS)[0])
    assert run.verdict is Verdict.VERIFIED
    good = run.certificate
    bad = copy.deepcopy(good)
    snaps = [b for b in bad["network"]["blocks"] if b["phase"] == "I"]
    assert len(snaps) == PAIRS  # one target per pair
    for j in BROKEN:
        w = snaps[j]["ff"]["W"][0]
        w[1] = str(Fraction(w[1]) + 1)
    return good, seal(bad)


def local(n: int):
    """Shards run one after the other in this process (the kernel's shard runner)."""
    def run(job):
        spans = bounds([len(x) for x in job.inputs], n)
        return spans, [run_shard(job, a, b) for a, b in spans]
    return run


def _same(one, sharded):
    assert sharded.verdict == one.verdict and sharded.route == one.route
    assert (sharded.failure is None) == (one.failure is None)
    if one.failure is not None:
        a, b = one.failure, sharded.failure
        assert (a.code, a.sequence, a.token, a.coordinate, a.expected, a.got) == \
            (b.code, b.sequence, b.token, b.coordinate, b.expected, b.got)
    assert [x for x in sharded.lines if not x.startswith("pairs evaluated in")] == one.lines


@pytest.mark.parametrize("route", ["plain", "fast", "auto"])
@pytest.mark.parametrize("n", [1, 2, 3, 7, PAIRS])
def test_sharded_equals_one_process_on_a_refuted_certificate(certs, route, n):
    _, bad = certs
    one = verify_certificate(bad, route=route)
    assert one.verdict is Verdict.REFUTED and one.failure.sequence == BROKEN[0]
    assert one.failure.code == "output-not-target"
    _same(one, verify_certificate(bad, route=route, shards=local(n)))


def test_sharded_equals_one_process_on_a_passing_certificate(certs):
    good, _ = certs
    one = verify_certificate(good, route="fast")
    assert one.verdict is Verdict.VERIFIED
    _same(one, verify_certificate(good, route="fast", shards=local(4)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, PAIRS - 1), unique=True, max_size=6))
def test_any_split_names_the_first_failing_pair(certs, cuts):
    """Shards of any sizes: the witness is the first failing pair's."""
    _, bad = certs
    one = verify_certificate(bad, route="plain")
    edges = [0] + sorted(cuts) + [PAIRS]
    spans = list(zip(edges, edges[1:]))
    got = verify_certificate(bad, route="plain", shards=lambda job: (
        spans, [run_shard(job, a, b) for a, b in spans]))
    _same(one, got)


def _job(certs, units=None):
    from proofcheck.kernel.dataset import embedded_dataset
    from proofcheck.kernel.evaluate import PlainBackend
    from proofcheck.kernel.reader import read_certificate
    from proofcheck.kernel.serialize import network_from_json
    doc = read_certificate(certs[1])
    ds = embedded_dataset(doc["dataset"])
    return PairsJob(network_from_json(doc["network"]), [list(p.inputs) for p in ds.pairs],
                    [list(p.outputs) for p in ds.pairs], (("plain", PlainBackend),), units)


def test_a_lost_or_failed_shard_is_error_never_a_pass(certs):
    job = _job(certs)
    spans = bounds([len(x) for x in job.inputs], 3)
    results = [run_shard(job, a, b) for a, b in spans]
    assert combine(job, spans, results)["witness"]["plain"].sequence == BROKEN[0]
    for broken in ([None] + results[1:], results[:1] + [RuntimeError("worker lost")] + results[2:],
                   results[:2], [{**results[0], "status": "error", "detail": "boom"}] + results[1:],
                   [{**results[0], "status": "verified?"}] + results[1:],
                   [{**results[0], "j1": results[0]["j1"] + 1}] + results[1:]):
        with pytest.raises(ShardFailed):
            combine(job, spans, broken)
    with pytest.raises(ShardFailed):  # the spans themselves must tile the pairs
        combine(job, spans[1:], results[1:])


def test_a_shard_that_raises_inside_the_kernel_is_error(certs, monkeypatch):
    import proofcheck.kernel.shards as ks
    monkeypatch.setattr(ks, "interpolation_witness", lambda *a: 1 / 0)
    out = verify_certificate(certs[1], route="plain", shards=local(2))
    assert out.verdict is Verdict.ERROR
    assert "ZeroDivisionError" in out.lines[-1] or any("ZeroDivisionError" in x for x in out.lines)


def test_a_witness_check_failed_in_a_shard_is_error_naming_the_shortcut(certs, monkeypatch):
    from proofcheck.kernel.fast import flint, witness
    def fail(*a, **k):
        raise WitnessCheckFailed(witness.WINDOW, "stand-in failure")
    monkeypatch.setattr(flint.witness, "inside", fail)
    out = verify_certificate(certs[0], route="fast", shards=local(3))
    assert out.verdict is Verdict.ERROR
    assert any(f"[{witness.WINDOW}]" in x for x in out.lines)


def test_limits_are_resource_limit(certs):
    job = _job(certs, units=10 ** 12)
    spans = bounds([len(x) for x in job.inputs], 2)
    results = [run_shard(job, a, b) for a, b in spans]
    limited = [results[0], {**results[1], "status": "limit", "detail": "a value of 70000 bits"}]
    with pytest.raises(ResourceLimit, match="70000 bits"):
        combine(job, spans, limited)
    # the shards' units are summed against the one budget of the certificate
    used = sum(r["units"] for r in results)
    assert used > 0
    tight = PairsJob(job.net, job.inputs, job.targets, job.routes, used - 1)
    with pytest.raises(ResourceLimit, match="together charged"):
        combine(tight, spans, results)
    assert combine(PairsJob(job.net, job.inputs, job.targets, job.routes, used), spans,
                   results)["units"] == used


def test_a_shard_over_its_budget_stops_with_resource_limit(certs):
    job = _job(certs, units=1000)
    res = run_shard(job, 0, PAIRS)
    assert res["status"] == "limit" and "work budget" in res["detail"]


@given(st.lists(st.integers(1, 30), min_size=1, max_size=50), st.integers(1, 12))
def test_bounds_tile_the_pairs(lengths, n):
    spans = bounds(lengths, n)
    assert 1 <= len(spans) <= min(n, len(lengths))
    assert spans[0][0] == 0 and spans[-1][1] == len(lengths)
    assert all(a < b for a, b in spans) and all(x[1] == y[0] for x, y in zip(spans, spans[1:]))


# ------------------------------------------------------------ over Dask (the [dist] extra)

def test_dask_shards_equal_one_process_and_a_lost_worker_is_error(certs):
    pytest.importorskip("dask.distributed")
    import dask
    from proofcheck.frontend.runs.distributed import kernel_shards
    _, bad = certs
    one = verify_certificate(bad, route="fast")
    stats = {}
    _same(one, verify_certificate(bad, route="fast",
                                  shards=kernel_shards(workers=2, shards=3, stats=stats)))
    assert len(stats["shard_timing"]) == 3 and stats["transport"] == "fork"
    # a worker that dies in every shard: no retry allowed, the re-check is ERROR
    import proofcheck.kernel.shards as ks
    real = ks.run_shard
    try:
        ks.run_shard = lambda *a: os._exit(3)
        import proofcheck.frontend.runs.distributed as pd
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            out = verify_certificate(bad, route="fast", shards=pd.kernel_shards(workers=2))
    finally:
        ks.run_shard = real
    assert out.verdict is Verdict.ERROR
    assert any("did not complete" in x for x in out.lines)


# ------------------------------------------------------------ the run's forked re-check

def test_a_forked_recheck_gives_the_in_process_verdict(monkeypatch):
    import proofcheck.frontend.runs.recheck as rr
    monkeypatch.setattr(rr, "FORK_BYTES", 0)
    run = run_theorem("1.6", sample(limit=6)[0])
    assert run.verdict is Verdict.VERIFIED and run.recheck.waited is not None
    assert run.recheck.cpu is not None  # measured in the forked process
    assert rr.recheck(run.certificate_bytes).lines == run.recheck.lines


@pytest.mark.parametrize("death, why", [(lambda: os._exit(3), "exit status 3"),
                                        (lambda: os.kill(os.getpid(), signal.SIGKILL),
                                         "signal 9")])
def test_a_forked_recheck_that_dies_is_error(monkeypatch, death, why):
    import proofcheck.frontend.runs.recheck as rr
    monkeypatch.setattr(rr, "FORK_BYTES", 0)
    data = certificate_bytes(run_theorem("1.6", sample(limit=3)[0]).certificate)
    monkeypatch.setattr(rr, "recheck", lambda *a, **k: death())
    rc = rr.Pending(data).result()
    assert rc.verdict is Verdict.ERROR and why in rc.lines[0]
