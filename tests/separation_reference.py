"""Reference for tests: phase S (proofcheck/constructions/afz/phases/separation.py) as it was before the
incremental bookkeeping (commit 4617711), kept verbatim in its decisions: every
round re-derives the injectivity of each candidate ``lam`` from all T shifted
projections, bisects every class for the nearest projection and updates every
class offset.  tests/pipeline/test_separation_incremental.py checks that the fast construction builds
the same blocks, claims and rows."""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from fractions import Fraction
from math import gcd

from proofcheck.constructions.afz.layers.clustering import tag_sa
from proofcheck.constructions.afz.layers.hat import plateau_ff
from proofcheck.constructions.afz.phases.separation import (  # same decisions as before
    Separation,
    _Rows,
    choose_u,
)
from proofcheck.constructions.afz.layers.translation import translation_ff
from proofcheck.constructions.claims import SequenceShift, Shift, Translate
from proofcheck.kernel.model import Block, dot

ID = "separation-reference"


def separate(inputs, d: int, float_format=None, progress=None) -> Separation:
    """Phase S for ``inputs[j]``: ``(n_j, d)`` tuples of Fractions (admissible).

    Bookkeeping by *classes* (sequences with a common top; SA tags shift a whole
    class by the same vector, so a class is stored once): per class an offset of
    the projection and of the coordinates, and the probe shifts of its points.
    Projections are scaled to integers (common denominator ``D``), so each round
    costs O(points) integer operations.  ``rows`` of the result are the exact
    token coordinates after block R+1 (the checker re-derives them by evaluation).
    ``float_format``: float-safe probe hats (:func:`proofcheck.constructions.afz.options.float_safe_hat`).
    ``progress()`` (optional) is called after each probe round.
    """
    ids: dict = {}
    seq_pts = [[ids.setdefault(tuple(x), len(ids)) for x in X] for X in inputs]
    points = list(ids)
    u = choose_u(points, seq_pts, d)
    uu = dot(u, u)
    starts, seq_of, pos = [], [], []
    for j, s_ in enumerate(seq_pts):
        starts.append(len(seq_of))
        seq_of += [j] * len(s_)
        pos.append({p: k for k, p in enumerate(s_)})
    c = tuple(1 - min(p[i] for p in points) for i in range(d))
    pi0 = [dot(u, p) + dot(u, c) for p in points]
    D = 1
    for q in pi0:
        D = D * q.denominator // gcd(D, q.denominator)
    P0 = [int(q * D) for q in pi0]          # scaled integer projections
    step = int(uu * D)                        # projection change of a shift by u
    Dx = 1                                    # common denominator of the coordinates
    for p in points:
        for v in p + c:
            Dx = Dx * v.denominator // gcd(Dx, v.denominator)
    X0 = [tuple(int((p[i] + c[i]) * Dx) for i in range(d)) for p in points]
    uD = tuple(int(x * Dx) for x in u)
    seq_sets = [set(s_) for s_ in seq_pts]

    # class: dict(seqs, pts, top, off (int), voff (coords), h {point: multiple of u},
    # bs: sorted class-relative projections P0[p] + h[p] step of its points; the
    # projection of p in the class is that plus off)
    def new_class(seqs, base):
        pts = set().union(*(seq_sets[j] for j in seqs))
        h = {p: v for p, v in base["h"].items() if p in pts}
        return {"seqs": seqs, "pts": pts, "off": base["off"], "voff": base["voff"], "h": h}

    def finish(C):
        h = C["h"]
        C["bs"] = sorted(P0[p] + h.get(p, 0) * step for p in C["pts"])
        C["btop"] = P0[C["top"]] + h.get(C["top"], 0) * step
        C["xtop"] = tuple(x + h.get(C["top"], 0) * w for x, w in zip(X0[C["top"]], uD))

    def proj(C, p):
        return P0[p] + C["h"].get(p, 0) * step + C["off"]

    root = {"off": 0, "voff": (0,) * d, "h": {}}
    by_top: dict = {}
    for j, s_ in enumerate(seq_pts):
        by_top.setdefault(max(s_, key=P0.__getitem__), []).append(j)
    classes = []
    for t, seqs in by_top.items():
        C = new_class(seqs, root)
        C["top"] = t
        finish(C)
        classes.append(C)

    def coords(C, p):
        """Scaled integer coordinates (times Dx) of point p in class C."""
        h = C["h"].get(p, 0)
        return tuple(x + h * w + v for x, w, v in zip(X0[p], uD, C["voff"]))

    def tag():
        """Smallest candidate lambda keeping projections injective, then apply it.
        Inside a class the values are distinct and shift together, so a class is
        one list of base projections plus a shift."""
        lo = min(C["bs"][0] + C["off"] for C in classes)
        hi = max(C["bs"][-1] + C["off"] for C in classes)
        tops = sorted(C["btop"] + C["off"] for C in classes)
        gap = min((b - a for a, b in zip(tops, tops[1:])), default=None)
        safe = 1 if gap is None else (hi - lo) // gap + 1
        n_vals = sum(len(C["bs"]) for C in classes)
        for lam in sorted({min(k, safe) for k in (1, 2, 3, 5, 8, 13)} | {safe}):
            seen = set()
            for C in classes:
                sh = C["off"] + lam * (C["btop"] + C["off"])
                seen.update([b + sh for b in C["bs"]])
            if len(seen) == n_vals:
                break
        for C in classes:
            v = C["voff"]
            C["voff"] = tuple(a + lam * (b + a) for a, b in zip(v, C["xtop"]))
            C["off"] += lam * (C["btop"] + C["off"])
        top_row = [0] * len(seq_pts)
        for C in classes:
            for j in C["seqs"]:
                top_row[j] = starts[j] + pos[j][C["top"]]
        return Fraction(lam), SequenceShift(Fraction(lam), top_row, seq_of)

    def nearest(tp, C, p):
        """Smallest |projection - tp| over every (class, point) except p in C."""
        best = None
        for K in classes:
            bs, t = K["bs"], tp - K["off"]
            i = bisect_left(bs, t)
            for k in (i - 1, i, i + 1):
                if 0 <= k < len(bs) and not (K is C and bs[k] == t):
                    v = abs(bs[k] - t)
                    if best is None or v < best:
                        best = v
        return best

    lam, claim = tag()
    blocks = [Block(translation_ff(c), tag_sa(u, lam), phase="S")]
    claims = [(Translate(c), claim)]
    lambdas = [lam]
    first_classes = len(classes)
    while True:
        big = [C for C in classes if len(C["seqs"]) > 1]
        if not big:
            break
        C = big[0]
        size = len(C["seqs"])
        cnt = Counter(p for j in C["seqs"] for p in seq_sets[j])
        p = min((x for x, n in cnt.items() if n < size), key=lambda x: (abs(2 * cnt[x] - size), x))
        tp = proj(C, p)
        gmax = max(K["btop"] + K["off"] for K in classes)
        H = (gmax - tp) // step + 1
        near = nearest(tp, C, p)
        d2 = Fraction(near, 2 * D)
        shift = tuple(H * x for x in u)
        c, d1 = Fraction(tp, D), d2 / 2
        if float_format is not None:
            from proofcheck.constructions.afz.options import float_safe_hat
            c, d1, d2 = float_safe_hat(c, d2, float_format)
        ff = plateau_ff(u, c, d1, d2, shift, label="probe (3.2p)")
        with_p = [j for j in C["seqs"] if p in seq_sets[j]]
        rest = [j for j in C["seqs"] if p not in seq_sets[j]]
        moved = [starts[j] + pos[j][p] for j in with_p]
        C1, C2 = new_class(with_p, C), new_class(rest, C)
        C1["h"] = dict(C1["h"])
        C1["h"][p] = C1["h"].get(p, 0) + H
        C1["top"], C2["top"] = p, C["top"]
        finish(C1)
        finish(C2)
        classes.remove(C)
        classes += [C1, C2]
        lam, claim = tag()
        blocks.append(Block(ff, tag_sa(u, lam), phase="S"))
        claims.append((Shift(moved, shift), claim))
        lambdas.append(lam)
        if progress:
            progress()
    where = [None] * len(seq_of)  # row -> (class, point)
    for C in classes:
        for j in C["seqs"]:
            for k, p in enumerate(seq_pts[j]):
                where[starts[j] + k] = (C, p)
    rows = _Rows(where, coords, lambda i: proj(*where[i]), Dx, D)
    return Separation(blocks, claims, u, len(blocks) - 1, lambdas, first_classes, rows)
