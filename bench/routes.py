"""``python -m bench.routes``: route parity as a differential run.  A seeded, structure-aware
generator of networks and datasets aimed at the fast tier's shortcuts (``proofcheck/kernel/fast/``)
and the kernel's two routes compared on each case:

* families: ``far-candidate`` (a tag whose float64 pre-filter returns rows far outside an FF's
  window, and a token just beyond its reach — the shape of the false VERIFIED-CERTIFIED of issue
  28), ``straddle`` (FF kinks placed on, or 2^-60 and 1/100 from, token projections: boxes across
  supports), ``extreme-tags`` (runs of tags with factors 1 + 2^1000, 1 + 2^-1000, in changing
  directions), ``long`` (sequences of up to ``max_n`` tokens), ``ties`` (equal and near-equal
  projections, 2^-70 apart), ``identity-ff`` (rank-one FF layers of identity pieces only, kinks
  on tokens), ``heads`` (multi-head and causal layers), ``random``;
* for each case: Theorem 1.6 (hardmax outputs and the interpolation witness of the plain and the
  flint backend), Theorem 1.8 at a drawn tau (the softmax records' verdict, witness and derived
  bounds of the plain and the fast trajectory; a fast record that declines a step is counted,
  not compared), and, when the dataset is admissible, the sealed certificates re-checked by
  ``verify`` on both routes — with the derived bounds stated, one of them perturbed half of the
  time (stated-bound outcomes).

A disagreement is any difference in verdict, witness (code and located exact fields), bounds or
raised error.  ``python -m bench.routes --minutes 20`` runs seeds until the time is used and
writes the count of cases, checks, declines and disagreements to ``bench/results-routes.json``;
the test suite runs a bounded number of seeds (``tests/kernel/test_route_parity.py``)."""
from __future__ import annotations

import argparse
import json
import platform
import random
import time
from dataclasses import dataclass
from fractions import Fraction as F
from pathlib import Path

OUT = Path(__file__).with_name("results-routes.json")
TAUS = (F(1, 2), F(1, 8), F(1, 40), F(1, 55), F(1, 1000))
ONE, ZERO = F(1), F(0)


@dataclass
class Case:
    family: str
    seed: int
    net: object
    inputs: list
    tau: F


def _e(d, k, x=ONE):
    return tuple(x if i == k else ZERO for i in range(d))


def _model():
    from proofcheck.kernel import model
    return model


def _tag(d, a, lam=ONE):
    m = _model()
    return m.SA(ONE, m.Factored(ZERO, (a,), (a,)), m.Factored(lam))


def _ident_sa():
    m = _model()
    return m.SA(ONE, m.Factored(ZERO), m.Factored(ZERO))


def _ident_ff():
    return _model().FF(ONE)


def _hat(w, lo, hi, move, eta=ONE):
    """Width 3, identity outside ``[lo, hi]`` along ``w``, moving by up to ``move``."""
    mid, h = (lo + hi) / 2, (hi - lo) / 2
    c = tuple(x / h for x in move)
    return _model().FF(eta, (w, w, w), (-lo, -mid, -hi), (c, tuple(-2 * x for x in c), c))


def _bump(w, a, b, c, e, out, eta=ZERO):
    """Width 4 trapezoid along ``w``: kinks ``a < b < c < e``, height ``out`` on ``[b, c]``."""
    s = tuple(x / (b - a) for x in out)
    t = tuple(x / (e - c) for x in out)
    return _model().FF(eta, (w,) * 4, (-a, -b, -c, -e),
                       (s, tuple(-x for x in s), tuple(-x for x in t), t))


def _identity_pieces(w, k, v):
    """Rank one, every piece the identity: two units with the same kink ``k`` cancel."""
    return _model().FF(ONE, (w, w), (-k, -k), (v, tuple(-x for x in v)))


def _net(d, blocks):
    m = _model()
    return m.Transformer(d, [m.Block(ff, sa) for ff, sa in blocks])


def _distinct(rng, d, n, lo=1, hi=9, den=4, first_positive=True):
    out = set()
    while len(out) < n:
        t = tuple(F(rng.randint(lo * den, hi * den), den) if (c == 0 and first_positive)
                  else F(rng.randint(-hi * den, hi * den), den) for c in range(d))
        out.add(t)
    return list(out)


# ------------------------------------------------------------------ families

