"""The certifying fast tier (issue 28 items 1-2): the regression files of the fast-route failures
(each fails before its fix) and, per shortcut of ``proofcheck/kernel/fast/`` (the table of its
module docstring), its answer corrupted — the clever routine monkeypatched to return a wrong
candidate — is ERROR naming the shortcut's code, never a verdict."""
from __future__ import annotations

import json
import re
from bisect import bisect_left
from fractions import Fraction as F

import numpy as np
import pytest

import proofcheck.kernel.fast  # noqa: F401  (registers the fast route)
from proofcheck.frontend.io.certificate_writer import theorem_certificate
from proofcheck.kernel import theorem
from proofcheck.kernel.dataset import Dataset, Pair
from proofcheck.kernel.errors import WitnessCheckFailed
from proofcheck.kernel.evaluate import run
from proofcheck.kernel.fast import flint, heads, selection, witness
from proofcheck.kernel.fast import softmax as fsoftmax
from proofcheck.kernel.fast.softmax import RankOneFF, fast_trajectory
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.softmax import Undecided, check_bounds, plain_trajectory
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate
from proofcheck.constructions.provers.simulate import simulate

ONE, ZERO = F(1), F(0)
E1, E2 = (ONE, ZERO), (ZERO, ONE)
IDENT_FF, IDENT_SA = FF(ONE), SA(ONE, Factored(ZERO), Factored(ZERO))


def tag(a, lam=ONE, rho=ONE):
    return SA(rho, Factored(ZERO, (a,), (a,)), Factored(lam))


def hat(w, lo, hi, move):
    """Width 3 along ``w``: identity outside ``[lo, hi]``, moves by ``move`` at the middle."""
    mid, h = (lo + hi) / 2, (hi - lo) / 2
    c = tuple(x / h for x in move)
    return FF(ONE, (w, w, w), (-lo, -mid, -hi), (c, tuple(-2 * x for x in c), c))


def certificate(statement, net, inputs, targets=None, tau=None, name="c"):
    """A sealed certificate of ``net`` on ``inputs`` (targets: the distinct hardmax outputs)."""
    if targets is None:
        targets = [list(dict.fromkeys(s)) for s in run(net, inputs)]
    ds = Dataset(name, net.d, tuple(Pair(tuple(x), tuple(y)) for x, y in zip(inputs, targets)))
    verdict = Verdict.VERIFIED if tau is None else Verdict.VERIFIED_CERTIFIED
    return json.loads(json.dumps(theorem_certificate(statement, ds, net, verdict, tau=tau)))


def shortcut_of(out) -> str | None:
    """The code of the shortcut whose witness check failed (``[code]`` in the kernel's line)."""
    return next((m.group(1) for ln in out.lines
                 if (m := re.search(r"witness check failed \[([a-z-]+)\]", ln))), None)


def assert_error_names(doc, code, route="fast"):
    out = verify_certificate(doc, route=route)
    assert out.verdict is Verdict.ERROR and shortcut_of(out) == code
    assert out.exit_code() == 4


# ---------------------------------------------------- the false VERIFIED-CERTIFIED (issue 28)

def far_candidate(pad: int = 0):
    """2 pairs, 5 tokens, 3 blocks: a tag (A = e1 e1^T, V = I, rho = 1), a hat along e2 on [0, 1],
    an eta = 0 bump along e1 on [10, 1000]; tau = 1/55.  Sequence 1's top and token 1 have
    e2 = -3 2^47 and 1001 + 3 2^47: after the tag token 1 is at 1001, 1000 from the hat, but the
    float64 frame's margin there is about 2^11, so it is a candidate of the window [-1, 2];
    token 0 of sequence 0 is at 2.05, 1.05 from the hat, and its box (radius about 1.3) reaches
    it: at tau = 1/55 the hat moves it into the bump's support."""
    H, Hp, yA = 3 * F(2) ** 47, F(2) ** 50, F(41, 40)
    bump = FF(ZERO, (E1,) * 4, (F(-10), F(-20), F(-990), F(-1000)),
              ((F(1, 10), ZERO), (F(-1, 10), ZERO), (F(-1, 10), ZERO), (F(1, 10), ZERO)))
    net = Transformer(2, [Block(IDENT_FF, tag(E1)), Block(hat(E2, ZERO, ONE, (F(20), ZERO)), IDENT_SA),
                          Block(bump, IDENT_SA)])
    inputs = [[(F(2), yA), (F(27, 16), yA - Hp)],
              [(F(2) + F(1, 10 ** 6), -H), (F(27, 16), 1001 + H), (F(42, 25), 5 - H)]]
    inputs += [[(ONE, F(-10 ** 6 - k))] for k in range(pad)]
    return net, inputs, [[(ZERO, ZERO)] for _ in inputs]


