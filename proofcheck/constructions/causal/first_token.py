"""Statement ``causal-first-token`` (proofcheck's own; docs/spec.md §1 "Extensions").

Under a causal mask the image of position 1 depends on x_1 alone, at every depth:
``T(X)_1 = T((x_1))_1`` — more generally ``T(X)_i = T((x_1, ..., x_i))_i``.  The argument
below covers any depth, heads and parameters, hardmax or softmax; the checks cover what
they say: the masked SA step symbolically for three layer forms ((d, H, rank) = (2, 1, 1),
(2, 2, 1), (3, 2, 2), n = 3 tokens), and seeded network instances.  Argument: by
induction over the 2L sub-layers, the state of position i after each one is a
function of the states of positions 1..i before it: an FF layer is token-wise (one
token in, one token out), and a masked SA layer's row i attends over the keys
``l <= i`` only; at position 1 that is the single key 1, whose weight is 1 whatever
the score (hardmax: the argmax set of one score; softmax: a one-term normaliser), so
``SA(X)_1 = rho x_1 + sum_h V_h x_1``.

Consequence: two sequences sharing their first token share an output token, so a
dataset in which two such sequences have disjoint targets is interpolated by no
causal transformer in the reading "the set of all outputs" (a *prefix conflict*,
:mod:`proofcheck.constructions.causal.readings`; in the reading "the last m_j outputs" the same holds
for prefixes ending at read positions of both).  Exactly: a causal transformer
interpolates in a reading only if a *prefix map* exists (a target for every read
prefix, common to the sequences reading it, hitting every target), which is decided
by exact search; the constructions ``causal-last`` / ``causal-all`` realise one.

Checks, each with its scope:

* symbolic, for all parameters: row 1 of a masked SA layer with symbolic
  ``rho``, ``A_h = lam_h I + a_h b_h^T``, ``V_h = mu_h I + c_h e_h^T`` (H = 1, 2 heads;
  d = 2, 3; n = 3 symbolic tokens), computed with the kernel's own pieces — the keys
  :func:`proofcheck.kernel.evaluate.allowed` gives, the scores ``<A_h x_1, x_l>`` by
  ``Factored.apply``, the weights by the kernel's hardmax rule — is free of
  x_2, x_3 and equals ``rho x_1 + sum_h V_h x_1``; the softmax weight of the one key
  is 1.  Without the mask the same computation must compare scores that involve
  x_2, x_3 (undecided as a function of x_1 alone: shown as a control);
* instances: seeded random masked networks (1-2 heads, integer parameters with
  ties) on sequences sharing a prefix: equal outputs on the shared prefix, and
  ``T(X)_i = T(X_1..i)_i``, on both exact backends (plain and flint), which agree;
  the same networks unmasked differ at position 1 (the control, with its values);
* the witness dataset (two sequences, same first token, disjoint targets): the
  conflict re-read from the data; Theorem 1.6's unmasked construction interpolates
  it, and ``causal-last`` does in the reading ``last-outputs`` (both checked
  exactly), so the obstruction is the mask's and the reading's;
* on a dataset (``--dataset``, ``--example``; default the digits sample): per
  reading, its prefix conflicts with the first witness, or the exact prefix-map
  decision.
"""
from __future__ import annotations

import random
from fractions import Fraction

from proofcheck.constructions.causal import with_mask
from proofcheck.constructions.causal.readings import ALL, LAST, READINGS
from proofcheck.kernel.dataset import Dataset, Pair
from proofcheck.kernel.model import SA, Block, Factored, FF, Transformer, dot
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Scope, Verdict, Witness, combine, fmt_value

ID = "causal-first-token"
#: the masked SA layer forms (d, heads, rank of A_h - lam I and V_h - mu I) the symbolic
#: step covers
SYMBOLIC_FORMS = ((2, 1, 1), (2, 2, 1), (3, 2, 2))


# --------------------------------------------------------------------------- symbolic