def far_candidate(rng, max_n):
    """The reconstructed false VERIFIED-CERTIFIED, its magnitudes and distances drawn."""
    H, Hp = F(2) ** rng.randint(44, 50), F(2) ** rng.randint(46, 52)
    beyond = rng.choice([F(1, 2), F(21, 20), F(3, 2), F(3)])  # beyond the hat's support [0, 1]
    yA = (1 + beyond) / 2
    I, K = (F(2), yA), (F(27, 16), yA - Hp)
    TB = (F(2) + F(1, 10 ** 6), -H)
    R, W = (F(27, 16), rng.choice([F(1001), F(40), F(5)]) + H), (F(42, 25), 5 - H)
    inputs = [[I, K], [TB, R, W]]
    inputs += [[(F(1), F(-10 ** 6 - k))] for k in range(rng.randint(0, 3))]
    e1, e2 = _e(2, 0), _e(2, 1)
    net = _net(2, [(_ident_ff(), _tag(2, e1)), (_hat(e2, ZERO, ONE, (F(20), ZERO)), _ident_sa()),
                   (_bump(e1, F(10), F(20), F(990), F(1000), (ONE, ZERO)), _ident_sa())])
    return net, inputs


def _prefix_projections(net, inputs, w):
    from proofcheck.kernel.evaluate import run
    return sorted({sum(a * x for a, x in zip(w, t)) for s in run(net, inputs) for t in s})


def straddle(rng, max_n):
    """A tag, then FF layers whose kinks sit on token projections (or 2^-60 or 1/100 off)."""
    d = rng.choice([2, 3])
    inputs = [_distinct(rng, d, rng.randint(1, 4)) for _ in range(rng.randint(1, 3))]
    a = tuple(F(rng.randint(1, 3)) for _ in range(d))
    blocks = [(_ident_ff(), _tag(d, a))]
    for _ in range(rng.randint(1, 3)):
        w = tuple(F(rng.randint(-2, 2)) for _ in range(d))
        if not any(w):
            w = _e(d, 0)
        ts = _prefix_projections(_net(d, blocks), inputs, w)
        k = rng.choice(ts) + rng.choice([ZERO, F(1, 2 ** 60), -F(1, 100), F(1, 100)])
        width = rng.choice([F(1, 2), F(2), F(7)])
        move = tuple(F(rng.randint(-3, 3)) for _ in range(d))
        kind = rng.choice(["hat-lo", "hat-hi", "bump", "identity"])
        ff = {"hat-lo": lambda: _hat(w, k, k + width, move),
              "hat-hi": lambda: _hat(w, k - width, k, move),
              "bump": lambda: _bump(w, k, k + width, k + 2 * width, k + 3 * width, move, ONE),
              "identity": lambda: _identity_pieces(w, k, move)}[kind]()
        blocks.append((ff, _ident_sa() if rng.random() < 0.6 else _tag(d, a)))
    if rng.random() < 0.5:  # collapse every radius: the certificate may pass
        blocks.append((_model().FF(ZERO), _ident_sa()))
    return _net(d, blocks), inputs


def extreme_tags(rng, max_n):
    """Runs of tags with factors far outside the float64 range, in changing directions."""
    d = rng.choice([2, 3])
    inputs = [_distinct(rng, d, rng.randint(1, 4), first_positive=False) for _ in range(3)]
    inputs = [[tuple(abs(x) + 1 for x in t) for t in s] for s in inputs]  # positive: tags apply
    inputs = [list(dict.fromkeys(s)) for s in inputs]
    blocks = []
    for _ in range(rng.randint(1, 4)):
        a = tuple(F(rng.randint(1, 3)) for _ in range(d))
        lam = rng.choice([F(2) ** 1000, F(1, 2 ** 1000), F(2) ** 1000 - 1, F(3), F(1, 2)])
        blocks.append((_ident_ff(), _tag(d, a, lam)))
        if rng.random() < 0.7:
            w = tuple(F(rng.randint(0, 2)) for _ in range(d))
            w = w if any(w) else _e(d, 0)
            ts = _prefix_projections(_net(d, blocks), inputs, w)
            k = rng.choice(ts)
            blocks.append((_hat(w, k - F(1, 4), k + F(1, 4), _e(d, 1, F(rng.randint(1, 5)))),
                           _ident_sa()))
    return _net(d, blocks), inputs