def test_far_candidate_is_not_certified_on_any_route(monkeypatch):
    net, inputs, targets = far_candidate()
    # labelled audit (mpmath, 80 digits; decides nothing): the claim is false at tau = 1/55
    assert simulate(net, inputs, targets, F(1, 55), dps=80).out_to_target > 0.25
    doc = certificate("1.8", net, inputs, targets, tau=F(1, 55), name="far-candidate")
    for route in ("plain", "fast", "auto"):
        out = verify_certificate(doc, route=route)
        assert out.verdict is Verdict.INCONCLUSIVE and out.exit_code() == 3, route
    # the fast trace names no row beyond the window [-1, 2]: the nearest is the window's radius
    traj = fast_trajectory(net, inputs)
    hat_rec = traj.records[1]
    assert isinstance(hat_rec, RankOneFF) and hat_rec.D[0] == 1 and hat_rec.D[1] is None
    with pytest.raises(Undecided) as e:
        check_bounds(traj, F(1, 55), 256, targets)
    assert e.value.where[0] == 2
    plain = check_bounds(plain_trajectory(net, inputs), F(1, 55), 256, targets)
    assert plain.verdict is Verdict.INCONCLUSIVE
    assert (plain.witness.code, plain.witness.sequence, plain.witness.token) == \
        ("final-box-not-a-point", 0, 0)


def test_far_candidate_padded_is_not_certified_by_a_bare_verify(monkeypatch):
    """Padded with 200 idle pairs and ``auto`` taking the fast route alone (as it does when the
    plain route's estimate exceeds the budget)."""
    net, inputs, targets = far_candidate(pad=200)
    doc = certificate("1.8", net, inputs, targets, tau=F(1, 55), name="far-candidate-padded")
    monkeypatch.setattr(theorem, "remaining", lambda: 0)  # plain "does not fit": fast alone
    out = verify_certificate(doc)
    assert out.verdict is Verdict.INCONCLUSIVE and out.exit_code() == 3
    assert any(ln.startswith("route: fast declined") for ln in out.lines)


def test_the_pre_fix_nearest_is_caught_by_its_witness(monkeypatch):
    """The pre-fix ``_nearest`` (a candidate beyond the queried window named as the nearest row)
    is ERROR naming ``nearest-outside``."""
    def unwindowed(cand_t, inside, lo, hi, width):
        best = min(((lo - t if t < lo else t - hi, i) for i, t in cand_t if i not in inside),
                   default=None)
        return best or (width, None)
    monkeypatch.setattr(flint, "_nearest", unwindowed)
    net, inputs, targets = far_candidate()
    with pytest.raises(WitnessCheckFailed) as e:
        fast_trajectory(net, inputs)
    assert e.value.shortcut == witness.NEAREST
    assert_error_names(certificate("1.8", net, inputs, targets, tau=F(1, 55)), witness.NEAREST)


# ------------------------------------------ a rank-one FF of identity pieces only (issue 28)