def symbolic_layer(d: int, H: int, causal: bool = True, rank: int = 1):
    """A masked SA layer with every parameter a sympy symbol (``lam I`` plus ``rank``
    rank-one terms for every A_h and V_h)."""
    import sympy as sp
    from proofcheck.constructions.provers.sa_proofs import symbols

    def fac(name):
        return Factored(sp.Symbol(f"{name}_lam", real=True),
                        tuple(symbols(f"{name}_l{r}_", d, real=True) for r in range(rank)),
                        tuple(symbols(f"{name}_r{r}_", d, real=True) for r in range(rank)))
    heads = [(fac(f"A{h}"), fac(f"V{h}")) for h in range(1, H + 1)]
    return SA.multi(sp.Symbol("rho", real=True), heads, causal=causal, label="symbolic SA")


def row_image(sa, X, i: int):
    """Row ``i`` of ``sa`` on the symbolic tokens ``X`` with the kernel's pieces: keys
    from :func:`proofcheck.kernel.evaluate.allowed`, scores ``<A_h x_i, x_l>``, weights
    from the kernel's hardmax rule (which raises ``TypeError`` when it must compare
    scores sympy cannot order), value ``rho x_i + sum_h V_h (sum_l pi_il x_l)``."""
    import sympy as sp

    from proofcheck.kernel.attention import HARDMAX
    from proofcheck.kernel.evaluate import allowed
    keys = allowed(i, len(X), sa.causal)
    out = [sa.rho * c for c in X[i]]
    for A, V in sa.heads:
        Ax = A.apply(X[i])
        w = HARDMAX.weights([dot(Ax, X[l]) for l in keys],
                            lambda f: sp.Rational(f.numerator, f.denominator))
        mean = [sum(wt * X[keys[l]][c] for l, wt in w) for c in range(len(X[i]))]
        out = [o + v for o, v in zip(out, V.apply(mean))]
    return out


def symbolic_check(d: int, H: int, causal: bool = True, n: int = 3, rank: int = 1) -> CheckResult:
    """The symbolic SA step (see the module text) for one (d, H, rank)."""
    import sympy as sp

    from proofcheck.constructions.provers.sa_proofs import Proof, symbols
    sa = symbolic_layer(d, H, causal, rank)
    X = [symbols(f"x{t}", d, real=True) for t in range(1, n + 1)]
    later = set().union(*(set(x) for x in X[1:]))
    P = Proof()
    name = (f"{'masked' if causal else 'unmasked (control)'} SA, H = {H}, A_h, V_h = lam I + "
            f"rank {rank}, d = {d}, n = {n}: row 1 is a function of x_1 alone")
    try:
        out = row_image(sa, X, 0)
    except TypeError as exc:
        return CheckResult(name, Verdict.INCONCLUSIVE, [
            "the hardmax rule must compare scores <A x_1, x_l> for l = 1.." + str(n) +
            f" that involve x_2..x_{n}: not decided as a function of x_1 alone ({exc})"[:300]])
    free = set().union(*(sp.sympify(o).free_symbols for o in out))
    P.fact(not free & later, f"row 1 has no symbol of x_2..x_{n} (free symbols: "
           f"{len(free)}, none of the {len(later)} of later tokens)")
    expect = [sa.rho * c for c in X[0]]
    for A, V in sa.heads:
        expect = [e + v for e, v in zip(expect, V.apply(list(X[0])))]
    P.zero([o - e for o, e in zip(out, expect)], "row 1 = rho x_1 + sum_h V_h x_1")
    s, tau = sp.Symbol("s", real=True), sp.Symbol("tau", positive=True)
    P.zero(sp.exp(s / tau) / sp.exp(s / tau) - 1, "softmax: the one allowed key has weight "
           "exp(s/tau) / exp(s/tau) = 1 for every score s")
    r = P.result(name, [])
    r.scope = Scope.ALL_PARAMETERS
    return r


# --------------------------------------------------------------------------- instances

def random_network(rng: random.Random, d: int, L: int = 3, causal: bool = True) -> Transformer:
    """Integer parameters in -2..2 (ties in the scores are common), FF width 2,
    1 or 2 heads per SA layer."""
    def v():
        return tuple(Fraction(rng.randint(-2, 2)) for _ in range(d))

    def fac():
        return Factored(Fraction(rng.randint(-1, 1)), (v(),), (v(),))
    blocks = []
    for _ in range(L):
        ff = FF(Fraction(rng.randint(0, 1)), U=(v(), v()),
                b=(Fraction(rng.randint(-2, 2)), Fraction(rng.randint(-2, 2))), W=(v(), v()))
        sa = SA.multi(Fraction(rng.randint(0, 1)), [(fac(), fac()) for _ in range(rng.randint(1, 2))],
                      causal=causal)
        blocks.append(Block(ff, sa))
    return Transformer(d, blocks)


