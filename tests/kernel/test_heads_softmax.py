"""Softmax certificates of multi-head and masked networks (docs/spec.md §1 "Extensions", §4
"Softmax"): per-head gaps in the certifier and the kernel, a multi-head certificate
verifies, forged head entries and a flipped mask are refuted with the witness
(block, sub-layer, head, sequence, token)."""
from __future__ import annotations

import copy
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from test_heads import networks

from proofcheck.constructions.afz.softmax_certifier import certify
from proofcheck.constructions.afz.theorems.constructions import get
from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES, search_tau_cert
from proofcheck.frontend.io.certificate_writer import seal, theorem_certificate
from proofcheck.kernel.dataset import Dataset, Pair
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.evaluate import run
from proofcheck.kernel.fast.softmax import fast_trajectory
from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
from proofcheck.kernel.softmax import plain_trajectory
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate

F = Fraction


def e(*xs):
    return tuple(F(x) for x in xs)


SQUARE = Dataset("square-and-centre", 2, (
    Pair((e(1, 1), e(-1, 1), e(-1, -1), e(1, -1)), (e(0, 10),)),
    Pair((e(1, 1), e(-1, 1), e(-1, -1), e(1, -1), e(0, 0)), (e(0, -10), e(1, 1)))))


def split_heads(net: Transformer) -> Transformer:
    """Every non-identity SA layer as two heads: ``(A, V/2)`` and ``(2A, V/2)`` (the same
    hardmax outputs, head 2's gaps twice head 1's)."""
    def half(V):
        return Factored(V.lam / 2, tuple(tuple(x / 2 for x in a) for a in V.left), V.right)

    def double(A):
        return Factored(2 * A.lam, tuple(tuple(2 * x for x in a) for a in A.left), A.right)
    return Transformer(net.d, [b if b.sa.is_identity else replace(b, sa=SA.multi(
        b.sa.rho, [(b.sa.A, half(b.sa.V)), (double(b.sa.A), half(b.sa.V))], label=b.sa.label))
        for b in net.blocks])


def io(ds):
    return [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]


@pytest.fixture(scope="module")
def split():
    inputs, targets = io(SQUARE)
    net = split_heads(get("default", "1.8").build(inputs, targets, 2, **SCALES).net)
    s = search_tau_cert(net, inputs, targets)
    assert s.cert.verdict is Verdict.VERIFIED_CERTIFIED and not s.tau_free
    return net, s


def reseal(c, mutate):
    c = copy.deepcopy(c)
    c.pop("digest")
    mutate(c)
    return seal(c)


def test_fast_and_plain_trajectories_agree_per_head(split):
    net, _ = split
    inputs, _ = io(SQUARE)
    a, b = fast_trajectory(net, inputs), plain_trajectory(net, inputs)
    heads = lambda t: [(r.block, h.gap, h.gap_at) for r in t.records  # noqa: E731
                       if hasattr(r, "heads") for h in r.heads]
    assert heads(a) == heads(b) and a.outputs == b.outputs
    assert any(len(r.heads) == 2 for r in a.records if hasattr(r, "heads"))
    g = [(r.heads[0].gap, r.heads[1].gap) for r in a.records
         if hasattr(r, "heads") and r.heads[0].gap is not None]
    assert g and all(g2 == 2 * g1 for g1, g2 in g)  # head 2 scores twice head 1's


def test_multi_head_softmax_certificate_verifies(split):
    net, s = split
    cert = theorem_certificate("1.8", SQUARE, net, s.cert.verdict, tau=s.tau, bounds=s.cert)
    sa = [b for b in cert["bounds"]["layers"] if b["sublayer"] == "SA"]
    assert sa and all(len(b["heads"]) == 2 and "min_gap" not in b for b in sa)
    for route in ("plain", "fast"):
        out = verify_certificate(cert, route=route)
        assert out.verdict is Verdict.VERIFIED_CERTIFIED, out.lines


def test_forged_head_gap_is_not_accepted_with_head_and_token(split):
    """A weaker head 2: its stated gap no longer follows; nothing is refuted without an
    output witness, so the stated VERIFIED-CERTIFIED is INCONCLUSIVE (exit 3), the witness
    naming block, sub-layer, head, sequence and token."""
    net, s = split
    cert = theorem_certificate("1.8", SQUARE, net, s.cert.verdict, tau=s.tau, bounds=s.cert)
    k = next(i for i, b in enumerate(cert["bounds"]["layers"])
             if b["sublayer"] == "SA" and b["heads"][1]["min_gap"] is not None)
    blk = cert["bounds"]["layers"][k]["block"] - 1

    def weaker_head_2(c):  # head 2's A halved: its gaps halve, the stated ones no longer follow
        A = c["network"]["blocks"][blk]["sa"]["heads"][1]["A"]
        A["left"] = [[str(F(x) / 4) for x in a] for a in A["left"]]
        A["lam"] = str(F(A["lam"]) / 4)
    out = verify_certificate(reseal(cert, weaker_head_2), route="plain")
    assert out.verdict is Verdict.INCONCLUSIVE and out.exit_code() == 3
    w = next(line for line in out.lines if line.startswith("witness: "))
    assert f"block {blk + 1}, sub-layer SA, head 2, sequence" in w and "token" in w


