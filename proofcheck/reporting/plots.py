"""Pictures for reports (matplotlib, Agg backend; deterministic metadata)."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path


def _save(fig, path) -> Path:
    """Write ``fig`` as PNG without a software stamp (byte-reproducible), then close it."""
    plt = _plt()
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)
    return path


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def log2_display(x) -> float:
    """log2 of a positive exact rational as a float, for axes only (no overflow:
    computed from the bit lengths and a 53-bit ratio)."""
    x = Fraction(x)
    p, q = x.numerator, x.denominator
    import math
    sp, sq = max(0, p.bit_length() - 60), max(0, q.bit_length() - 60)
    return math.log2((p >> sp) / (q >> sq)) + sp - sq


def softmax_error_plot(path, curve, trials, tau_cert, tau_num, title: str,
                       tau_free: bool = False) -> Path:
    """PNG for Theorem 1.8 against log2(tau): the CERTIFIED range (0, tau_cert]
    shaded, every certificate tried marked (pass/fail), and, where simulated, the
    mpmath error curve (an audit, not a proof) on a log10 axis.  ``curve``:
    ``[(tau, error)]``, ``trials``: ``[(tau, verdict)]``.  No float of an
    unbounded number is taken (tau up to 2^±10^6 plots fine)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.8, 4.2), dpi=100)
    xs = [log2_display(t) for t, _ in trials] + [log2_display(t) for t, _ in curve]
    if tau_cert is not None:
        xs.append(log2_display(tau_cert))
    lo, hi = (min(xs) - 2, max(xs) + 2) if xs else (-10.0, 10.0)
    if tau_free:
        ax.axvspan(lo, hi, color="tab:green", alpha=0.12,
                   label="certified: every tau > 0 (no attention competitor)")
    elif tau_cert is not None:
        xc = log2_display(tau_cert)
        ax.axvspan(lo, xc, color="tab:green", alpha=0.12,
                   label="certified range (0, tau_cert] (exact certificate)")
        ax.axvline(xc, color="tab:green", lw=2, label=f"tau_cert = 2^{xc:.4g}")
    if curve:
        import mpmath
        pts = sorted((log2_display(t), float(mpmath.log10(e)) if e > 0 else -300.0)
                     for t, e in curve)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color="tab:blue",
                label="simulated error, mpmath (audit, not a proof)")
        ax.set_ylabel("log10 max distance output - target")
        ymin = min(p[1] for p in pts)
        ymax = max(p[1] for p in pts)
        yp, yf = ymax + 1, ymin - 1
    else:
        ax.set_yticks([0, 1], ["not certified", "certified"])
        ax.set_ylim(-0.5, 1.5)
        yp, yf = 1, 0
    done = set()
    for t, v in trials:
        ok = v.value == "VERIFIED-CERTIFIED"
        lab = ("certificate tried: passes" if ok else "certificate tried: fails")
        ax.scatter([log2_display(t)], [yp if ok else yf], marker="^" if ok else "v",
                   color="tab:green" if ok else "tab:red",
                   label=None if lab in done else lab, zorder=3)
        done.add(lab)
    if tau_num is not None:
        ax.axvline(log2_display(tau_num), color="tab:orange", lw=2, ls="--",
                   label=f"tau_num = 2^{log2_display(tau_num):.4g} (simulation)")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("log2 temperature tau")
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize=7)
    return _save(fig, path)


def trajectory_plot(path, stages, spans, title: str) -> Path:
    """Token positions at the phase boundaries (``stages``: ``[(label, rows)]`` with
    rows ``(n, d)``), first two coordinates, one colour per sequence, symlog axes."""
    plt = _plt()
    fig, axes = plt.subplots(1, len(stages), figsize=(3.0 * len(stages), 3.2), dpi=100)
    cmap = plt.get_cmap("tab10")
    for ax, (label, rows) in zip(axes, stages):
        for j, (lo, hi) in enumerate(spans):
            xs = [float(r[0]) for r in rows[lo:hi]]
            ys = [float(r[1]) for r in rows[lo:hi]]
            ax.scatter(xs, ys, s=18, color=cmap(j % 10), alpha=0.8, label=f"seq {j}")
        ax.set_xscale("symlog")
        ax.set_yscale("symlog")
        ax.set_title(label, fontsize=9)
        ax.tick_params(labelsize=6)
    axes[0].legend(fontsize=6, loc="best")
    fig.suptitle(title, fontsize=10)
    return _save(fig, path)


def gap_plot(path, bounds, title: str) -> Path:
    """Minimum certified attention gap per softmax SA layer (log2 axis, computed
    without floats of the gaps, so any size plots)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.2), dpi=100)
    bounds = [b for b in bounds if b.get("min_gap") and Fraction(b["min_gap"]) > 0]
    xs = [b["block"] for b in bounds]
    ys = [log2_display(Fraction(b["min_gap"])) for b in bounds]
    ax.bar([str(x) for x in xs], ys, color="tab:blue")
    ax.set_xlabel("block (softmax SA layer)")
    ax.set_ylabel("log2 min certified gap")
    ax.set_title(title, fontsize=10)
    return _save(fig, path)


def dependency_plot(path, edges, nodes, title: str) -> Path:
    """Lemma dependency graph, drawn in layers (statements used -> statement)."""
    plt = _plt()
    depth = {}

    def level(n):
        if n not in depth:
            depth[n] = 1 + max((level(a) for a, b in edges if b == n), default=-1)
        return depth[n]
    for n in nodes:
        level(n)
    layers = {}
    for n in nodes:
        layers.setdefault(depth[n], []).append(n)
    pos = {}
    for lv, ns in layers.items():
        for i, n in enumerate(sorted(ns)):
            pos[n] = (i - (len(ns) - 1) / 2, -lv)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    for a, b in edges:
        (x0, y0), (x1, y1) = pos[a], pos[b]
        ax.annotate("", xy=(x1, y1 + 0.12), xytext=(x0, y0 - 0.12),
                    arrowprops={"arrowstyle": "->", "color": "0.5"})
    for n, (x, y) in pos.items():
        ax.text(x, y, n, ha="center", va="center", fontsize=8,
                bbox={"boxstyle": "round", "fc": "white", "ec": "tab:blue"})
    ax.set_xlim(min(p[0] for p in pos.values()) - 0.8, max(p[0] for p in pos.values()) + 0.8)
    ax.set_ylim(min(p[1] for p in pos.values()) - 0.6, 0.6)
    ax.axis("off")
    ax.set_title(title, fontsize=10)
    return _save(fig, path)
