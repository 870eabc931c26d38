"""Constructions ``causal-last`` and ``causal-all`` (proofcheck's own): a causal
transformer (every SA layer masked) whose outputs at the read positions of each
sequence are exactly the targets Y_j — the last m_j outputs (reading
``last-outputs``) or all of them (``all-outputs``), :mod:`proofcheck.constructions.causal.readings`.

Hypothesis (decided exactly; else :class:`NoCausalInterpolant`, exit 2 — the dataset is
admissible for Theorem 1.6, the obstruction is the causal mask's): a
*prefix map* g exists — a target for every read prefix, in the target set of every
sequence reading it, hitting every target.  The hypothesis is necessary: the read
outputs of a causal network are a function of their prefixes (statement
``causal-first-token``), so when no prefix map exists no causal transformer
interpolates in that reading.  Read position (j, i) is assigned ``g(X_j[:i + 1])``.

Blocks (block order FF then SA; every SA layer causal):

=========  ========================  ===========================================
blocks     FF                        SA (masked)
=========  ========================  ===========================================
1          translation (3.1)         prefix tag: ``x_i -> x_i + lam top_i``
2..R+1     probe: hat (3.2) lifting  prefix tag
           one point ``p`` by ``H u``
R+2..L     relocation hats (3.2)     identity
=========  ========================  ===========================================

``top_i`` is the mean of the u-maximal tokens among ``x_1..x_i`` (Lemma 4.1's
attention set over the keys a causal mask allows; every u-projection is positive).
A *class* is a set of read positions with equal current value; it is *bad* when its
read positions are assigned two different targets (their prefixes then differ).  A
round takes the first bad class and in it the first pair (a, b) of read positions
with different targets, and lifts a point ``p`` above every u-projection
(``p' = p + H u``): a point of one prefix's value set but not the other's when the
sets differ (then a's and b's tops differ after the lift, so the tag separates them),
otherwise the value at the first position where the two prefixes differ (the lift
then reorders the prefix maxima of the positions between, and the sets differ at the
next round).  ``lam`` is the smallest integer >= 1 for which
``(value, top) -> value + lam top`` is injective on all positions, so distinct
prefixes keep distinct value tuples and classes never merge.  Rounds stop when no
class is bad (at most ``MAX_ROUNDS_PER_READ * (read positions) + 4`` rounds, the
construction's stated bound; termination in general is not proved, and past the bound the
construction fails on that dataset: :class:`RoundBoundExceeded`, REFUTED there like any
construction that raises on an admissible input).  Then one relocation chain
(:func:`proofcheck.constructions.resnet.chain.relocation_chain`, Lemma 3.2 hats) sends every read value
to its target and fixes every other current point: ``K <= 2 * (distinct read
values)`` hats.

``L = R + 1 + K``.  In the reading ``last-outputs`` the other outputs are not targets
in general.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from proofcheck.constructions.afz.layers.clustering import tag_sa
from proofcheck.constructions.afz.layers.hat import relocate
from proofcheck.constructions.afz.layers.translation import translation_ff
from proofcheck.constructions.causal.readings import ALL, LAST, impossibility, prefix_map, read_positions
from proofcheck.constructions.claims import Fixed, Moves
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.evaluate import spans_of
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block, Transformer, dot

NAMES = {LAST: "causal-last", ALL: "causal-all"}
BLOCKS = "R + 1 + K (K relocation hats)"
MAX_ROUNDS_PER_READ = 4


class NoCausalInterpolant(BadInput):
    """No prefix map exists in the construction's reading (decided exactly), so no causal
    transformer interpolates the dataset in that reading.  The dataset is admissible for
    Theorem 1.6 (the unmasked construction may interpolate it); the construction's
    hypothesis fails, so it is refused (exit 2) with the obstruction as the reason, not
    called inadmissible."""

    kind = "NO CAUSAL INTERPOLANT"


class RoundBoundExceeded(RuntimeError):
    """The separation rounds passed the construction's stated bound
    ``MAX_ROUNDS_PER_READ * (read positions) + 4`` on the dataset: the construction
    fails its own claim there (``theorem 1.6`` says REFUTED, witness code
    ``construction-raised``), which is not a resource limit of the check."""


def causal(sa):
    """``sa`` with the causal mask (docs/spec.md §1 "Extensions")."""
    return replace(sa, causal=True)


class _State:
    """The construction's exact model of the masked network's state: ``seqs[j][i]``
    the current value of token i of sequence j (tuples of Fractions)."""

    def __init__(self, inputs, u):
        self.seqs = [[tuple(x) for x in X] for X in inputs]
        self.spans = spans_of(len(X) for X in inputs)
        self.u = u

    def points(self):
        return list(dict.fromkeys(x for s in self.seqs for x in s))

    def move(self, p, q) -> dict:
        """Every token equal to ``p`` goes to ``q`` (what a Lemma 3.2 hat does);
        the claim ``{row: q}``."""
        out = {}
        for (lo, _), s in zip(self.spans, self.seqs):
            for i, x in enumerate(s):
                if x == p:
                    s[i] = q
                    out[lo + i] = q
        return out

    def tops(self):
        """``tops[j][i]``: mean of the u-maximal tokens among ``x_0..x_i`` of sequence j
        (running maximum; ties averaged)."""
        out = []
        for s in self.seqs:
            row, best, tied = [], None, []
            for x in s:
                p = dot(self.u, x)
                if best is None or p > best:
                    best, tied = p, [x]
                elif p == best:
                    tied.append(x)
                row.append(tied[0] if len(tied) == 1 else
                           tuple(sum(c) / len(tied) for c in zip(*tied)))
            out.append(row)
        return out

    def tag_lambda(self, tops) -> int:
        """Smallest integer ``lam >= 1`` making ``(value, top) -> value + lam top``
        injective over all positions."""
        pairs = list(dict.fromkeys((x, t) for s, ts in zip(self.seqs, tops)
                                   for x, t in zip(s, ts)))
        lam = 1
        while len({tuple(a + lam * b for a, b in zip(x, t)) for x, t in pairs}) < len(pairs):
            lam += 1
        return lam

    def tag(self, tops, lam) -> dict:
        out = {}
        for (lo, _), s, ts in zip(self.spans, self.seqs, tops):
            for i, (x, t) in enumerate(zip(s, ts)):
                s[i] = tuple(a + lam * b for a, b in zip(x, t))
                out[lo + i] = s[i]
        return out


@dataclass
class _Read:
    """Read positions ``(j, i)`` and their assigned targets ``g(X_j[:i + 1])``."""

    pos: list
    target: list

    @classmethod
    def of(cls, inputs, targets, reading: str, g: dict):
        pos, tgt = [], []
        for j, (X, Y) in enumerate(zip(inputs, targets)):
            for i in read_positions(len(X), len(Y), reading):
                pos.append((j, i))
                tgt.append(g[tuple(X[:i + 1])])
        return cls(pos, tgt)


def assignment(inputs, targets, reading: str, name: str) -> dict:
    """The prefix map g (read prefix -> target); :class:`NoCausalInterpolant` when none
    exists (no causal transformer interpolates in ``reading``), ``ResourceLimit`` when the
    exact search stops at its bound."""
    from proofcheck.kernel.errors import ResourceLimit
    sol = prefix_map(inputs, targets, reading)
    if sol.status == "impossible":
        j = sol.where[0] if sol.where and len(sol.where) == 2 else None
        raise NoCausalInterpolant(
            f"construction {name}: no prefix map in the reading {reading} ("
            f"{impossibility(sol)}), so no causal transformer interpolates this dataset in "
            "that reading (the dataset is admissible for Theorem 1.6; the obstruction is the "
            "causal mask's)", f"$.pairs[{j}]" if j is not None else None)
    if sol.status != "possible":
        raise ResourceLimit(f"construction {name}: the prefix-map search reached its bound")
    return sol.f


def _bad_pair(st: _State, rd: _Read):
    """The first pair of read positions with equal values and different targets."""
    groups: dict = {}  # value -> {target: first read position with it}
    for a, (j, i) in enumerate(rd.pos):
        g = groups.setdefault(st.seqs[j][i], {})
        if rd.target[a] not in g:
            if g:
                return rd.pos[next(iter(g.values()))], rd.pos[a]
            g[rd.target[a]] = a
    return None


def _probe_point(st: _State, a, b):
    """The point to lift for the read positions ``a``, ``b`` (see the module text)."""
    (ja, ia), (jb, ib) = a, b
    pa, pb = st.seqs[ja][:ia + 1], st.seqs[jb][:ib + 1]
    sa, sb = set(pa), set(pb)
    diff = [x for x in pa if x not in sb] + [x for x in pb if x not in sa]
    if diff:
        return diff[0]
    return next(x for x, y in zip(pa, pb) if x != y)


def _lift(st: _State, p):
    """``(p + H u, H)`` with the smallest integer H putting ``<u, p + H u>`` above
    every current projection."""
    u = st.u
    uu = dot(u, u)
    top = max(dot(u, x) for s in st.seqs for x in s)
    H = int((top - dot(u, p)) // uu) + 1
    return tuple(a + H * c for a, c in zip(p, u)), H


def _direction(points):
    """``u = (1, k, k^2, ...)``, the smallest k >= 1 with pairwise distinct
    u-projections on the given (positive) points."""
    d = len(points[0])
    k = 1
    while True:
        u = tuple(Fraction(k) ** e for e in range(d))
        if len({dot(u, x) for x in points}) == len(points):
            return u
        k += 1


def construct(inputs, targets, d: int, reading: str = LAST, progress=None, **_ignored):
    """Build the ``causal-last`` (``reading = LAST``) or ``causal-all`` network.
    ``inputs[j]``: ``(n_j, d)``, ``targets[j]``: ``(m_j, d)`` tuples of Fractions.
    Raises :class:`NoCausalInterpolant` when no prefix map exists
    (saying why), :class:`~proofcheck.kernel.errors.ResourceLimit` when the prefix-map
    search reaches its bound, :class:`RoundBoundExceeded` when the rounds pass the stated
    bound.  Returns a
    :class:`proofcheck.constructions.afz.theorems.theorem_1_6.Construction`."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import Construction
    from proofcheck.constructions.resnet.chain import relocation_chain
    name = NAMES[reading]
    g = assignment(inputs, targets, reading, name)
    lo = min(v for X in inputs for x in X for v in x)
    c = tuple(Fraction(1) - lo if lo < 1 else Fraction(0) for _ in range(d))
    moved = [[tuple(a + b for a, b in zip(x, c)) for x in X] for X in inputs]
    st = _State(moved, None)
    st.u = _direction(st.points())
    rd = _Read.of(inputs, targets, reading, g)
    blocks, claims, lams, lifts = [], [], [], []

    def tag_block(ff, ff_claim):
        tops = st.tops()
        lam = st.tag_lambda(tops)
        lams.append(lam)
        blocks.append(Block(ff, causal(tag_sa(st.u, lam)), phase="S"))
        claims.append((ff_claim, Moves(st.tag(tops, lam))))
    tag_block(translation_ff(c), Moves({r: x for (lo_, _), X in zip(st.spans, moved)
                                        for r, x in enumerate(X, start=lo_)}))
    limit = MAX_ROUNDS_PER_READ * len(rd.pos) + 4
    while (bad := _bad_pair(st, rd)) is not None:
        if len(lams) > limit:
            raise RoundBoundExceeded(f"construction {name}: no separation after {limit} rounds "
                                     "(its stated bound)")
        p = _probe_point(st, *bad)
        q, H = _lift(st, p)
        ff = relocate(st.points(), p, q)
        lifts.append(H)
        tag_block(replace(ff, label="probe lift (3.2)"), Moves(st.move(p, q)))
        if progress:
            progress("S")
    R = len(lams) - 1
    pts = st.points()
    image = dict(zip(pts, pts))
    for (j, i), y in zip(rd.pos, rd.target):
        image[st.seqs[j][i]] = y
    chain = relocation_chain(pts, [image[x] for x in pts], label="read-value relocation")
    for ff, mv in zip(chain.layers, chain.moves):
        blocks.append(Block(ff, causal(identity_sa()), phase="I"))
        claims.append((Moves(st.move(mv.p, mv.q)), Fixed()))
        if progress:
            progress("I")
    info = {"R": R, "K": len(chain.layers), "u": st.u, "tag_lambdas": lams, "lifts": lifts,
            "detours": chain.detours, "reading": reading, "name": name,
            "read_positions": len(rd.pos),
            "report": {"reading": reading, "u": "(" + ", ".join(map(str, st.u)) + ")",
                       "tag factors lambda": ", ".join(map(str, lams)),
                       "lifts H": ", ".join(map(str, lifts)) or "none",
                       "relocation hats K": len(chain.layers), "detours": chain.detours},
            "round_text": "each round lifts one point above every projection so that two "
                          "read positions with different targets get different prefix "
                          "tops, and tags again (causally)"}
    info["default_counts"] = default_counts(inputs, targets, d)
    return Construction(Transformer(d, blocks), claims,
                        {"S": (1, R + 1), "I": (R + 2, len(blocks))}, info, {})


