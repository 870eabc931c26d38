"""Readings of a statement whose source admits more than one (docs/spec.md §2: E.1, G.1, C.4).

A statement module with readings declares ``READINGS``, an ordered dict
``name -> one-line description`` whose FIRST entry is the default (the faithful
reading of the source, the one the catalogue title states), and its
``run(dataset=None, seed=0, reading=None)`` accepts one of those names.  The
catalogue (``proofcheck/frontend/registry/builtin.py``, field ``readings``) lists the same
names in the same order; a test keeps the two in step.

* Default run: the checks of the default reading, plus every variant printed as a
  *note* with its witness (:func:`note`).  The note is a check of its own — "this
  variant is false, and here is a certified witness" — so it is VERIFIED when the
  witness refutes the variant, and it can fail: a witness that does not refute
  makes the note ERROR (or INCONCLUSIVE when the comparison was undecided).
* ``--reading VARIANT``: the checks of that variant, with its REFUTED verdict and
  the witness (exit 1).
"""
from __future__ import annotations

from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict


def resolve(readings: dict, reading: str | None) -> str:
    """The reading to run: ``reading`` itself, or the default (first) one for ``None``.
    Raises ``ValueError`` naming the known readings for an unknown name."""
    names = list(readings)
    if reading is None:
        return names[0]
    if reading not in readings:
        raise ValueError(f"unknown reading {reading!r}; readings: {', '.join(names)} "
                         f"(default {names[0]})")
    return reading


def note(sid: str, reading: str, description: str, variant: CheckResult) -> CheckResult:
    """The default run's note on a variant reading, built from that variant's own
    check ``variant`` (the one ``--reading`` reports): VERIFIED iff the variant is
    REFUTED with a witness; the witness is printed in the note's details."""
    name = (f"{sid} note: variant reading '{reading}' ({description}) is false; "
            f"`python -m proofcheck lemma {sid} --reading {reading}` gives its verdict")
    det = [f"variant check: [{variant.verdict.value}] {variant.name}"]
    det += [d for d in variant.details if not d.startswith("convention: ")]
    if variant.verdict == Verdict.REFUTED and variant.witness is not None:
        det.append("witness of the variant: " + variant.witness.describe())
        return CheckResult(name, Verdict.VERIFIED, det)
    if variant.verdict == Verdict.INCONCLUSIVE:
        return CheckResult(name, Verdict.INCONCLUSIVE,
                           det + ["the witness of the variant could not be decided"])
    return CheckResult(name, Verdict.ERROR,
                       det + ["the variant's witness did not refute it (internal error)"])
