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
                       tau_free: bool = False, simulation=None) -> Path:
    """PNG for Theorem 1.8 against log2(tau), in two panels sharing that axis.  Top
    (where simulated): the mpmath error curve (an audit, not a proof) on a log10 axis,
    with the tolerance that defines tau_num and the simulation's precision floor
    ``10^-dps`` (``simulation``: :class:`proofcheck.constructions.provers.simulate.SimulationAudit`).  Bottom:
    every certificate tried, on the row of its verdict (certified / inconclusive, and
    refuted or error when one is).  Both panels
    shade the CERTIFIED range (0, tau_cert].  ``curve``: ``[(tau, error)]``, ``trials``:
    ``[(tau, verdict)]``; exact values in the legend as ``fmt_num`` prints them.  No
    float of an unbounded number is taken (tau up to 2^±10^6 plots fine)."""
    from proofcheck.kernel.verdicts import fmt_num
    plt = pyplot()
    if curve:
        fig, (ax, axc) = plt.subplots(2, 1, sharex=True, figsize=(9.0, 5.0), dpi=100,
                                      gridspec_kw={"height_ratios": [3, 1]})
    else:
        fig, axc = plt.subplots(figsize=(9.0, 2.4), dpi=100)
        ax = None
    xs = [log2_display(t) for t, _ in trials] + [log2_display(t) for t, _ in curve]
    if tau_cert is not None:
        xs.append(log2_display(tau_cert))
    lo, hi = (min(xs) - 2, max(xs) + 2) if xs else (-10.0, 10.0)
    for a in [x for x in (ax, axc) if x is not None]:
        _certified_range(a, lo, hi, tau_cert, tau_free, label=a is (ax or axc), fmt=fmt_num)
        if tau_num is not None:
            a.axvline(log2_display(tau_num), color="tab:orange", lw=2, ls="--",
                      label=(f"tau_num = {fmt_num(tau_num)} (simulation)"
                             if a is (ax or axc) else None))
    if ax is not None:
        _error_panel(ax, curve, simulation)
    _trial_rows(axc, trials)
    axc.set_xlim(lo, hi)
    axc.set_xlabel("log2 temperature tau")
    (ax or axc).set_title(title)
    for a in [x for x in (ax, axc) if x is not None]:
        a.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return save_png(fig, path)


def _certified_range(ax, lo, hi, tau_cert, tau_free: bool, label: bool, fmt) -> None:
    if tau_free:
        ax.axvspan(lo, hi, color="tab:green", alpha=0.12,
                   label="certified: every tau > 0 (no attention competitor)" if label else None)
    elif tau_cert is not None:
        xc = log2_display(tau_cert)
        ax.axvspan(lo, xc, color="tab:green", alpha=0.12,
                   label="certified range (0, tau_cert]" if label else None)
        ax.axvline(xc, color="tab:green", lw=2,
                   label=f"tau_cert = {fmt(tau_cert)}" if label else None)


def _error_panel(ax, curve, simulation) -> None:
    """The simulated error (log10), its tolerance and the precision floor."""
    import mpmath
    fl = simulation.floor if simulation is not None else None
    floor = float(mpmath.log10(fl)) if fl else None
    pts = sorted((log2_display(t), float(mpmath.log10(e)) if e > 0 else
                  (floor if floor is not None else -300.0)) for t, e in curve)
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color="tab:blue", ms=4,
            label="simulated error, mpmath\n(an audit, not a proof)")
    if simulation is not None and simulation.tol is not None:
        ax.axhline(float(mpmath.log10(simulation.tol)), color="tab:blue", ls=":", lw=1,
                   label=f"tolerance defining tau_num: 10^{float(mpmath.log10(simulation.tol)):.3g}")
    if floor is not None:
        ax.axhspan(floor - 8, floor + 1, color="0.8", alpha=0.5,
                   label=f"precision floor ({simulation.dps} digits x largest value):\n"
                         f"errors below 10^{floor + 1:.3g} are not resolved")
        ax.set_ylim(bottom=floor - 5)
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"$10^{{{v:g}}}$"))
    ax.set_ylabel("max distance output - target\n(log scale)")


#: the rows of the certificates tried, by verdict: (y, marker, colour, row label)
TRIAL_ROWS = {"VERIFIED-CERTIFIED": (1, "^", "tab:green", "certified"),
              "INCONCLUSIVE": (0, "o", "tab:orange", "inconclusive"),
              "REFUTED": (-1, "x", "tab:red", "refuted"),
              "ERROR": (-2, "x", "0.3", "error")}