def test_bounds_with_the_wrong_number_of_heads_are_bad_input(split):
    net, s = split
    cert = theorem_certificate("1.8", SQUARE, net, s.cert.verdict, tau=s.tau, bounds=s.cert)
    k = next(i for i, b in enumerate(cert["bounds"]["layers"]) if b["sublayer"] == "SA")
    forged = reseal(cert, lambda c: c["bounds"]["layers"][k]["heads"].pop())
    with pytest.raises(BadInput) as ex:
        verify_certificate(forged)
    assert ex.value.path == f"$.bounds.layers[{k}]"


# ------------------------------------------------------ a masked two-head network

def masked_net(causal=True) -> Transformer:
    """d = 2, tokens ``(a_j, t)`` with one first coordinate per sequence; head 1 scores
    ``t_i t_l``, head 2 ``a_j t_l``; both write only the first coordinate (``V = c e1
    e1^T``), which is constant in a sequence: outputs ``(5 a_j / 2, t)`` are exact for
    every tau while the gaps depend on the mask and the heads."""
    e1, e2 = e(1, 0), e(0, 1)
    h1 = (Factored(F(0), (e2,), (e2,)), Factored(F(0), (e1,), (e1,)))
    h2 = (Factored(F(0), (e2,), (e1,)), Factored(F(0), (e(F(1, 2), 0),), (e1,)))
    return Transformer(2, [Block(FF(F(1)), SA.multi(F(1), [h1, h2], causal=causal))])


MASKED_IN = [[e(1, 1), e(1, 3), e(1, 2)], [e(2, 2), e(2, -1), e(2, 5), e(2, 4)]]


def masked_cert(causal=True):
    net = masked_net(causal)
    outs = run(net, MASKED_IN)
    ds = Dataset("masked", 2, tuple(Pair(tuple(x), tuple(y)) for x, y in zip(MASKED_IN, outs)))
    c = certify(net, MASKED_IN, [list(y) for y in outs], F(1, 4))
    assert c.verdict is Verdict.VERIFIED_CERTIFIED, c.witness
    return theorem_certificate("1.8", ds, net, c.verdict, tau=F(1, 4), bounds=c)


def test_masked_multi_head_softmax_certificate_verifies():
    cert = masked_cert()
    for route in ("plain", "fast"):
        out = verify_certificate(cert, route=route)
        assert out.verdict is Verdict.VERIFIED_CERTIFIED, out.lines
    assert "causal mask on 1 of 1 SA layers" in out.detail


def test_masked_gaps_are_over_the_prefix():
    """Sequence 0 has t = (1, 3, 2); head 1's gaps masked: none (token 0), 9 - 3 = 6,
    6 - 4 = 2; unmasked: 3 - 2 = 1 (token 0), 3, 2."""
    for causal, want in ((True, 2), (False, 1)):
        rec = plain_trajectory(masked_net(causal), MASKED_IN[:1]).records[0]
        assert rec.heads[0].gap == want


def test_mask_flipped_off_is_not_accepted_with_head_and_token():
    """Unmasked, the stated bounds no longer follow: INCONCLUSIVE (exit 3), with the witness."""
    cert = masked_cert()
    out = verify_certificate(reseal(cert, lambda c: c["network"]["blocks"][0]["sa"].pop("causal")))
    assert out.verdict is Verdict.INCONCLUSIVE and out.exit_code() == 3
    w = next(line for line in out.lines if line.startswith("witness: "))
    assert "block 1, sub-layer SA, head 1, sequence" in w


@settings(max_examples=40, deadline=None)
@given(networks())
def test_fast_and_plain_softmax_records_agree_on_random_networks(case):
    """Per head: the same gaps at the same places, the same outputs, a tie stop at the same
    block, sub-layer and head (when several tokens tie, the tiers may name different ones:
    each names two keys attaining the top score, so either is a witness)."""
    net, seqs = case
    a, b = fast_trajectory(net, seqs), plain_trajectory(net, seqs)

    def key(t):
        return ([(r.block, [(h.gap, h.gap_at, h.nmax1, h.S) for h in r.heads])
                 for r in t.records if hasattr(r, "heads")],
                None if t.stop is None else (t.stop[0], t.stop[1].block, t.stop[1].sublayer,
                                             getattr(t.stop[1], "head", None)), t.outputs)
    assert key(a) == key(b)
