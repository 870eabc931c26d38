"""The kernel's evaluation of a theorem certificate's pairs, whole or in shards of consecutive
pairs (docs/spec.md §1: an FF layer acts token by token and attention stays inside a sequence, so the
trajectory of each sequence is a function of that sequence and the network alone).

:func:`run_shard` is the shard runner: the evaluation of pairs ``j0 <= j < j1`` on the route(s)
the kernel chose for the whole certificate, under a work budget of its own; :func:`combine`
merges the shards' answers into what one process over every pair gives.  Whoever runs the shards
(a local pool, Dask: :mod:`proofcheck.frontend.runs.distributed`) calls these two and nothing else of the
kernel's decision; every check that is not per pair (reader, digest, dataset SHA-256 and
admissibility, constants, low rank, ``||theta*||^2``) runs once, in the process that calls
:func:`proofcheck.kernel.verify.verify_certificate`.

**Witness order.**  One process evaluates every pair, then checks exact interpolation pair by
pair (:func:`~proofcheck.kernel.evaluate.interpolation_witness`: pair ``j`` in increasing order;
inside it the first output token that is no target, else the first target no output hits).  The
witness is therefore the one of the smallest failing pair index; each shard returns the first
witness among its pairs (its pair index made global), and :func:`combine` takes the one of the
shard with the smallest first pair: the witness one process names, whatever the split.

**Failures.**  A shard that did not return (a lost worker), raised, or answered anything but a
shard result makes the re-check ERROR (:class:`ShardFailed`), never a pass; a fast-tier witness
check that failed in a shard is ERROR naming the shortcut, as in one process; a value over the
bit bound or a shard over its budget is RESOURCE-LIMIT (the first such shard by pair index is
named).  Precedence: ERROR, then RESOURCE-LIMIT, then the verdicts.

**Budget (per certificate, shared).**  Each shard runs under the units the certificate's
budget had left when the pairs' evaluation started (so no shard can do more than one process
could), and reports the units it charged; the shards' units are summed and a sum over those
units is RESOURCE-LIMIT, so the pairs' evaluation of a certificate is held to its one budget
however it is split.  The work of a shard is the work of its pairs (the charges of
:mod:`.evaluate` and the fast tier are per token, per sequence or per sub-layer of the shard):
the sum can exceed one process's charge only by the charges a step makes once per shard.

**Values.**  The bit bound applies after every sub-layer to the values the shard computes: a
maximum over rows (and over the shard's pending offsets on the fast route), so on the plain
route a value over the bound stops some shard exactly when it stops one process."""
from dataclasses import dataclass, replace

from proofcheck.kernel.errors import ResourceLimit, WitnessCheckFailed
from proofcheck.kernel.evaluate import interpolation_witness, run
from proofcheck.kernel.limits import budget, used


class ShardFailed(RuntimeError):
    """A shard did not complete (lost, raised, or answered no shard result): the re-check is
    ERROR."""


@dataclass(frozen=True)
class PairsJob:
    """What every shard of one certificate's hardmax evaluation needs: the kernel's
    ``net`` (read from the certificate), the ``inputs[j]`` ``(n_j, d)`` and ``targets[j]``
    ``(m_j, d)`` of the embedded dataset, the ``routes`` chosen for the whole certificate
    (``(name, backend class)`` pairs: ``plain``, ``fast`` or both, compared) and ``units``, the
    budget left (``None``: unbounded)."""

    net: object
    inputs: list
    targets: list
    routes: tuple
    units: int | None

    @property
    def n_pairs(self) -> int:
        return len(self.inputs)


def _global(w, j0: int):
    return w if w is None or w.sequence is None else replace(w, sequence=w.sequence + j0)


def evaluate(job: PairsJob, j0: int, j1: int) -> dict:
    """Pairs ``j0 <= j < j1`` on each route of ``job`` under the running budget: ``{route:
    (outputs, first witness or None)}``, the witness's pair index global.  Raises
    ``ResourceLimit`` and ``WitnessCheckFailed`` as one process does."""
    out = {}
    for route, backend in job.routes:
        outs = run(job.net, job.inputs[j0:j1], backend())
        out[route] = (outs, _global(interpolation_witness(outs, job.targets[j0:j1])[0], j0))
    return out


