"""Pictures a reader can trust: the dependency graph's edges never cross a statement
box and arrive at distinct points, unconnected statements are drawn apart; the
deviation plot draws every finite value, zeros on their own row."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from proofcheck.frontend.export.audit import AuditResult, LayerRow, deviation_plot, deviation_series
from proofcheck.frontend.registry import dependency_edges, load
from proofcheck.frontend.reporting.plots import NODE_H, layered_layout, node_width


def _graph():
    cat = load(plugins=False)
    return [s.id for s in cat if s.implemented], dependency_edges(cat)


def _inside(pt, centre, label) -> bool:
    (x, y), (cx, cy) = pt, centre
    return abs(x - cx) < node_width(label) / 2 - 0.02 and abs(y - cy) < NODE_H / 2 - 0.02


def test_edges_cross_no_statement_box():
    nodes, edges = _graph()
    pos, routes, _ = layered_layout(nodes, edges)
    for (a, b), pts in routes.items():
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            for k in range(101):
                p = (x0 + (x1 - x0) * k / 100, y0 + (y1 - y0) * k / 100)
                hit = [n for n in pos if n not in (a, b) and _inside(p, pos[n], n)]
                assert not hit, f"edge {a} -> {b} crosses the box of {hit}"


def test_arrows_into_one_statement_arrive_apart():
    nodes, edges = _graph()
    pos, routes, _ = layered_layout(nodes, edges)
    into = {}
    for (a, b), pts in routes.items():
        into.setdefault(b, []).append(pts[-1][0])
    assert len(into["1.6"]) == 4
    for b, xs in into.items():
        xs = sorted(xs)
        assert all(q - p >= 0.1 for p, q in zip(xs, xs[1:])), (b, xs)


def test_unconnected_statements_are_drawn_apart():
    nodes, edges = _graph()
    pos, _, groups = layered_layout(nodes, edges)
    linked = {n for e in edges for n in e}
    alone = [n for n in nodes if n not in linked]
    assert {"C.3", "C.4", "G.1"} <= set(alone)
    x0, y0, x1, y1 = groups["standalone"]
    for n in nodes:
        inside = x0 <= pos[n][0] <= x1 and y0 <= pos[n][1] <= y1
        assert inside == (n in alone), n


def _audit(devs):
    r = AuditResult("float64", "hardmax", None)
    r.layers = [LayerRow(b, "SA", "", v, None, 1.0) for b, v in enumerate(devs, start=1)]
    return r


def test_an_isolated_nonzero_deviation_is_drawn(tmp_path):
    pts = _audit([0.0, 1e-3, 0.0]).per_block()
    xs, ys, zeros = deviation_series(pts)
    assert xs == [2] and math.isclose(ys[0], -3.0) and zeros == [1, 3]
    xs, ys, zeros = deviation_series(_audit([0.0, np.inf, np.nan]).per_block())
    assert xs == ys == [] and zeros == [1]
    p = deviation_plot(tmp_path / "d.png", [_audit([0.0, 1e-3, 0.0])], "three blocks")
    assert p.stat().st_size > 0


def _tick_labels(axis) -> list[str]:
    return [t.get_text() for t in axis.get_ticklabels()]


def test_no_zero_on_the_log_axis_of_the_audit_plot():
    """The deviation axis is logarithmic: its ticks are powers 10^k, never a "0" (the
    old "0 (exact)" tick); exact zeros are drawn in a strip of their own, inf/NaN in
    another."""
    from proofcheck.frontend.export.audit import deviation_figure
    fig = deviation_figure([_audit([0.0, 1e-3, 1e2, 0.0, np.inf])], "t")
    fig.canvas.draw()
    top, ax, low = fig.axes
    labels = _tick_labels(ax.yaxis)
    assert labels and all(re.fullmatch(r"\$10\^\{-?\d+\}\$", t) for t in labels), labels
    assert _tick_labels(low.yaxis) == ["exactly 0"] and _tick_labels(top.yaxis) == ["inf/NaN"]
    assert [list(line.get_xdata()) for line in low.get_lines() if line.get_marker() == "o"] \
        == [[1, 4]]


def test_softmax_trials_that_did_not_certify_are_inconclusive():
    """A certificate tried at a tau where the bound could not decide is INCONCLUSIVE:
    its row says so ("fails" was wrong), and a REFUTED trial gets a row of its own."""
    from fractions import Fraction

    from proofcheck.kernel.verdicts import Verdict
    from proofcheck.frontend.reporting.plots import _trial_rows, pyplot
    plt = pyplot()
    fig, ax = plt.subplots()
    _trial_rows(ax, [(Fraction(1, 8), Verdict.VERIFIED_CERTIFIED),
                     (Fraction(1, 2), Verdict.INCONCLUSIVE)])
    fig.canvas.draw()
    assert _tick_labels(ax.yaxis) == ["certified", "inconclusive"]
    assert ax.get_legend_handles_labels()[1] == ["certificate tried: certified",
                                                 "certificate tried: inconclusive"]
    fig, ax = plt.subplots()
    _trial_rows(ax, [(Fraction(1, 2), Verdict.REFUTED)])
    assert _tick_labels(ax.yaxis) == ["certified", "inconclusive", "refuted"]
    plt.close("all")


@pytest.mark.parametrize("devs", [[0.0, 0.0], [np.inf], [1.0, np.nan]])
def test_deviation_plot_draws_degenerate_audits(devs, tmp_path):
    assert deviation_plot(tmp_path / "d.png", [_audit(devs)], "t").stat().st_size > 0
