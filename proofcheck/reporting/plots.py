"""Pictures for reports (matplotlib, Agg backend; deterministic metadata)."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path


def save_png(fig, path, tight: bool = True) -> Path:
    """Write ``fig`` as PNG without a software stamp (byte-reproducible), atomically
    and with mode 0644, then close it.  Raises ``OSError`` when ``path`` cannot be
    written (nothing is left half-written)."""
    import os
    import tempfile
    plt = pyplot()
    if tight:
        fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".png")
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", metadata={"Software": None})
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        plt.close(fig)
    return path


def pyplot():
    """``matplotlib.pyplot`` with the non-interactive Agg backend."""
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
    plt = pyplot()
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
    return save_png(fig, path)


def trajectory_plot(path, stages, spans, title: str) -> Path:
    """Token positions at the phase boundaries: one panel per stage
    (``stages``: ``[(label, rows)]``, rows ``(n, d)`` exact rationals), the first two
    coordinates on symmetric-log axes, one colour and marker per sequence
    (``spans``: ``[(lo, hi)]`` row ranges).  Coincident tokens of different
    sequences stay visible: each sequence is drawn as an open marker of its own
    size.  One legend for the whole figure.  Float conversion here is display only."""
    plt = pyplot()
    ncols = 3
    nrows = -(-len(stages) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(11, 3.7 * nrows), dpi=100, squeeze=False)
    cmap = plt.get_cmap("tab10")
    markers = "osD^vP*Xh<>"
    handles = []
    for k, ax in enumerate(axes.flat):
        if k >= len(stages):
            ax.axis("off")
            continue
        label, rows = stages[k]
        for j, (lo, hi) in enumerate(spans):
            xs = [_disp(r[0]) for r in rows[lo:hi]]
            ys = [_disp(r[1]) if len(r) > 1 else 0.0 for r in rows[lo:hi]]
            h = ax.scatter(xs, ys, s=150 / (1 + 0.6 * j), facecolors="none",
                           edgecolors=cmap(j % 10), marker=markers[j % len(markers)],
                           linewidths=1.6, label=f"sequence {j + 1}")
            if k == 0:
                handles.append(h)
        for axis, coord in (("x", 0), ("y", 1)):
            vals = [abs(_disp(r[coord])) for r in rows if len(r) > coord]
            big = max(vals, default=0.0) > 20
            getattr(ax, f"set_{axis}scale")("symlog" if big else "linear",
                                            **({"linthresh": 1.0} if big else {}))
            getattr(ax, f"set_{axis}label")(f"coordinate {coord + 1}" +
                                            (" (symmetric log)" if big else ""), fontsize=10)
            if max(vals, default=0.0) == 0:
                getattr(ax, f"set_{axis}lim")(-1, 1)
        ax.set_title(f"{k + 1}. {label}", fontsize=11)
        ax.tick_params(labelsize=9)
        ax.grid(alpha=0.3)
    spare = axes.flat[len(stages)] if len(stages) < nrows * ncols else None
    if spare is not None:
        spare.legend(handles=handles, loc="center", fontsize=11, title="tokens of",
                     title_fontsize=11, frameon=False)
    else:
        fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 6), fontsize=10)
    fig.suptitle(title, fontsize=12)
    return save_png(fig, path)


def _disp(x) -> float:
    """A float for plotting only (huge rationals clamp to ±1e300, never raise)."""
    try:
        return float(x)
    except OverflowError:
        return 1e300 if x > 0 else -1e300


def gap_plot(path, bounds, title: str) -> Path:
    """Minimum certified attention gap per softmax SA layer (log2 axis, computed
    without floats of the gaps, so any size plots)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.2), dpi=100)
    bounds = [b for b in bounds if b.get("min_gap") and Fraction(b["min_gap"]) > 0]
    xs = [b["block"] for b in bounds]
    ys = [log2_display(Fraction(b["min_gap"])) for b in bounds]
    ax.bar([str(x) for x in xs], ys, color="tab:blue")
    ax.set_xlabel("block (softmax SA layer)")
    ax.set_ylabel("log2 min certified gap")
    ax.set_title(title, fontsize=10)
    return save_png(fig, path)