def identity_pieces_net():
    """A tag, then a rank-one FF whose two units share the kink 2 and cancel (every piece the
    identity) with token 0 of sequence 0 exactly on the kink, then the zero map."""
    ff = FF(ONE, (E2, E2), (F(-2), F(-2)), (E1, (-ONE, ZERO)))
    net = Transformer(2, [Block(IDENT_FF, tag(E1)), Block(ff, IDENT_SA), Block(FF(ZERO), IDENT_SA)])
    return net, [[(F(2), ONE), (ONE, F(3))], [(F(3), F(-1)), (ONE, ONE)]]


def test_rank_one_identity_pieces_agree_on_both_routes():
    net, inputs = identity_pieces_net()
    targets = [[(ZERO, ZERO)], [(ZERO, ZERO)]]
    doc = certificate("1.8", net, inputs, targets, tau=F(1, 8), name="identity-pieces")
    outs = {r: verify_certificate(doc, route=r) for r in ("plain", "fast", "auto")}
    assert {r: o.verdict for r, o in outs.items()} == dict.fromkeys(outs, Verdict.VERIFIED_CERTIFIED)
    fast, plain = fast_trajectory(net, inputs), plain_trajectory(net, inputs)
    assert isinstance(fast.records[1], RankOneFF)  # traced with its pieces, not "dense"
    a, b = (check_bounds(t, F(1, 8), 256, targets) for t in (fast, plain))
    assert a.bounds == b.bounds and a.bounds[1]["straddles"] == 1


# ------------------------------------------------- a long tag sequence (issue 28, item 1)

def test_long_tag_sequence_has_one_verdict_on_both_routes():
    inputs = [[(F(k), F(k * k % 97)) for k in range(1, 1501)], [(ONE, ONE), (F(2), ZERO)]]
    net = Transformer(2, [Block(IDENT_FF, tag(E1))])
    targets = [list(dict.fromkeys(s)) for s in run(net, inputs, flint.FlintBackend())]
    doc = certificate("1.6", net, inputs, targets, name="long-tag")
    # the plain route scores a rank-one tag as the outer product of projections (linear)
    plain, fast = verify_certificate(doc, route="plain"), verify_certificate(doc, route="fast")
    assert plain.verdict == fast.verdict == verify_certificate(doc).verdict
    assert plain.verdict.name == "VERIFIED"


# ------------------------------------------------- every shortcut's witness, corrupted

def _with_outside_row(fn):
    """``fn`` returning one more row, a row outside the window (row 0's neighbour)."""
    def wrong(*a, **k):
        rows = list(fn(*a, **k))
        return rows + [next(i for i in range(10) if i not in rows)]
    return wrong


def hat_net():
    """Two hats in the same direction (the second one reads the sorted index): tokens of
    sequence 0 inside [0, 1] along e1."""
    h = hat(E1, ZERO, ONE, (ZERO, ONE))
    net = Transformer(2, [Block(h, IDENT_SA), Block(hat(E1, F(5), F(6), (ZERO, ONE)), IDENT_SA),
                          Block(h, IDENT_SA)])
    return net, [[(F(1, 4), ZERO), (F(3), ONE)], [(F(11, 2), ONE), (F(9), F(2))]]


def test_window_float_prefilter(monkeypatch):
    monkeypatch.setattr(flint, "_in_range", _with_outside_row(flint._in_range))
    assert_error_names(certificate("1.6", *hat_net()), witness.WINDOW)


def test_window_sorted_index(monkeypatch):
    monkeypatch.setattr(flint._Index, "between", _with_outside_row(flint._Index.between))
    assert_error_names(certificate("1.6", *hat_net()), witness.WINDOW)


def test_window_sorted_index_moved_projection(monkeypatch):
    """The index keeps a moved row's projection by the piece lemma (``_Pieces.projected``);
    a wrong one (off by 1/2) is caught when the next FF in that direction reads the row."""
    orig = flint._Pieces.projected
    monkeypatch.setattr(flint._Pieces, "projected",
                        lambda self, m, eta, t: orig(self, m, eta, t) + flint.fmpq(1, 2))
    h = hat(E1, ZERO, F(4), (ONE, ZERO))  # moves (2, y) to (3, y): still inside [0, 4]
    net = Transformer(2, [Block(h, IDENT_SA), Block(h, IDENT_SA), Block(h, IDENT_SA)])
    inputs = [[(F(2), ZERO), (F(9), ONE)], [(F(7), ONE), (F(-5), F(2))]]
    assert_error_names(certificate("1.6", net, inputs), witness.WINDOW)


