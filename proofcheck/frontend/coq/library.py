"""Where Coq and the project's Coq library are: ``coqc`` on PATH (else :class:`CoqUnavailable`,
exit 2, with the install command), the sources in ``coq/`` of the checkout, compiled once per
source and Coq version into a cache folder (``$PROOFCHECK_COQ_CACHE``, default
``~/.cache/proofcheck/coq``), never into the checkout."""
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

#: the Debian/Ubuntu packages of the Coq route (Coq 8.16 and its standard library)
#: (bignums and Interval are the other Coq provers' packages: one install line for all)
PACKAGES = ("coq", "libcoq-bignums", "libcoq-interval")
INSTALL = "apt-get install -y --no-install-recommends " + " ".join(PACKAGES)
#: the project's Coq sources (a source checkout: coq/ beside proofcheck/)
SOURCES = Path(__file__).resolve().parents[3] / "coq"


class CoqUnavailable(Exception):
    """The Coq route cannot run here (``coqc`` missing, no sources): exit 2, never a pass."""


def coqc() -> str:
    """The path of ``coqc``; :class:`CoqUnavailable` with the install command if absent."""
    found = shutil.which("coqc")
    if found is None:
        raise CoqUnavailable(f"coqc is not on PATH; install Coq with: {INSTALL}")
    return found


def version(exe: str) -> str:
    """``coqc --version``'s version number, e.g. ``8.16.1``."""
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60).stdout
    words = out.split()
    return words[words.index("version") + 1] if "version" in words else out.strip()[:40]


def theory_files() -> list[Path]:
    """The library's ``.v`` files in build order (``coq/_CoqProject``)."""
    project = SOURCES / "_CoqProject"
    if not project.is_file():
        raise CoqUnavailable(f"the Coq sources are not found at {SOURCES} (a source checkout of "
                             "proofcheck is needed for the Coq route)")
    return [SOURCES / ln.strip() for ln in project.read_text().splitlines()
            if ln.strip().endswith(".v")]


def cache_root() -> Path:
    env = os.environ.get("PROOFCHECK_COQ_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "proofcheck" / "coq"


def _key(files, ver: str) -> str:
    h = hashlib.sha256(ver.encode())
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def build(exe: str, timeout: float = 1800) -> Path:
    """The folder of the compiled library (``-Q DIR Proofcheck``), compiled on first use.
    ``CoqUnavailable`` if the sources are missing; ``RuntimeError`` with coqc's message if a
    file does not compile (the library is broken: an internal error)."""
    files = theory_files()
    root = cache_root()
    dest = root / f"lib-{_key(files, version(exe))}"
    if (dest / "BUILT").is_file():
        return dest
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="build-", dir=root))
    try:
        for f in files:
            shutil.copy(f, tmp / f.name)
            r = subprocess.run([exe, "-q", "-Q", str(tmp), "Proofcheck", f.name], cwd=tmp,
                               capture_output=True, text=True, timeout=timeout)
            if r.returncode != 0:
                raise RuntimeError(f"coqc failed on coq/theories/{f.name}: "
                                   f"{(r.stdout + r.stderr)[-2000:]}")
        (tmp / "BUILT").write_text("ok\n")
        try:
            tmp.rename(dest)
        except OSError:  # built meanwhile by another run: keep that one
            if not (dest / "BUILT").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest
