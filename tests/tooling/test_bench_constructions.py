"""``python -m bench.constructions``: one row per construction and dataset (every
construction of the table, no registration), the README block as a rendering of
its results file, and the network measures it reports (exact values)."""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

from bench.constructions import BEGIN, END, main, render_readme
from proofcheck.constructions.afz.layers.hat import plateau_ff
from proofcheck.constructions.afz.layers.peel import peel_ff
from proofcheck.constructions.afz.theorems.constructions import CONSTRUCTIONS
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import FF, Block, Transformer
from proofcheck.frontend.reporting.measures import kinks_along, layer_ratio, measures

ROOT = Path(__file__).resolve().parents[2]
F = Fraction


def test_quick_run_has_a_row_per_construction_and_dataset(tmp_path):
    out = tmp_path / "c.json"
    assert main(["--quick", "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    names = [n for n, s in CONSTRUCTIONS.items() if "1.6" in s.theorems]
    assert [(r["dataset"], r["construction"]) for r in rows] == [
        (ds, n) for ds in ("digits sample", "digits sample, inpaint") for n in names]
    for r in rows:
        assert r["verdict"] == "VERIFIED" and r["L"] == r["L_formula"]
        assert r["L_default"] == 2 * r["M"] + r["R"] + 1 and r["L_seed"] == 2 * (r["M"] + r["N"]) + 1
    text = render_readme(json.loads(out.read_text()))
    assert text.startswith(BEGIN) and text.rstrip().endswith(END)
    assert len([line for line in text.splitlines() if line.startswith("| digits")]) == len(rows)


def test_readme_block_equals_the_results_file():
    readme = (ROOT / "docs" / "measurements" / "constructions.md").read_text()
    m = re.search(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n", readme, re.S)
    assert m, "README has no constructions block"
    res = json.loads((ROOT / "bench" / "results-constructions.json").read_text())
    assert m.group(0) == render_readme(res)


def test_measures_exact_on_a_hand_built_network():
    """A plateau hat centred at 100 (kinks 96, 98, 102, 104: ratio 104 / 2 = 52), a
    peel along w = -2 e_1 (kinks -7/2 and 4 along its first row w: ratio 4 / (15/2)),
    a rank-2 FF (no direction) and a width-1 FF (one kink: no ratio)."""
    e1, e2 = (F(1), F(0)), (F(0), F(1))
    hat = plateau_ff(e1, F(100), F(2), F(4), (F(1), F(-7)))
    pe = peel_ff((F(-2), F(0)), [(F(6), (F(1), F(1)))], [(F(-5), (F(3), F(0)))], F(2), F(-2))
    rank2 = FF(F(1), (e1, e2), (F(0), F(0)), ((F(1), F(0)), (F(0), F(1))))
    one = FF(F(1), (e1,), (F(-3),), ((F(1), F(1)),))
    net = Transformer(2, [Block(f, identity_sa()) for f in (hat, pe, rank2, one)])
    assert kinks_along(hat) == [96, 98, 102, 104] and layer_ratio([96, 98, 102, 104]) == 52
    ks = kinks_along(pe)  # along the first row -2 e_1: t = <-2 e_1, x>, points at 6 and -5
    assert ks == [F(-7, 2), F(4)] and layer_ratio(ks) == F(4) / F(15, 2)
    assert kinks_along(rank2) is None and kinks_along(one) == [3]
    m = measures(net)
    assert (m.ratio, m.ratio_block, m.multi_direction_ffs) == (52, 1, 1)
    assert m.max_abs == max(abs(v) for *_, v in net.parameters()) and m.sq_norm == net.sq_norm()
