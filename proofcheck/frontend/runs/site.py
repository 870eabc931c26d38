"""``python -m proofcheck report``: the runs behind the committed ``reports/``
folder — every statement through :func:`proofcheck.frontend.runs.lemma.run_lemma` (seed 0,
default instances), Theorems 1.6 and 1.8 through
:func:`proofcheck.frontend.runs.theorem.run_theorem`, the installed plugins' statements —
then the pictures, the kernel's re-check of every certificate written, and the pages
(:mod:`proofcheck.frontend.reporting.site`).

Atomic: the site is built in a temporary folder beside ``out`` and replaces it only
when everything succeeded, in one atomic exchange of the two folders (Linux
``renameat2``; elsewhere two renames); on any failure ``out`` is left byte-for-byte as
it was.
Files in ``out`` that the report does not make (the git-ignored ``theorem-*`` run
reports) are carried over.
"""
from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from proofcheck.frontend.io.certificate_writer import write_certificate
from proofcheck.frontend.io.files import atomic_write, exchange, slug
from proofcheck.kernel.errors import BadInput


#: what the report makes inside its folder; anything else there is carried over
MANAGED = ("statements", "img", "certificates", "plugins", "index.md", "index.html")


#: seconds one plugin statement's run may take in the report before it is stopped
PLUGIN_SECONDS = 300.0


