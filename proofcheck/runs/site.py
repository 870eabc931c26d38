"""``python -m proofcheck report``: the runs behind the committed ``reports/``
folder — every statement through :func:`proofcheck.runs.lemma.run_lemma` (seed 0,
default instances), Theorems 1.6 and 1.8 through
:func:`proofcheck.runs.theorem.run_theorem` — then the pictures, the kernel's re-check
of every certificate written, and the pages (:mod:`proofcheck.reporting.site`).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from proofcheck.io.certificate_writer import write_certificate
from proofcheck.io.files import atomic_write, slug


def regenerate(out="reports", quick: bool = False) -> int:
    """Rebuild ``out``; returns the exit code (0 when every certificate written
    re-verifies with a passing verdict).  ``quick`` skips the digits-sample runs."""
    from proofcheck.io.provenance import provenance
    from proofcheck.registry import load
    from proofcheck.reporting.site import html, index_markdown
    out = Path(out)
    for sub in ("statements", "img", "certificates"):
        shutil.rmtree(out / sub, ignore_errors=True)
        (out / sub).mkdir(parents=True, exist_ok=True)
    prov = provenance()
    cat = load()
    status, pages = _statements(out, cat)
    small, const_rows, run16, run18 = _theorems(out, quick)
    _pictures(out / "img", cat, small, run16, run18)
    cert_lines, ok = _recheck_certificates(out / "certificates")
    index = index_markdown(prov, cat, status, pages, const_rows, small, run18.check, cert_lines)
    atomic_write(out / "index.md", index)
    atomic_write(out / "index.html", html(index, pages, out))
    print(f"wrote {out}/index.md, {out}/index.html, {len(pages)} statement pages, "
          f"{len(cert_lines)} certificates")
    return 0 if ok else 1


def _statements(out: Path, cat):
    """One page (and, with exact instances, one certificate) per statement."""
    from proofcheck.reporting.site import statement_page
    from proofcheck.runs.lemma import run_lemma
    status, pages = {}, {}
    for st in cat:
        if not st.implemented:
            status[st.id] = "planned"
            continue
        run = run_lemma(st, None, 0)
        status[st.id] = run.verdict.value
        pages[st.id] = statement_page(st, run.results, run.verdict)
        atomic_write(out / "statements" / f"{slug(st.id)}.md", pages[st.id])
        if run.certificate is not None:
            write_certificate(out / "certificates" / f"lemma-{slug(st.id)}.json",
                              run.certificate)
    return status, pages


def _theorems(out: Path, quick: bool):
    """Theorem 1.6 on a small generated set and the digits sample, 1.8 on the small
    set; their certificates."""
    from proofcheck.io.examples import sample
    from proofcheck.io.generate import random_dataset
    from proofcheck.runs.theorem import run_theorem
    small = random_dataset(7, d=2, N=4, max_n=4, style="mixed")
    small = type(small)("generated-7", small.d, small.pairs, small.notes)
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
    return small, const_rows, first, run18


def _pictures(img: Path, cat, small, run16, run18) -> None:
    from proofcheck.registry import dependency_edges
    from proofcheck.reporting.plots import (
        dependency_plot,
        gap_plot,
        softmax_error_plot,
        trajectory_plot,
    )
    stages, spans = trajectory_stages(run16.check.construction, small)
    trajectory_plot(img / "trajectory.png", stages, spans,
                    f"Theorem 1.6 pipeline on '{small.name}' (first two coordinates)")
    sc = run18.check
    bounds = [b.to_json() for b in sc.certificate.bounds if b.max_eps is not None]
    gap_plot(img / "gaps.png", bounds, f"Theorem 1.8 on '{small.name}' at tau_cert = {sc.tau_cert}")
    softmax_error_plot(img / "softmax-error.png", sc.sim_curve, sc.trials, sc.tau_cert, sc.tau_num,
                       f"Theorem 1.8 on '{small.name}'")
    nodes = [s.id for s in cat if s.implemented]
    dependency_plot(img / "dependencies.png", dependency_edges(cat), nodes,
                    "statements and what their proofs use")


STAGES = ("input", "after S (separated)", "after L (leaders placed)",
          "after C (collapsed on e1)", "after I (targets)")


def trajectory_stages(c, ds):
    """``(stages, spans)``: the tokens of ``ds`` after each phase of the Theorem 1.6
    construction ``c`` (exact, the flint backend), in :data:`STAGES` order."""
    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.backends.flint import FlintBackend
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
    from proofcheck.kernel.verify import verify_certificate
    lines, ok = [], True
    for f in sorted(folder.glob("*.json")):
        v, _ = verify_certificate(json.loads(f.read_text()))
        lines.append(f"| `certificates/{f.name}` | {v.value} |")
        ok &= v.passed
    return lines, ok
