"""Certified softmax evaluation: the (untrusted) producer of Theorem 1.8
certificates (docs/spec.md §4 "Softmax").

The kernel checks one certificate — a temperature tau, an exp-bound floor
``2^-F`` and per-layer bounds — in one pass
(:func:`proofcheck.kernel.softmax.check_bounds`); this module finds them:

* the hardmax trajectory comes from the fast tier
  (:func:`proofcheck.kernel.fast.softmax.fast_trajectory`, the flint backend's own
  evaluation), computed once per network and dataset (:func:`prepare`);
* a certificate at tau (:func:`certify`) is the kernel's pass in *derive* mode: the
  bounds it writes (gaps rounded down, eps and radii up to 64-bit mantissas) are
  exactly those the kernel re-derives, and any looser ones verify too;
* :func:`choose_floor` searches the floor: the smallest ``F = 256 * 4^k`` for which
  the tau -> 0 limit (every exp bound replaced by ``2^-F``) passes, so that a failure
  at any tau is tau's, never the floor's (each bound at tau is at least its floored
  value and every step is monotone).

Monotonicity: every bound grows with tau, so a certificate at tau covers
``(0, tau]``.  Imports the kernel only.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from proofcheck.constructions.claim_check import run_budget, run_bytes
from proofcheck.kernel.evaluate import f2q
from proofcheck.kernel.fast.softmax import RankOneFF, fast_trajectory
from proofcheck.kernel.numbers import format_q
from proofcheck.kernel.softmax import (
    FLOOR_BITS,
    SARecord,
    Trajectory,
    Undecided,
    check_bounds,
)
from proofcheck.kernel.verdicts import Verdict

__all__ = ["Certificate", "LayerBound", "Trajectory", "certify", "choose_floor", "prepare",
           "sa_records", "v_norm_inf"]


def _frac(x):
    return None if x is None else f2q(x)


@dataclass
class LayerBound:
    """The stated bounds of one non-identity sub-layer: block (1-based), ``"FF"`` or
    ``"SA"``, and for SA the certified gap and the off-argmax mass; ``radius``: the
    largest box radius per coordinate after the layer (``max_width`` = 2 x its
    largest entry); a multi-head SA layer: ``heads``, one ``(min_gap, max_eps)`` per
    head (then ``min_gap``, ``max_eps`` are head 1's)."""

    block: int
    sublayer: str
    radius: list
    min_gap: Fraction | None = None
    max_eps: Fraction | None = None
    straddles: int = 0  # boxes whose projection interval straddles a kink (rank-one U)
    heads: list | None = None

    @property
    def max_width(self) -> Fraction:
        return 2 * max(self.radius, default=Fraction(0))

    def to_json(self) -> dict:
        """The report form: :meth:`certificate_json` plus ``max_width``."""
        return {**self.certificate_json(), "max_width": format_q(self.max_width),
                "straddles": self.straddles}

    def certificate_json(self) -> dict:
        """The ``proofcheck-certificate/2`` entry of this sub-layer."""
        out = {"block": self.block, "sublayer": self.sublayer,
               "radius": [format_q(x) for x in self.radius]}
        gap = lambda g, e: {"min_gap": None if g is None else format_q(g),  # noqa: E731
                            "max_eps": format_q(e)}
        if self.heads is not None:
            out["heads"] = [gap(g, e) for g, e in self.heads]
        elif self.sublayer == "SA":
            out.update(gap(self.min_gap, self.max_eps))
        return out


@dataclass
class Certificate:
    """Outcome of :func:`certify` at ``tau``: verdict, witness, the bounds of every
    non-identity sub-layer reached, the floor ``2^-floor_bits``; ``floored``: some
    exp bound was the floor; ``tau_free``: no softmax layer has a competitor, so the
    certificate does not depend on tau."""

    verdict: Verdict
    tau: Fraction
    witness: object = None
    raw: list = field(default_factory=list)  # the kernel's bounds (fmpq), see ``bounds``
    reason: str = ""
    seconds: float = 0.0
    floor_bits: int = FLOOR_BITS
    floored: bool = False
    tau_free: bool = False

    @property
    def bounds(self) -> list:
        """The :class:`LayerBound` of every sub-layer reached (exact Fractions)."""
        return [_bound(b) for b in self.raw]

    def hints_json(self) -> dict:
        """The ``bounds`` object of a ``proofcheck-certificate/2`` certificate."""
        return {"exp_floor_bits": self.floor_bits,
                "layers": [b.certificate_json() for b in self.bounds]}


def prepare(net, inputs, progress=None) -> Trajectory:
    """The tau-independent hardmax trajectory of ``net`` on ``inputs`` (fast tier);
    ``progress(block, L)`` after each block.  Raises what the evaluation raises, and
    :class:`~proofcheck.kernel.errors.ResourceLimit` past the work budget of the
    construction's own check (:func:`proofcheck.constructions.claim_check.run_bytes`)."""
    with run_budget("the certifier's hardmax trajectory", run_bytes(net, inputs, None)):
        return fast_trajectory(net, inputs, progress)


def _pass(net, inputs, traj, tau, targets, F):
    """The kernel's pass in derive mode.  Where the fast records cannot decide (a box
    may reach an FF layer's support) the certifier gives up at this tau: it is
    untrusted and may be conservative (``verify`` would decide on the plain route)."""
    try:
        return check_bounds(traj, tau, F, targets)
    except Undecided as e:
        from proofcheck.kernel.softmax import Result
        from proofcheck.kernel.verdicts import Witness
        block, j, t = e.where
        return Result(Verdict.INCONCLUSIVE, Witness(
            f"{e}: not certified at this tau", block=block, sublayer="FF", sequence=j,
            token=t, code="box-may-reach-support"), bounds=getattr(e, "bounds", []))


def certify(net, inputs, targets, tau, round_bits=None, progress=None,
            trajectory: Trajectory | None = None, floor_bits: int | None = None) -> Certificate:
    """The certificate of ``net`` at temperature ``tau`` (a positive rational;
    ``None``: the tau -> 0 limit) on ``inputs`` (``(n_j, d)``) against ``targets``.
    ``trajectory``: :func:`prepare`'s result for the same net and inputs;
    ``floor_bits``: the floor (default: :func:`choose_floor`).  ``round_bits`` and
    ``progress`` are accepted for compatibility and ignored.  Never raises: an
    exception is verdict ERROR (fail closed)."""
    t0 = time.perf_counter()
    try:
        tau = None if tau is None else Fraction(tau)
        if tau is not None and tau <= 0:
            raise ValueError("tau must be positive")
        traj = trajectory if trajectory is not None else prepare(net, inputs)
        F = floor_bits if floor_bits is not None else choose_floor(traj, targets, net, inputs)[0]
        res = _pass(net, inputs, traj, tau, targets, F)
        cert = Certificate(res.verdict, tau if tau is not None else Fraction(0), res.witness,
                           res.bounds, floor_bits=F, floored=res.floored, tau_free=res.tau_free)
    except Exception as exc:  # fail closed (at the tau asked for: a run's certificate states it)
        at = tau if isinstance(tau, Fraction) and tau > 0 else Fraction(0)
        cert = Certificate(Verdict.ERROR, at, reason=f"{type(exc).__name__}: {exc}")
    cert.seconds = time.perf_counter() - t0
    return cert


def _bound(b: dict) -> LayerBound:
    heads = None if "heads" not in b else [(_frac(h["min_gap"]), _frac(h["max_eps"]))
                                           for h in b["heads"]]
    first = b if heads is None else b["heads"][0]
    return LayerBound(b["block"], b["sublayer"], [f2q(x) for x in b["radius"]],
                      _frac(first.get("min_gap")), _frac(first.get("max_eps")),
                      b.get("straddles", 0), heads)


def _bits(x) -> int:
    return max(int(x.p).bit_length(), int(x.q).bit_length())


def choose_floor(traj: Trajectory, targets, net=None, inputs=None):
    """``(F, limit certificate, note)``: the smallest ``F = 256 * 4^k`` whose tau -> 0
    limit certificate passes (see the module docstring; cached on the trajectory).
    The search stops, and says so, once ``F`` exceeds ``4 B + 1024`` with ``B`` the
    largest bit size of a gap, range, coordinate bound, kink or reach distance of
    the trajectory (a finer floor then cannot matter)."""
    cached = getattr(traj, "floor", None)
    if cached is not None and cached[3] is targets:
        return cached[:3]
    vals = []
    for r in traj.records:
        if isinstance(r, SARecord):
            for h in r.heads:
                vals += list(h.S) + list(h.Xmax) + ([h.gap] if h.gap is not None else [])
        elif isinstance(r, RankOneFF):
            vals += list(r.kinks) + ([r.D[0]] if r.D else [])
    B = max((_bits(v) for v in vals if v != 0), default=0)
    stop, F = 4 * B + 1024, FLOOR_BITS
    while True:
        c = certify(net, inputs, targets, None, trajectory=traj, floor_bits=F)
        if c.verdict != Verdict.INCONCLUSIVE:
            note = f"exp bounds floored at 2^-{F} (the tau -> 0 limit certificate passes)"
            break
        if F * 4 > stop:
            note = (f"exp bounds floored at 2^-{F}: the tau -> 0 limit certificate still fails "
                    f"there and a finer floor cannot help (data bit size {B}; search stopped "
                    f"at 2^-{F})")
            break
        F *= 4
    traj.floor = (F, c, note, targets)
    return F, c, note


def sa_records(traj: Trajectory) -> list:
    """The SA records of a trajectory (gaps, ranges, the layer), one per head (docs/spec.md §1
    "Extensions": each head has its own gaps)."""
    return [h for r in traj.records if isinstance(r, SARecord) for h in r.heads]


def v_norm_inf(rec: SARecord):
    """``max_a sum_c |V|_ac`` with ``|V| <= |lam| I + sum_r |a_r| |b_r|^T`` (fmpq)."""
    from proofcheck.kernel.softmax import ONE, abs_apply
    return max(abs_apply(rec.layer.V, [ONE] * len(rec.S)), default=ONE)