def regenerate(out="reports", quick: bool = False, plugin_seconds: float | None = PLUGIN_SECONDS
               ) -> int:
    """Rebuild ``out`` atomically; returns the exit code (0 when every statement run and
    every certificate behaves as recorded; 1 leaves ``out`` unchanged and says why).
    ``quick`` skips the digits-sample runs; ``plugin_seconds`` bounds each plugin
    statement's run (``None``: unbounded).  One report at a time writes beside
    ``out`` (``BadInput`` otherwise); the folders an interrupted report left beside
    ``out`` are removed first (:func:`clean_leftovers`).  Any exception, SIGTERM or
    SIGHUP propagates after the temporary folder is removed, ``out`` untouched.
    Raises ``OSError`` when the folder beside ``out`` cannot be written."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with _one_report(out) as locked, _terminate_as_exit():
        if locked:
            clean_leftovers(out)
        build = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".tmp-{out.name}-"))
        try:
            os.chmod(build, 0o755)
            return _build_and_swap(build, out, quick, plugin_seconds)
        except BaseException:
            print(f"{out}/ left unchanged (the report failed before it was complete)",
                  file=sys.stderr)
            raise
        finally:
            shutil.rmtree(build, ignore_errors=True)


def _build_and_swap(build: Path, out: Path, quick: bool, plugin_seconds) -> int:
    code = _build(build, quick, plugin_seconds)
    if code == 0:
        existed = out.exists()
        _swap_in(build, out)
        print(f"{'replaced' if existed else 'created'} {out}/")
    else:
        print(f"{out}/ left unchanged: a certificate did not re-check as recorded",
              file=sys.stderr)
    return code


@contextmanager
def _one_report(out: Path):
    """Hold an exclusive lock (``flock``) on the folder beside ``out`` while the report
    runs, so that the leftovers :func:`clean_leftovers` removes are never a running
    report's; ``BadInput`` when another report holds it.  Yields whether the lock is
    held (not on systems or file systems without ``flock``: then nothing is cleaned)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover  (not POSIX)
        yield False
        return
    fd = os.open(out.parent, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked = True
        except BlockingIOError:
            raise BadInput(f"another `report` is writing in {out.parent}; wait for it to end",
                           str(out)) from None
        except OSError:  # a file system without flock
            locked = False
        yield locked
    finally:
        os.close(fd)


@contextmanager
def _terminate_as_exit():
    """SIGTERM and SIGHUP raise ``SystemExit`` (128 + signal) while the report runs,
    so its clean-up runs (main thread only; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise SystemExit(128 + signum)
    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def clean_leftovers(out: Path) -> list[Path]:
    """Remove the folders an interrupted report left beside ``out``
    (``.tmp-<out>-XXXXXXXX`` builds, ``.tmp-<out>-old-XXXXXXXX`` holders of the previous
    version) and inside it (``.tmp-<out>-in-XXXXXXXX``, :func:`_replace_inside`); a
    holder is moved back to ``out`` first when ``out`` is missing (the report was
    killed between its two renames).  Call with the report lock held.
    Returns the folders removed (each also named on stderr)."""
    pattern = re.compile(r"\.tmp-" + re.escape(out.name) + r"-(old-|in-)?[a-z0-9_]{8}")
    removed = []
    inside = sorted(out.iterdir()) if out.is_dir() and not out.is_symlink() else []
    for p in sorted(out.parent.iterdir()) + inside:
        if not pattern.fullmatch(p.name) or not p.is_dir() or p.is_symlink():
            continue
        if p.name.startswith(f".tmp-{out.name}-in-") != (p.parent != out.parent):
            continue  # a staging folder only inside out, the others only beside it
        held = p / out.name
        if p.name.startswith(f".tmp-{out.name}-old-") and held.is_dir() and not out.exists():
            os.rename(held, out)
            print(f"restored {out}/ from {p.name}/ (left by an interrupted report)",
                  file=sys.stderr)
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
        print(f"removed {p.name}/ (left by an interrupted report)", file=sys.stderr)
    return removed


def _swap_in(new: Path, out: Path) -> None:
    """Replace the folder ``out`` by ``new`` (same parent): entries of ``out`` the report
    does not make are first hard-linked (else copied) into ``new``; then one atomic
    exchange of the two names (:func:`proofcheck.frontend.io.files.exchange`; ``new`` then holds
    the old version, removed by the caller), or where the system has none two renames,
    the second undone when it fails — a process killed between those two leaves the old
    version in a ``.tmp-<out>-old-*`` folder beside ``out``.  Where ``out`` itself
    cannot be renamed — a mount point (``EBUSY``) or another file system than its
    parent (``EXDEV``) — its contents are replaced instead (:func:`_replace_inside`)."""
    try:
        _swap_folders(new, out)
    except OSError as e:
        if e.errno not in (errno.EBUSY, errno.EXDEV):
            raise
        _replace_inside(new, out)


def _replace_inside(new: Path, out: Path) -> None:
    """Replace the entries of ``out`` the report makes (:data:`MANAGED`) by those of
    ``new``, for a folder that cannot be renamed: ``new``'s entries are copied into a
    staging folder inside ``out`` (``.tmp-<out>-in-*``, the file system of ``out``),
    then each entry is exchanged (or renamed) into place — each entry whole at every
    moment, the entries one after the other; a failure undoes the entries already
    replaced.  Entries the report does not make stay as they are."""
    stage = Path(tempfile.mkdtemp(dir=out, prefix=f".tmp-{out.name}-in-"))
    done = []
    try:
        for name in MANAGED:
            if (new / name).is_dir():
                shutil.copytree(new / name, stage / name, symlinks=True)
            elif (new / name).exists():
                shutil.copy2(new / name, stage / name)
        for name in MANAGED:
            if (stage / name).exists() or (out / name).exists():
                _put_entry(stage / name, out / name)
                done.append(name)
    except BaseException:
        for name in reversed(done):
            _put_entry(stage / name, out / name)
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _put_entry(staged: Path, target: Path) -> None:
    """Swap ``staged`` and ``target`` (same folder tree, same file system), either of
    which may be missing: one atomic exchange where both exist and the system has it,
    else renames (the old entry ends in the staging folder; called again, it swaps
    back)."""
    if staged.exists() and target.exists():
        if exchange(staged, target):
            return
        held = staged.with_name(staged.name + ".old")
        os.rename(target, held)
        os.rename(staged, target)
        os.rename(held, staged)
    elif staged.exists():
        os.rename(staged, target)
    else:
        os.rename(target, staged)


def _swap_folders(new: Path, out: Path) -> None:
    """:func:`_swap_in` for a folder ``out`` that can be renamed."""
    if not out.exists():
        os.rename(new, out)
        return
    for p in out.iterdir():
        if p.name not in MANAGED and not (new / p.name).exists():
            if p.is_dir() and not p.is_symlink():
                shutil.copytree(p, new / p.name, symlinks=True, copy_function=_link_or_copy)
            else:
                _link_or_copy(p, new / p.name)
    if out.is_dir() and not out.is_symlink() and exchange(new, out):
        return
    old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".tmp-{out.name}-old-"))
    try:
        os.rename(out, old / out.name)
    except BaseException:
        old.rmdir()
        raise
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(old / out.name, out)  # if this fails too, the old folder stays in `old`
        old.rmdir()
        raise
    shutil.rmtree(old, ignore_errors=True)


def _link_or_copy(src, dst) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def _build(out: Path, quick: bool, plugin_seconds=PLUGIN_SECONDS) -> int:
    """Write the whole site into the empty folder ``out``; returns the exit code."""
    from proofcheck.frontend.io.generate import random_dataset
    from proofcheck.frontend.registry import load
    from proofcheck.frontend.reporting.site import html, index_head
    cat = load(plugins=False)
    small = random_dataset(7, d=2, N=4, max_n=4, style="mixed")
    small = type(small)("generated-7", small.d, small.pairs, small.notes)
    status, pages = _statements(out, cat)
    const_rows, run16, run18 = _theorems(out, small, quick)
    _pictures(out / "img", cat, small, run16, run18)
    cert_lines, ok = _recheck_certificates(out / "certificates")
    plugin_lines, plugin_pages = _plugins(out, plugin_seconds)
    lines = index_head(cat, status, pages, plugin_lines, const_rows, small, run18.check)
    lines += ["## Certificates", "", "| file | re-checked verdict |", "|---|---|"] + cert_lines
    index = "\n".join(lines) + "\n"
    atomic_write(out / "index.md", index)
    atomic_write(out / "index.html", html(index, {**pages, **plugin_pages}, out))
    print(f"wrote {len(pages)} statement pages, {len(cert_lines)} certificates"
          + (f", {len(plugin_pages)} plugin statements" if plugin_pages else ""))
    return 0 if ok else 1


def _statements(out: Path, cat):
    """Every implemented statement on its default instances (seed 0): its page and,
    where it has certified instances, its certificate.  Returns ``(status, pages)``."""
    from proofcheck.frontend.runs.lemma import run_lemma
    status, pages = {}, {}
    for st in cat:
        if not st.implemented:
            status[st.id] = "planned"
            continue
        run = run_lemma(st, None, 0)
        status[st.id] = run.verdict.value
        pages[st.id] = page_of(run)
        atomic_write(out / "statements" / f"{slug(st.id)}.md", pages[st.id])
        if run.certificate is not None:
            write_certificate(out / "certificates" / f"lemma-{slug(st.id)}.json",
                              run.certificate)
    return status, pages


def page_of(run) -> str:
    """The report page of a :class:`~proofcheck.frontend.runs.lemma.LemmaRun`: its lines and
    scope as ``lemma`` prints them (an argued step as ARGUED, a declared scope that
    what ran does not establish as ``mixed, per check``)."""
    from proofcheck.frontend.reporting.site import statement_page
    from proofcheck.frontend.runs.lemma import run_lines, scope_text
    return statement_page(run.statement, run_lines(run), run.verdict, run.instance,
                          scope_text(run))


def _theorems(out: Path, small, quick: bool):
    """Theorem 1.6 on ``small`` (and the digits sample unless ``quick``), Theorem 1.8 on
    ``small``, with their certificates.  Returns ``(constant rows, the first 1.6 run,
    the 1.8 run)``."""
    from proofcheck.frontend.io.examples import sample
    from proofcheck.frontend.runs.theorem import run_theorem
    const_rows, first = [], None
    for ds in [small] + ([] if quick else [sample()[0]]):
        run16 = run_theorem("1.6", ds)
        first = first or run16
        const_rows.append((f"1.6 on `{ds.name}`", run16.check.constants, run16.verdict))
        write_certificate(out / "certificates" / f"theorem-1.6-{slug(ds.name)}.json",
                          run16.certificate)
    run18 = run_theorem("1.8", small)
    const_rows.append((f"1.8 on `{small.name}`", run18.check.constants, run18.verdict))
    write_certificate(out / "certificates" / f"theorem-1.8-{slug(small.name)}.json",
                      run18.certificate)
    return const_rows, first, run18


def _pictures(img: Path, cat, small, run16, run18) -> None:
    from proofcheck.kernel.verdicts import fmt_num
    from proofcheck.frontend.registry import dependency_edges
    from proofcheck.frontend.reporting.plots import (
        dependency_plot,
        gap_plot,
        softmax_error_plot,
        trajectory_plot,
    )
    stages, spans = trajectory_stages(run16.check.construction, small)
    trajectory_plot(img / "trajectory.png", stages, spans,
                    f"Theorem 1.6 pipeline on '{small.name}' (first two coordinates)")
    sc = run18.check
    bounds = [b.to_json() for b in sc.certificate.bounds if b.sublayer == "SA"]
    gap_plot(img / "gaps.png", bounds,
             f"Theorem 1.8 on '{small.name}' at tau_cert = {fmt_num(sc.tau_cert)}")
    softmax_error_plot(img / "softmax-error.png", sc.sim_curve, sc.trials, sc.tau_cert,
                       sc.tau_num, f"Theorem 1.8 on '{small.name}'", tau_free=sc.tau_free,
                       simulation=sc.simulation)
    nodes = [s.id for s in cat if s.implemented]
    dependency_plot(img / "dependencies.png", dependency_edges(cat), nodes,
                    "statements and what their proofs use")


STAGES = ("input", "after S (separated)", "after L (leaders placed)",
          "after C (collapsed on e1)", "after I (targets)")


def trajectory_stages(c, ds):
    """``(stages, spans)``: the tokens of ``ds`` after each phase of the Theorem 1.6
    construction ``c`` (exact, the flint backend), in :data:`STAGES` order."""
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.fast.flint import FlintBackend
    be = FlintBackend()
    st = be.load([list(p.inputs) for p in ds.pairs])
    stages = [("input", be.to_fractions(st))]
    ends = {c.phases["S"][1]: STAGES[1], c.phases["I"][1]: STAGES[4]}
    for bi, blk in enumerate(c.net.blocks, start=1):
        st, _, _ = be.ff(blk.ff, st)
        if bi == c.phases["C"][1]:
            stages.append((STAGES[2], be.to_fractions(st)))
        st, _, _ = be.sa(blk.sa, st, HARDMAX)
        if bi == c.phases["C"][1]:
            stages.append((STAGES[3], be.to_fractions(st)))
        if bi in ends:
            stages.append((ends[bi], be.to_fractions(st)))
    stages.sort(key=lambda s: STAGES.index(s[0]))
    return stages, st.spans


def _recheck_certificates(folder: Path):
    """Every certificate written, re-read from disk and re-checked by the kernel."""
    from proofcheck.frontend.runs.recheck import recheck
    lines, ok = [], True
    for f in sorted(folder.glob("*.json")):
        v = recheck(json.loads(f.read_text())).verdict
        lines.append(f"| `certificates/{f.name}` | {v.value} |")
        ok &= v.passed
    return lines, ok


def _plugins(out: Path, seconds=PLUGIN_SECONDS):
    """The installed plugins' statements: each run on its default instances (seed 0),
    its page in ``plugins/`` and its certificate (``claim.source`` = the package),
    kept only when the kernel's re-check of the certificate agrees with the run;
    otherwise the statement is left out with a note (also when its file name,
    :func:`slug` of the id compared case-insensitively, is an earlier plugin
    statement's, and when its run takes longer than ``seconds``: :func:`bounded_plugin_run`).
    Returns ``(index lines, pages)``."""
    from proofcheck.frontend.registry import load
    from proofcheck.frontend.reporting.site import cell
    from proofcheck.frontend.registry.plugins import skipped
    plugins = [s for s in load() if s.source != "proofcheck"]
    if not plugins and not skipped():
        return [], {}
    rows, pages, files = [], {}, {}
    notes = [f"- skipped at discovery: {cell(w)}" for w in skipped()]
    for st in plugins:
        clash = files.setdefault(slug(st.id).lower(), st.id)
        if clash != st.id:  # the same file name (and HTML anchor) as an earlier plugin's
            notes.append(f"- `{cell(st.id)}` ({cell(st.source)}) left out: its file name "
                         f"is that of `{cell(clash)}`, plugins/{cell(slug(clash))}.md")
            continue
        ok, entry = bounded_plugin_run(out, st, seconds)
        if ok:
            rows.append(entry)
            pages[f"plugin-{st.id}"] = (out / "plugins" / f"{slug(st.id)}.md").read_text()
        else:
            notes.append(f"- `{cell(st.id)}` ({cell(st.source)}) left out: {cell(entry)}")
    lines = ["## Plugin statements", "",
             "Statements of installed plugin packages (`proofcheck.statements` entry points), "
             "on their built-in instance; the kernel re-checks each certificate's exact "
             "instances, not the plugin's general conclusion.", ""]
    if rows:
        lines += ["| id | package | statement | verdict | page | certificate |",
                  "|---|---|---|---|---|---|"] + rows
    return lines + [""] + notes + ([""] if notes else []), pages


def bounded_plugin_run(out: Path, st, seconds=PLUGIN_SECONDS):
    """:func:`_plugin_run` in a forked child process stopped after ``seconds`` (a plugin
    statement that never returns cannot hang the report): ``(False, reason)`` and
    nothing written when it is stopped or dies.  In-process, unbounded, with
    ``seconds`` None or where ``fork`` is not available."""
    import multiprocessing as mp
    if seconds is None or "fork" not in mp.get_all_start_methods():
        return _plugin_run(out, st)
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_plugin_child, args=(send, out, st), daemon=True)
    child.start()
    send.close()
    try:
        if not recv.poll(seconds):
            result = (False, f"its run did not finish within {seconds:g} s (stopped)")
        else:
            result = recv.recv()
    except EOFError:
        result = (False, "its run ended without a result (the process died)")
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        recv.close()
    if not result[0]:
        for ext in ("md", "json"):
            (out / "plugins" / f"{slug(st.id)}.{ext}").unlink(missing_ok=True)
    return result


def _plugin_child(send, out: Path, st) -> None:
    """The child of :func:`bounded_plugin_run`: the run's ``(ok, entry)`` sent back, then
    an immediate exit (no clean-up handlers of the parent run in the child)."""
    try:
        result = _plugin_run(out, st)
    except BaseException as exc:  # noqa: BLE001  (reported to the parent, never raised)
        result = (False, f"its report entry failed: {type(exc).__name__}: {exc}"[:300])
    try:
        send.send(result)
    finally:
        os._exit(0)


def _plugin_run(out: Path, st):
    """``(True, table row)`` with the plugin statement's files written, or ``(False,
    reason)`` with nothing written.  A plugin's ``sys.exit`` (or an exception outside
    its checks) is its own failure, never the report's; a check that raises is its
    REFUTED run (:func:`proofcheck.frontend.runs.lemma.run_checks`), shown with its page and
    no certificate."""
    from proofcheck.kernel.verdicts import Verdict, combine
    from proofcheck.frontend.reporting.site import cell
    from proofcheck.frontend.runs.lemma import certificate_refusal, run_lemma
    try:
        run = run_lemma(st, None, 0)
    except (Exception, SystemExit) as exc:  # noqa: BLE001  (a plugin must not break it)
        return False, f"its run or certificate raised {type(exc).__name__}: {exc}"[:300]
    if run.certificate is None and run.verdict is not Verdict.REFUTED:
        return False, "it has no exact layer instances to certify"
    if run.certificate is not None:
        stated = combine(r.verdict for r in run.certified)
        if run.recheck.verdict != stated:
            return False, (f"its certificate re-checks as {run.recheck.verdict.value}, its "
                           f"run said {stated.value}")
    name = slug(st.id)
    atomic_write(out / "plugins" / f"{name}.md", page_of(run))
    why = "no exact layer instance" if run.certificate is None else certificate_refusal(run)
    if why is None:
        write_certificate(out / "plugins" / f"{name}.json", run.certificate)
    cert = f"`plugins/{name}.json`" if why is None else f"none: {cell(why)}"
    return True, (f"| {cell(st.id)} | {cell(st.source)} | {cell(st.title)} | "
                  f"{run.verdict.value} | [page](plugins/{name}.md) | {cert} |")
