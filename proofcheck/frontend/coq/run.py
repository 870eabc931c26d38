"""Running Coq on a translated certificate (docs/architecture/coq.md): the library compiled once
(:mod:`.library`); a small certificate in one file, a large one as its network prepared and found
well formed once (``Net.v``) and one file per chunk of pairs, ``jobs`` ``coqc`` at a time (after
the first chunk that fails, no new one starts); each file states a claim of
``coq/theories/Semantics.v``, computed at ``Qed`` by Coq's kernel, then ``Print Assumptions``.
A file passes only if ``coqc`` exits 0 and prints "Closed under the global context"; a failed
check is REFUTED only when Coq's own diagnosis names the failing pair (or instance), else ERROR.
Every run is bounded by ``timeout`` seconds (RESOURCE-LIMIT)."""
import re
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from proofcheck.frontend.coq import library, translate
from proofcheck.kernel.errors import BadInput

CLOSED = "Closed under the global context"
#: default bound on the tokens x blocks of one chunk (about a minute of Coq on full digits)
CHUNK_WORK = 1_000_000
#: above this many tokens x blocks a certificate is split in at least two chunks (two cores)
SPLIT_WORK = 100_000
#: exit codes of the outcomes (docs/spec.md §5)
EXIT = {"VERIFIED": 0, "REFUTED": 1, "ERROR": 4, "RESOURCE-LIMIT": 4}
#: worst first; SKIPPED: a chunk not started after another failed
WORST = ["ERROR", "RESOURCE-LIMIT", "REFUTED", "SKIPPED", "VERIFIED"]


@dataclass
class Outcome:
    """``status`` (VERIFIED, REFUTED, ERROR, RESOURCE-LIMIT), ``detail`` (what was checked or
    why it failed), ``witness`` (``{"code", "pair", "token"}`` or ``{"code", "instance"}``),
    ``seconds`` (wall time of the Coq runs), ``runs`` (``(file, seconds)`` each), ``version``."""

    status: str
    detail: str = ""
    witness: dict | None = None
    seconds: float = 0.0
    runs: list = field(default_factory=list)
    version: str = ""

    @property
    def exit_code(self) -> int:
        return EXIT[self.status]

    def line(self) -> str:
        return f"coq: {self.status} ({self.detail}; Coq {self.version}, {self.seconds:.1f} s)"


class _Runner:
    """``coqc`` on files of one work folder, each run timed and bounded."""

    def __init__(self, exe: str, lib: Path, work: Path, timeout: float):
        self.exe, self.lib, self.work, self.timeout = exe, lib, work, timeout
        self.runs: list = []

    def coqc(self, name: str) -> subprocess.CompletedProcess:
        t0 = time.monotonic()
        try:
            r = subprocess.run([self.exe, "-q", "-Q", str(self.lib), "Proofcheck", "-R", ".",
                                "Cert", f"{name}.v"], cwd=self.work, capture_output=True,
                               text=True, timeout=self.timeout)
        finally:
            self.runs.append((f"{name}.v", round(time.monotonic() - t0, 2)))
        return r


def _failure(r) -> str:
    """The end of coqc's message, on one line of printable characters."""
    text = " ".join((r.stderr or r.stdout or "").split())
    return "".join(ch if ch.isprintable() else "?" for ch in text[-600:])


def _closed(r, claims: int) -> bool:
    return r.returncode == 0 and r.stdout.count(CLOSED) == claims and "Axioms:" not in r.stdout


