"""Pictures for reports (matplotlib, Agg backend; deterministic metadata)."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path


def _save(fig, path, tight: bool = True) -> Path:
    """Write ``fig`` as PNG without a software stamp (byte-reproducible), atomically
    and with mode 0644, then close it.  Raises ``OSError`` when ``path`` cannot be
    written (nothing is left half-written)."""
    import os
    import tempfile
    plt = _plt()
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


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def softmax_error_plot(path, curve, trials, tau_cert, tau_num, title: str) -> Path:
    """PNG of the simulated error against tau (log-log), with the certified
    trials marked; ``curve``: ``[(tau, error)]``, ``trials``: ``[(tau, verdict)]``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    if curve:
        pts = sorted((float(t), max(float(e), 1e-300)) for t, e in curve)
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label="simulated error (mpmath)")
        ax.set_ylabel("max distance output ↔ target")
    else:  # no simulation (large dataset): show the certificates tried
        ax.set_xscale("log")
        for t, v in trials:
            ok = v.value == "VERIFIED-CERTIFIED"
            ax.scatter([float(t)], [1 if ok else 0], color="tab:green" if ok else "tab:red")
        ax.set_yticks([0, 1], ["not certified", "certified"])
        ax.set_ylim(-0.5, 1.5)
    xs = ([float(t) for t, _ in curve] or [float(t) for t, _ in trials]) + \
        ([float(tau_cert)] if tau_cert is not None else [])
    lo, hi = (min(xs) / 2, max(xs) * 2) if xs else (None, None)
    for t, v in trials:
        if lo is not None and not lo <= float(t) <= hi:
            continue
        ok = v.value == "VERIFIED-CERTIFIED"
        ax.axvline(float(t), color="tab:green" if ok else "tab:red", alpha=0.25, lw=1)
    if tau_cert is not None:
        ax.axvline(float(tau_cert), color="tab:green", lw=2, label=f"tau_cert = {float(tau_cert):.4g}")
    if tau_num is not None:
        ax.axvline(float(tau_num), color="tab:orange", lw=2, ls="--", label=f"tau_num = {float(tau_num):.4g}")
    if lo is not None:
        ax.set_xlim(lo, hi)
    ax.set_xlabel("temperature tau")
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize=8)
    return _save(fig, path)


def trajectory_plot(path, stages, spans, title: str) -> Path:
    """Token positions at the phase boundaries: one panel per stage
    (``stages``: ``[(label, rows)]``, rows ``(n, d)`` exact rationals), the first two
    coordinates on symmetric-log axes, one colour and marker per sequence
    (``spans``: ``[(lo, hi)]`` row ranges).  Coincident tokens of different
    sequences stay visible: each sequence is drawn as an open marker of its own
    size.  One legend for the whole figure.  Float conversion here is display only."""
    plt = _plt()
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
    return _save(fig, path)


def _disp(x) -> float:
    """A float for plotting only (huge rationals clamp to ±1e300, never raise)."""
    try:
        return float(x)
    except OverflowError:
        return 1e300 if x > 0 else -1e300


def gap_plot(path, bounds, title: str) -> Path:
    """Minimum certified attention gap per softmax SA layer (log scale)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.2), dpi=100)
    xs = [b["block"] for b in bounds]
    ys = [float(Fraction(b["min_gap"])) for b in bounds]
    ax.bar([str(x) for x in xs], ys, color="tab:blue")
    ax.set_yscale("log")
    ax.set_xlabel("block (softmax SA layer)")
    ax.set_ylabel("min certified gap")
    ax.set_title(title, fontsize=10)
    return _save(fig, path)


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
    pos, routes, x0 = {}, {}, 0.0
    for comp in comps:
        sub = g.subgraph(comp)
        p, r = _layered_component(sub)
        xmin = min(x for x, _ in list(p.values()) + [q for pts in r.values() for q in pts])
        xmax = max(x for x, _ in list(p.values()) + [q for pts in r.values() for q in pts])
        shift = x0 - xmin
        pos.update({n: (x + shift, y) for n, (x, y) in p.items()})
        routes.update({e: [(x + shift, y) for x, y in pts] for e, pts in r.items()})
        x0 += xmax - xmin + 1.3
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
    plt = _plt()
    from matplotlib.path import Path as MPath
    from matplotlib.patches import FancyArrowPatch, PathPatch
    pos, routes = layered_layout(nodes, edges)
    xs = [p[0] for p in pos.values()]
    nlev = 1 - min(p[1] for p in pos.values())
    fig, ax = plt.subplots(figsize=(max(7.0, 1.25 * (max(xs) - min(xs) + 2)), 1.35 * nlev + 0.8),
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
        ax.text(x, y, n, ha="center", va="center", fontsize=11, zorder=3,
                bbox={"boxstyle": "round,pad=0.35", "fc": "white", "ec": "tab:blue", "lw": 1.4})
    ax.set_xlim(min(xs) - 0.9, max(xs) + 0.9)
    ax.set_ylim(-nlev + 0.5, 0.5)
    ax.axis("off")
    ax.set_title(title, fontsize=12)
    return _save(fig, path)
