"""Exceptions that end a run (docs/spec.md §5): ``BadInput``, ``Inadmissible`` (exit 2, with
the JSON path or file), ``ResourceLimit`` (exit 4)."""


class BadInput(Exception):
    """Malformed input: ``message``, ``path`` (JSON path or file, or ``None``)."""

    kind = "BAD INPUT"

    def __init__(self, message: str, path: str | None = None):
        self.message = message
        self.path = path
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = f" (at {self.path})" if self.path else ""
        return f"{self.kind}: {self.message}{where}"


class Inadmissible(BadInput):
    """A well-formed dataset that violates a hypothesis of Theorems 1.6/1.8 (docs/spec.md §1)."""

    kind = "INADMISSIBLE"


class ResourceLimit(Exception):
    """A run exceeded a configured limit (exit code 4)."""


class WitnessCheckFailed(Exception):
    """A fast-tier shortcut's answer failed the exact check of its witness (the
    certifying-algorithm discipline: the answer is not used).  ``shortcut``: the stable
    code of the shortcut (the table of :mod:`proofcheck.kernel.fast`); ``detail``: what
    failed, with exact values.  The kernel's verdict is ERROR naming the shortcut."""

    def __init__(self, shortcut: str, detail: str):
        self.shortcut, self.detail = shortcut, detail
        super().__init__(f"witness check of the fast tier's {shortcut!r} shortcut failed: {detail}")
