"""The phase spans a construction states (``c.phases``) against the blocks it
built: checked by Theorem 1.6 for every construction and by the phase statements
(``lemma separation`` etc.)."""
from __future__ import annotations

from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness


def phase_spans_check(c) -> CheckResult:
    """The construction's stated phase spans (``c.phases``, name -> (first, last)
    block; a name ``"L, C, I"`` spans several phases) against the blocks it
    built: every block's phase label (``"L+C"``: in both L and C) lies in a span
    of each name it carries, every span holds only blocks carrying one of its
    names, and the spans cover blocks 1..L."""
    ph, L = c.phases, c.net.L

    def parts(text):  # "L+C" and a span named "L, C, I" carry several phase names
        return {x.strip() for x in text.replace("+", ",").split(",") if x.strip()}
    names = [parts(blk.phase) for blk in c.net.blocks]
    spans = {}
    for key, (lo, hi) in ph.items():
        for n in parts(key):
            spans.setdefault(n, []).append((lo, hi))
    bad = next((b for b, ns in enumerate(names, start=1)
                if any(not any(lo <= b <= hi for lo, hi in spans.get(n, ())) for n in ns)), None)
    if bad is None:
        bad = next((b for key, (lo, hi) in ph.items() for b in range(lo, hi + 1)
                    if not 1 <= b <= L or not parts(key) & names[b - 1]), None)
    covered = {b for lo, hi in ph.values() for b in range(lo, hi + 1)}
    ok = bad is None and covered == set(range(1, L + 1))
    stated = ", ".join(f"{n} = {tuple(v)}" for n, v in ph.items())
    return CheckResult("phase spans: every block in the span of its phase, the spans cover the "
                       "blocks", Verdict.VERIFIED if ok else Verdict.REFUTED,
                       [f"{stated}; L = {L} blocks"],
                       None if ok else Witness("phase span or block label out of place", block=bad,
                                               expected=f"blocks 1..{L}, each in its phase's span",
                                               got=stated))