PARAMS = "(4d + 5) + (8d + 7) R + (6d + 7) K"


def param_formula(d: int, R: int, K: int) -> int:
    """Stored scalars (docs/spec.md §1): translation + tag ``2d + 2 + 2d + 3``; a probe round
    (hat of width 3 + tag) ``6d + 4 + 2d + 3``; a relocation hat with its identity SA
    ``6d + 4 + 3``."""
    return 4 * d + 5 + (8 * d + 7) * R + (6 * d + 7) * K


def default_counts(inputs, targets, d: int) -> tuple[int, int] | None:
    """``(L, P)`` of the default (unmasked) construction on the same data (built
    only; ``theorem 1.6`` checks it), or None when its hypothesis fails (inputs
    equal as sets are admissible under the mask only)."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct as default
    if len({frozenset(X) for X in inputs}) < len(inputs):
        return None
    net = default(inputs, targets, d).net
    return net.L, net.n_params()


def constant_checks(net: Transformer, d: int, N: int, M: int, info: dict):
    """The construction's constants as exact checks: L = R + 1 + K, K <= 2 (read
    positions) (the relocation chain's bound), width <= 4, P against
    :func:`param_formula`, the low-rank form; the default construction's L and P on
    the same data beside them."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import low_rank_check
    from proofcheck.constructions.results import CheckResult
    from proofcheck.kernel.verdicts import Verdict

    def res(name, ok, detail):
        return CheckResult(name, Verdict.VERIFIED if ok else Verdict.REFUTED, [detail])
    R, K, L, P = info["R"], info["K"], net.L, net.n_params()
    n_read = info["read_positions"]
    Pf = param_formula(d, R, K)
    lr_check, lr_consts = low_rank_check(net)
    counts = info["default_counts"]
    L_def, P_def = counts or ("n/a", "n/a")
    consts = {"construction": info["name"], "block_formula": BLOCKS, "param_formula_text": PARAMS,
              "N": N, "M": M, "d": d, "R": R, "K": K, "L": L, "L_construction": R + 1 + K,
              "L_default": L_def, "P_default": P_def, "L_paper_hardmax": 2 * M + 2 * N + 1,
              "L_paper_softmax": 2 * M + 3 * N, "max_width": net.max_width, "P": P,
              "P_formula": Pf, "P_claim": f"{PARAMS} = {Pf}; no bound in d M is claimed",
              "R_claim": f"<= {MAX_ROUNDS_PER_READ} x {n_read} read positions + 4 (the "
                         "construction's own bound)", "read_positions": n_read,
              "round_text": info["round_text"],
              "max_bits": net.max_bits(), **lr_consts}
    checks = [
        res("L = R + 1 + K", L == R + 1 + K, f"L = {L}, R + 1 + K = {R + 1 + K}; " + (
            f"the default construction (unmasked) on the same data: L = {L_def}, P = {P_def}"
            if counts else "the default construction does not apply (inputs equal as sets)")),
        res("K <= 2 x read positions (relocation hats)", K <= 2 * n_read,
            f"K = {K}, read positions = {n_read} ({info['reading']})"),
        res("width <= 4", net.max_width <= 4, f"max width = {net.max_width}"),
        res(f"P = {PARAMS}", P == Pf, f"P = {P}, formula = {Pf}"),
        lr_check,
    ]
    return checks, consts
