"""The sweep of instances on which the construction routines' output is
fingerprinted (:func:`mutation.apply.fingerprint`): every construction routine
of :data:`mutation.scope.MODULES` called on small exact instances in d = 2..5,
the theorem construction on seeded datasets of every generator style and on
edge datasets, and the routines' rejections of invalid input (their messages
are part of the behaviour)."""
from __future__ import annotations

from fractions import Fraction as F


def _datasets():
    from proofcheck.constructions.afz.edges import edge_datasets, single_target
    from proofcheck.frontend.io.generate import random_dataset
    out = [random_dataset(s, d=d, N=n, max_n=5, style=st)
           for s, (d, n, st) in enumerate([(2, 5, "mixed"), (3, 5, "nested"), (4, 6, "overlap"),
                                           (5, 4, "union"), (2, 7, "nested"), (3, 6, "mixed")])]
    return out + edge_datasets() + [single_target(ds) for ds in edge_datasets()]


def _points(d, k, seed):
    import random
    rng = random.Random(seed)
    return list(dict.fromkeys(tuple(F(rng.randint(-6, 6), rng.choice([1, 2, 3])) for _ in range(d))
                              for _ in range(k)))


def sweep():
    """``(label, function, args, kwargs)`` rows."""
    from proofcheck.constructions.afz import scalars
    from proofcheck.constructions.afz.layers import clustering, corner, hat, snap, sphere, translation
    from proofcheck.constructions.afz.phases import collapse
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    rows = []
    for x in (3, F(1, 2), "7/3", None, 1.5, True, (1,)):
        rows.append((f"scalar {x!r}", scalars.scalar, (x,), {}))
    rows += [("scalars", scalars.scalars, ([1, F(2, 3)],), {}),
             ("scalars bad", scalars.scalars, (5,), {}),
             ("require", scalars.require, (False, "m"), {})]
    for d in (2, 3, 4, 5):
        pts = _points(d, 6, d)
        p, q = pts[0], tuple(F(i + 1, 3) for i in range(d))
        rows += [(f"translation {d}", translation.translation_ff, (pts[1],), {}),
                 (f"direction {d}", hat.separating_direction, (pts, p), {}),
                 (f"relocate {d}", hat.relocate, (pts, p, q), {}),
                 (f"relocate plateau {d}", hat.relocate, (pts, p, q), {"plateau": True}),
                 (f"hat {d}", hat.hat_ff, (pts[1], F(1, 3), F(2), q), {}),
                 (f"hat bad {d}", hat.hat_ff, (pts[1], F(1, 3), F(0), q), {}),
                 (f"plateau {d}", hat.plateau_ff, (pts[1], F(-1, 3), F(1, 2), F(3, 4), q), {}),
                 (f"plateau bad {d}", hat.plateau_ff, (pts[1], F(1), F(1), F(1, 2), q), {}),
                 (f"snap {d}", snap.snap_ff, (d - 1, d, F(-5, 2), F(1, 3), q), {}),
                 (f"snap bad {d}", snap.snap_ff, (d, d, F(1), F(1), q), {}),
                 (f"cluster {d}", clustering.cluster_sa, (pts[2],), {}),
                 (f"tag {d}", clustering.tag_sa, (pts[2], F(3, 2)), {}),
                 (f"corner {d}", corner.corner_sa, (), {}),
                 (f"sphere point {d}", sphere.sphere_point, (pts[3][:-1], F(5, 2)), {}),
                 (f"sphere points {d}", sphere.negative_orthant_points, (7, d, F(3)), {}),
                 (f"sphere {d}", sphere.sphere_sa, (), {}),
                 (f"choose_k {d}", collapse.choose_k, (pts, {pts[0][0], F(2)}, d), {}),
                 (f"collapse {d}", collapse.collapse_sa, (pts[4],), {})]
    rows += [("sphere points d=1", sphere.negative_orthant_points, (2, 1, F(3)), {}),
             ("choose_k coincide", collapse.choose_k, ([(F(1), F(2)), (F(1), F(2))], set(), 2), {}),
             ("choose_k axis", collapse.choose_k, ([(F(5), F(0))], {F(5)}, 2), {}),
             ("choose_k bound", collapse.choose_k,
              ([(F(0), F(1)), (F(1, 2), F(1, 2))], {F(2)}, 2), {}),
             ("collapse claim", collapse.collapse_claim, ((1, 2), [(0, 3), (3, 5)], [[0, 1], [3]]), {})]
    from proofcheck.constructions.afz.layers import converge
    from proofcheck.constructions.afz.theorems import bounded, peel, theorem_1_8_seed
    from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES
    from proofcheck.constructions.causal import prefix_construction as causal
    for d in (2, 3):
        rows += [(f"converge {d}", converge.converge_ff, (d - 1, d, F(-3), F(-1), F(2), F(7, 2)), {}),
                 (f"converge bad {d}", converge.converge_ff, (0, d, F(1), F(1), F(2), F(3)), {})]
    for ds in _datasets():
        inputs = [list(p.inputs) for p in ds.pairs]
        targets = [list(p.outputs) for p in ds.pairs]
        rows.append((f"construct {ds.name}", _built, (inputs, targets, ds.d, construct), {}))
        rows.append((f"peel {ds.name}", _built, (inputs, targets, ds.d, peel.construct), {}))
        rows.append((f"bounded {ds.name}", _built, (inputs, targets, ds.d, bounded.construct), {}))
        rows.append((f"seed 1.8 {ds.name}", _built,   # as theorem 1.8 builds it
                     (inputs, targets, ds.d, theorem_1_8_seed.construct), SCALES))
        for reading in (causal.LAST, causal.ALL):
            rows.append((f"causal {reading} {ds.name}", _built,
                         (inputs, targets, ds.d, causal.construct), {"reading": reading}))
    return rows


def _built(inputs, targets, d, construct, **kw):
    """What the theorem construction returns: network, claims, phases, chosen
    values; not ``info["report"]``, the choices rendered as display strings for
    the run report (a mutant changing only that text builds the same network,
    claims and values: equivalent as a construction)."""
    c = construct(inputs, targets, d, **kw)
    info = {k: v for k, v in c.info.items() if k != "report"}
    return {"net": c.net, "claims": c.claims, "phases": c.phases, "info": info}