def long(rng, max_n):
    """Long sequences: a tag, a hat on the projections, a collapse-like SA (A = I)."""
    d = 2
    n = rng.randint(max_n // 2, max_n)
    inputs = [_distinct(rng, d, n, hi=max(9, n), den=1)]
    if rng.random() < 0.5:
        inputs.append(_distinct(rng, d, rng.randint(2, 8)))
    e1, e2 = _e(d, 0), _e(d, 1)
    blocks = [(_ident_ff(), _tag(d, e1))]
    k = rng.choice(_prefix_projections(_net(d, blocks), inputs, e2))
    blocks.append((_hat(e2, k - ONE, k + ONE, (F(3), ZERO)), _ident_sa()))
    if rng.random() < 0.5:
        m = _model()
        blocks.append((_ident_ff(), m.SA(ZERO, m.Factored(ONE), m.Factored(ZERO, (e1,), (e1,)))))
    return _net(d, blocks), inputs


def ties(rng, max_n):
    """Equal projections (mirrored tokens) and near-ties 2^-70 apart."""
    d = 2
    base = _distinct(rng, d, rng.randint(2, 4))
    eps = F(1, 2 ** 70)
    pool = base + [(x * (1 + eps), y) for x, y in base[:2]] + [(x, -y) for x, y in base[:2]]
    pool = list(dict.fromkeys(pool))
    inputs = [rng.sample(pool, rng.randint(2, min(4, len(pool)))) for _ in range(rng.randint(1, 3))]
    m = _model()
    a = rng.choice([_e(d, 0), (ONE, ONE)])
    sa = rng.choice([_tag(d, a), m.SA(ZERO, m.Factored(ZERO, (a,), (a,)), m.Factored(ONE)),
                     m.SA(ONE, m.Factored(ONE), m.Factored(F(1, 2)))])
    blocks = [(_ident_ff(), sa)]
    if rng.random() < 0.5:
        w = _e(d, 1)
        k = rng.choice(_prefix_projections(_net(d, blocks), inputs, w))
        blocks.append((_hat(w, k, k + 1, (ONE, ZERO)), _ident_sa()))
    return _net(d, blocks), inputs


def identity_ff(rng, max_n):
    """A tag, then a rank-one FF whose every piece is the identity, its kink on a token."""
    d = 2
    inputs = [_distinct(rng, d, rng.randint(2, 4)) for _ in range(rng.randint(1, 3))]
    e1, e2 = _e(d, 0), _e(d, 1)
    blocks = [(_ident_ff(), _tag(d, e1))]
    k = rng.choice(_prefix_projections(_net(d, blocks), inputs, e2))
    blocks.append((_identity_pieces(e2, k, (F(rng.randint(1, 4)), ZERO)), _ident_sa()))
    if rng.random() < 0.6:
        blocks.append((_model().FF(ZERO), _ident_sa()))
    return _net(d, blocks), inputs


def heads(rng, max_n):
    """Multi-head and causal layers (rank-one and lam I heads)."""
    m = _model()
    d = rng.choice([2, 3])
    inputs = [_distinct(rng, d, rng.randint(1, 5), first_positive=False) for _ in range(rng.randint(1, 3))]

    def head():
        a = tuple(F(rng.randint(-2, 2)) for _ in range(d))
        A = m.Factored(ZERO, (a,), (a,)) if rng.random() < 0.6 else m.Factored(F(rng.randint(1, 2)))
        return A, m.Factored(F(rng.choice([0, 1, 2]), 2))
    blocks = [(_ident_ff(), m.SA.multi(rng.choice([ZERO, ONE]), [head() for _ in range(rng.randint(1, 3))],
                                       causal=rng.random() < 0.6))]
    if rng.random() < 0.5:
        blocks.append((_model().FF(ZERO), _ident_sa()))
    return _net(d, blocks), inputs


def random_net(rng, max_n):
    """Small random networks: rank-one or dense FF, any SA."""
    m = _model()
    d = rng.choice([2, 3])
    inputs = [_distinct(rng, d, rng.randint(1, 4), first_positive=False) for _ in range(rng.randint(1, 3))]

    def r():
        return F(rng.randint(-6, 6), rng.choice([1, 2, 4]))

    def vec():
        return tuple(r() for _ in range(d))
    blocks = []
    for _ in range(rng.randint(1, 3)):
        w = rng.randint(0, 3)
        u = vec()
        U = tuple(tuple(c * x for x in u) for c in (r() or ONE for _ in range(w))) \
            if rng.random() < 0.6 else tuple(vec() for _ in range(w))
        ff = m.FF(rng.choice([ONE, ONE, ZERO, F(1, 2)]), U, tuple(r() for _ in range(w)),
                  tuple(vec() for _ in range(w)))
        a = vec()
        A = rng.choice([m.Factored(ZERO, (a,), (a,)), m.Factored(r() or ONE),
                        m.Factored(ZERO, (a,), (vec(),))])
        V = m.Factored(rng.choice([ZERO, ONE, F(2)]), *(((vec(),), (vec(),)) if rng.random() < 0.5
                                                      else ((), ())))
        blocks.append((ff, m.SA(rng.choice([ZERO, ONE, F(1, 2)]), A, V)))
    return _net(d, blocks), inputs


FAMILIES = {"far-candidate": far_candidate, "straddle": straddle, "extreme-tags": extreme_tags,
            "long": long, "ties": ties, "identity-ff": identity_ff, "heads": heads,
            "random": random_net}


def make_case(seed: int, max_n: int = 40) -> Case:
    """The case of ``seed``: its family in turn, its draws from ``random.Random(seed)``."""
    rng = random.Random(seed)
    family = list(FAMILIES)[seed % len(FAMILIES)]
    net, inputs = FAMILIES[family](rng, max_n)
    return Case(family, seed, net, inputs, rng.choice(TAUS))


# ------------------------------------------------------------------ comparison

def _key(w):
    return None if w is None else (w.code, w.block, w.sublayer, w.head, w.sequence, w.token,
                                   w.coordinate, w.expected, w.got)


def _targets(outputs, rng):
    """Per pair the distinct outputs, one of them moved by 1/7 a third of the time."""
    out = [list(dict.fromkeys(tuple(t) for t in s)) for s in outputs]
    if out and rng.random() < 1 / 3:
        j = rng.randrange(len(out))
        out[j][0] = (out[j][0][0] + F(1, 7),) + tuple(out[j][0][1:])
    return out


def _outcome(f):
    try:
        return f()
    except Exception as e:  # both routes must fail alike (a bit bound, a ResourceLimit)
        return ("raised", type(e).__name__)


def hardmax_pair(case, targets):
    """``(plain, fast)`` of Theorem 1.6: the exact outputs and the interpolation witness."""
    from proofcheck.kernel.evaluate import PlainBackend, interpolation_witness, run
    from proofcheck.kernel.fast.flint import FlintBackend

    def one(be):
        out = run(case.net, case.inputs, be)
        return out, _key(interpolation_witness(out, targets)[0])
    return _outcome(lambda: one(PlainBackend())), _outcome(lambda: one(FlintBackend()))


def softmax_pair(case, targets):
    """``(plain, fast)`` of Theorem 1.8 at ``case.tau`` with derived bounds: verdict, witness,
    bounds (``"declined"``: the fast records cannot decide a step)."""
    from proofcheck.kernel.fast.softmax import fast_trajectory
    from proofcheck.kernel.softmax import Undecided, check_bounds, plain_trajectory

    def one(traj):
        try:
            r = check_bounds(traj(case.net, case.inputs), case.tau, 256, targets)
        except Undecided:
            return "declined"
        return r.verdict.value, _key(r.witness), r.bounds
    return _outcome(lambda: one(plain_trajectory)), _outcome(lambda: one(fast_trajectory))


def _certificates(case, targets, rng):
    """Sealed 1.6 and 1.8 certificates of the case (``[]`` when the dataset is not
    admissible); the 1.8 one states the plain route's derived bounds, one of them
    perturbed half of the time."""
    from proofcheck.constructions.afz.softmax_certifier import Certificate
    from proofcheck.frontend.io.certificate_writer import theorem_certificate
    from proofcheck.kernel.dataset import Dataset, Pair, check_admissible
    from proofcheck.kernel.errors import BadInput
    from proofcheck.kernel.softmax import Undecided, check_bounds, plain_trajectory
    from proofcheck.kernel.verdicts import Verdict
    ds = Dataset(f"routes-{case.seed}", case.net.d,
                 tuple(Pair(tuple(x), tuple(y)) for x, y in zip(case.inputs, targets)))
    try:
        check_admissible(ds)
    except BadInput:
        return []
    certs = [theorem_certificate("1.6", ds, case.net, Verdict.VERIFIED)]
    try:
        res = check_bounds(plain_trajectory(case.net, case.inputs), case.tau, 256, targets)
    except (Undecided, ArithmeticError, ValueError):
        return certs
    hints = Certificate(res.verdict, case.tau, raw=res.bounds, floor_bits=256).hints_json()
    if hints["layers"] and rng.random() < 0.5:
        lay = rng.choice(hints["layers"])
        if lay["radius"]:
            lay["radius"][0] = str(F(lay["radius"][0]) / 2 - F(1, 2 ** 70))
        if lay.get("max_eps") not in (None, "0"):
            lay["max_eps"] = str(F(lay["max_eps"]) / 2)
    stated = res.verdict if res.verdict.passed else Verdict.VERIFIED_CERTIFIED
    certs.append(theorem_certificate("1.8", ds, case.net, stated, tau=case.tau,
                                     bounds=hints if hints["layers"] else None))
    return certs


def _verify_line(out):
    return out.verdict.value, next((ln for ln in out.lines if ln.startswith("witness: ")), None)


def compare(case: Case) -> dict:
    """``{"checks", "declined", "disagreements"}`` of one case (see the module docstring)."""
    import proofcheck.kernel.fast  # noqa: F401  (registers the fast route)
    from proofcheck.kernel.evaluate import run
    from proofcheck.kernel.verify import verify_certificate
    rng = random.Random(case.seed ^ 0x5EED)
    res = {"checks": 0, "declined": 0, "disagreements": []}

    def record(what, plain, fast):
        res["checks"] += 1
        if fast == "declined":
            res["declined"] += 1
        elif plain != fast:
            res["disagreements"].append({"family": case.family, "seed": case.seed, "what": what,
                                         "plain": repr(plain)[:300], "fast": repr(fast)[:300]})
    try:
        outputs = run(case.net, case.inputs)
    except Exception:  # noqa: BLE001  (both routes are compared on the raise below)
        outputs = [list(s) for s in case.inputs]
    targets = _targets(outputs, rng)
    record("1.6 evaluation", *hardmax_pair(case, targets))
    record("1.8 records and bounds", *softmax_pair(case, targets))
    for cert in _certificates(case, targets, rng):
        doc = json.loads(json.dumps(cert))
        outs = {r: _outcome(lambda r=r: _verify_line(verify_certificate(doc, route=r)))
                for r in ("plain", "fast", "auto")}
        st = doc["claim"]["statement"]
        record(f"verify {st} (plain vs fast)", outs["plain"], outs["fast"])
        record(f"verify {st} (plain vs auto)", outs["plain"], outs["auto"])
    return res


def run_seeds(seeds, max_n: int = 40) -> dict:
    """The totals of :func:`compare` over ``seeds``, per family too."""
    tot = {"cases": 0, "checks": 0, "declined": 0, "disagreements": [], "per_family": {}}
    for seed in seeds:
        case = make_case(seed, max_n)
        r = compare(case)
        fam = tot["per_family"].setdefault(case.family, {"cases": 0, "checks": 0, "declined": 0,
                                                         "disagreements": 0})
        for k in ("checks", "declined"):
            tot[k] += r[k]
            fam[k] += r[k]
        tot["cases"] += 1
        fam["cases"] += 1
        fam["disagreements"] += len(r["disagreements"])
        tot["disagreements"] += r["disagreements"]
    return tot


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.routes", description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=20.0, help="CPU minutes to run (default 20)")
    ap.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--max-n", type=int, default=300, help="longest sequence of the 'long' family")
    ap.add_argument("--out", default=str(OUT), help="JSON output (default bench/results-routes.json)")
    a = ap.parse_args(argv)
    t0, seed = time.process_time(), a.start
    tot = {"cases": 0, "checks": 0, "declined": 0, "disagreements": [], "per_family": {}}
    while time.process_time() - t0 < 60 * a.minutes:
        r = run_seeds(range(seed, seed + 8), a.max_n)
        seed += 8
        for k in ("cases", "checks", "declined"):
            tot[k] += r[k]
        tot["disagreements"] += r["disagreements"]
        for fam, v in r["per_family"].items():
            f = tot["per_family"].setdefault(fam, dict.fromkeys(v, 0))
            for k in v:
                f[k] += v[k]
        print(f"seeds {a.start}..{seed - 1}: {tot['cases']} cases, {tot['checks']} checks, "
              f"{tot['declined']} declined, {len(tot['disagreements'])} disagreements", flush=True)
    out = {"seeds": [a.start, seed - 1], "max_n": a.max_n, **tot,
           "n_disagreements": len(tot["disagreements"]),
           "cpu_s": round(time.process_time() - t0, 1), "python": platform.python_version(),
           "machine": platform.machine()}
    Path(a.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {a.out}: {out['cases']} cases, {out['n_disagreements']} disagreements")
    return 1 if out["n_disagreements"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
