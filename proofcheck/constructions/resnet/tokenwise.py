"""Token-wise maps and the shared-token obstruction (docs/spec.md §2 ``resnet`` (b)).

Reading chosen here (the sources are silent on it).  A *token-wise map* is any
``f: Q^d -> Q^d`` applied to every token on its own; every network of FF layers
only (any depth, any width) is one, attention is what a token-wise map lacks.  It
*interpolates* a dataset when ``{f(x) : x in X_j} = Y_j`` for every pair — the
exact interpolation of docs/spec.md §1 (sets, both inclusions: every output is a target and
every target is hit).

* **Obstruction.**  If a token ``x`` lies in ``X_j`` and in ``X_k`` and
  ``Y_j ∩ Y_k = ∅``, no token-wise map interpolates: ``f(x)`` would have to lie in
  ``Y_j`` and in ``Y_k``.  The checker finds such a pair in the dataset and prints it
  (token, both sequences and positions, both target sets).
* **"Targets differ" is not enough.**  With ``Y_j ≠ Y_k`` but ``Y_j ∩ Y_k ≠ ∅`` the
  shared token may go to a common target, and a token-wise map can interpolate: a
  built-in example is interpolated exactly by an FF-only network.
* **Nor is the pairwise condition necessary.**  Exactly: a token-wise map exists iff
  one can choose ``f(x) ∈ Dom(x) = ∩_{j : x ∈ X_j} Y_j`` for every token so that every
  ``y ∈ Y_j`` is hit by some ``x ∈ X_j``.  Empty domains (pairwise or among three or
  more sequences) and uncoverable targets both forbid it; :func:`solve` decides the
  question by an exhaustive search (bounded; undecided beyond the bound) and, when a
  map exists, :func:`network` builds it from relocation layers (Lemma 3.2) and the
  kernel checks it exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from proofcheck.constructions.resnet.chain import relocation_chain
from proofcheck.constructions.claims import Fixed, Moves
from proofcheck.kernel.dataset import Dataset
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block, Transformer
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value

READING = ("reading: a token-wise map is any f: Q^d -> Q^d applied to each token (every "
           "FF-only network is one); it interpolates when {f(x) : x in X_j} = Y_j for every j "
           "(docs/spec.md §1, both inclusions); obstruction: x in X_j ∩ X_k with Y_j ∩ Y_k = ∅ "
           "(then f(x) ∈ Y_j ∩ Y_k = ∅); 'targets differ' (Y_j ≠ Y_k) alone is NOT enough")


@dataclass
class Conflict:
    """``token = X_j[a] = X_k[b]`` with ``Y_j ∩ Y_k = ∅``."""

    token: tuple
    j: int
    a: int
    k: int
    b: int


@dataclass
class Obstructions:
    first: Conflict | None
    tokens: int = 0                     # distinct tokens with a conflict
    sequences: set = field(default_factory=set)  # sequences in some conflict


def _set(tokens) -> str:
    return "{" + ", ".join(fmt_value(t) for t in tokens) + "}"


def _occurrences(ds: Dataset) -> dict:
    occ: dict[tuple, list[tuple[int, int]]] = {}
    for j, p in enumerate(ds.pairs):
        for a, x in enumerate(p.inputs):
            occ.setdefault(x, []).append((j, a))
    return occ


def conflicts(ds: Dataset) -> Obstructions:
    """Every token shared by two sequences with disjoint target sets; the first one in
    dataset order (smallest ``j``, then ``k``) is kept as the witness."""
    targets = [frozenset(p.outputs) for p in ds.pairs]
    out = Obstructions(None)
    for x, places in _occurrences(ds).items():
        by_target: dict[frozenset, list[tuple[int, int]]] = {}
        for j, a in places:  # occurrences grouped by distinct target set
            by_target.setdefault(targets[j], []).append((j, a))
        sets = list(by_target)
        clashing = [T for T in sets if any(not T & U for U in sets)]
        if not clashing:
            continue
        out.tokens += 1
        for T in clashing:
            out.sequences.update(j for j, _ in by_target[T])
        for T in clashing:
            for U in sets:
                if not T & U:
                    (j, a), (k, b) = sorted((by_target[T][0], by_target[U][0]))
                    if out.first is None or (j, k) < (out.first.j, out.first.k):
                        out.first = Conflict(x, j, a, k, b)
    return out


@dataclass
class Solution:
    """``status``: ``"possible"`` (``f`` maps every distinct token), ``"impossible"``
    (``reason`` says why, ``where`` locates it) or ``"undecided"`` (search bound hit)."""

    status: str
    f: dict | None = None
    reason: str = ""
    where: tuple | None = None
    nodes: int = 0


def solve(ds: Dataset, max_nodes: int = 100_000) -> Solution:
    """Decide whether a token-wise map interpolates ``ds`` (see the module
    docstring): domains ``Dom(x)``, then a depth-first search choosing for every
    target ``y`` of every ``Y_j`` a token of ``X_j`` that maps to it, fewest candidates
    first.  Unchosen tokens map to the smallest element of their domain."""
    occ = _occurrences(ds)
    targets = [frozenset(p.outputs) for p in ds.pairs]
    dom = {}
    for x, places in occ.items():
        s = frozenset.intersection(*(targets[j] for j, _ in places))
        if not s:
            return Solution("impossible", reason=f"token {fmt_value(x)} lies in sequences "
                            f"{sorted({j for j, _ in places})} whose target sets have empty "
                            "intersection", where=(x,))
        dom[x] = s
    reqs = []
    for j, p in enumerate(ds.pairs):
        for y in p.outputs:
            cand = [x for x in p.inputs if y in dom[x]]
            if not cand:
                return Solution("impossible", reason=f"target {fmt_value(y)} of sequence {j} "
                                f"cannot be hit: the domain of every token of X_{j} (the "
                                "intersection of the target sets of the sequences containing "
                                f"it) misses {fmt_value(y)}", where=(j, y))
            reqs.append((len(cand), j, y, cand))
    reqs.sort(key=lambda r: (r[0], r[1]))
    f: dict = {}
    nodes = 0

    def dfs(i: int):
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes:
            return None
        if i == len(reqs):
            return True
        _, j, y, cand = reqs[i]
        if any(f.get(x) == y for x in cand):
            return dfs(i + 1)
        for x in cand:
            if x not in f:
                f[x] = y
                r = dfs(i + 1)
                if r is not False:
                    return r
                del f[x]
        return False
    r = dfs(0)
    if r is None:
        return Solution("undecided", nodes=nodes)
    if r is False:
        return Solution("impossible", reason="exhaustive search: no choice of f(x) in Dom(x) "
                        "hits every target of every sequence", nodes=nodes)
    full = {x: f.get(x, min(dom[x])) for x in occ}
    return Solution("possible", f=full, nodes=nodes)


def network(ds: Dataset, f: dict) -> tuple[Transformer, list]:
    """An FF-only network (identity SA in every block, so token-wise) mapping every
    token ``x`` of ``ds`` to ``f[x]``, one relocation layer (Lemma 3.2) per moved
    token, with one claim per block for the kernel checker."""
    occ = _occurrences(ds)
    pts = list(occ)
    spans, s = [], 0
    for p in ds.pairs:
        spans.append(s)
        s += len(p.inputs)
    rows = {x: [spans[j] + a for j, a in places] for x, places in occ.items()}
    ch = relocation_chain(pts, [f[x] for x in pts], label="token relocation")
    blocks, claims = [], []
    for ff, mv in zip(ch.layers, ch.moves):
        blocks.append(Block(ff, identity_sa(), phase="token-wise"))
        claims.append((Moves({r: mv.q for r in rows[pts[mv.index]]}), Fixed()))
    return Transformer(ds.d, blocks), claims


def check(ds: Dataset, max_nodes: int = 100_000) -> CheckResult:
    """``resnet`` (b) on ``ds``: the obstruction with its witness pair when the dataset
    has one; otherwise the exact decision (an FF-only network verified by the kernel,
    or the reason none exists)."""
    from proofcheck.constructions.claim_check import check_network
    ob = conflicts(ds)
    det = [READING]
    if ob.first is not None:
        c = ob.first
        Xj, Xk = ds.pairs[c.j].inputs, ds.pairs[c.k].inputs
        Yj, Yk = ds.pairs[c.j].outputs, ds.pairs[c.k].outputs
        # the premise, re-read from the dataset: x is token a of X_j and token b of X_k,
        # and no target token is common to Y_j and Y_k
        ok = Xj[c.a] == c.token == Xk[c.b] and not set(Yj) & set(Yk)
        det += ["method: exact comparison of tokens (rationals) over all pairs sharing a token",
                f"witness pair: token {fmt_value(c.token)} = X_{c.j}[{c.a}] = X_{c.k}[{c.b}]; "
                f"Y_{c.j} = {_set(Yj)}, Y_{c.k} = {_set(Yk)}: Y_{c.j} ∩ Y_{c.k} = ∅, so "
                f"f({fmt_value(c.token)}) cannot lie in both",
                f"{ob.tokens} distinct token(s) of '{ds.name}' are shared by sequences with "
                f"disjoint targets; {len(ob.sequences)} of the N = {ds.N} sequences are involved"]
        name = (f"resnet (b) no token-wise map (no FF-only network) interpolates '{ds.name}': "
                f"token shared by sequences {c.j} and {c.k} with disjoint targets")
        if not ok:
            return CheckResult(name, Verdict.ERROR, det + ["the witness does not satisfy the "
                                                           "premise (internal error)"])
        return CheckResult(name, Verdict.VERIFIED, det)
    sol = solve(ds, max_nodes)
    det.append(f"no token of '{ds.name}' is shared by sequences with disjoint targets; exact "
               f"decision by search ({sol.nodes} node(s), bound {max_nodes})")
    if sol.status == "undecided":
        return CheckResult(f"resnet (b) token-wise interpolation of '{ds.name}': undecided",
                           Verdict.INCONCLUSIVE, det + ["search bound reached"])
    if sol.status == "impossible":
        return CheckResult(f"resnet (b) no token-wise map interpolates '{ds.name}' (no pairwise "
                           "obstruction, but " + ("a target cannot be hit)" if len(sol.where or ())
                                                  == 2 else "the constraints conflict)"),
                           Verdict.VERIFIED, det + ["method: exact search", sol.reason])
    net, claims = network(ds, sol.f)
    name = (f"resnet (b) token-wise interpolation of '{ds.name}' is possible: an FF-only "
            f"network of {net.L} relocation layer(s) interpolates exactly")
    nc = check_network(net, [list(p.inputs) for p in ds.pairs],
                       [list(p.outputs) for p in ds.pairs], claims)
    det += ["method: exact search, then the kernel checker on the FF-only network "
            "(identity SA in every block)"] + [ln for r in nc.results for ln in r.lines()]
    if nc.verdict.passed:
        return CheckResult(name, Verdict.VERIFIED, det)
    return CheckResult(name, Verdict.REFUTED if nc.verdict == Verdict.REFUTED else nc.verdict,
                       det, nc.witness or Witness("token-wise network check failed"))
