"""Exact-to-float rounding and the certified-rounding check (issue 13, deliverable 3).

``round_q(q, fmt)`` rounds a rational to the NEAREST value of a binary floating
point format (IEEE 754 round-half-to-even, gradual underflow), computed in exact
integer arithmetic — never through a float64 intermediate, so there is no double
rounding for binary32 or bfloat16.  The result is returned as the exact
``Fraction`` of the float, so the rounded network is again an exact rational
network that the trusted checker (:mod:`lemmas.claim_check`) evaluates
exactly.

``certify_rounded(net, inputs, targets, fmt)`` rounds every stored scalar of the
network (``Transformer.parameters()``: FF eta, U, b, W; SA rho and the factored
entries of A and V) and re-runs the exact check of exact interpolation on the
rounded network.  The verdict is about the ROUNDED network: it never changes the
verdict of the exact construction (SPEC §5).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: ``precision`` significand bits (hidden bit
    included), exponent range ``[emin, emax]`` of normal numbers (value
    ``1.f * 2^e``)."""

    name: str
    precision: int
    emin: int
    emax: int

    @property
    def max_finite(self) -> Fraction:
        return Fraction((1 << self.precision) - 1) * Fraction(2) ** (self.emax - self.precision + 1)

    @property
    def min_subnormal(self) -> Fraction:
        return Fraction(2) ** (self.emin - self.precision + 1)


FORMATS = {
    "float64": FloatFormat("float64", 53, -1022, 1023),
    "float32": FloatFormat("float32", 24, -126, 127),
    "bfloat16": FloatFormat("bfloat16", 8, -126, 127),
    "float16": FloatFormat("float16", 11, -14, 15),
}

ROUNDING_NOTE = ("each exact rational stored scalar rounded to the nearest {fmt} value "
                 "(IEEE 754 round-half-to-even, gradual underflow), computed in exact integer "
                 "arithmetic (no double rounding); a value beyond the largest finite {fmt} "
                 "becomes +-inf")


class FormatOverflow(ArithmeticError):
    """A rational whose nearest-rounding in the format is infinite."""


def get_format(name: str) -> FloatFormat:
    """The format named ``name`` (``float64``, ``float32``, ``bfloat16``, ``float16``);
    raises ``KeyError``."""
    return FORMATS[name]


def round_q(q, fmt: FloatFormat) -> Fraction:
    """Nearest ``fmt`` value of the rational ``q`` (ties to even), as an exact Fraction.

    Raises :class:`FormatOverflow` when the rounded magnitude exceeds
    ``fmt.max_finite`` (IEEE: the result would be infinite)."""
    q = q if type(q) is Fraction else Fraction(q)
    n, d = q.numerator, q.denominator
    if n == 0:
        return Fraction(0)
    negative = n < 0
    n = -n if negative else n
    # e = floor(log2 |q|)
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    e = max(e, fmt.emin)                      # subnormal range: fixed quantum
    shift = fmt.precision - 1 - e             # |q| * 2^shift has < 2^precision integer part
    if shift >= 0:
        num, den = n << shift, d
    else:
        num, den = n, d << (-shift)
    m, rem = divmod(num, den)
    if 2 * rem > den or (2 * rem == den and m & 1):
        m += 1
    if m == 0:
        return Fraction(0)
    # the value m * 2^-shift has exponent bit_length(m) - 1 - shift; beyond emax
    # it exceeds the largest finite value (m < 2^precision after rounding up to
    # a power of two just moves to the next binade)
    if m.bit_length() - 1 - shift > fmt.emax:
        raise FormatOverflow(f"{'-' if negative else ''}{_approx(abs(q))} overflows {fmt.name} "
                             f"(largest finite {_approx(fmt.max_finite)})")
    r = Fraction(m, 1 << shift) if shift >= 0 else Fraction(m << (-shift))
    return -r if negative else r


def is_representable(q, fmt: FloatFormat) -> bool:
    """True iff the rational ``q`` is exactly a finite ``fmt`` value."""
    try:
        return round_q(q, fmt) == Fraction(q)
    except FormatOverflow:
        return False


def to_float(q, fmt: FloatFormat) -> float:
    """``round_q(q, fmt)`` as a Python float (exact: every format here is a subset of
    binary64); ``+-inf`` on overflow."""
    try:
        return float(round_q(q, fmt))
    except FormatOverflow:
        return float("inf") if Fraction(q) > 0 else float("-inf")


def _approx(q: Fraction) -> str:
    """A short decimal approximation of a (possibly huge) positive rational."""
    n, d = q.numerator, q.denominator
    e10 = len(str(n)) - len(str(d))
    try:
        return f"{float(q):.6g}"
    except OverflowError:
        return f"~1e{e10}"