def layered_layout(nodes, edges):
    """Positions for a layered drawing of a DAG (statements used -> statement).

    Each weakly connected component is laid out on its own, largest first, left
    to right.  Layers by longest path from the sources; an edge spanning several
    layers is routed through one dummy slot per intermediate layer, so no edge
    crosses a node box; the order inside each layer comes from barycentre sweeps
    (down, then up) on the graph with its dummy slots (``networkx``).  Returns
    ``(pos, routes)``: ``pos[node] = (x, y)``, ``routes[(a, b)] = [points]``.
    """
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    comps = sorted(nx.weakly_connected_components(g), key=lambda c: (-len(c), sorted(c)))
    pos, routes = {}, {}
    p, r = _layered_component(g.subgraph(comps[0]))  # the largest component on the left
    pts = list(p.values()) + [q for ps in r.values() for q in ps]
    xmin = min(x for x, _ in pts)
    pos.update({n: (x - xmin, y) for n, (x, y) in p.items()})
    routes.update({e: [(x - xmin, y) for x, y in ps] for e, ps in r.items()})
    x0 = max(x for x, _ in pts) - xmin + 1.5
    depth = 1 - min(y for _, y in pts)
    col_y = 0.0  # the other components stacked in columns to the right
    for comp in comps[1:]:
        p, r = _layered_component(g.subgraph(comp))
        pts = list(p.values()) + [q for ps in r.values() for q in ps]
        w = max(x for x, _ in pts) - min(x for x, _ in pts)
        h = 1 - min(y for _, y in pts)
        if col_y - h < -depth and col_y != 0.0:
            x0, col_y = x0 + 1.4, 0.0
        sx, sy = x0 - min(x for x, _ in pts), col_y
        pos.update({n: (x + sx, y + sy) for n, (x, y) in p.items()})
        routes.update({e: [(x + sx, y + sy) for x, y in ps] for e, ps in r.items()})
        col_y -= h
        if w > 0:
            x0 += w
    return pos, routes


def _layered_component(g):
    import networkx as nx
    layer = {}
    for n in nx.topological_sort(g):
        layer[n] = 1 + max((layer[a] for a in g.predecessors(n)), default=-1)
    h = nx.DiGraph()
    for n in g.nodes:
        h.add_node(n, layer=layer[n])
    chains = {}
    for a, b in g.edges:
        chain = [a] + [("dummy", a, b, lv) for lv in range(layer[a] + 1, layer[b])] + [b]
        for c in chain[1:-1]:
            h.add_node(c, layer=c[3])
        nx.add_path(h, chain)
        chains[(a, b)] = chain
    order = {}
    for n, lv in sorted(h.nodes(data="layer"), key=lambda t: str(t[0])):
        order.setdefault(lv, []).append(n)
    for sweep in range(12):
        down = sweep % 2 == 0
        for lv in (sorted(order) if down else sorted(order, reverse=True)):
            idx = {n: i - (len(ns) - 1) / 2 for ns in order.values() for i, n in enumerate(ns)}

            def bary(n, down=down, idx=idx):
                ps = list(h.predecessors(n) if down else h.successors(n))
                return sum(idx[q] for q in ps) / len(ps) if ps else idx[n]
            order[lv] = sorted(order[lv], key=lambda n: (bary(n), str(n)))
    pos = {n: (i - (len(ns) - 1) / 2, -lv) for lv, ns in order.items() for i, n in enumerate(ns)}
    return ({n: pos[n] for n in g.nodes},
            {e: [pos[c] for c in chain] for e, chain in chains.items()})


def dependency_plot(path, edges, nodes, title: str) -> Path:
    """Statement dependency graph (an arrow a -> b: the proof of b uses a), drawn in
    layers with the long edges routed around the node boxes."""
    plt = pyplot()
    from matplotlib.path import Path as MPath
    from matplotlib.patches import FancyArrowPatch, PathPatch
    pos, routes = layered_layout(nodes, edges)
    xs = [p[0] for p in pos.values()] + [q[0] for pts in routes.values() for q in pts]
    nlev = 1 - min(p[1] for p in pos.values())
    fig, ax = plt.subplots(figsize=(max(7.0, 1.05 * (max(xs) - min(xs) + 2)), 1.2 * nlev + 0.8),
                           dpi=100)
    for (a, b), pts in routes.items():
        pts = [(pts[0][0], pts[0][1] - 0.16)] + pts[1:-1] + [(pts[-1][0], pts[-1][1] + 0.16)]
        if len(pts) > 2:  # smooth polyline through the dummy slots, arrow on the last leg
            verts = [pts[0]]
            codes = [MPath.MOVETO]
            for p in pts[1:-1]:
                verts += [p]
                codes += [MPath.LINETO]
            ax.add_patch(PathPatch(MPath(verts, codes), fc="none", ec="0.45", lw=1.2))
            pts = pts[-2:]
        ax.add_patch(FancyArrowPatch(pts[0], pts[1], arrowstyle="-|>", mutation_scale=14,
                                     color="0.45", lw=1.2, shrinkA=0, shrinkB=0))
    for n, (x, y) in pos.items():
        ax.text(x, y, n, ha="center", va="center", fontsize=14, zorder=3,
                bbox={"boxstyle": "round,pad=0.35", "fc": "white", "ec": "tab:blue", "lw": 1.4})
    ax.set_xlim(min(xs) - 0.9, max(xs) + 0.9)
    ax.set_ylim(-nlev + 0.5, 0.5)
    ax.axis("off")
    ax.set_title(title, fontsize=12)
    return save_png(fig, path)
