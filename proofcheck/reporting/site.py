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
* ``certificates/`` — certificates that ``python -m proofcheck verify`` re-checks.
"""
from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

from proofcheck.registry import FLAGS, dependency_edges, load
from proofcheck.io.certificate_writer import write_certificate
from proofcheck.io.files import atomic_write, slug
from proofcheck.io.provenance import provenance

def _provenance_line(p: dict) -> str:
    libs = ", ".join(f"{k} {v}" for k, v in p["libraries"].items())
    return (f"proofcheck {p['version']} (commit {p['commit'] or 'n/a'}); Python {p['python']}; "
            f"{libs}; generated {p['time']}")


def _statement_page(st, results, v) -> str:
    lines = [f"# {st.id} — {st.title}", "",
             f"- kind: {st.kind}; paper: {st.paper} ({st.flag}); module `{st.module}`",
             f"- instance: built-in, seed 0; reproduce with `python -m proofcheck lemma {st.id}`",
             f"- verdict: **{v.value}**", "", "```"]
    for r in results:
        lines += r.lines()
    lines += ["```", ""]
    return "\n".join(lines)


def _trajectory(out_img, ds):
    """Token positions after each phase of the Theorem 1.6 network on ``ds``."""
    from lemmas.afz.theorems.theorem_1_6 import construct
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.backends.flint import FlintBackend
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


def regenerate(out="reports", quick: bool = False) -> int:
    """Rebuild ``out``; returns the exit code (0 when every statement run and every
    certificate behaves as recorded).  ``quick`` skips the digits-sample runs."""
    from proofcheck.io.examples import sample
    from proofcheck.runs.lemma import run_lemma
    from proofcheck.runs.theorem import run_theorem
    from proofcheck.io.generate import random_dataset
    from proofcheck.kernel.verify import verify_certificate
    from proofcheck.reporting.plots import dependency_plot, gap_plot, softmax_error_plot
    out = Path(out)
    for sub in ("statements", "img", "certificates"):
        shutil.rmtree(out / sub, ignore_errors=True)
        (out / sub).mkdir(parents=True, exist_ok=True)
    prov = provenance()
    cat = load()
    small = random_dataset(7, d=2, N=4, max_n=4, style="mixed")
    small = type(small)("generated-7", small.d, small.pairs, small.notes)
    status, pages = {}, {}
    for st in cat:
        if not st.implemented:
            status[st.id] = "planned"
            continue
        run = run_lemma(st, None, 0)
        results, v = run.results, run.verdict
        status[st.id] = v.value
        page = _statement_page(st, results, v)
        pages[st.id] = page
        atomic_write(out / "statements" / f"{slug(st.id)}.md", page)
        if run.certificate is not None:
            write_certificate(out / "certificates" / f"lemma-{slug(st.id)}.json",
                              run.certificate)
    theorem_sets = [small] + ([] if quick else [sample()[0]])
    const_rows = []
    for ds in theorem_sets:
        run16 = run_theorem("1.6", ds)
        const_rows.append((f"1.6 on `{ds.name}`", run16.check.constants, run16.verdict))
        write_certificate(out / "certificates" / f"theorem-1.6-{slug(ds.name)}.json",
                          run16.certificate)
    run18 = run_theorem("1.8", small)
    sc = run18.check
    const_rows.append((f"1.8 on `{small.name}`", sc.constants, run18.verdict))
    bounds = [b.to_json() for b in sc.certificate.bounds if b.max_eps is not None]
    write_certificate(out / "certificates" / f"theorem-1.8-{slug(small.name)}.json",
                      run18.certificate)
    img = out / "img"
    _trajectory(img, small)
    gap_plot(img / "gaps.png", bounds, f"Theorem 1.8 on '{small.name}' at tau_cert = {sc.tau_cert}")
    softmax_error_plot(img / "softmax-error.png", sc.sim_curve, sc.trials, sc.tau_cert, sc.tau_num,
                       f"Theorem 1.8 on '{small.name}'")
    nodes = [s.id for s in cat if s.implemented]
    edges = dependency_edges(cat)
    dependency_plot(img / "dependencies.png", edges, nodes, "statements and what their proofs use")
    # every certificate must re-verify with its recorded verdict
    cert_lines, ok = [], True
    for f in sorted((out / "certificates").glob("*.json")):
        vv, _ = verify_certificate(json.loads(f.read_text()))
        cert_lines.append(f"| `certificates/{f.name}` | {vv.value} |")
        ok &= vv.passed
    # index
    lines = ["# proofcheck reports", "", _provenance_line(prov), "",
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
    lines += ["", "## Constants: claimed vs measured", "",
              "| run | N | M | d | R | L measured | 2M+R+1 | paper bound | width | P | P formula | 38·d·M | verdict |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, c, v in const_rows:
        bound = c["L_paper_softmax"] if name.startswith("1.8") else c["L_paper_hardmax"]
        lines.append(f"| {name} | {c['N']} | {c['M']} | {c['d']} | {c['R']} | {c['L']} | "
                     f"{c['L_construction']} | {bound} | {c['max_width']} | {c['P']} | "
                     f"{c['P_formula']} | {c['P_bound']} | {v.value} |")
    from proofcheck.kernel.verdicts import fmt_num
    f = lambda x: "n/a" if x is None else fmt_num(x)  # noqa: E731
    lines += ["", f"Theorem 1.8 on `{small.name}`: tau_cert = {f(sc.tau_cert)}, tau_num = "
              f"{f(sc.tau_num)} (simulation), tau_closed ≈ {f(sc.tau_closed)}. "
              f"{sc.results[0].details[0]}.", "",
              "## Lemma dependency graph", "",
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
              "",
              "## Certificates", "", "| file | re-checked verdict |", "|---|---|"] + cert_lines
    index = "\n".join(lines) + "\n"
    atomic_write(out / "index.md", index)
    atomic_write(out / "index.html", _html(index, pages, out))
    print(f"wrote {out}/index.md, {out}/index.html, {len(pages)} statement pages, "
          f"{len(cert_lines)} certificates")
    return 0 if ok else 1


def _html(index: str, pages: dict, out: Path) -> str:
    import markdown

    def inline(md_text):
        html = markdown.markdown(md_text, extensions=["tables", "fenced_code"])

        def sub(m):
            data = base64.b64encode((out / m.group(1)).read_bytes()).decode()
            return f'src="data:image/png;base64,{data}"'
        html = re.sub(r'src="(img/[^"]+)"', sub, html)
        return re.sub(r'href="statements/([^"]+)\.md"', r'href="#st-\1"', html)
    body = [inline(index)]
    for sid, page in pages.items():
        body.append(f'<section id="st-{slug(sid)}">' + inline(page) + "</section>")
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;line-height:1.4}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
             "pre{background:#f6f6f6;padding:8px;overflow-x:auto}img{max-width:100%}")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>proofcheck reports</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