def sharing_sequences(rng: random.Random, d: int, n: int = 4, p: int = 2):
    """Three sequences of ``n`` integer tokens with a common prefix of length ``p``
    and distinct tails."""
    pre = [tuple(Fraction(rng.randint(-3, 3)) for _ in range(d)) for _ in range(p)]
    return [pre + [tuple(Fraction(rng.randint(-3, 3)) for _ in range(d)) for _ in range(n - p)]
            for _ in range(3)]


def _outputs(net, seqs, backend: str):
    from proofcheck.kernel.evaluate import run
    from proofcheck.kernel.fast import get_backend
    return run(net, seqs, backend=get_backend(backend))


def instance_failure(net, seqs, p: int):
    """The first violation on one instance, or None: plain = flint, equal outputs on
    the shared prefix, ``T(X)_i = T(X_1..i)_i``."""
    plain, fast = _outputs(net, seqs, "plain"), _outputs(net, seqs, "flint")
    if plain != fast:
        return Witness("plain and flint outputs differ", code="backends-differ")
    for j, out in enumerate(plain[1:], start=1):
        for i in range(p):
            if out[i] != plain[0][i]:
                return Witness("outputs differ on the shared prefix", sequence=j, token=i,
                               expected=plain[0][i], got=out[i], code="prefix-output-differs")
    pref = _outputs(net, [s[:i + 1] for s in seqs for i in range(len(s))], "plain")
    k = 0
    for j, s in enumerate(seqs):
        for i in range(len(s)):
            if pref[k][i] != plain[j][i]:
                return Witness("T(X)_i differs from T(X_1..i)_i", sequence=j, token=i,
                               expected=pref[k][i], got=plain[j][i], code="prefix-property")
            k += 1
    return None


def instances_check(seed: int = 0, count: int = 12) -> tuple[CheckResult, CheckResult]:
    """``(masked instances, unmasked control)``: the control is VERIFIED when some
    unmasked network's first outputs differ on two sequences sharing x_1 (so the
    instance check can fail), with the exact values."""
    rng = random.Random(seed)
    bad, control = None, None
    for t in range(count):
        d, p = 2 + t % 2, 1 + t % 2
        net, seqs = random_network(rng, d), sharing_sequences(rng, d, p=p)
        w = instance_failure(net, seqs, p)
        if w is not None and bad is None:
            bad = (t, w)
        if control is None:
            un = _outputs(with_mask(net, False), seqs, "plain")
            j = next((j for j in (1, 2) if un[j][0] != un[0][0]), None)
            if j is not None:
                control = (t, j, un[0][0], un[j][0])
    name = (f"{count} seeded random masked networks (L = 3, 1-2 heads, d = 2, 3, seed {seed}): "
            "equal outputs on shared prefixes, T(X)_i = T(X_1..i)_i, plain = flint")
    det = ["method: exact evaluation by the kernel's plain and flint evaluators"]
    masked = (CheckResult(name, Verdict.REFUTED, det + [f"instance {bad[0]}"], bad[1]) if bad
              else CheckResult(name, Verdict.VERIFIED, det, scope=Scope.INSTANCES))
    cname = "control: the same networks without the mask break the property"
    if control is None:
        return masked, CheckResult(cname, Verdict.INCONCLUSIVE, [
            "no unmasked instance had different first outputs: the instances do not show "
            "that the check can fail"])
    t, j, a, b = control
    return masked, CheckResult(cname, Verdict.VERIFIED, [
        f"instance {t}: sequences 0 and {j} share x_1; unmasked T(X_0)_1 = {fmt_value(a)} != "
        f"T(X_{j})_1 = {fmt_value(b)}"], scope=Scope.INSTANCES)


# --------------------------------------------------------------------------- datasets

def _f(*xs):
    return tuple(Fraction(x) for x in xs)