def _trial_rows(ax, trials) -> None:
    """Each certificate tried, on the row of its verdict: certified, inconclusive (the
    bound could not decide at that tau: not a failure of the claim), and refuted or
    error rows only when a trial has that verdict."""
    rows = dict(TRIAL_ROWS)
    for _, v in trials:
        rows.setdefault(v.value, (min(y for y, *_ in rows.values()) - 1, "x", "0.3",
                                  v.value.lower()))
    shown = [k for k in rows if k in ("VERIFIED-CERTIFIED", "INCONCLUSIVE")
             or any(v.value == k for _, v in trials)]
    for k in shown:
        y, mk, col, lab = rows[k]
        xs = [log2_display(t) for t, v in trials if v.value == k]
        if xs:
            ax.scatter(xs, [y] * len(xs), marker=mk, color=col, s=40, zorder=3,
                       label=f"certificate tried: {lab}")
    ys = [rows[k][0] for k in shown]
    ax.set_yticks(ys, [rows[k][3] for k in shown])
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_ylabel("certificate")


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


NODE_H = 0.42          # node box height (data units: inches in the figure)
NODE_GAP = 0.35        # horizontal gap between boxes of one layer
LAYER_DY = 1.15        # vertical distance between layers


def node_width(label: str) -> float:
    """Width of a node box for ``label`` (14 pt text), in data units."""
    return 0.13 * len(label) + 0.32


def _layers(g) -> dict:
    """Layer of every node of the DAG ``g``: longest path from the sources, then every
    non-sink pulled down to just above its nearest successor (so short edges stay
    short), every sink just below its lowest predecessor."""
    import networkx as nx
    order = list(nx.topological_sort(g))
    layer = {}
    for n in order:
        layer[n] = 1 + max((layer[a] for a in g.predecessors(n)), default=-1)
    for n in reversed(order):
        succ = list(g.successors(n))
        if succ:
            layer[n] = min(layer[b] for b in succ) - 1
    for n in order:
        if not list(g.successors(n)) and list(g.predecessors(n)):
            layer[n] = 1 + max(layer[a] for a in g.predecessors(n))
    low = min(layer.values())
    return {n: v - low for n, v in layer.items()}


def _order_layers(g, layer) -> dict:
    """Nodes of each layer, ordered by barycentre sweeps (down, then up) over the
    edges between consecutive layers."""
    order = {}
    for n in sorted(g.nodes, key=str):
        order.setdefault(layer[n], []).append(n)
    for sweep in range(8):
        down = sweep % 2 == 0
        idx = {n: i for ns in order.values() for i, n in enumerate(ns)}
        for lv in (sorted(order) if down else sorted(order, reverse=True)):
            def bary(n, down=down):
                ps = list(g.predecessors(n) if down else g.successors(n))
                return sum(idx[q] for q in ps) / len(ps) if ps else idx[n]
            order[lv] = sorted(order[lv], key=lambda n: (bary(n), str(n)))
            idx.update({n: i for i, n in enumerate(order[lv])})
    return order


def _place(order) -> dict:
    """Centre of every node: each layer a centred row of boxes."""
    pos = {}
    for lv, ns in order.items():
        widths = [node_width(str(n)) for n in ns]
        total = sum(widths) + NODE_GAP * (len(ns) - 1)
        x = -total / 2
        for n, w in zip(ns, widths):
            pos[n] = (x + w / 2, -lv * LAYER_DY)
            x += w + NODE_GAP
    return pos


def _free_x(x: float, y: float, pos: dict, skip) -> float:
    """``x``, moved sideways out of any node box on the row ``y`` (not ``skip``)."""
    for n, (nx_, ny) in sorted(pos.items(), key=lambda t: abs(t[1][0] - x)):
        if n in skip or abs(ny - y) > 1e-9:
            continue
        half = node_width(str(n)) / 2 + 0.15
        if abs(x - nx_) < half:
            return nx_ - half if x < nx_ else nx_ + half
    return x


def _route(a, b, pos, ports) -> list:
    """Points of the edge a -> b: from a's bottom port to b's top port; every layer in
    between is passed vertically, from just above to just below its boxes, at the
    straight line's crossing point moved beside any box it would hit."""
    (xa, ya), (xb, yb) = ports[("out", a, b)], ports[("in", a, b)]
    pts = [(xa, ya)]
    rows = sorted({y for _, y in pos.values() if yb < y < ya}, reverse=True)
    for y in rows:
        t = (ya - y) / (ya - yb)
        x = _free_x(xa + t * (xb - xa), y, pos, {a, b})
        pts += [(x, y + NODE_H / 2 + 0.08), (x, y - NODE_H / 2 - 0.08)]
    return pts + [(xb, yb)]


