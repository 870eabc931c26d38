"""Exceptions that end a run with a clear message (SPEC §5).

``BadInput`` and ``Inadmissible`` map to exit code 2; ``ResourceLimit`` to 4.
Each carries the location of the problem (a JSON path such as
``$.pairs[0].input[1][0]``, or pair/token indices in the message).
"""
from __future__ import annotations


class BadInput(Exception):
    """Malformed input: unreadable file, wrong shape, non-numeric value.

    Attributes: ``message`` (what is wrong), ``path`` (JSON path or file, may be
    ``None``). ``kind`` is the label printed before the message.
    """

    kind = "BAD INPUT"

    def __init__(self, message: str, path: str | None = None):
        self.message = message
        self.path = path
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = f" (at {self.path})" if self.path else ""
        return f"{self.kind}: {self.message}{where}"


class Inadmissible(BadInput):
    """A well-formed dataset that violates a hypothesis of Theorems 1.6/1.8 (SPEC §1)."""

    kind = "INADMISSIBLE"


class ResourceLimit(Exception):
    """A run exceeded a configured limit (exit code 4)."""
