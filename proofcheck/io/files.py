"""Writing files safely: atomic replacement with mode 0644, and file-name slugs."""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, mode 0644; the parent folder is
    created.  On any failure nothing is left half-written.  Raises ``OSError``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def slug(name: str) -> str:
    """A file-name-safe form of ``name`` (at most 100 characters, never empty)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:100] or "dataset"