def test_window_offset_frame(monkeypatch):
    orig = flint.FlintBackend._offset_query

    def wrong(self, state, dw, w, lo, hi, width):
        inside, near, pj = orig(self, state, dw, w, lo, hi, width)
        i, t = near[0] if near else (0, lo)
        return inside + [(i, t + 100)], near, pj
    monkeypatch.setattr(flint.FlintBackend, "_offset_query", wrong)
    net, inputs, targets = far_candidate()
    assert_error_names(certificate("1.8", net, inputs, targets, tau=F(1, 55)), witness.WINDOW)


def test_ff_piece(monkeypatch):
    monkeypatch.setattr(flint, "piece_index", lambda kinks, t: (bisect_left(kinks, t) + 1)
                        % (len(kinks) + 1))
    assert_error_names(certificate("1.6", *hat_net()), witness.PIECE)


def test_box_piece(monkeypatch):
    monkeypatch.setattr(fsoftmax, "box_piece", lambda kinks, t, wr: (0, False))
    net = Transformer(2, [Block(hat(E1, ZERO, F(4), (ZERO, ONE)), IDENT_SA)])
    inputs = [[(F(3), ZERO), (F(9), ONE)], [(F(1, 2), F(2))]]
    assert_error_names(certificate("1.8", net, inputs, tau=F(1, 8)), witness.BOX_PIECE)


def tag_net():
    """Tags in two directions with a hat between them (tops move: sequences are rebased)."""
    net = Transformer(2, [Block(IDENT_FF, tag(E1)), Block(hat(E2, F(4), F(5), (F(9), ZERO)), tag(E2)),
                          Block(IDENT_FF, tag(E1))])
    return net, [[(F(3), ONE), (F(1), F(7, 2)), (F(2), F(3))], [(F(2), F(2)), (F(5), F(1, 2))]]


def test_tag_top(monkeypatch):
    orig = flint._Dir.refresh

    def swapped(self, X, spans, d):
        fresh = orig(self, X, spans, d)
        if fresh and self.second[0] is not None:  # sequence 0's runner-up named its top
            self.top[0] = self.second[0][1]
        return fresh
    monkeypatch.setattr(flint._Dir, "refresh", swapped)
    assert_error_names(certificate("1.6", *tag_net()), witness.TAG_TOP)


def test_tag_offsets(monkeypatch):
    monkeypatch.setattr(flint._Offsets, "rebase_set", lambda self, a, tops: set())
    assert_error_names(certificate("1.6", *tag_net()), witness.TAG_OFFSETS)


def test_q_sign(monkeypatch):
    """A second tag along e2 where a token has a negative e2: the exact rule declines the lazy
    tag; the pre-filter corrupted to call every sequence positive is caught."""
    monkeypatch.setattr(flint, "_sure_positive", lambda db, frexps: np.ones(len(db.mn), bool))
    net = Transformer(2, [Block(IDENT_FF, tag(E1)), Block(IDENT_FF, tag(E2))])
    inputs = [[(F(3), ONE), (F(1), F(-9))], [(F(2), F(2)), (F(5), F(1, 2))]]
    assert_error_names(certificate("1.6", net, inputs), witness.Q_SIGN)


def test_unique_top(monkeypatch):
    monkeypatch.setattr(flint, "_float_tops", lambda pf, spans, n: (
        [lo + 1 for lo, _ in spans], [lo for lo, _ in spans]))
    net = Transformer(2, [Block(IDENT_FF, tag(E1, rho=ZERO))])  # rho = 0: not a lazy tag
    inputs = [[(F(3), ONE), (F(1), F(2))], [(F(2), F(2)), (F(5), F(1, 2))]]
    assert_error_names(certificate("1.6", net, inputs), witness.UNIQUE_TOP)


