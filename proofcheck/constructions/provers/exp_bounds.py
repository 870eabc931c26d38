"""Coq Interval proves the stated exp bounds of a softmax certificate (Theorem 1.8).

The kernel's softmax check (``proofcheck.kernel.softmax``, docs/spec.md §4 "Softmax") takes, per SA
sub-layer (per head), the stated ``min_gap`` and ``max_eps`` and needs
``max_eps >= min(1, (n - 1) e^(-min_gap / tau))``: ``n`` the most tokens of a sequence,
``tau`` the certificate's.  It decides that with its own arithmetic (an upper end of an arb
ball, floored at ``2^-F``).  Here a second prover, outside that arithmetic, proves the same
inequality for every stated bound: one Coq lemma per bound ::

    Lemma b_k : Rmin 1 (IZR (n - 1) * exp (- (gap / tau))) <= eps.

over Coq's real numbers, the rationals written from the certificate's values, proved by the
``interval`` tactic of the Coq Interval library (at 128, then 1024 bits), and
checked by ``coqc``.  Every bound proved: VERIFIED; a bound Coq does not prove (``interval``
fails to conclude, coqc fails or times out): INCONCLUSIVE naming that bound (a prover's
failure proves nothing false).  The propagation of the bounds (radii, gaps after
perturbation, the final boxes) stays with the kernel: Coq proves the exp bounds only.
Coq or the library missing: :func:`coq_missing` says why, with :data:`INSTALL`.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from proofcheck.kernel.verdicts import Verdict, Witness

#: the Debian packages that provide coqc and the Interval library
COQ_PACKAGES = ("coq", "libcoq-interval")
INSTALL = "apt-get install " + " ".join(COQ_PACKAGES)
#: the precisions (bits) ``interval`` tries, in order
PRECISIONS = (128, 1024)
#: coqc's time limit (seconds) for one certificate's bounds
TIMEOUT_S = 600
#: the axioms a proof may rest on (``Print Assumptions``): the classical axioms of Coq's
#: standard real numbers, and Coq's primitive 63-bit integers with their specifications
#: (Interval computes with them); any other is INCONCLUSIVE
ALLOWED_AXIOMS = ("ClassicalDedekindReals.", "Classical_Prop.classic",
                  "FunctionalExtensionality.functional_extensionality_dep", "PrimInt63.",
                  "Uint63.")


@dataclass(frozen=True)
class ExpBound:
    """One stated bound: SA sub-layer of ``block`` (``head`` 1-based for a multi-head
    layer, else ``None``), ``path`` its JSON path; ``competitors`` = n - 1; ``gap``,
    ``eps`` the stated min_gap and max_eps."""

    block: int
    head: int | None
    path: str
    competitors: int
    gap: Fraction
    eps: Fraction

    def where(self) -> str:
        return f"block {self.block} SA" + (f" head {self.head}" if self.head else "")


@dataclass
class ExpProof:
    """What Coq established: ``verdict`` (VERIFIED: every bound proved; INCONCLUSIVE: one
    not proved, ``witness`` names it), ``proved`` of ``total`` bounds, coqc's ``seconds``."""

    verdict: Verdict
    proved: int
    total: int
    seconds: float = 0.0
    lines: list[str] = field(default_factory=list)
    witness: Witness | None = None
    axioms: frozenset = frozenset()  # what the proofs rest on (Print Assumptions)

    def summary(self) -> str:
        return (f"exp bounds: Coq Interval proved {self.proved} of {self.total} "
                f"({self.seconds:.1f} s)")


