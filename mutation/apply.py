"""Apply one mutant in memory (in a forked child) and fingerprint what the
construction builds.

:func:`apply` compiles the mutated module text (cosmic-ray's
``mutate_code``) and swaps the code objects (and defaults) of the module's own
functions and methods in place, so every caller, including ``from ... import``
bindings in other modules, runs the mutant; nothing is written to disk, so
children can run in parallel next to a working tree.  :func:`fingerprint` is the
hash of the serialised layers and claims the construction routines build on a
sweep of instances: equal hashes are how an equivalent mutant is shown.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib
import types
from fractions import Fraction
from pathlib import Path

from mutation.scope import ROOT


def module_name(path: str) -> str:
    return path[:-3].replace("/", ".")


def mutated_source(spec) -> str | None:
    """The module text with the mutation of ``spec`` (a cosmic-ray MutationSpec)."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    from mutation.operators import register
    register()
    op = cosmic_ray.plugins.get_operator(spec.operator_name)(**(spec.operator_args or {}))
    return mutate_code((ROOT / spec.module_path).read_text(), op, spec.occurrence)


def _codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def _functions(module):
    """``(qualified name, function)`` of every function and method defined in the
    module's file (lru_cache wrappers unwrapped)."""
    seen = set()

    def visit(obj):
        f = getattr(obj, "__wrapped__", obj)
        f = getattr(f, "__func__", f)
        if isinstance(f, property):
            for g in (f.fget, f.fset):
                if g is not None:
                    yield from visit(g)
            return
        if isinstance(f, types.FunctionType) and f.__code__.co_filename == module.__file__ \
                and id(f) not in seen:
            seen.add(id(f))
            yield f.__code__.co_qualname, f
        elif isinstance(obj, type) and obj.__module__ == module.__name__ and id(obj) not in seen:
            seen.add(id(obj))
            for v in vars(obj).values():
                yield from visit(v)
    for v in list(vars(module).values()):
        yield from visit(v)


def apply(spec) -> list[str]:
    """Install the mutant of ``spec`` in the running process.  Returns the
    qualified names of the functions whose code or defaults changed (empty: the
    mutation is not inside a function)."""
    src = mutated_source(spec)
    if src is None:
        return []
    module = importlib.import_module(module_name(str(spec.module_path)))
    return install(module, src)[0]


def install(module, src: str):
    """Swap in the code objects and defaults that ``src`` (the module's text,
    mutated) gives the module's functions.  Returns ``(changed, undo)``: the
    qualified names changed and ``(function, code, defaults, kwdefaults)`` to restore."""
    code = compile(src, module.__file__, "exec")
    new = {c.co_qualname: c for c in _codes(code)}
    ns = {"__name__": module.__name__, "__file__": module.__file__,
          "__package__": module.__package__}
    exec(code, ns)  # noqa: S102  (the mutated module text, for its default values)
    fresh = dict(_functions(_Namespace(ns, module)))
    changed, undo = [], []
    for qual, f in _functions(module):
        c, g = new.get(qual), fresh.get(qual)
        undo.append((f, f.__code__, f.__defaults__, f.__kwdefaults__))
        if c is not None and c != f.__code__:
            f.__code__ = c
            changed.append(qual)
        if g is not None and (g.__defaults__ != f.__defaults__ or g.__kwdefaults__ != f.__kwdefaults__):
            f.__defaults__, f.__kwdefaults__ = g.__defaults__, g.__kwdefaults__
            changed.append(qual + " (defaults)")
    clear_caches()
    return changed, undo


@contextlib.contextmanager
def patched(path: str, old: str, new: str):
    """The module at ``path`` (repository-relative) with its one occurrence of
    ``old`` replaced by ``new``, for the duration of the block (tests: a named
    mutant).  Yields the changed function names."""
    src = (ROOT / path).read_text()
    if src.count(old) != 1:
        raise ValueError(f"mutation anchor {old!r} not found exactly once in {path}")
    module = importlib.import_module(module_name(path))
    changed, undo = install(module, src.replace(old, new))
    try:
        yield changed
    finally:
        for f, c, dflt, kw in undo:
            f.__code__, f.__defaults__, f.__kwdefaults__ = c, dflt, kw
        clear_caches()


class _Namespace:
    """A module-like view of an exec namespace (for :func:`_functions`)."""

    def __init__(self, ns, module):
        self.__dict__.update(ns)
        self.__name__, self.__file__ = module.__name__, module.__file__


def clear_caches() -> None:
    """Drop every ``functools.lru_cache`` of the project's modules (proofs and
    tables cached from the unmutated routines)."""
    import sys
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith(("lemmas", "proofcheck")):
            continue
        for v in list(vars(mod).values()):
            if hasattr(v, "cache_clear") and callable(v.cache_clear):
                v.cache_clear()


# --------------------------------------------------------------------------- fingerprint

def serialise(x):
    """A canonical, label-free text of layers, claims and values."""
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}"
    if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
        return repr(x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return type(x).__name__ + "(" + ",".join(
            f"{f.name}={serialise(getattr(x, f.name))}" for f in dataclasses.fields(x)
            if f.name != "label") + ")"
    if isinstance(x, dict):
        return "{" + ",".join(sorted(f"{serialise(k)}:{serialise(v)}" for k, v in x.items())) + "}"
    if isinstance(x, (list, tuple)):
        return "[" + ",".join(serialise(v) for v in x) + "]"
    if isinstance(x, (set, frozenset)):
        return "{" + ",".join(sorted(serialise(v) for v in x)) + "}"
    if hasattr(x, "__len__") and hasattr(x, "__getitem__"):  # lazy rows
        return "[" + ",".join(serialise(x[i]) for i in range(len(x))) + "]"
    if hasattr(x, "__dict__"):
        return type(x).__name__ + serialise({k: v for k, v in vars(x).items()
                                             if not k.startswith("_") and k != "label"})
    if hasattr(x, "__slots__"):
        return type(x).__name__ + serialise({k: getattr(x, k, None) for k in x.__slots__})
    return repr(x)


def _guard(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except Exception as exc:  # noqa: BLE001  (an exception is part of the behaviour)
        return ("raised", type(exc).__name__, str(exc)[:200])


def fingerprint() -> str:
    """sha256 of everything the construction routines build on the sweep of
    :func:`mutation.sweep.sweep` (layers without labels, claims, chosen values,
    exceptions with their messages)."""
    from mutation.sweep import sweep
    h = hashlib.sha256()
    for label, fn, args, kw in sweep():
        h.update(label.encode())
        h.update(serialise(_guard(fn, *args, **kw)).encode())
    return h.hexdigest()


def source_path(spec) -> Path:
    return ROOT / spec.module_path