def run_shard(job: PairsJob, j0: int, j1: int) -> dict:
    """The shard runner: pairs ``j0 <= j < j1`` evaluated under a budget of ``job.units``.
    Returns ``{"j0", "j1", "status", "units", ...}``: ``status`` ``"done"`` with
    ``witness`` (``{route: first witness or None}``) and ``agree`` (both routes: equal outputs
    and witnesses); ``"limit"`` with ``detail``; ``"witness-check"`` with ``shortcut``,
    ``detail``; ``"error"`` with ``detail`` (an exception inside the kernel)."""
    res = {"j0": j0, "j1": j1, "status": "error", "units": 0}
    with budget(None, job.units):
        try:
            out = evaluate(job, j0, j1)
        except ResourceLimit as e:
            res.update(status="limit", detail=str(e))
        except WitnessCheckFailed as e:
            res.update(status="witness-check", shortcut=e.shortcut, detail=e.detail)
        except Exception as e:  # noqa: BLE001  (fail closed: reported, never a pass)
            res.update(status="error", detail=f"{type(e).__name__}: {e}")
        else:
            outs = list(out.values())
            agree = all(o[0] == outs[0][0] and _key(o[1]) == _key(outs[0][1]) for o in outs)
            res.update(status="done", witness={r: w for r, (_, w) in out.items()}, agree=agree)
        res["units"] = used()
    return res


def _key(w):
    """What two routes' witnesses must share: the code and every located, exact field."""
    return None if w is None else (w.code, w.block, w.sublayer, w.head, w.sequence, w.token,
                                   w.coordinate, w.expected, w.got)


def bounds(lengths, shards: int) -> list[tuple[int, int]]:
    """At most ``shards`` runs ``(j0, j1)`` of consecutive pairs covering every pair, with
    about equal numbers of tokens (``lengths[j]``: tokens of pair j's input)."""
    total, n = sum(lengths), len(lengths)
    shards = max(1, min(shards, n))
    out, j0, acc = [], 0, 0
    for j, m in enumerate(lengths):
        acc += m
        if len(out) < shards - 1 and acc * shards >= total * (len(out) + 1):
            out.append((j0, j + 1))
            j0 = j + 1
    if j0 < n or not out:
        out.append((j0, n))
    return out


def combine(job: PairsJob, spans: list, results: list) -> dict:
    """One answer from the shards' ``results`` (one per ``(j0, j1)`` of ``spans``, in any
    order; an exception or ``None`` for a shard that did not complete): ``{"witness": {route:
    first witness}, "agree": bool, "units": sum}`` as :func:`run_shard` gives for one shard over
    every pair.  Raises :class:`ShardFailed` (ERROR), ``WitnessCheckFailed`` (ERROR naming the
    shortcut) or ``ResourceLimit`` (module docstring: precedence and budget)."""
    done = {}
    for r in results:
        if isinstance(r, dict) and (r.get("j0"), r.get("j1")) in set(spans):
            done[(r["j0"], r["j1"])] = r
    if _uncovered(spans, job.n_pairs):
        raise ShardFailed("the shards do not cover every pair exactly once")
    lost = [s for s in spans if s not in done]
    if lost:
        why = [f"{type(r).__name__}: {r}" for r in results if isinstance(r, BaseException)]
        raise ShardFailed(f"{len(lost)} of {len(spans)} shard(s) did not complete (pairs "
                          + ", ".join(f"{a}..{b - 1}" for a, b in lost[:5]) + ")"
                          + (f": {why[0]}" if why else ""))
    ordered = [done[s] for s in spans]
    for r in ordered:
        if r["status"] == "error":
            raise ShardFailed(f"shard of pairs {r['j0']}..{r['j1'] - 1}: {r.get('detail')}")
        if r["status"] not in ("done", "limit", "witness-check"):
            raise ShardFailed(f"shard of pairs {r['j0']}..{r['j1'] - 1} answered status "
                              f"{r['status']!r}")
    for r in ordered:
        if r["status"] == "witness-check":
            raise WitnessCheckFailed(r["shortcut"], r["detail"])
    for r in ordered:
        if r["status"] == "limit":
            raise ResourceLimit(_where(r, len(spans)) + r["detail"])
    units = sum(r["units"] for r in ordered)
    if job.units is not None and units > job.units:
        raise ResourceLimit(f"the {len(spans)} shards together charged {units} units, more than "
                            f"the {job.units} left in the certificate's work budget")
    first = {route: next((r["witness"][route] for r in ordered
                          if r["witness"][route] is not None), None) for route, _ in job.routes}
    return {"witness": first, "agree": all(r["agree"] for r in ordered), "units": units}


def _where(r, n: int) -> str:
    return "" if n == 1 else f"shard of pairs {r['j0']}..{r['j1'] - 1}: "


def _uncovered(spans, n: int) -> bool:
    """Whether ``spans``, in order, fail to tile ``0..n-1`` exactly."""
    at = 0
    for a, b in spans:
        if a != at or b <= a:
            return True
        at = b
    return at != n
