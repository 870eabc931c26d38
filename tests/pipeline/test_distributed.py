"""The exact check sharded by sequence (proofcheck.frontend.runs.distributed): shards merged
without Dask give the serial verdict and witness (mutated networks included);
a shard that does not complete makes the run ERROR; on a real local Dask
cluster a worker killed mid-run has its shards recomputed (same verdict as the
serial run), and with no retries allowed the run is ERROR, never VERIFIED."""
from __future__ import annotations

import gc
import os
import random
import signal
import threading
import time
from fractions import Fraction

import pytest
from conftest import NAMED
from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
from proofcheck.frontend.runs.distributed import check_shard, merge, restrict_claims, shard_bounds
from proofcheck.constructions.claim_check import check_network
from mutate import with_parameter
from proofcheck.kernel.verdicts import Verdict


def _data(ds):
    return [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


def _sharded(net, inputs, targets, claims, shards):
    out = []
    for j0, j1, r0, r1 in shard_bounds([len(x) for x in inputs], shards):
        out.append(check_shard(net, restrict_claims(claims, j0, j1, r0, r1,
                                                    sum(map(len, inputs))), j0,
                               inputs[j0:j1], targets[j0:j1]))
    return merge(out, len(out), len(inputs), claims is not None)


@given(st.lists(st.integers(1, 20), min_size=1, max_size=40), st.integers(1, 12))
def test_shard_bounds_cover_every_sequence_once(lengths, shards):
    b = shard_bounds(lengths, shards)
    assert 1 <= len(b) <= min(shards, len(lengths))
    assert b[0][0] == 0 and b[-1][1] == len(lengths) and b[-1][3] == sum(lengths)
    for (j0, j1, r0, r1), nxt in zip(b, b[1:] + [None]):
        assert j0 < j1 and r1 - r0 == sum(lengths[j0:j1])
        if nxt:
            assert nxt[0] == j1 and nxt[2] == r1


@pytest.mark.parametrize("name", ["common-top", "needs-rounds", "tie-heavy"])
def test_sharded_merge_equals_serial_on_mutations(name):
    """Every mutated network: the merged shards give the serial verdict and the
    serial witness (first in block, sub-layer, sequence, token order)."""
    ds = NAMED[name]
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    ok = _sharded(c.net, inputs, targets, c.claims, 3)
    assert ok.verdict == Verdict.VERIFIED
    rng = random.Random(7)
    params = list(c.net.parameters())
    refuted = 0
    for block, sub, pname, value in rng.sample(params, min(25, len(params))):
        mutated = with_parameter(c.net, block, sub, pname,
                                 value + rng.choice([1, -1, Fraction(1, 3)]) * (1 + abs(value)))
        ser = check_network(mutated, inputs, targets, c.claims)
        for shards in (2, len(inputs)):
            par = _sharded(mutated, inputs, targets, c.claims, shards)
            assert par.verdict == ser.verdict, (block, sub, pname)
            if ser.verdict == Verdict.REFUTED:
                assert par.witness == ser.witness
        refuted += ser.verdict == Verdict.REFUTED
    assert refuted >= 5


def test_a_shard_that_does_not_complete_is_error():
    ds = NAMED["common-top"]
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    b = shard_bounds([len(x) for x in inputs], 2)
    n = sum(map(len, inputs))
    good = [check_shard(c.net, restrict_claims(c.claims, *x, n), x[0], inputs[x[0]:x[1]],
                        targets[x[0]:x[1]]) for x in b]
    assert merge(good, 2, len(inputs), True).verdict == Verdict.VERIFIED
    assert merge([good[0], RuntimeError("worker lost")], 2, len(inputs), True).verdict == Verdict.ERROR
    assert merge([good[0], None], 2, len(inputs), True).verdict == Verdict.ERROR
    assert merge([good[0]], 2, len(inputs), True).verdict == Verdict.ERROR


def test_dask_worker_killed_mid_run():
    """Local cluster of 2 worker processes: (1) a mutated network gives the serial
    witness; (2) one worker killed (SIGKILL, by its pid) after the first shard
    came back: its shards are recomputed, verdict VERIFIED like the serial run;
    (3) with no retries allowed the same kill makes the run ERROR."""
    pytest.importorskip("dask.distributed", reason="dask is the optional extra [dist]")
    from dask.distributed import LocalCluster

    from proofcheck.frontend.runs.distributed import check_distributed
    from proofcheck.frontend.io.examples import sample
    ds, _ = sample(limit=40)
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    serial = check_network(c.net, inputs, targets, c.claims)
    assert serial.verdict == Verdict.VERIFIED
    block, sub, pname, value = next(p for p in c.net.parameters()
                                    if p[0] == c.phases["L"][0] + 3 and p[1] == "FF")
    mutated = with_parameter(c.net, block, sub, pname, value + 5)
    ser_bad = check_network(mutated, inputs, targets, c.claims)
    assert ser_bad.verdict == Verdict.REFUTED

    killed = []

    def kill_one(client, k):
        if killed:
            return
        busy = [w for w, keys in client.processing().items() if keys]
        if busy:
            pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        addr = cluster.scheduler_address
        par_bad = check_distributed(mutated, inputs, targets, c.claims, scheduler=addr, shards=6)
        assert par_bad.verdict == Verdict.REFUTED and par_bad.witness == ser_bad.witness

        res = check_distributed(c.net, inputs, targets, c.claims, scheduler=addr, shards=12,
                                on_shard_done=kill_one)
        assert killed, "no worker was busy when the first shard returned"
        assert res.verdict == serial.verdict == Verdict.VERIFIED
        assert res.multiplicities == serial.multiplicities

        killed.clear()
        cluster.scheduler.allowed_failures = 0
        cluster.wait_for_workers(2, timeout=180)  # the nanny restarts the killed one
        res = check_distributed(c.net, inputs, targets, c.claims, scheduler=addr, shards=12,
                                on_shard_done=kill_one)
        assert killed
        assert res.verdict == Verdict.ERROR


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(1, 6))
def test_sharded_equals_serial_on_random_datasets(seed, shards):
    from proofcheck.frontend.io.generate import random_dataset
    ds = random_dataset(seed, d=2, N=6, style="mixed")
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    ser = check_network(c.net, inputs, targets, c.claims)
    par = _sharded(c.net, inputs, targets, c.claims, shards)
    assert par.verdict == ser.verdict == Verdict.VERIFIED
    assert par.multiplicities == ser.multiplicities