def test_gram_argmax(monkeypatch):
    def wrong(G, E):
        cand, best = flint.__dict__["_orig_gram_select"](G, E)
        best = (best + 1) % G.shape[2]
        cand = np.zeros_like(cand)
        np.put_along_axis(cand, best[..., None], True, axis=2)
        return cand, best
    monkeypatch.setitem(flint.__dict__, "_orig_gram_select", flint._gram_select)
    monkeypatch.setattr(flint, "_gram_select", wrong)
    net = Transformer(2, [Block(IDENT_FF, SA(ZERO, Factored(ONE), Factored(ONE)))])
    inputs = [[(F(3), ONE), (F(1), F(2))], [(F(2), F(2)), (F(5), F(1, 2))]]
    assert_error_names(certificate("1.6", net, inputs), witness.GRAM)


def test_gram_margin_checked_exactly():
    """The exact half of the ``gram-argmax`` witness: a named key that does not beat the named
    runner-up on the exact scores (here equal scores, a tie the float bound could not see) fails
    with the shortcut's code and the rows."""
    e = [flint.fmpq(v) for v in (1, 0, 2, 5, 2, 5, 1, 1)]  # rows (1,0), (2,5), (2,5), (1,1)
    witness.dot_margins(witness.GRAM, e, 2, [(3, 1, 0)])  # <x3,x1> = 7 > <x3,x0> = 1
    with pytest.raises(WitnessCheckFailed) as err:
        witness.dot_margins(witness.GRAM, e, 2, [(3, 1, 0), (3, 1, 2)])
    assert err.value.shortcut == witness.GRAM and "row 3 attending to row 1 against row 2" in \
        err.value.detail


def lam_identity_net():
    net = Transformer(2, [Block(IDENT_FF, SA(ZERO, Factored(ONE), Factored(ONE))),
                          Block(FF(ZERO), IDENT_SA)])
    return net, [[(F(3), ONE), (F(1), F(3))], [(F(2), F(2)), (F(5), F(1, 2)), (F(-1), F(4))]]


def test_gram_gap(monkeypatch):
    def widest(h, M, many):  # the token of the LARGEST margin only
        return np.array([int(np.nanargmax(np.where(many, h, np.nan)))])
    monkeypatch.setattr(selection, "_gap_candidates", widest)
    net, inputs = lam_identity_net()
    assert_error_names(certificate("1.8", net, inputs, tau=F(1, 8)), witness.GRAM_GAP)


def test_max_modulus_columns(monkeypatch):
    monkeypatch.setattr(selection, "_top_copies", lambda a: [int(np.argmin(a))])
    net, inputs = lam_identity_net()
    assert_error_names(certificate("1.8", net, inputs, tau=F(1, 8)), witness.MAX_MODULUS)


def rank_one_records_net():
    """A rank-one SA (not a tag) on three sequences with positive e1, then the zero map."""
    net = Transformer(2, [Block(IDENT_FF, tag(E1, rho=ZERO)), Block(FF(ZERO), IDENT_SA)])
    return net, [[(F(3), ONE), (F(1), F(2))], [(F(2), F(2)), (F(5), F(1, 2))],
                 [(F(7), F(3)), (F(4), ONE)]]


def test_rank_one_argmax(monkeypatch):
    def wrong(js, v, err, E, dm, de):
        right = selection.min_product_candidates(js, v, err, E, dm, de)
        return [int(j) for j in js if int(j) not in right][:1] or right
    monkeypatch.setattr(fsoftmax, "min_product_candidates", wrong)
    net, inputs = rank_one_records_net()
    assert_error_names(certificate("1.8", net, inputs, tau=F(1, 8)), witness.RANK_ONE_ARGMAX)


