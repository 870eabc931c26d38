"""``python -m proofcheck report``: regenerate the committed ``reports/`` folder.

Contents (deterministic: the same inputs give the same bytes apart from the
provenance time stamps):

* ``index.md`` — catalogue x status, constants claimed vs measured, the lemma
  dependency graph, pictures, certificates; ``index.html`` — the same and every
  statement page in ONE self-contained file (images inlined);
* ``statements/<id>.md`` — one page per statement (its checks on the built-in
  instance, seed 0);
* ``img/`` — token trajectories through the four phases, attention gaps per
  softmax layer, simulated softmax error against tau, dependency graph;
* ``certificates/`` — certificates that ``python -m proofcheck verify`` re-checks;
* ``plugins/`` — only when plugin statements are installed: one page and one
  certificate per plugin statement (a plugin that fails to run or whose
  certificate does not re-check is left out, with a note in the index).

Atomic: the site is built in a temporary folder beside ``out`` and replaces it only
when everything succeeded, in one atomic exchange of the two folders (Linux
``renameat2``; elsewhere two renames); on any failure ``out`` is left byte-for-byte as
it was.
Files in ``out`` that the report does not make (the git-ignored ``theorem-*`` run
reports) are carried over.
"""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from proofcheck.catalogue import FLAGS, load
from proofcheck.io.certificate_writer import (
    lemma_certificate,
    theorem_certificate,
    write_certificate,
)
from proofcheck.io.files import atomic_write, exchange, slug
from proofcheck.io.provenance import provenance
from proofcheck.kernel.verdicts import combine, fmt_num

# statement -> statements its proof uses (the construction of SPEC §4)
DEPENDENCIES = {
    "3.2p": ["3.2"], "separation": ["3.1", "3.2p", "4.1"], "leaders": ["3.2p", "4.2", "4.3"],
    "collapse": ["4.2", "4.3"], "interpolation": ["3.3"],
    "1.6": ["separation", "leaders", "collapse", "interpolation"],
    "1.8": ["1.6", "softmax-gap"], "E.1": ["C.1"],
    "1.8-collapse": ["collapse", "softmax-gap"], "tikhonov": ["1.6"], "resnet": ["3.2", "1.6"],
}


def _provenance_line(p: dict) -> str:
    libs = ", ".join(f"{k} {v}" for k, v in p["libraries"].items())
    return (f"proofcheck {p['version']} (commit {p['commit'] or 'n/a'}); Python {p['python']}; "
            f"{libs}; generated {p['time']}")


def _statement_page(st, results) -> str:
    v = combine(r.verdict for r in results)
    body = "\n".join(line for r in results for line in r.lines())
    fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", body)), default=0))
    lines = [f"# {_html_text(st.id)} — {_html_text(st.title)}", "",
             f"- kind: {st.kind}; paper: {st.paper} ({st.flag}); module `{st.module}`",
             f"- instance: built-in, seed 0; reproduce with `python -m proofcheck lemma {st.id}`",
             f"- verdict: **{v.value}**", "", fence, body, fence, ""]
    return "\n".join(lines)


def _html_text(text: str) -> str:
    """``text`` with the characters HTML would read as markup escaped."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _trajectory(out_img, ds):
    """Token positions after each phase of the Theorem 1.6 network on ``ds``."""
    from lemmas.afz.theorems.theorem_1_6 import construct
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.fast.flint import FlintBackend
    from proofcheck.reporting.plots import trajectory_plot
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    c = construct(inputs, targets, ds.d)
    be = FlintBackend()
    st = be.load(inputs)
    stages = [("input", be.to_fractions(st))]
    ends = {c.phases["S"][1]: "after S (separated)", c.phases["I"][1]: "after I (targets)"}
    for bi, blk in enumerate(c.net.blocks, start=1):
        st, _, _ = be.ff(blk.ff, st)
        if bi == c.phases["C"][1]:
            stages.append(("after L (leaders placed)", be.to_fractions(st)))
        st, _, _ = be.sa(blk.sa, st, HARDMAX)
        if bi == c.phases["C"][1]:
            stages.append(("after C (collapsed on e1)", be.to_fractions(st)))
        if bi in ends:
            stages.append((ends[bi], be.to_fractions(st)))
    stages.sort(key=lambda s: ["input", "after S (separated)", "after L (leaders placed)",
                               "after C (collapsed on e1)", "after I (targets)"].index(s[0]))
    return trajectory_plot(out_img / "trajectory.png", stages, st.spans,
                           f"Theorem 1.6 pipeline on '{ds.name}' (first two coordinates)")


#: what the report makes inside its folder; anything else there is carried over
MANAGED = ("statements", "img", "certificates", "plugins", "index.md", "index.html")


def regenerate(out="reports", quick: bool = False) -> int:
    """Rebuild ``out`` atomically; returns the exit code (0 when every statement run and
    every certificate behaves as recorded; 1 leaves ``out`` unchanged and says why).
    ``quick`` skips the digits-sample runs.  Any exception propagates after the
    temporary folder is removed, ``out`` untouched.  Raises ``OSError`` when the
    folder beside ``out`` cannot be written."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".tmp-{out.name}-"))
    try:
        os.chmod(build, 0o755)
        code = _build(build, quick)
        if code == 0:
            _swap_in(build, out)
            print(f"replaced {out}/")
        else:
            print(f"{out}/ left unchanged: a certificate did not re-check as recorded",
                  file=sys.stderr)
        return code
    except BaseException:
        print(f"{out}/ left unchanged (the report failed before it was complete)",
              file=sys.stderr)
        raise
    finally:
        shutil.rmtree(build, ignore_errors=True)


