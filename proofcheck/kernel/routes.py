"""How ``verify`` evaluates: the plain route (:mod:`proofcheck.kernel.evaluate`,
the definitions read literally) or a fast route that the fast tier
(``proofcheck.kernel.fast``) registers here when it is imported.  The plain kernel
never imports the fast tier; the command line does (``verify --route``).

``choose(route, work)`` returns ``(backend, label)``: ``route="plain"`` forces the
plain evaluator, ``"fast"`` the registered fast one (``BadInput`` if none), and
``"auto"`` the fast one when it is registered and the work (tokens x non-identity
sub-layers) is above :data:`AUTO_FAST_WORK`.  ``label`` is the printed ``route:``
value, ``plain`` or ``fast (<modules>)``.
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
    """Called by the fast tier: ``backend()`` evaluates with the same interface and
    the same values as :class:`~proofcheck.kernel.evaluate.PlainBackend`."""
    FAST[name] = (backend, tuple(modules))


def choose(route: str, work: int):
    """``(backend, label)`` for ``route`` (see the module docstring)."""
    if route not in ROUTES:
        raise BadInput(f"unknown route {route!r} (use one of {', '.join(ROUTES)})", "--route")
    fast = FAST.get("flint")
    if route == "fast" and fast is None:
        raise BadInput("--route fast: no fast tier is loaded", "--route")
    if route == "fast" or (route == "auto" and fast is not None and work > AUTO_FAST_WORK):
        return fast[0](), f"fast ({', '.join(fast[1])})"
    return PlainBackend(), "plain"