def test_max_modulus_projections(monkeypatch):
    def smallest(bounds):
        v, err, E = bounds[0]
        return [int(np.argmin(np.ldexp(v, E.astype(np.int32))))]
    monkeypatch.setattr(fsoftmax, "max_candidates", smallest)
    net, inputs = rank_one_records_net()
    assert_error_names(certificate("1.8", net, inputs, tau=F(1, 8)), witness.MAX_MODULUS)


def test_head_prefix(monkeypatch):
    orig = heads._prefix_means

    def wrong(p, qv, rows):
        out, (vmax, cmax, vmin, cmin) = orig(p, qv, rows)
        return out, (vmax[:1] + [vmax[0] - 1] * (len(vmax) - 1), cmax, vmin, cmin)
    monkeypatch.setattr(heads, "_prefix_means", wrong)
    h = (Factored(ZERO, (E1,), (E1,)), Factored(ONE))
    net = Transformer(2, [Block(IDENT_FF, SA.multi(ZERO, [h, h], causal=True))])
    inputs = [[(F(1), ONE), (F(3), F(2)), (F(2), ZERO)], [(F(2), F(2)), (F(5), F(1, 2))]]
    assert_error_names(certificate("1.6", net, inputs), witness.HEAD_PREFIX)


def test_every_shortcut_code_has_a_corruption_test():
    names = {c for c in witness.CODES}
    tested = {witness.WINDOW, witness.NEAREST, witness.PIECE, witness.BOX_PIECE, witness.TAG_TOP,
              witness.TAG_OFFSETS, witness.Q_SIGN, witness.UNIQUE_TOP, witness.GRAM,
              witness.GRAM_GAP, witness.RANK_ONE_ARGMAX, witness.MAX_MODULUS, witness.HEAD_PREFIX}
    assert names == tested
    table = proofcheck.kernel.fast.__doc__
    assert all(f"``{c}``" in table for c in names)


# ------------------------------------------------------------------ the route policy

def test_auto_route_policy():
    fast = theorem.FAST["flint"]
    both, alone = theorem.AUTO_BOTH_WORK, theorem.AUTO_BOTH_WORK + 1
    assert theorem.fast_entry("flint", "auto", both, 10 ** 9) == (fast, True)
    assert theorem.fast_entry("flint", "auto", alone, 10 ** 9) == (None, False)  # plain fits
    assert theorem.fast_entry("flint", "auto", alone, alone - 1) == (fast, False)  # it does not
    assert theorem.fast_entry("flint", "plain", 1, None) == (None, False)
    assert theorem.fast_entry("flint", "fast", 1, None) == (fast, False)
    assert theorem.fast_entry("missing", "auto", 1, None) == (None, False)


def test_auto_runs_both_routes_and_a_disagreement_is_error(monkeypatch):
    net, inputs = hat_net()
    doc = certificate("1.6", net, inputs)
    out = verify_certificate(doc)
    assert out.verdict is Verdict.VERIFIED and out.route == "plain+fast"
    assert "route: plain+fast (agree)" in out.lines
    orig = flint.FlintBackend.to_fractions
    monkeypatch.setattr(flint.FlintBackend, "to_fractions",
                        lambda self, st: [tuple(x + 1 for x in r) for r in orig(self, st)])
    out = verify_certificate(doc)
    assert out.verdict is Verdict.ERROR and "route: plain+fast (disagree)" in out.lines


def test_auto_compares_the_softmax_bounds_of_both_routes(monkeypatch):
    net, inputs = rank_one_records_net()
    doc = certificate("1.8", net, inputs, tau=F(1, 8))
    assert verify_certificate(doc).verdict is Verdict.VERIFIED_CERTIFIED
    backend, modules = theorem.FAST["softmax"]

    def wider(net, inputs):  # the fast records with the first SA gap halved
        traj = backend(net, inputs)
        traj.records[0].gap /= 2
        return traj
    monkeypatch.setitem(theorem.FAST, "softmax", (wider, modules))
    out = verify_certificate(doc)
    assert out.verdict is Verdict.ERROR and "route: plain+fast (disagree)" in out.lines