def _swap_in(new: Path, out: Path) -> None:
    """Replace the folder ``out`` by ``new`` (same parent): entries of ``out`` the report
    does not make are first hard-linked (else copied) into ``new``; then one atomic
    exchange of the two names (:func:`proofcheck.io.files.exchange`; ``new`` then holds
    the old version, removed by the caller), or where the system has none two renames,
    the second undone when it fails — a process killed between those two leaves the old
    version in a ``.tmp-<out>-old-*`` folder beside ``out``."""
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


def _build(out: Path, quick: bool) -> int:
    """Write the whole site into the empty folder ``out``; returns the exit code."""
    from proofcheck.io.generate import random_dataset
    cat = load(plugins=False)
    small = random_dataset(7, d=2, N=4, max_n=4, style="mixed")
    small = type(small)("generated-7", small.d, small.pairs, small.notes)
    status, pages = _statements(out, cat)
    const_rows, sc = _theorems(out, small, quick)
    _pictures(out, small, sc, cat)
    cert_lines, ok = _recheck_certificates(out)
    plugin_lines, plugin_pages = _plugins(out)
    lines = _index_head(cat, status, pages, plugin_lines, const_rows, small, sc)
    lines += ["## Certificates", "", "| file | re-checked verdict |", "|---|---|"] + cert_lines
    index = "\n".join(lines) + "\n"
    atomic_write(out / "index.md", index)
    atomic_write(out / "index.html", _html(index, {**pages, **plugin_pages}, out))
    print(f"wrote {len(pages)} statement pages, {len(cert_lines)} certificates"
          + (f", {len(plugin_pages)} plugin statements" if plugin_pages else ""))
    return 0 if ok else 1


def _statements(out: Path, cat):
    """Run every implemented statement on its built-in instance (seed 0): its page and,
    where it has exact layer instances, its certificate.  Returns ``(status, pages)``."""
    status, pages = {}, {}
    for st in cat:
        if not st.implemented:
            status[st.id] = "planned"
            continue
        results = st.runner()(None, 0)
        v = combine(r.verdict for r in results)
        status[st.id] = v.value
        page = _statement_page(st, results)
        pages[st.id] = page
        atomic_write(out / "statements" / f"{slug(st.id)}.md", page)
        cert = lemma_certificate(st.id, results, v)
        if cert is not None:
            write_certificate(out / "certificates" / f"lemma-{slug(st.id)}.json", cert)
    return status, pages


def _theorems(out: Path, small, quick: bool):
    """Theorem 1.6 on ``small`` (and the digits sample unless ``quick``), Theorem 1.8 on
    ``small``, with their certificates.  Returns ``(constant rows, the 1.8 check)``."""
    from lemmas.afz.theorems.theorem_1_6 import verify as verify16
    from lemmas.afz.theorems.theorem_1_8 import verify as verify18
    from proofcheck.io.examples import sample
    const_rows = []
    for ds in [small] + ([] if quick else [sample()[0]]):
        tc = verify16(ds)
        v = combine(r.verdict for r in tc.results)
        const_rows.append((f"1.6 on `{ds.name}`", tc.constants, v))
        write_certificate(out / "certificates" / f"theorem-1.6-{slug(ds.name)}.json",
                          theorem_certificate("1.6", ds, tc.construction.net, v,
                                              constants=tc.constants))
    sc = verify18(small)
    v18 = combine(r.verdict for r in sc.results)
    const_rows.append((f"1.8 on `{small.name}`", sc.constants, v18))
    write_certificate(out / "certificates" / f"theorem-1.8-{slug(small.name)}.json",
                      theorem_certificate("1.8", small, sc.construction.net, v18,
                                          tau=sc.tau_cert, bounds=sc.certificate,
                                          constants=sc.constants))
    return const_rows, sc