def coq_missing() -> str | None:
    """Why Coq Interval cannot run here (with the install command), or ``None``."""
    coqc = shutil.which("coqc")
    if coqc is None:
        return f"coqc is not installed (install: {INSTALL})"
    try:
        where = subprocess.run([coqc, "-where"], capture_output=True, text=True,
                               timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"coqc does not run ({type(exc).__name__}: {exc}; install: {INSTALL})"
    if not (Path(where) / "user-contrib" / "Interval").is_dir():
        return f"the Coq Interval library is not installed (install: {INSTALL})"
    return None


def stated_exp_bounds(cert) -> tuple[Fraction, list[ExpBound]]:
    """``(tau, bounds)`` of a softmax certificate (formats 1 and 2, read as the kernel
    reads them: ``proofcheck.kernel.theorem.stated_bounds``): one bound per SA
    sub-layer and head with a stated ``min_gap`` (``null``: no competitor, no exp
    bound).  Raises ``BadInput`` for a certificate that is not a softmax one."""
    from proofcheck.kernel.errors import BadInput
    from proofcheck.kernel.numbers import parse_exact
    from proofcheck.kernel.theorem import stated_bounds
    sem = cert.get("semantics") or {}
    if cert.get("kind") != "theorem" or sem.get("attention") != "softmax":
        raise BadInput("--prove-exp needs a softmax certificate (Theorem 1.8: semantics."
                       "attention \"softmax\")", "$.semantics.attention")
    tau = parse_exact(sem.get("tau"), "$.semantics.tau", "tau")
    n = max((len(p["input"]) for p in cert["dataset"]["pairs"]), default=1)
    out = []
    for block, sub, hint, path in stated_bounds(cert)[1]:
        if sub != "SA":
            continue
        heads = hint.get("heads")
        for k, h in enumerate(heads if heads is not None else [hint]):
            if h["min_gap"] is None:
                continue
            out.append(ExpBound(block, k + 1 if heads is not None else None,
                                f"{path}.heads[{k}]" if heads is not None else path, n - 1,
                                _fraction(h["min_gap"]), _fraction(h["max_eps"])))
    return tau, out


def _fraction(x) -> Fraction:
    return Fraction(int(x.p), int(x.q)) if hasattr(x, "p") else Fraction(x)


def _real(x: Fraction) -> str:
    """A rational as a Coq real: ``(IZR (p) / IZR (q))``."""
    if x.denominator == 1:
        return f"(IZR ({x.numerator}))"
    return f"(IZR ({x.numerator}) / IZR ({x.denominator}))"


def coq_source(tau: Fraction, bounds: list[ExpBound], assumptions: bool = False
               ) -> tuple[str, dict]:
    """The .v file (one lemma per bound) and ``{line: bound index}`` of each proof;
    ``assumptions``: end with ``Print Assumptions`` of the first lemma (every lemma is
    proved by the same tactic; about 10 s of coqc)."""
    tactic = " | ".join(f"interval with (i_prec {p})" for p in PRECISIONS)
    out = ["From Coq Require Import Reals.", "From Interval Require Import Tactic.",
           "Open Scope R_scope.", ""]
    lines = {}
    for k, b in enumerate(bounds):
        side = "l" if b.eps >= 1 else "r"  # which side of Rmin to bound: a hint, Coq checks
        out.append(f"(* {b.where()}: {b.path} *)")
        out.append(f"Lemma b_{k} : Rmin 1 (IZR ({b.competitors}) * exp (- ({_real(b.gap)} / "
                   f"{_real(tau)}))) <= {_real(b.eps)}.")
        lines[len(out) + 1] = k
        out.append(f"Proof. apply Rle_trans with (1 := Rmin_{side} _ _); first [{tactic}]. Qed.")
    out += ["Print Assumptions b_0."] if assumptions and bounds else []
    return "\n".join(out) + "\n", lines


def axioms(output: str) -> frozenset:
    """The axiom names ``Print Assumptions`` lists in coqc's ``output`` (a name at the
    start of a line, before `` :`` or alone, inside an ``Axioms:`` block)."""
    names, inside = set(), False
    for line in output.splitlines():
        if line.startswith("Axioms:"):
            inside = True
        elif line.startswith("Closed under the global context"):
            inside = False
        elif inside and line[:1].isalpha():
            names.add(re.split(r"\s", line, maxsplit=1)[0])
    return frozenset(names)


def prove(cert, timeout_s: float = TIMEOUT_S, assumptions: bool = False) -> ExpProof:
    """Coq Interval on every stated exp bound of ``cert`` (parsed JSON of a softmax
    certificate the kernel has read).  ``assumptions``: also list the axioms the first
    proof rests on (``ExpProof.axioms``; one outside :data:`ALLOWED_AXIOMS` is
    INCONCLUSIVE).  Raises ``BadInput`` if it is not a softmax certificate; Coq missing
    is INCONCLUSIVE here (the command line exits 2 first)."""
    tau, bounds = stated_exp_bounds(cert)
    missing = coq_missing()
    if missing is not None:
        return ExpProof(Verdict.INCONCLUSIVE, 0, len(bounds), lines=[f"not run: {missing}"])
    if not bounds:
        return ExpProof(Verdict.VERIFIED, 0, 0, lines=["no stated exp bound (no SA sub-layer "
                                                        "has a competitor)"])
    src, at = coq_source(tau, bounds, assumptions)
    with tempfile.TemporaryDirectory(prefix="proofcheck-exp-") as tmp:
        (Path(tmp) / "ExpBounds.v").write_text(src)
        t0 = time.perf_counter()
        try:
            r = subprocess.run(["coqc", "-q", "ExpBounds.v"], cwd=tmp, capture_output=True,
                               text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return _failed(bounds, 0, time.perf_counter() - t0,
                           f"coqc did not finish within {timeout_s:g} s", None)
        sec = time.perf_counter() - t0
    if r.returncode == 0:
        used = axioms(r.stdout)
        odd = sorted(a for a in used if not a.startswith(ALLOWED_AXIOMS))
        if odd:
            return _failed(bounds, 0, sec, "the proofs rest on axioms outside the standard "
                           f"reals and primitive integers: {', '.join(odd)}"[:400], None)
        return ExpProof(Verdict.VERIFIED, len(bounds), len(bounds), sec,
                        [f"every bound proved: Rmin 1 ((n - 1) e^(-min_gap / tau)) <= max_eps, "
                         f"n - 1 = {bounds[0].competitors}, tau = {tau}"]
                        + ([f"Print Assumptions b_0: {len(used)} axioms, all of Coq's standard "
                            "reals and primitive 63-bit integers"] if assumptions else []),
                        axioms=used)
    msg = " ".join((r.stderr + r.stdout).split())
    m = re.search(r"line (\d+)", msg)
    k = at.get(int(m.group(1))) if m else None
    return _failed(bounds, k if k is not None else 0, sec, msg[:400], k)


def _failed(bounds, proved: int, sec: float, why: str, k: int | None) -> ExpProof:
    """INCONCLUSIVE: the first ``proved`` bounds were checked, bound ``k`` was not."""
    b = bounds[k] if k is not None else None
    where = f" at {b.where()} ({b.path})" if b is not None else ""
    w = Witness(f"Coq Interval did not prove the stated exp bound"
                f"{f' {b.path}' if b is not None else ''}: {why}",
                block=b.block if b else None, sublayer="SA" if b else None,
                head=b.head if b else None, expected=">= min(1, (n-1) e^(-min_gap/tau))",
                got=b.eps if b else None, code="exp-bound-not-proved")
    return ExpProof(Verdict.INCONCLUSIVE, proved, len(bounds), sec,
                    [f"not proved{where}: {why}"], w)
