"""The pages of the ``reports/`` folder (``python -m proofcheck report``; the runs
behind them, the atomic swap and the plugin section are :mod:`proofcheck.frontend.runs.site`).

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
  certificate per plugin statement.
"""
from __future__ import annotations

import base64
import re
from pathlib import Path

from proofcheck.frontend.io.files import slug
from proofcheck.frontend.io.provenance import provenance
from proofcheck.kernel.verdicts import fmt_num
from proofcheck.frontend.registry import FLAGS, markdown_cell


def provenance_line(p: dict) -> str:
    """The provenance line of the index (tool, commit, Python, libraries, time)."""
    libs = ", ".join(f"{k} {v}" for k, v in p["libraries"].items())
    return (f"proofcheck {p['version']} (commit {p['commit'] or 'n/a'}); Python {p['python']}; "
            f"{libs}; generated {p['time']}")


def statement_page(st, lines: list[str], v, instance: str = "built-in, seed 0",
                   scope: str | None = None) -> str:
    """``statements/<id>.md``: the statement, what its checks ran on (``instance``, in
    words), the scope of what they established (``scope``: as ``lemma`` prints it;
    ``None``: the declared one), its verdict ``v`` and every check's ``lines`` as
    ``lemma`` prints them (an argued step as ARGUED), in a code fence longer than any
    backtick run of the lines.  Text from the statement is escaped (:func:`literal`):
    ``theta*`` stays ``theta*``, never the start of italics."""
    body = "\n".join(lines)
    fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", body)), default=0))
    where = f"; module `{st.module}`" if st.module else ""
    out = [f"# {literal(st.id)} — {literal(st.title)}", "",
           f"- kind: {literal(st.kind)}; paper: {literal(st.paper)} ({literal(st.flag)}){where}",
           f"- instance: {literal(instance)}; reproduce with "
           f"`python -m proofcheck lemma {st.id}`",
           f"- scope: {literal(st.scope if scope is None else scope)}",
           f"- verdict: **{v.value}**", "", fence, body, fence, ""]
    return "\n".join(out)


def html_text(text: str) -> str:
    """``text`` with the characters HTML would read as markup escaped."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


#: characters Markdown reads as inline markup mid-line (escapes, code, emphasis, links,
#: images, table cells); each has a backslash escape in CommonMark and Python-Markdown
_MARKDOWN = re.compile(r"([\\`*_\[\]!|])")


def literal(text: str) -> str:
    """``text`` as literal Markdown inline text: Markdown's markup characters
    backslash-escaped (``θ*`` is an asterisk, not emphasis), HTML's escaped, line
    breaks as spaces; rendered (Markdown, then HTML) it reads as ``text``."""
    return html_text(_MARKDOWN.sub(r"\\\1", str(text))).replace("\n", " ")


def cell(text: str) -> str:
    """``text`` as a literal Markdown table cell."""
    return (str(text).replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")
            .replace("_", "\\_").replace("`", "\\`").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\n", " "))


def index_head(cat, status, pages, plugin_lines, const_rows, small, sc) -> list[str]:
    """The index up to (not including) the certificate table."""
    lines = ["# proofcheck reports", "", provenance_line(provenance()), "",
             "The commit named above is the one whose code generated this folder (a commit "
             "cannot name itself); `tests/outputs/test_reports.py` regenerates the folder and fails "
             "when the code of the commit that holds it would change anything here but these "
             "provenance fields (tool version, commit, time; in each certificate its "
             "`provenance` and digest).", "",
             "Regenerate with `python -m proofcheck report`; re-check any certificate with "
             "`python -m proofcheck verify reports/certificates/FILE`.", "",
             "## Catalogue", "", "| id | kind | statement | paper no. | flag | status |",
             "|---|---|---|---|---|---|"]
    for st in cat:
        link = f"[{st.id}](statements/{slug(st.id)}.md)" if st.id in pages else st.id
        title = markdown_cell(st.title)
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


def html(index: str, pages: dict, out: Path) -> str:
    """``index.html``: the index and every statement page, images inlined."""
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
             "pre{background:#f6f6f6;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere}img{max-width:100%}")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>proofcheck reports</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