def _bounds(sc) -> list:
    return [b.to_json() for b in sc.certificate.bounds if b.sublayer == "SA"]


def _pictures(out: Path, small, sc, cat) -> None:
    from proofcheck.reporting.plots import dependency_plot, gap_plot, softmax_error_plot
    img = out / "img"
    _trajectory(img, small)
    gap_plot(img / "gaps.png", _bounds(sc),
             f"Theorem 1.8 on '{small.name}' at tau_cert = {fmt_num(sc.tau_cert)}")
    softmax_error_plot(img / "softmax-error.png", sc.sim_curve, sc.trials, sc.tau_cert,
                       sc.tau_num, f"Theorem 1.8 on '{small.name}'", tau_free=sc.tau_free,
                       simulation=sc.simulation)
    nodes = [s.id for s in cat if s.implemented]
    edges = [(a, b) for b, uses in DEPENDENCIES.items() for a in uses if a in nodes and b in nodes]
    dependency_plot(img / "dependencies.png", edges, nodes, "statements and what their proofs use")


def _recheck_certificates(out: Path):
    """Every certificate of ``out/certificates`` must re-verify with its recorded verdict."""
    from proofcheck.kernel.verify import verify_certificate
    cert_lines, ok = [], True
    for f in sorted((out / "certificates").glob("*.json")):
        vv, _ = verify_certificate(json.loads(f.read_text()))
        cert_lines.append(f"| `certificates/{f.name}` | {vv.value} |")
        ok &= vv.passed
    return cert_lines, ok


