"""Resource bounds of a check (SPEC §5: exit 4 is "internal error or resource limit"); exceeding
one is RESOURCE-LIMIT (exit 4) naming it: nothing was decided. Values: no numerator or denominator
over :data:`MAX_VALUE_BITS` bits.  Work: every step charges rows x coordinates x terms (attention
scores before they are computed) to ``max(MIN_UNITS, UNITS_PER_BYTE x certificate bytes)``.  Lemma
instances: d <= :data:`MAX_LEMMA_D`.  Outside a check nothing is charged."""
from contextlib import contextmanager
from contextvars import ContextVar

from proofcheck.kernel.errors import ResourceLimit

MAX_VALUE_BITS = 1 << 16
MIN_UNITS = 20_000_000
UNITS_PER_BYTE = 40
MAX_LEMMA_D = 64

_BUDGET: ContextVar = ContextVar("proofcheck_budget", default=None)


@contextmanager
def budget(size_bytes: int | None):
    """The work budget of a certificate of ``size_bytes`` bytes (``None``: unbounded)."""
    units = None if size_bytes is None else max(MIN_UNITS, UNITS_PER_BYTE * size_bytes)
    token = _BUDGET.set(None if units is None else [units, units])  # [left, total]
    try:
        yield
    finally:
        _BUDGET.reset(token)


def charge(units: int, where: str, bits: int = 0) -> None:
    """Charge ``units * (1 + bits // 1024)`` to the running check's budget."""
    b = _BUDGET.get()
    if b is not None:
        b[0] -= units * (1 + bits // 1024)
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
