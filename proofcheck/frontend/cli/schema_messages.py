"""Schema violations worded for people: the ``BadInput`` of a schema violation
(:func:`proofcheck.frontend.io.schemas.schema_error`, the published schemas as users validate
with them; the kernel reads with its own reader) carries jsonschema's error as
``violation``; :func:`worded` replaces jsonschema's message by what the
value is and what was expected ("value is a JSON float (0.5), expected an exact
number ..."), or which keys are not allowed.  Display only: the kernel decided.
"""
from __future__ import annotations

import json

from proofcheck.kernel.errors import BadInput


def _kind_of(v) -> str:
    if isinstance(v, (bool, float)):
        return f"a boolean ({json.dumps(v)})" if isinstance(v, bool) else f"a JSON float ({v!r})"
    return {type(None): "null", int: "an integer", str: "a string", list: "a list",
            dict: "an object"}.get(type(v), type(v).__name__)


def _required_keys(sch) -> set:
    """Keys named by ``required`` anywhere in a small ``not`` sub-schema."""
    if isinstance(sch, list):
        return set().union(*map(_required_keys, sch))
    if not isinstance(sch, dict):
        return set()
    return set(sch.get("required", ())).union(*map(_required_keys, sch.values()))


def describe(err) -> str | None:
    """What is wrong, for a jsonschema error (``None``: its own message says it best)."""
    v = err.instance
    if err.validator in ("anyOf", "oneOf", "type") and not isinstance(v, (list, dict)):
        want = ("an exact number (a JSON integer or a string such as '3', '-7/2', '0.125')"
                if err.validator == "anyOf" else f"type {err.validator_value!r}")
        return f"value is {_kind_of(v)}, expected {want}"
    if err.validator == "not" and isinstance(v, dict):
        banned = sorted(_required_keys(err.validator_value) & set(v))
        if banned:
            return f"key(s) {', '.join(map(repr, banned))} not allowed here"
    return None


def worded(e: BadInput) -> BadInput:
    """``e`` with a schema violation's message worded by :func:`describe` (in place)."""
    err = getattr(e, "violation", None)
    text = None if err is None else describe(err)
    if text is not None:
        e.message = f"{e.message.split(': ', 1)[0]}: {text}"
        e.args = (str(e),)
    return e