def test_single_process_path_imports_no_dask_and_bad_workers_is_usage_error():
    import subprocess
    import sys
    code = ("import sys; from proofcheck.frontend.cli import main; "
            "rc = main(['theorem', '1.6', '--limit', '5', '--no-report']); "
            "print('DASK' if any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules) "
            "else 'NODASK', rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert out.stdout.strip().splitlines()[-1] == "NODASK 0", out.stderr[-2000:]
    from proofcheck.frontend.cli import main
    assert main(["theorem", "1.6", "--limit", "5", "--no-report", "--workers", "0"]) == 2


def test_problem_codec_round_trip_and_rejects_unreduced_fractions():
    """The bytes sent to the workers decode to an equal network, claims and data
    (Fractions rebuilt from (p, q) pairs); a pair not in lowest terms is refused."""
    from proofcheck.frontend.runs.distributed import _fraction, dumps_problem, loads_problem
    ds = NAMED["common-top"]
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    net, claims, xs, ys = loads_problem(dumps_problem(c.net, c.claims, inputs, targets))
    assert net == c.net and claims == c.claims and xs == inputs and ys == targets
    assert all(type(q) is Fraction for blk in net.blocks for q in blk.ff.b)
    shared = [blk.ff.U for blk in c.net.blocks if len(blk.ff.U) > 1 and blk.ff.U[0] is blk.ff.U[1]]
    assert shared  # the construction repeats one row object: the copy keeps it shared
    assert all(blk.ff.U[0] is blk.ff.U[1] for blk in net.blocks
               if len(blk.ff.U) > 1 and blk.ff.U[0] == blk.ff.U[1])
    assert _fraction(-6, 35) == Fraction(-6, 35) and hash(_fraction(3, 1)) == hash(3)
    for p, q in ((2, 4), (1, 0), (1, -3), (1.0, 2)):
        with pytest.raises(ValueError):
            _fraction(p, q)
    good = dumps_problem(Fraction(1, 2), None, [], None)
    bad = good.replace(b"K\x01K\x02", b"K\x02K\x04")  # the pair (1, 2) made (2, 4)
    assert bad != good and loads_problem(good)[0] == Fraction(1, 2)
    with pytest.raises(ValueError):
        loads_problem(bad)


def _needs_rounds_and_a_mutant():
    """The named case "needs-rounds": inputs, targets, construction, and the
    network with one FF parameter of phase L's second block moved by 3."""
    ds = NAMED["needs-rounds"]
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    block, sub, pname, value = next(p for p in c.net.parameters()
                                    if p[0] == c.phases["L"][0] + 1 and p[1] == "FF")
    return inputs, targets, c, with_parameter(c.net, block, sub, pname, value + 3)


def test_run_shard_equals_serial_and_names_the_serial_witness():
    """The worker entry point (decode the broadcast bytes, restrict the claims on
    the worker) on every shard of 3, merged: the serial verdict and witness, for
    the construction and for a mutated network."""
    from proofcheck.frontend.runs.distributed import _LOADED, dumps_problem, run_shard
    inputs, targets, c, mutated = _needs_rounds_and_a_mutant()
    try:
        for k, net in enumerate((c.net, mutated)):
            ser = check_network(net, inputs, targets, c.claims)
            blob = dumps_problem(net, c.claims, inputs, targets)
            b = shard_bounds([len(x) for x in inputs], 3)
            par = merge([run_shard(blob, f"t{k}", *x) for x in b], len(b), len(inputs),
                        True)
            assert par.verdict == ser.verdict and par.witness == ser.witness
        assert ser.verdict == Verdict.REFUTED
    finally:  # run in this process, the worker's decode froze the collector here
        _LOADED.clear()
        gc.unfreeze()


def test_fork_transport_equals_serial_survives_a_killed_worker_and_fails_closed():
    """Local cluster started by the run with the fork transport (the workers
    inherit the problem, nothing is serialised): a mutated network gives the
    serial witness; a worker killed after the first shard came back has its
    shards recomputed, and the worker the nanny starts in its place is forked
    again (it holds the problem and computes later shards): VERIFIED like the
    serial run, nothing decoded on any worker."""
    pytest.importorskip("dask.distributed", reason="dask is the optional extra [dist]")
    import multiprocessing

    from proofcheck.frontend.runs.distributed import _INHERITED, check_distributed
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("the platform cannot fork")
    inputs, targets, c, mutated = _needs_rounds_and_a_mutant()
    ser_bad = check_network(mutated, inputs, targets, c.claims)
    assert ser_bad.verdict == Verdict.REFUTED
    st_: dict = {}
    par_bad = check_distributed(mutated, inputs, targets, c.claims, workers=2, shards=3,
                                stats=st_)
    assert st_["transport"] == "fork" and "serialize_s" not in st_
    assert par_bad.verdict == Verdict.REFUTED and par_bad.witness == ser_bad.witness
    assert {t["problem"] for t in st_["worker_timing"]} == {"inherited"}  # nothing decoded

    killed, pids = [], []

    def kill_one_wait_restart(client, k):
        if killed:
            return
        busy = [w for w, keys in client.processing().items() if keys]
        if busy:
            old = set(client.scheduler_info()["workers"])
            pids.extend(client.run(os.getpid).values())
            pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            for _ in range(600):  # the nanny restarts it: wait, so it gets shards too
                now = set(client.scheduler_info()["workers"])
                if len(now) == 2 and now != old:
                    break
                time.sleep(0.2)

    from proofcheck.frontend.io.examples import sample
    ds, _ = sample(limit=40)
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    serial = check_network(c.net, inputs, targets, c.claims)
    st2: dict = {}
    gc.unfreeze()  # from no freeze: a caller's frozen objects may be freed meanwhile
    frozen = gc.get_freeze_count()
    res = check_distributed(c.net, inputs, targets, c.claims, workers=2, shards=len(inputs),
                            on_shard_done=kill_one_wait_restart, stats=st2)
    assert killed, "no worker was busy when the first shard returned"
    assert res.verdict == serial.verdict == Verdict.VERIFIED, res.results
    assert res.multiplicities == serial.multiplicities
    ran_on = {t["pid"] for t in st2["worker_timing"]}
    assert ran_on - set(pids), "no shard ran on the restarted (forked again) worker"
    assert not _INHERITED and gc.get_freeze_count() == frozen == 0  # the run undid its freeze


def test_fork_transport_options_and_a_worker_without_the_problem():
    """A worker that did not inherit the run's problem raises (the shard cannot
    complete: the merge makes it ERROR); fork with a running scheduler and an
    unknown transport are refused before any work."""
    from proofcheck.frontend.runs.distributed import check_distributed, run_shard
    with pytest.raises(RuntimeError, match="not forked"):
        run_shard(None, "no-such-run", 0, 1, 0, 1)
    assert merge([RuntimeError("not forked")], 1, 1, True).verdict == Verdict.ERROR
    pytest.importorskip("dask.distributed", reason="dask is the optional extra [dist]")
    with pytest.raises(ValueError, match="local cluster"):
        check_distributed(None, [], [], scheduler="tcp://127.0.0.1:1", transport="fork")
    with pytest.raises(ValueError, match="transport"):
        check_distributed(None, [], [], workers=1, transport="pigeon")


_OFFLOAD_RUN = """
import distributed.comm.utils as cu, distributed.utils as du
cu.OFFLOAD_THRESHOLD = 1  # every message through Dask's offload thread pool
du._offload_executor.submit(lambda: None).result()  # the client's pool has its thread
from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
from proofcheck.frontend.runs.distributed import check_distributed
from proofcheck.frontend.io.examples import sample
ds, _ = sample(limit=10)
inputs = [list(p.inputs) for p in ds.pairs]
targets = [list(p.outputs) for p in ds.pairs]
c = construct(inputs, targets, ds.d)
print(check_distributed(c.net, inputs, targets, c.claims, workers=1).verdict.value)
"""


def test_fork_transport_workers_get_a_working_offload_pool():
    """Regression: a forked worker inherits the client's Dask offload pool without
    its thread; a message above the offload threshold then waited forever (the
    second 10^6-token run in one process hung).  With every message offloaded
    and the client's pool thread started, the forked run must finish."""
    pytest.importorskip("dask.distributed", reason="dask is the optional extra [dist]")
    import multiprocessing
    import subprocess
    import sys
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("the platform cannot fork")
    try:
        out = subprocess.run([sys.executable, "-c", _OFFLOAD_RUN], capture_output=True,
                             text=True, timeout=240,
                             cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    except subprocess.TimeoutExpired:
        pytest.fail("the forked worker hung on Dask's offload pool")
    assert out.stdout.strip().splitlines()[-1] == "VERIFIED", out.stderr[-2000:]


def test_bad_runs_are_errors_not_verified():
    """Found by adversarial testing: an extra target set, no sequence, a claim that
    names a row that does not exist (dropped when restricted to a shard) and an
    unreachable scheduler are ERROR, as in the serial check; without targets only
    the claims are reported (no interpolation line)."""
    from proofcheck.frontend.runs.distributed import check_distributed, run_shard, dumps_problem
    from proofcheck.constructions.claims import Moves
    ds = NAMED["needs-rounds"]
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    n = sum(map(len, inputs))
    bi = next(i for i, (a, _) in enumerate(c.claims) if isinstance(a, Moves))
    a, b = c.claims[bi]
    for bad_row in (n + 5, -1):
        cl = list(c.claims)
        cl[bi] = (Moves({**a.targets, bad_row: (Fraction(1),) * ds.d}), b)
        with pytest.raises(ValueError, match=f"block {bi + 1} FF.*row {bad_row}"):
            restrict_claims(cl, 1, len(inputs), len(inputs[0]), n, n)
        blob = dumps_problem(c.net, cl, inputs, targets)
        shards = shard_bounds([len(x) for x in inputs], 2)
        out = []
        for x in shards:
            try:
                out.append(run_shard(blob, f"bad{bad_row}", *x))
            except ValueError as exc:
                out.append(exc)
        assert merge(out, len(shards), len(inputs), True).verdict == Verdict.ERROR
    # claims only: the serial semantics (VERIFIED with claims, nothing on interpolation)
    x = shard_bounds([len(x) for x in inputs], 2)
    parts = [check_shard(c.net, restrict_claims(c.claims, *b_, n), b_[0],
                         inputs[b_[0]:b_[1]], None) for b_ in x]
    m = merge(parts, len(parts), len(inputs), True, targets_given=False)
    assert m.verdict == Verdict.VERIFIED
    assert not any("interpolation" in r.name for r in m.results)
    assert merge(parts, len(parts), len(inputs), False, targets_given=False).verdict \
        == Verdict.ERROR
    assert merge([], 0, 0, True).verdict == Verdict.ERROR
    pytest.importorskip("dask.distributed", reason="dask is the optional extra [dist]")
    extra = targets + [[(Fraction(9),) * ds.d]]
    r = check_distributed(c.net, inputs, extra, c.claims, workers=2)
    assert r.verdict == Verdict.ERROR and "target sets" in r.results[0].details[0]
    assert check_distributed(c.net, [], [], c.claims, workers=1).verdict == Verdict.ERROR


def test_runs_from_threads_take_turns_and_leave_no_global_state():
    """Dask's configuration and the collector's freeze are process-global: two
    fork runs from two threads both VERIFY, and afterwards the start method, the
    registry of inherited problems and a caller's own freeze are as before."""
    pytest.importorskip("dask.distributed", reason="dask is the optional extra [dist]")
    import dask

    from proofcheck.frontend.runs.distributed import _INHERITED, check_distributed
    ds = NAMED["needs-rounds"]
    inputs, targets = _data(ds)
    c = construct(inputs, targets, ds.d)
    before = dask.config.get("distributed.worker.multiprocessing-method")
    out: list = []
    threads = [threading.Thread(target=lambda: out.append(check_distributed(
        c.net, inputs, targets, c.claims, workers=1).verdict)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [Verdict.VERIFIED] * 2
    assert dask.config.get("distributed.worker.multiprocessing-method") == before
    assert not _INHERITED
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert check_distributed(c.net, inputs, targets, c.claims,
                                 workers=1).verdict == Verdict.VERIFIED
        # kept (frozen objects freed by reference counting leave the count)
        assert frozen > 0 and gc.get_freeze_count() > 0.9 * frozen
    finally:
        gc.unfreeze()


def test_cli_dist_options_usage_errors():
    from proofcheck.frontend.cli import main
    base = ["theorem", "1.6", "--limit", "5", "--no-report"]
    pytest.importorskip("dask.distributed", reason="dask is the optional extra [dist]")
    assert main(base + ["--scheduler", "notanaddress"]) == 2
    assert main(base + ["--workers", "100000"]) == 2
    assert main(["theorem", "1.8", "--limit", "5", "--no-report", "--workers", "2"]) == 2


def test_a_workers_run_says_how_long_each_sharded_phase_spent_in_its_shards():
    """``theorem 1.6 --workers 2``: the run's seconds carry ``exact check shards`` and
    ``kernel re-check shards`` (from submitting the shards to the last result), each a part
    of its phase; the time line names them.  A run without workers has neither."""
    from proofcheck.frontend.reporting.summary import time_line
    from proofcheck.frontend.runs.theorem import TheoremOptions, run_theorem
    ds = NAMED["union-3d"]
    run = run_theorem("1.6", ds, opts=TheoremOptions(workers=2))
    assert run.verdict is Verdict.VERIFIED
    for phase in ("exact check", "kernel re-check"):
        assert 0 < run.seconds[f"{phase} shards"] <= run.seconds[phase]
    assert "exact check shards and kernel re-check shards: the parts" in time_line(run.seconds)
    plain = run_theorem("1.6", ds)
    assert not any(k.endswith(" shards") for k in plain.seconds)