def _cell(text: str) -> str:
    """``text`` as a literal Markdown table cell."""
    return (str(text).replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")
            .replace("_", "\\_").replace("`", "\\`").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\n", " "))


def _plugins(out: Path):
    """The installed plugins' statements: each run on its built-in instance (seed 0),
    its page in ``plugins/`` and its certificate (``claim.source`` = the package),
    kept only when the certificate re-checks with the run's verdict; otherwise the
    statement is left out with a note (also when its file name, :func:`slug` of the id
    compared case-insensitively, is an earlier plugin statement's).  Returns ``(index
    lines, pages)``."""
    plugins = [s for s in load() if s.source != "proofcheck"]
    if not plugins:
        return [], {}
    rows, notes, pages, files = [], [], {}, {}
    for st in plugins:
        clash = files.setdefault(slug(st.id).lower(), st.id)
        if clash != st.id:  # the same file name (and HTML anchor) as an earlier plugin's
            notes.append(f"- `{_cell(st.id)}` ({_cell(st.source)}) left out: its file name "
                         f"is that of `{_cell(clash)}`, plugins/{_cell(slug(clash))}.md")
            continue
        ok, entry = _plugin_run(out, st)
        if ok:
            rows.append(entry)
            pages[f"plugin-{st.id}"] = (out / "plugins" / f"{slug(st.id)}.md").read_text()
        else:
            notes.append(f"- `{_cell(st.id)}` ({_cell(st.source)}) left out: {_cell(entry)}")
    lines = ["## Plugin statements", "",
             "Statements of installed plugin packages (`proofcheck.statements` entry points), "
             "on their built-in instance; the kernel re-checks each certificate's exact "
             "instances, not the plugin's general conclusion.", ""]
    if rows:
        lines += ["| id | package | statement | verdict | page | certificate |",
                  "|---|---|---|---|---|---|"] + rows
    return lines + [""] + notes + ([""] if notes else []), pages


def _plugin_run(out: Path, st):
    """``(True, table row)`` with the plugin statement's files written, or ``(False,
    reason)`` with nothing written.  A plugin's exception (or ``sys.exit``) is its own
    failure, never the report's."""
    from proofcheck.kernel.verify import verify_certificate
    try:
        results = st.runner()(None, 0)
        v = combine(r.verdict for r in results)
        cert = lemma_certificate(st.id, results, v, source=st.source, text=st.title,
                                 hypotheses=getattr(st, "hypotheses", ()))
        if cert is None:
            return False, "it has no exact layer instances to certify"
        vv, _ = verify_certificate(json.loads(json.dumps(cert)))
        page = _statement_page(st, results)
    except (Exception, SystemExit) as exc:  # noqa: BLE001  (a plugin must not break the report)
        return False, f"its run or certificate raised {type(exc).__name__}: {exc}"[:300]
    if vv != v:
        return False, f"its certificate re-checks as {vv.value}, its run said {v.value}"
    name = slug(st.id)
    atomic_write(out / "plugins" / f"{name}.md", page)
    write_certificate(out / "plugins" / f"{name}.json", cert)
    return True, (f"| {_cell(st.id)} | {_cell(st.source)} | {_cell(st.title)} | {v.value} | "
                  f"[page](plugins/{name}.md) | `plugins/{name}.json` |")


def _index_head(cat, status, pages, plugin_lines, const_rows, small, sc) -> list[str]:
    """The index up to (not including) the certificate table."""
    lines = ["# proofcheck reports", "", _provenance_line(provenance()), "",
             "Regenerate with `python -m proofcheck report`; re-check any certificate with "
             "`python -m proofcheck verify reports/certificates/FILE`.", "",
             "## Catalogue", "", "| id | kind | statement | paper no. | flag | status |",
             "|---|---|---|---|---|---|"]
    for st in cat:
        link = f"[{st.id}](statements/{slug(st.id)}.md)" if st.id in pages else st.id
        title = (st.title.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")
                 .replace("<", "&lt;").replace(">", "&gt;"))  # Markdown table cell, literal
        stat = status[st.id]
        if st.readings:
            stat += (f" (reading {st.readings[0]}; variant(s) " + ", ".join(st.readings[1:])
                     + " refuted with a witness: see page)")
        lines.append(f"| {link} | {st.kind} | {title} | {st.paper} | {st.flag} | {stat} |")
    lines += ["", "Flags (how the paper number is known):", ""]
    lines += [f"- `{f}`: {meaning}" for f, meaning in FLAGS.items()]
    lines += [""] + plugin_lines + _constants_lines(const_rows, small, sc)
    return lines + _picture_lines()


def _constants_lines(const_rows, small, sc) -> list[str]:
    lines = ["## Constants: claimed vs measured", "",
             "| run | N | M | d | R | L measured | 2M+R+1 | paper bound | width | P | P formula | 38·d·M | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, c, v in const_rows:
        bound = c["L_paper_softmax"] if name.startswith("1.8") else c["L_paper_hardmax"]
        lines.append(f"| {name} | {c['N']} | {c['M']} | {c['d']} | {c['R']} | {c['L']} | "
                     f"{c['L_construction']} | {bound} | {c['max_width']} | {c['P']} | "
                     f"{c['P_formula']} | {c['P_bound']} | {v.value} |")
    f = lambda x: "n/a" if x is None else fmt_num(x)  # noqa: E731
    return lines + ["", f"Theorem 1.8 on `{small.name}`: tau_cert = {f(sc.tau_cert)}, tau_num = "
                    f"{f(sc.tau_num)} (simulation, an audit), tau_closed = {f(sc.tau_closed)}. "
                    f"{sc.results[0].details[0]}.", ""]


def _picture_lines() -> list[str]:
    return ["## Lemma dependency graph", "",
            "![dependency graph](img/dependencies.png)", "",
            "*What to look at: an arrow a → b means the proof of b uses a; the four "
            "phases feed Theorem 1.6, which with softmax-gap gives 1.8; the "
            "Takakura–Suzuki lemmas stand apart.*", "",
            "## Pictures", "",
            "![trajectories](img/trajectory.png)", "",
            "*What to look at: the tokens of each sequence (one colour and marker each) "
            "through the phases — separated (2), leaders placed in region P and on the "
            "sphere (3), collapsed onto the line ℚe₁ (4), and on their targets (5).*", "",
            "![gaps](img/gaps.png)", "",
            "*What to look at: the smallest certified attention gap of each softmax "
            "layer; the smallest bar limits the certified temperature.*", "",
            "![softmax error](img/softmax-error.png)", "",
            "*What to look at: the range of τ covered by the certificate (every τ up to "
            "tau_cert) and, where simulated, the error of the softmax network against τ.*",
            ""]


def _html(index: str, pages: dict, out: Path) -> str:
    import markdown

    def inline(md_text):
        html = markdown.markdown(md_text, extensions=["tables", "fenced_code"])

        def sub(m):
            data = base64.b64encode((out / m.group(1)).read_bytes()).decode()
            return f'src="data:image/png;base64,{data}"'
        html = re.sub(r'src="(img/[^"]+)"', sub, html)
        html = re.sub(r'href="statements/([^"]+)\.md"', r'href="#st-\1"', html)
        return re.sub(r'href="plugins/([^"]+)\.md"', r'href="#st-plugin-\1"', html)
    body = [inline(index)]
    for sid, page in pages.items():
        body.append(f'<section id="st-{slug(sid)}">' + inline(page) + "</section>")
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;line-height:1.4}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
             "pre{background:#f6f6f6;padding:8px;overflow-x:auto}img{max-width:100%}")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>proofcheck reports</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