def chunks(th: translate.Theorem, work_per_chunk: int, pairs_per_chunk=None) -> list:
    """``[(lo, hi)]``: consecutive pairs, each chunk at most ``pairs_per_chunk`` pairs or about
    ``work_per_chunk`` tokens x blocks (half the total above :data:`SPLIT_WORK`)."""
    total = sum(th.tokens(j) for j in range(len(th.pairs))) * max(th.blocks, 1)
    if total > SPLIT_WORK:
        work_per_chunk = min(work_per_chunk, (total + 1) // 2)
    out, lo, acc = [], 0, 0
    for j in range(len(th.pairs)):
        acc += th.tokens(j) * max(th.blocks, 1)
        full = (pairs_per_chunk and j + 1 - lo >= pairs_per_chunk) or acc >= work_per_chunk
        if full:
            out.append((lo, j + 1))
            lo, acc = j + 1, 0
    if lo < len(th.pairs):
        out.append((lo, len(th.pairs)))
    return out


def _diagnosis(text: str) -> list[int] | None:
    """The ``list nat`` Coq printed (``= [1%nat; 3%nat; 0%nat] : list nat``), or ``None``."""
    m = re.search(r"=\s*\[([0-9;%nat\s]*)\]\s*:\s*list nat", text)
    if m is None:
        return None
    return [int(x) for x in m.group(1).replace("%nat", "").replace(";", " ").split()]


def _refuted(run: _Runner, diag: str, lo: int, hi: int, failure: str):
    """``(status, detail, witness)`` of a failed check from Coq's diagnosis ``diag``."""
    d = _diagnosis(run.coqc(diag).stdout)
    if d and d[0] in (1, 2) and len(d) == 3:
        code, key = (("output-not-target", "token") if d[0] == 1 else
                     ("target-not-hit", "target"))
        return "REFUTED", f"pair {lo + d[1]}", {"code": code, "pair": lo + d[1], key: d[2]}
    return "ERROR", (f"pairs {lo}..{hi - 1}: coqc did not accept the claim and Coq's "
                     f"diagnosis names no failing pair ({d}): {failure}"), None


def _chunk(run: _Runner, name: str, diag: str, lo: int, hi: int):
    """One file that states and checks the claim for the pairs ``lo <= j < hi``."""
    try:
        r = run.coqc(name)
        if _closed(r, 1):
            return "VERIFIED", "", None
        if r.returncode == 0:
            return "ERROR", f"pairs {lo}..{hi - 1}: Print Assumptions did not say '{CLOSED}'", None
        return _refuted(run, diag, lo, hi, _failure(r))
    except subprocess.TimeoutExpired:
        return "RESOURCE-LIMIT", f"pairs {lo}..{hi - 1}: a Coq run exceeded {run.timeout:g} s", None


def _theorem(run: _Runner, th, jobs: int, work: int, per_chunk):
    parts = chunks(th, work, per_chunk)
    texts = translate.files(th, parts)
    for name, text in texts.items():
        (run.work / f"{name}.v").write_text(text)
    if len(parts) == 1:
        res = [_chunk(run, "Certificate", "Diagnosis", *parts[0])]
    else:
        r = run.coqc("Net")
        if r.returncode != 0:
            return "ERROR", f"Net.v: {_failure(r)}", None
        stop = threading.Event()

        def one(k):
            if stop.is_set():
                return "SKIPPED", "", None
            r = _chunk(run, f"Chunk{k}", f"Diag{k}", *parts[k])
            if r[0] != "VERIFIED":
                stop.set()
            return r
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            res = list(pool.map(one, range(len(parts))))
    worst = min(res, key=lambda r: WORST.index(r[0]))
    if worst[0] != "VERIFIED":
        return worst
    n, c = len(th.pairs), len(parts)
    return "VERIFIED", (f"Theorem 1.6 on {n} pair{'s' * (n != 1)}, set equality per pair, in "
                        f"{c} chunk{'s' * (c != 1)}"), None


def _lemma(run: _Runner, lem):
    for name, text in translate.lemma_files(lem).items():
        (run.work / f"{name}.v").write_text(text)
    r, n = run.coqc("Instances"), lem.count
    if _closed(r, 1):
        what = f"the stated outputs of {n} instance{'s' * (n != 1)} of {lem.statement}"
        return "VERIFIED", what, None
    if r.returncode == 0:
        return "ERROR", f"Print Assumptions did not say '{CLOSED}'", None
    m = re.search(r"=\s*\[([a-z;\s]*)\]\s*:\s*list bool", run.coqc("InstDiag").stdout)
    bools = m.group(1).replace(";", " ").split() if m else []
    if len(bools) == n and "false" in bools:
        k = bools.index("false")
        return "REFUTED", f"instance {k}", {"code": "instance-output", "instance": k}
    return "ERROR", ("coqc did not accept the claim and Coq's diagnosis names no failing "
                     f"instance: {_failure(r)}"), None


def check(path, out=None, jobs: int = 2, timeout: float = 1800,
          chunk_work: int = CHUNK_WORK, chunk_pairs=None) -> Outcome:
    """The Coq outcome of the certificate at ``path``.  ``out``: keep the generated files in
    this folder (created; it must not already hold files).  Raises ``BadInput`` (a certificate
    outside the route, a shape or spelling not transcribed) and
    :class:`~proofcheck.frontend.coq.library.CoqUnavailable` (no ``coqc``, no sources): exit 2."""
    exe = library.coqc()
    cert = translate.read(path)
    job = translate.translate(cert)  # BadInput first: a certificate outside the route
    if (broken := unsealed(cert)) is not None:
        return Outcome("ERROR", broken)
    ver = library.version(exe)
    t0 = time.monotonic()
    try:
        lib = library.build(exe, timeout)
    except subprocess.TimeoutExpired:
        return Outcome("RESOURCE-LIMIT", "compiling the Coq library exceeded the time bound",
                       version=ver)
    with _workdir(out) as work:
        run = _Runner(exe, lib, work, timeout)
        try:
            status, detail, wit = (_theorem(run, job, jobs, chunk_work, chunk_pairs)
                                   if isinstance(job, translate.Theorem) else _lemma(run, job))
        except subprocess.TimeoutExpired:
            status, detail, wit = "RESOURCE-LIMIT", f"a Coq run exceeded {timeout:g} s", None
    return Outcome(status, detail, wit, time.monotonic() - t0, run.runs, ver)


def unsealed(cert: dict) -> str | None:
    """Why ``cert`` contradicts itself before any Coq run (ERROR, as for the kernel): its
    digest is not the SHA-256 of its canonical body; else ``None``.  A certificate stating a
    verdict other than VERIFIED is not a claim this route checks (``BadInput``, exit 2)."""
    from proofcheck.kernel.documents import sha256
    if sha256({k: v for k, v in cert.items() if k != "digest"}) != cert["digest"]:
        return "digest mismatch: the certificate was altered after sealing (Coq not run)"
    if cert["verdict"] != "VERIFIED":
        raise BadInput(f"the certificate states {cert['verdict']}; the Coq route checks the "
                       "claim of a certificate that states VERIFIED", "$.verdict")
    return None


class _workdir:
    """A fresh temporary folder, or ``out`` (created; refused if it holds files)."""

    def __init__(self, out):
        self.out = None if out is None else Path(out)

    def __enter__(self) -> Path:
        if self.out is None:
            self.tmp = tempfile.TemporaryDirectory(prefix="proofcheck-coq-")
            return Path(self.tmp.name)
        if self.out.exists() and (not self.out.is_dir() or any(self.out.iterdir())):
            raise BadInput("--out must be a new or empty folder", str(self.out))
        self.out.mkdir(parents=True, exist_ok=True)
        return self.out

    def __exit__(self, *exc):
        if self.out is None:
            self.tmp.cleanup()
        return False
