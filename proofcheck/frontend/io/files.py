"""Writing files safely: atomic replacement with mode 0644, an atomic exchange of two
folders, and file-name slugs."""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, mode 0644; the parent folder is
    created.  On any failure nothing is left half-written.  Raises ``OSError``, and
    :class:`NotAFile` when ``path`` exists and is not a regular file
    (:func:`require_replaceable`)."""
    path = Path(path)
    require_replaceable(path)
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


class NotAFile(IsADirectoryError):
    """An output path that exists and is not a regular file (a folder, device, FIFO or
    socket): an atomic write would replace it by a file (as root even ``/dev/null``)."""


def require_replaceable(path: Path, what: str = "output") -> None:
    """Raise :class:`NotAFile` (an ``OSError``) when ``path`` exists, or is a symlink to
    something that exists, and is not a regular file; ``what`` names the option."""
    import stat
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        kind = ("a folder" if stat.S_ISDIR(mode) else "a device" if stat.S_ISCHR(mode)
                or stat.S_ISBLK(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
                "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise NotAFile(21, f"{what} {path} is {kind}, not a regular file: files are written "
                       "by an atomic replacement, which would replace it; choose a file path",
                       str(path))


def require_writable(path: Path, what: str = "output") -> None:
    """Raise ``OSError`` (with ``strerror`` naming ``what``) unless :func:`atomic_write`
    can write ``path``: not a folder, device, FIFO or socket (:class:`NotAFile`), its
    nearest existing ancestor is a folder (missing folders below it are created by
    :func:`atomic_write`), and a file can be created there — tried with a probe file,
    created and removed, since permission bits say nothing for root or a read-only
    mount."""
    path = Path(path)
    folder = next((p for p in path.absolute().parents if p.exists()), None)
    if folder is None or not folder.is_dir():
        raise NotADirectoryError(20, f"{what} {path}: {folder} is not a folder, so the "
                                 "file's folder cannot be created", str(path))
    require_replaceable(path, what)
    require_writable_folder(folder, what)


def require_writable_folder(folder: Path, what: str = "output") -> None:
    """Raise ``OSError`` unless a file can be created in the existing ``folder``
    (a probe file, created and removed)."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".tmp-probe-")
    except OSError as e:
        raise PermissionError(e.errno, f"{what}: cannot write in {folder} ({e.strerror})",
                              str(folder)) from None
    os.close(fd)
    os.unlink(probe)


def slug(name: str) -> str:
    """A file-name-safe form of ``name`` (at most 100 characters, never empty)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:100] or "dataset"


_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100


def exchange(a: Path, b: Path) -> bool:
    """Swap the two existing paths ``a`` and ``b`` (same file system) in ONE atomic step,
    Linux ``renameat2(..., RENAME_EXCHANGE)``: at every moment each name holds one whole
    version.  Returns False, changing nothing, where the C library, kernel or file
    system has no such call (the caller then falls back to two renames); raises
    ``OSError`` for any other failure."""
    import ctypes
    import errno
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(str(a)), _AT_FDCWD, os.fsencode(str(b)), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))
