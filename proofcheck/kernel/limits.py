"""Resource bounds of a check (docs/spec.md §5: exit 4 is "internal error or resource limit"); exceeding
one is RESOURCE-LIMIT (exit 4) naming it: nothing was decided. Values: no numerator or denominator
over :data:`MAX_VALUE_BITS` bits, on every route, after every sub-layer.  Work: every step charges,
before it runs, to ``max(MIN_UNITS, UNITS_PER_BYTE x certificate bytes)`` units: one unit per exact
value a step handles in Python (reads, tests, writes), and one per 8 multiply-adds inside
python-flint's C loops (a matrix product of output size ``r x c`` and inner size ``k`` is ``r c k /
8``), times ``1 + k + k^2 // 64`` for values of ``bits``, ``k = bits // 1024`` (a product of big
numbers costs more than their size; an exact rank of an ``m x m`` matrix: its entries grow
``m``-fold).  Lemma instances: d <= :data:`MAX_LEMMA_D`.  Outside a check nothing
is charged."""
import gc
from contextlib import contextmanager
from contextvars import ContextVar

from proofcheck.kernel.errors import ResourceLimit

MAX_VALUE_BITS = 1 << 16
MIN_UNITS = 20_000_000
UNITS_PER_BYTE = 40
MAX_LEMMA_D = 64

_BUDGET: ContextVar = ContextVar("proofcheck_budget", default=None)


@contextmanager
def collector_paused():
    """No automatic run of Python's cyclic garbage collector inside the block; its state
    (enabled or not) is restored on exit, exception or not.  A check builds tens of millions
    of objects that live until it ends (JSON trees, rows, Fractions); CPython runs a full
    collection, which visits every live object, each time the heap has grown by a quarter,
    and at 10^6 tokens those visits were 41 of the 67 s spent reading a certificate.  The
    objects a check builds hold no reference cycles, so reference counting frees them as
    before; the few cycles (an exception's traceback) wait for the next collection after the
    block.  Changes no value and no verdict: only when garbage cycles are looked for."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextmanager
def budget(size_bytes: int | None, units: int | None = None):
    """The work budget of a certificate of ``size_bytes`` bytes (``None``: unbounded), or of
    exactly ``units`` when given."""
    if units is None and size_bytes is not None:
        units = max(MIN_UNITS, UNITS_PER_BYTE * size_bytes)
    token = _BUDGET.set(None if units is None else [units, units])  # [left, total]
    try:
        yield
    finally:
        _BUDGET.reset(token)


def used() -> int:
    """The units charged so far in the running check (0 outside one)."""
    b = _BUDGET.get()
    return 0 if b is None else b[1] - b[0]


def size_factor(bits: int) -> int:
    """``1 + k + k^2 // 64``, ``k = bits // 1024``: the cost of handling values of ``bits``."""
    k = bits >> 10
    return 1 + k + k * k // 64


def charge(units: int, where: str, bits: int = 0) -> None:
    """Charge ``units * size_factor(bits)`` to the running check's budget."""
    b = _BUDGET.get()
    if b is not None:
        b[0] -= units * size_factor(bits)
        if b[0] < 0:
            raise ResourceLimit(f"the check needs more than its work budget of {b[1]} units "
                                f"(max({MIN_UNITS}, {UNITS_PER_BYTE} x certificate bytes)); "
                                f"stopped before {where}")


def check_bits(bits: int, where: str) -> None:
    """:class:`ResourceLimit` for a value of more than :data:`MAX_VALUE_BITS` bits."""
    if bits > MAX_VALUE_BITS:
        raise ResourceLimit(f"a value of {bits} bits at {where} exceeds the kernel's bound of "
                            f"{MAX_VALUE_BITS} bits per numerator or denominator")


def remaining() -> int | None:
    """Units left in the running check's budget (``None``: no budget is running)."""
    b = _BUDGET.get()
    return None if b is None else b[0]