def round_network(net, fmt: FloatFormat):
    """``(rounded_net, report)``: every stored scalar of ``net`` rounded with
    :func:`round_q`.  ``report`` = dict with ``changed`` (scalars whose value
    changed), ``total``, ``max_rel_change`` (float), ``overflow`` (list of
    ``(block, sublayer, name, exact)`` that overflow ``fmt``; their rounded value is
    left at the exact one and the network must not be called representable).
    Source: issue 13 deliverable 3; SPEC §1 (stored scalars)."""
    from dataclasses import replace

    from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
    stats = {"changed": 0, "total": 0, "max_rel_change": 0.0, "overflow": []}

    def r(bi, sub, name, x):
        stats["total"] += 1
        try:
            y = round_q(x, fmt)
        except FormatOverflow:
            stats["overflow"].append((bi, sub, name, x))
            return x
        if y != x:
            stats["changed"] += 1
            rel = abs((y - x) / x)
            stats["max_rel_change"] = max(stats["max_rel_change"], float(rel))
        return y

    def rv(bi, sub, name, v):
        return tuple(r(bi, sub, f"{name}[{i}]", x) for i, x in enumerate(v))

    def rfac(bi, nm, f: Factored):
        return Factored(r(bi, "SA", f"{nm}.lam", f.lam),
                        tuple(rv(bi, "SA", f"{nm}.left[{k}]", a) for k, a in enumerate(f.left)),
                        tuple(rv(bi, "SA", f"{nm}.right[{k}]", b) for k, b in enumerate(f.right)))

    blocks = []
    for bi, blk in enumerate(net.blocks, start=1):
        ff = blk.ff
        W = tuple(tuple(r(bi, "FF", f"W[{i}][{k}]", x) for i, x in enumerate(w))
                  for k, w in enumerate(ff.W))
        nff = FF(r(bi, "FF", "eta", ff.eta),
                 tuple(rv(bi, "FF", f"U[{k}]", u) for k, u in enumerate(ff.U)),
                 tuple(r(bi, "FF", f"b[{k}]", x) for k, x in enumerate(ff.b)), W, label=ff.label)
        sa = blk.sa
        pre = [f"heads[{h}]." if sa.H > 1 else "" for h in range(sa.H)]
        nsa = SA.multi(r(bi, "SA", "rho", sa.rho), [
            (rfac(bi, p + "A", A), rfac(bi, p + "V", V)) for p, (A, V) in zip(pre, sa.heads)],
            sa.causal, sa.label)
        blocks.append(replace(blk, ff=nff, sa=nsa) if isinstance(blk, Block) else Block(nff, nsa))
    return Transformer(net.d, blocks), stats


@dataclass
class RoundingCheck:
    """Result of :func:`certify_rounded`.  ``verdict``: exact verdict of exact
    interpolation for the ROUNDED network (REFUTED when a weight overflows);
    ``witness``: its witness; ``departure``: the first sub-layer where the rounded
    network's exact trajectory leaves the original construction's claims (a
    Witness or None; informational); ``stats``: from :func:`round_network`."""

    fmt: str
    verdict: object
    witness: object
    departure: object
    stats: dict
    rounded: object
    seconds: float = 0.0


def certify_rounded(net, inputs, targets, fmt: FloatFormat, claims=None,
                    backend: str = "flint") -> RoundingCheck:
    """Round every weight of ``net`` to ``fmt`` and check exact interpolation of the
    rounded network with the trusted exact checker.  ``inputs[j]``: ``(n_j, d)``,
    ``targets[j]``: ``(m_j, d)`` Fractions; ``claims``: the original construction's
    claims (to locate where the rounded trajectory departs from them).
    Never raises for a bad rounding: overflow gives REFUTED with the parameter as
    witness."""
    import time

    from lemmas.claim_check import check_network
    from proofcheck.kernel.verdicts import Verdict, Witness
    t0 = time.perf_counter()
    rounded, stats = round_network(net, fmt)
    if stats["overflow"]:
        bi, sub, name, x = stats["overflow"][0]
        w = Witness(f"parameter {name} = {_approx(abs(x))} (sign {'-' if x < 0 else '+'}) "
                    f"overflows {fmt.name}: {len(stats['overflow'])} stored scalar(s) have no "
                    f"finite {fmt.name} value", block=bi, sublayer=sub)
        return RoundingCheck(fmt.name, Verdict.REFUTED, w, None, stats, None,
                             time.perf_counter() - t0)
    nc = check_network(rounded, inputs, targets, None, backend=backend)
    departure = None
    if claims is not None and stats["changed"]:
        dc = check_network(rounded, inputs, None, claims, backend=backend)
        departure = dc.witness
    return RoundingCheck(fmt.name, nc.verdict, nc.witness, departure, stats, rounded,
                         time.perf_counter() - t0)
