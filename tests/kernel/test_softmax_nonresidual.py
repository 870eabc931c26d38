"""Softmax certificates through non-residual FF layers (eta = 0, U of rank one): the
kernel's output box of one layer against exact evaluation (sound, and tight on the
projection interval, also across kinks), on both routes; the hardmax trajectory
against the exact checker on chains of such layers; fast = plain on the chain."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from proofcheck.constructions.afz.layers.converge import converge_ff
from proofcheck.constructions.afz.layers.hat import hat_ff
from proofcheck.constructions.afz.softmax_certifier import certify, prepare
from proofcheck.constructions.claim_check import check_network
from proofcheck.kernel.evaluate import f2q, q
from proofcheck.kernel.fast.softmax import RankOneFF, fast_trajectory
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.softmax import Radii, check_bounds, plain_trajectory
from proofcheck.kernel.verdicts import Verdict

F = Fraction
small = st.fractions(min_value=-6, max_value=6, max_denominator=4)


def _eval(ff: FF, x):
    """FF(x) = eta x + W relu(U x + b), the definition (docs/spec.md §1), in Fractions."""
    out = [ff.eta * v for v in x]
    for u, b, w in zip(ff.U, ff.b, ff.W):
        z = sum(a * v for a, v in zip(u, x)) + b
        if z > 0:
            out = [o + c * z for o, c in zip(out, w)]
    return out


@st.composite
def layers(draw):
    """A random eta = 0 FF of width 1..4 whose rows are multiples of one direction,
    a centre and a radius (d = 2 or 3)."""
    d = draw(st.integers(2, 3))
    w = draw(st.lists(st.integers(-2, 2), min_size=d, max_size=d).filter(any))
    width = draw(st.integers(1, 4))
    cs = draw(st.lists(st.sampled_from([-2, -1, 1, F(1, 2), 3]), min_size=width, max_size=width))
    U = tuple(tuple(F(c) * a for a in w) for c in cs)
    b = tuple(draw(small) for _ in range(width))
    W = tuple(tuple(draw(small) for _ in range(d)) for _ in range(width))
    x = tuple(draw(small) for _ in range(d))
    r = tuple(draw(st.fractions(min_value=0, max_value=3, max_denominator=8)) for _ in range(d))
    return FF(F(0), U, b, W), x, r, w


def _radius(ff, x, r, route):
    """The kernel's radius of the image of the box ``x +- r`` under ``ff`` (one FF
    record of the trajectory of a one-block network), and the exact centre."""
    net = Transformer(len(x), [Block(ff, identity_sa())])
    traj = (fast_trajectory if route == "fast" else plain_trajectory)(net, [[x]])
    radii = Radii(1, len(x))
    radii.reset([q(v) for v in r])
    traj.records[0].propagate(radii)
    return [f2q(v) for v in radii.get(0)], traj.outputs[0][0], traj.records[0]


def _sign(v):
    return (v > 0) - (v < 0)


@settings(max_examples=150, deadline=None)
@given(layers())
def test_output_box_is_sound_and_tight(case):
    ff, x, r, w = case
    rn, centre, _ = _radius(ff, x, r, "fast")
    assert _radius(ff, x, r, "plain")[0] == rn      # both routes: the same radius
    assert list(centre) == _eval(ff, x)            # the hardmax pass is exact
    # the projection <w, x> over the box spans [t - |w|.r, t + |w|.r]: the two
    # corners x -+ sign(w) r attain its ends, the segment between them every kink
    lo = [a - _sign(c) * s for a, c, s in zip(x, w, r)]
    hi = [a + _sign(c) * s for a, c, s in zip(x, w, r)]
    pts = [lo, hi] + [[a + (b - a) * F(k, 16) for a, b in zip(lo, hi)] for k in range(1, 16)]
    t_lo, t_hi = (sum(c * v for c, v in zip(w, p)) for p in (lo, hi))
    for u, b in zip(ff.U, ff.b):
        c = next(a / cw for a, cw in zip(u, w) if cw != 0)
        kink = -b / c
        if t_lo < kink < t_hi:
            s = (kink - t_lo) / (t_hi - t_lo)
            pts.append([a + (bb - a) * s for a, bb in zip(lo, hi)])
    corners = [[a + e * s for a, e, s in zip(x, signs, r)]
               for signs in ([1] * len(x), [-1] * len(x), [1, -1] + [1] * (len(x) - 2))]
    true = [F(0)] * len(x)
    for p in pts + corners:
        y = _eval(ff, p)
        for k in range(len(x)):
            dev = abs(y[k] - centre[k])
            assert dev <= rn[k], (p, k, dev, rn[k])        # sound
            if p in pts:
                true[k] = max(true[k], dev)
    for k in range(len(x)):                                 # tight up to the 64-bit rounding
        assert rn[k] <= true[k] * (1 + F(1, 2 ** 60)) + F(1, 2 ** 200)


def test_flat_piece_maps_a_box_to_a_point():
    ff = converge_ff(0, 2, F(1), F(3), F(5), F(7))
    rn, centre, rec = _radius(ff, (F(2), F(0)), (F(1), F(9)), "fast")
    assert isinstance(rec, RankOneFF) and centre == (F(1) - F(5), F(0)) and rn == [0, 0]
    # a box reaching past the kink at 3 is not a point: radius = how far it reaches
    assert _radius(ff, (F(2), F(0)), (F(3, 2), F(0)), "fast")[0] == [F(1, 2), F(0)]
    assert _radius(ff, (F(2), F(0)), (F(3, 2), F(0)), "plain")[0] == [F(1, 2), F(0)]


def _chain_net():
    """A softmax SA that gives every token a radius, three eta = 0 layers, a hat
    moving one point, one more eta = 0 layer."""
    e1 = (F(1), F(0))
    sa = SA(F(0), Factored(F(1)), Factored(F(0), (e1,), (e1,)))  # x -> <e1, mean> e1
    blocks = [Block(FF(F(1)), sa),
              Block(converge_ff(0, 2, F(-1), F(1), F(3), F(5)), identity_sa()),
              Block(converge_ff(0, 2, F(-9), F(-7), F(-5), F(-3)), identity_sa()),
              Block(converge_ff(0, 2, F(-20), F(-19), F(-18), F(-17)), identity_sa()),
              Block(hat_ff(e1, F(14), F(1, 2), (F(7), F(1))), identity_sa()),
              Block(converge_ff(0, 2, F(1), F(2), F(100), F(101)), identity_sa())]
    return Transformer(2, blocks)


INPUTS = [[(F(0), F(1)), (F(1), F(5))], [(F(4), F(2)), (F(5), F(1))], [(F(2), F(0))]]


def test_chained_hardmax_pass_equals_the_exact_checker():
    net = _chain_net()
    traj = prepare(net, INPUTS)
    assert sum(isinstance(rec, RankOneFF) for rec in traj.records) == 5
    for backend in ("flint", "plain"):
        nc = check_network(net, INPUTS, None, backend=backend)
        assert [[tuple(x) for x in s] for s in traj.outputs] == \
            [[tuple(F(v) for v in x) for x in s] for s in nc.outputs]


def test_chained_radii_fast_equal_plain():
    net = _chain_net()
    targets = [[(F(0), F(0))]] * 3
    fast, plain = fast_trajectory(net, INPUTS), plain_trajectory(net, INPUTS)
    for tau in (F(1, 4), F(1, 64)):
        f, p = check_bounds(fast, tau, 256, targets), check_bounds(plain, tau, 256, targets)
        assert f.verdict == p.verdict and f.bounds == p.bounds
    cert = certify(net, INPUTS, targets, F(1, 4), trajectory=fast)
    assert cert.verdict != Verdict.ERROR, cert.reason
