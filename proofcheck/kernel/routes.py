"""How ``verify`` evaluates: the plain route (:mod:`.evaluate`) or a fast route the
fast tier (``proofcheck.kernel.fast``, never imported by the plain kernel) registers
here.  ``choose(route, work)``: ``(backend, label)`` — ``"plain"``, ``"fast"``
(``BadInput`` if none is loaded), or ``"auto"``: fast when registered and the work
(tokens x non-identity sub-layers) is above :data:`AUTO_FAST_WORK`.
"""
from __future__ import annotations

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.evaluate import PlainBackend

#: tokens x non-identity sub-layers above which ``auto`` takes the fast route
AUTO_FAST_WORK = 200_000
ROUTES = ("auto", "plain", "fast")

#: name -> (backend class, modules it runs); filled by proofcheck.kernel.fast
FAST: dict[str, tuple] = {}


def register(name: str, backend, modules: tuple[str, ...]) -> None:
    """For the fast tier: ``backend()`` has PlainBackend's interface and values."""
    FAST[name] = (backend, tuple(modules))


def choose(route: str, work: int):
    if route not in ROUTES:
        raise BadInput(f"unknown route {route!r} (use one of {', '.join(ROUTES)})", "--route")
    fast = FAST.get("flint")
    if route == "fast" and fast is None:
        raise BadInput("--route fast: no fast tier is loaded", "--route")
    if route == "fast" or (route == "auto" and fast is not None and work > AUTO_FAST_WORK):
        return fast[0](), f"fast ({', '.join(fast[1])})"
    return PlainBackend(), "plain"