def witness_dataset() -> Dataset:
    """Two sequences with the same first token and disjoint targets (d = 2)."""
    a = _f(0, 0)
    return Dataset("first-token-disjoint-targets", 2, (
        Pair((a, _f(1, 0)), (_f(5, 5),)), Pair((a, _f(0, 1)), (_f(-5, 5),))))


def witness_check() -> list[CheckResult]:
    """The conflict of :func:`witness_dataset` re-read from the data, and the two
    constructions that interpolate it without the mask / in the other reading."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import verify
    from proofcheck.constructions.causal.under_mask import conflict_check
    ds = witness_dataset()
    X0, X1 = ds.pairs[0].inputs, ds.pairs[1].inputs
    Y0, Y1 = set(ds.pairs[0].outputs), set(ds.pairs[1].outputs)
    ok = X0[0] == X1[0] and not Y0 & Y1
    ob = conflict_check(ds, ALL)
    out = []
    if ob is None or not ok:
        out.append(CheckResult(f"witness '{ds.name}'", Verdict.ERROR,
                               ["the built-in witness does not meet the premise (internal error)"]))
    else:
        ob.details.insert(0, f"X_0 = ({fmt_value(X0[0])}, {fmt_value(X0[1])}) -> Y_0 = "
                          f"{{{fmt_value(next(iter(Y0)))}}}; X_1 = ({fmt_value(X1[0])}, "
                          f"{fmt_value(X1[1])}) -> Y_1 = {{{fmt_value(next(iter(Y1)))}}}")
        out.append(ob)
    from proofcheck.constructions.causal.under_mask import run_causal
    for label, run in (("Theorem 1.6's construction, unmasked, all-outputs reading", verify),
                       ("causal-last under the mask, reading last-outputs",
                        lambda x: run_causal(x, "causal-last"))):
        tc = run(ds)
        v = combine(r.verdict for r in tc.results)
        out.append(CheckResult(f"'{ds.name}' is interpolated by {label} (L = {tc.constants['L']})",
                               v, [ln for r in tc.results if not r.verdict.passed
                                   for ln in r.lines()], scope=Scope.DATASET))
    return out


def dataset_check(ds: Dataset) -> list[CheckResult]:
    """Per reading: the dataset's obstruction (a prefix conflict with its witness, or
    no prefix map by exact search), or that a prefix map exists (the necessary
    condition holds; ``theorem 1.6 --attention causal --construction causal-...``
    then builds and checks a network)."""
    from proofcheck.constructions.causal.under_mask import conflict_check
    out = []
    for reading in READINGS:
        r = conflict_check(ds, reading)
        out.append(r or CheckResult(
            f"'{ds.name}' has a prefix map in the reading {reading}: the obstruction does not "
            "apply (the necessary condition holds; sufficiency is the construction's, checked "
            "by `theorem 1.6 --attention causal`)", Verdict.VERIFIED,
            ["method: exact comparison of the read prefixes, then exact search"],
            scope=Scope.DATASET))
    return out


def run(dataset=None, seed: int = 0):
    """``lemma causal-first-token``: the symbolic SA step, the network instances and
    their control, the witness dataset, and the prefix conflicts of ``dataset`` (the
    packaged digits sample by default)."""
    forms = ", ".join(f"(d, H, rank) = ({d}, {H}, {r})" for d, H, r in SYMBOLIC_FORMS)
    head = CheckResult("causal-first-token: T(X)_1 depends on x_1 alone (induction over the "
                       "sub-layers: FF token-wise by its type; the masked SA step checked "
                       f"symbolically for three layer forms, {forms}, n = 3 tokens, and on "
                       "seeded network instances); hence two sequences with a common first "
                       "token and disjoint targets are interpolated by no causal transformer "
                       "(all-outputs reading; the SA step argued for every layer form, checked "
                       "for these three)",
                       Verdict.VERIFIED,
                       ["reading: " + ", ".join(READINGS) + f" (docs/spec.md §1 Extensions); {LAST}: the "
                        "same with prefixes ending at read positions of both"])
    res = [symbolic_check(d, H, rank=r) for d, H, r in SYMBOLIC_FORMS]
    res += list(instances_check(seed))
    res += witness_check()
    res += dataset_check(dataset) if dataset is not None else []
    head.verdict = combine(r.verdict for r in res)
    return [head] + res
