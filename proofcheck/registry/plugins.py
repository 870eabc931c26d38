"""Discovery of plugin statements through the ``proofcheck.statements`` entry-point
group (see :mod:`proofcheck.api` and docs/plugins.md)."""
from __future__ import annotations

import sys
from importlib import metadata

GROUP = "proofcheck.statements"


def discover(builtin_ids: set[str]) -> list:
    """``[(spec, distribution name)]`` for every installed plugin statement, in entry
    point order.  A plugin that fails to load, is not a ``StatementSpec``, has an
    unknown flag or clashes with a known id is skipped with a warning on stderr
    (it never replaces a built-in statement)."""
    from proofcheck.api import FLAGS, StatementSpec
    out, seen = [], set(builtin_ids)
    for ep in sorted(metadata.entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
        try:
            spec = ep.load()
        except Exception as exc:  # a broken plugin must not break the tool
            _warn(f"plugin {ep.name!r} ({ep.value}) could not be loaded: "
                  f"{type(exc).__name__}: {exc}")
            continue
        if not isinstance(spec, StatementSpec):
            _warn(f"plugin {ep.name!r} ({ep.value}) is not a proofcheck.api.StatementSpec")
            continue
        if spec.flag not in FLAGS:
            _warn(f"plugin statement {spec.id!r}: flag {spec.flag!r} is not one of {FLAGS}")
            continue
        if spec.id.lower() in seen:
            _warn(f"plugin statement {spec.id!r} from {dist} clashes with a known id; skipped")
            continue
        seen.add(spec.id.lower())
        out.append((spec, dist))
    return out


def _warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr)