def _ports(edges, pos) -> dict:
    """Where each edge leaves its source (bottom edge) and enters its target (top
    edge): the edges of one node spread along its box, ordered by the other end's x."""
    ports = {}
    for side, key, other, dy in (("out", 0, 1, -NODE_H / 2), ("in", 1, 0, NODE_H / 2)):
        by_node = {}
        for e in edges:
            by_node.setdefault(e[key], []).append(e)
        for n, es in by_node.items():
            es.sort(key=lambda e: pos[e[other]][0])
            x, y = pos[n]
            span = min(node_width(str(n)) - 0.2, 0.16 * (len(es) - 1))
            for i, e in enumerate(es):
                off = 0.0 if len(es) == 1 else -span / 2 + span * i / (len(es) - 1)
                ports[(side, *e)] = (x + off, y + dy)
    return ports


def layered_layout(nodes, edges):
    """Positions for a layered drawing of the statement DAG (an edge a -> b: the proof
    of b uses a), in inches.

    The largest weakly connected component is drawn on the left, in layers
    (:func:`_layers`, order by barycentre sweeps, ``networkx``); the other components
    with edges to its right, likewise; statements with no edge at all in a separate
    group on the far right (``groups["standalone"]`` gives its bounding box).  Every
    edge leaves and enters at its own port, and is routed beside every box it would
    cross.  Returns ``(pos, routes, groups)``: ``pos[node] = (x, y)`` box centres,
    ``routes[(a, b)] = [points]``, ``groups = {"standalone": (x0, y0, x1, y1) or None}``."""
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    comps = sorted(nx.weakly_connected_components(g), key=lambda c: (-len(c), sorted(map(str, c))))
    linked = [c for c in comps if len(c) > 1]
    alone = sorted((n for c in comps if len(c) == 1 for n in c), key=str)
    pos, x0 = {}, 0.0
    for comp in linked:
        sub = g.subgraph(comp)
        p = _place(_order_layers(sub, _layers(sub)))
        left = min(x - node_width(str(n)) / 2 for n, (x, _) in p.items())
        right = max(x + node_width(str(n)) / 2 for n, (x, _) in p.items())
        pos.update({n: (x - left + x0, y) for n, (x, y) in p.items()})
        x0 += right - left + 1.0
    groups = {"standalone": None}
    if alone:
        cols = 2 if len(alone) > 3 else 1
        w = max(node_width(str(n)) for n in alone)
        for i, n in enumerate(alone):
            pos[n] = (x0 + 0.3 + w / 2 + (i % cols) * (w + NODE_GAP), -(i // cols) * LAYER_DY)
        rows = -(-len(alone) // cols)
        groups["standalone"] = (x0, -(rows - 1) * LAYER_DY - NODE_H / 2 - 0.3,
                                x0 + 0.6 + cols * w + (cols - 1) * NODE_GAP, NODE_H / 2 + 0.3)
    ports = _ports(list(g.edges), pos)
    routes = {e: _route(*e, pos, ports) for e in g.edges}
    return pos, routes, groups


def dependency_plot(path, edges, nodes, title: str) -> Path:
    """Statement dependency graph (an arrow a -> b: the proof of b uses a), drawn in
    layers (:func:`layered_layout`); statements without any dependency drawn apart in
    a labelled box."""
    plt = pyplot()
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path as MPath
    pos, routes, groups = layered_layout(nodes, edges)
    xs = [x + s * node_width(str(n)) / 2 for n, (x, _) in pos.items() for s in (-1, 1)]
    box = groups["standalone"]
    if box is not None:
        xs += [box[0], box[2]]
    ys = [y for _, y in pos.values()]
    x_lo, x_hi = min(xs) - 0.3, max(xs) + 0.3
    y_lo, y_hi = min(ys) - 0.8, max(ys) + 0.9
    fig, ax = plt.subplots(figsize=(x_hi - x_lo, y_hi - y_lo), dpi=100)
    for (a, b), pts in routes.items():
        codes = [MPath.MOVETO] + [MPath.LINETO] * (len(pts) - 1)
        ax.add_patch(FancyArrowPatch(path=MPath(pts, codes), arrowstyle="-|>",
                                     mutation_scale=13, color="0.4", lw=1.1,
                                     connectionstyle=None, zorder=1))
    for n, (x, y) in pos.items():
        ax.text(x, y, str(n), ha="center", va="center", fontsize=14, zorder=3,
                bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": "tab:blue", "lw": 1.4})
    if box is not None:
        x0, y0, x1, y1 = box
        ax.add_patch(FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, boxstyle="round,pad=0.05",
                                    fc="0.96", ec="0.6", ls="--", lw=1, zorder=0))
        ax.text((x0 + x1) / 2, y1 + 0.12, "no dependency among these\nor on the others",
                ha="center", va="bottom", fontsize=9, color="0.35")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.axis("off")
    ax.set_title(title, fontsize=12)
    return save_png(fig, path, tight=False)
