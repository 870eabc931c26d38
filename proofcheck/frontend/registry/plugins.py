"""Discovery of plugin statements through the ``proofcheck.statements`` entry-point
group (see :mod:`proofcheck.frontend.api` and docs/howto/plugins.md).

A plugin's entry point names a :class:`~proofcheck.frontend.registry.statement.Statement`
(the same declaration the built-in statements use) or a tuple of them.  Each is
registered with ``source`` set to the plugin's distribution name.
"""
from __future__ import annotations

import dataclasses
import sys
from importlib import metadata

from proofcheck.frontend.registry.statement import Statement, normalise

GROUP = "proofcheck.statements"
_SKIPPED: list[str] = []  # the warnings of discovery, for the report's index


def discover(known: list[Statement]) -> list[Statement]:
    """Every installed plugin statement, in entry point order.  An entry point that
    fails to load (an exception, or ``sys.exit``, while its module is imported) or is
    not a ``Statement`` (or tuple of them), and a statement whose
    id or alias equals a known name after :func:`normalise` (``Lemma 3.2``,
    ``3.2\\u200b``, ``HAT``), is skipped with a warning on stderr: a plugin never
    replaces or poses as another statement."""
    taken = {normalise(n) for s in known for n in s.names}
    out = []
    for ep in sorted(metadata.entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
        for st in _load(ep):
            clash = sorted(n for n in st.names if normalise(n) in taken)
            if clash:
                _warn(f"plugin statement {st.id!r} from {dist} is skipped: its name(s) "
                      f"{', '.join(map(repr, clash))} equal a built-in statement's or an "
                      "earlier plugin's after normalising case, spaces and prefixes "
                      "(`python -m proofcheck list` shows the names taken)")
                continue
            taken |= {normalise(n) for n in st.names}
            out.append(dataclasses.replace(st, source=dist))
    return out


def _load(ep) -> list[Statement]:
    try:
        obj = ep.load()
    except (Exception, SystemExit) as exc:  # a broken plugin must not break the tool
        _warn(f"plugin {ep.name!r} ({ep.value}) could not be loaded: "
              f"{type(exc).__name__}: {exc}")
        return []
    items = obj if isinstance(obj, (tuple, list)) else (obj,)
    if not items or not all(isinstance(s, Statement) for s in items):
        _warn(f"plugin {ep.name!r} ({ep.value}) is not a proofcheck.api.Statement "
              "(or a tuple of them)")
        return []
    return list(items)


def skipped() -> list[str]:
    """The warnings discovery printed in this process (a plugin or statement skipped),
    each once, in order; ``report`` lists them in its index."""
    return list(dict.fromkeys(_SKIPPED))


def _warn(msg: str) -> None:
    _SKIPPED.append(msg)
    print(f"warning: {msg}", file=sys.stderr)
