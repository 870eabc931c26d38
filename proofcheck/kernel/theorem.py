"""Re-checking a theorem certificate (1.6, 1.8; docs/spec.md §2-§5): the embedded dataset (SHA-256,
admissibility, d), the block budget, width <= 4, P <= C d M, the low-rank form and every stated
constant, then the exact hardmax evaluation with set equality (1.6) or the softmax certificate at
its stated tau, floor and bounds (1.8), then ``||theta*||^2`` when stated. Malformed content raises
``BadInput``. The route: the plain evaluator or a fast one the fast tier (``proofcheck.kernel.fast``,
never imported here) registers (:func:`register`, :func:`fast_entry`).  A certificate names the
construction it came from (``claim.construction``); for one the kernel knows, its block formula and
proved constant are the kernel's, never the certificate's (:func:`check_constants`).  What a check
established or refuted, for the VERDICT line: :class:`Facts`."""
from dataclasses import dataclass
from fractions import Fraction

from proofcheck.kernel import low_rank
from proofcheck.kernel.dataset import check_admissible, digest, embedded_dataset
from proofcheck.kernel.errors import BadInput, WitnessCheckFailed
from proofcheck.kernel.evaluate import PlainBackend, interpolation_witness, q, run
from proofcheck.kernel.limits import remaining
from proofcheck.kernel.numbers import fmt_num, format_q, parse_exact, positive_tau
from proofcheck.kernel.serialize import network_from_json
from proofcheck.kernel.softmax import (FLOOR_BITS, MAX_FLOOR_BITS, MISSING, Undecided,
                                       check_bounds, plain_trajectory, steps)
from proofcheck.kernel.statements import BUDGETS, KNOWN_CONSTRUCTIONS
from proofcheck.kernel.verdicts import Verdict, Witness, escape

#: ``auto`` runs BOTH routes and compares them (a disagreement is ERROR) when the plain route's
#: estimated work (:func:`plain_work`) is at most this many units: about 0.5 s of the plain
#: route on this project's machines (it checked the full-digits certificate at about 4.6
#: million units a second), so every test, handed case and small theorem run has both
AUTO_BOTH_WORK = 2_000_000
ROUTES = ("auto", "plain", "fast")

#: name -> (backend class, modules it runs); filled by proofcheck.kernel.fast
FAST: dict[str, tuple] = {}


def register(name: str, backend, modules: tuple[str, ...]) -> None:
    """For the fast tier: ``backend()`` has PlainBackend's interface and values."""
    FAST[name] = (backend, tuple(modules))


def fast_entry(name: str, route: str, work: int, left: int | None = None):
    """``(entry, both)``: the registered fast ``name`` entry ``(backend, modules)`` the route
    takes (``None``: the plain route alone) and whether the plain route runs beside it.
    ``"plain"``; ``"fast"`` (``BadInput`` if none is loaded); ``"auto"``: the plain route
    whenever its estimated ``work`` (:func:`plain_work`) fits the ``left`` units of the
    check's budget (``None``: no budget), else the fast one; at most
    :data:`AUTO_BOTH_WORK`, both (their verdicts and witnesses must agree)."""
    if route not in ROUTES:
        raise BadInput(f"unknown route {route!r} (use one of {', '.join(ROUTES)})", "--route")
    fast = FAST.get(name)
    if route == "fast" and fast is None:
        raise BadInput("--route fast: no fast tier is loaded", "--route")
    if route == "plain" or fast is None:
        return None, False
    if route == "fast" or (left is not None and work > left):
        return fast, False
    return (fast, True) if work <= AUTO_BOTH_WORK else (None, False)


def plain_work(net, ds, softmax: bool = False) -> int:
    """The plain route's work on ``net`` and ``ds`` in units of :mod:`.limits`, estimated from
    the shapes alone (the charges of :mod:`.evaluate` and :mod:`.softmax` with the dataset's
    value sizes; values that grow cost more): per non-identity FF ``n d (w + 1)``, per
    non-identity SA ``n d (terms + 1)`` and per head ``sum_j n_j^2 (d + 8)`` scores (twice for
    a softmax certificate: the records and the evaluation)."""
    n, d = ds.n_tokens, ds.d
    sq = sum(len(p.inputs) ** 2 for p in ds.pairs)
    b = max((max(x.numerator.bit_length(), x.denominator.bit_length())
             for p in ds.pairs for t in p.inputs for x in t), default=0)
    work = 0
    for blk in net.blocks:
        if not blk.ff.is_identity:
            work += n * d * (blk.ff.width + 1)
        if not blk.sa.is_identity:
            heads = blk.sa.heads
            work += n * d * sum(len(A.left) + len(V.left) + 1 for A, V in heads)
            work += (1 + softmax) * len(heads) * sq * (d + 8) * (1 + b // 1024)
    return work


def construction_of(claim):
    """``(name or None, KnownConstruction or None)`` of the claim's ``construction``: a
    name the kernel knows for the claimed statement, an unknown one (a plugin's, checked
    without a constant), or none stated.  A known construction named for a theorem it
    does not serve is ``BadInput``."""
    name = claim.get("construction")
    known = KNOWN_CONSTRUCTIONS.get(name)
    if known is not None and claim["statement"] not in known.theorems:
        raise BadInput(f"construction {name!r} serves Theorem {', '.join(known.theorems)}, not "
                       f"{claim['statement']}", "$.claim.construction")
    return name, known


def derived_constants(ds, net, R=None, C=None, construction=None) -> dict:
    """``{key: (value function, how derived)}`` of every constant a certificate may state.
    ``construction``: a :class:`~proofcheck.kernel.statements.KnownConstruction` (None:
    the default's formulas, the legacy reading of R, L_construction and P_formula); ``R``
    (probe rounds) defaults to ``L - base(dataset)``; ``C``: the constant (None: the
    construction's proved one; for an unknown construction the stated one)."""
    N, M, d, L = ds.N, ds.M, ds.d, net.L
    k = construction or KNOWN_CONSTRUCTIONS["default"]
    base, text = k.base(ds)
    R = L - base if R is None else R
    C = k.param_constant if C is None else C
    return {"N": (lambda: N, "pairs of the dataset"), "M": (lambda: M, "target tokens"),
            "d": (lambda: d, "dimension of the dataset"), "L": (lambda: L, "blocks"),
            "max_width": (lambda: net.max_width, "largest FF width"),
            "P": (net.n_params, "stored scalars of the network"),
            "max_bits": (net.max_bits, "largest bit size of a parameter"),
            "R": (lambda: L - base, f"L - ({text})"),
            "L_construction": (lambda: base + R, k.blocks),
            "L_paper_hardmax": (lambda: 2 * M + 2 * N + 1, "2M + 2N + 1"),
            "L_paper_softmax": (lambda: 2 * M + 3 * N, "2M + 3N"),
            "P_formula": ((lambda: k.params(d, N, M, R)) if k.params else
                          (lambda: _no_formula(k.name)), k.params_text),
            "param_constant": (lambda: C, f"construction {k.name}'s proved constant"
                               if construction is not None else "the stated constant"),
            "P_bound": (lambda: C * d * M, f"{C} d M"),
            "theta_sq_norm": (net.sq_norm, "sum of squares of every stored scalar")}


def _no_formula(name: str):
    raise BadInput(f"construction {name!r} has no closed-form parameter count: it cannot state "
                   "P_formula", "$.claim.constants.P_formula")


def check_constants(claim, ds, net, lines) -> list[Witness]:
    """The failures (REFUTED, each a :class:`Witness` with its code) of the statement's
    budget, width <= 4, the low-rank form, the stated constants and, for a construction
    the kernel knows (:data:`~proofcheck.kernel.statements.KNOWN_CONSTRUCTIONS`), its
    block formula computed from the dataset (``L = R + base``, ``0 <= R <= N - 1``), its
    exact parameter count and ``P <= C d M`` with its proved constant C: a certificate
    stating another C is refuted (code ``param-constant``).  An unknown or unnamed
    construction has no constant: ``P / (d M)`` is reported, a stated C is checked as
    arithmetic on this dataset only.  ``theta_sq_norm`` is checked later (:func:`_theta`)."""
    st, N, M, d = claim["statement"], ds.N, ds.M, ds.d
    name, known = construction_of(claim)
    stated = {k: parse_exact(v, f"$.claim.constants.{k}", k)
              for k, v in claim.get("constants", {}).items() if k != "theta_sq_norm"}
    R, C = stated.get("R"), stated.get("param_constant")
    if C is not None and (C.denominator != 1 or C < 1):
        raise BadInput(f"param_constant must be a positive integer (got {format_q(C)})",
                       "$.claim.constants.param_constant")
    if name is not None and known is None:
        for key in ("R", "L_construction", "P_formula"):
            if key in stated:
                raise BadInput(f"construction {escape(name, 60)!r} is not one the kernel knows: "
                               f"it cannot state {key}", f"$.claim.constants.{key}")
    if R is not None and R.denominator != 1:
        return [Witness(f"claimed R = {format_q(R)} is not an integer", code="constant-mismatch")]
    derived = derived_constants(ds, net, None if R is None else R.numerator,
                                None if known is not None or C is None else C.numerator, known)
    bad = [Witness(f"claimed {k} = {format_q(v)}, but {derived[k][1]} = {derived[k][0]()}",
                   code="param-constant" if k == "param_constant" else "constant-mismatch")
           for k, v in sorted(stated.items(), key=lambda kv: kv[0] != "param_constant")
           if v != derived[k][0]()]
    L, width, P, whose = net.L, net.max_width, net.n_params(), ""
    budget_name, budget = BUDGETS[st][0], BUDGETS[st][1](N, M)
    if L > budget:
        bad.append(Witness(f"L = {L} blocks exceeds the budget {budget_name} = {budget} of "
                           f"Theorem {st}", code="block-budget"))
    if width > 4:
        bad.append(Witness(f"max FF width {width} > 4 violates Theorem {st}", code="width"))
    bad += [Witness(x, code="low-rank") for x in low_rank.check(net, lines)]
    if known is not None:
        bad += _formula_failures(known, ds, net)
        C, whose = known.param_constant, "the construction's proved constant, held by the kernel"
    elif C is not None:
        C, whose = C.numerator, "stated; no construction the kernel knows: on this dataset only"
    if C is not None and P > C * d * M:
        bad.append(Witness(f"P = {P} parameters exceeds the explicit bound C d M = {C * d * M} "
                           f"(C = {C}, {whose}; d = {d}, M = {M})", code="param-bound"))
    if not bad:
        lines.append(f"L = {L} <= {budget_name} = {budget}, width {width} <= 4; "
                     + _construction_text(name, known, ds, net, C, whose))
        if stated:
            lines.append(f"stated constants re-derived and equal: {', '.join(sorted(stated))}")
    return bad


def _formula_failures(known, ds, net) -> list[Witness]:
    """The known construction's block formula (``R = L - base`` in ``0..N - 1``, base from
    the dataset) and exact parameter count, on the certificate's network."""
    base, text = known.base(ds)
    L, R, N, P = net.L, net.L - base, ds.N, net.n_params()
    if not 0 <= R <= N - 1:
        return [Witness(f"L = {L} blocks, but construction {known.name} builds {known.blocks} "
                        f"blocks with 0 <= R <= N - 1 = {N - 1} ({text} = {base}, from the "
                        f"dataset): R would be {R}", code="block-formula")]
    if known.params is not None and P != known.params(ds.d, N, ds.M, R):
        return [Witness(f"P = {P} but {known.params_text} = {known.params(ds.d, N, ds.M, R)} "
                        f"(construction {known.name}'s count, R = {R})", code="param-formula")]
    return []


def _construction_text(name, known, ds, net, C, whose) -> str:
    """The passing constants line: the construction's formula and constant, or P / (d M)."""
    P, d, M = net.n_params(), ds.d, ds.M
    if known is not None:
        R = net.L - known.base(ds)[0]
        formula = f", P = {known.params_text}" if known.params is not None else ""
        return (f"construction {known.name}: L = {known.blocks} with R = {R} in 0..N-1"
                f"{formula}, P = {P} <= C d M = {C * d * M} with C = {C} ({whose})")
    who = f"construction {escape(name, 60)!r}" if name is not None else "no construction named"
    tail = f"; P <= C d M = {C * d * M} with C = {C} ({whose})" if C is not None else ""
    return (f"P = {P}, P / (d M) = {fmt_num(Fraction(P, d * M))} ({who}: no parameter constant "
            f"the kernel knows, no O(d M) claim){tail}")


def _dataset(cert):
    """The embedded dataset, admissible, of the claimed SHA-256, name and dimension."""
    claim = cert["claim"]
    ds = embedded_dataset(cert["dataset"])
    try:
        check_admissible(ds)
    except BadInput as e:  # re-rooted at $.dataset
        raise type(e)(e.message, "$.dataset" + (e.path or "$")[1:]) from None
    if claim["dataset"]["name"] != ds.name:
        raise BadInput(f"the claim names the dataset {escape(claim['dataset']['name'])!r} but "
                       f"the embedded dataset is {escape(ds.name)!r}", "$.claim.dataset.name")
    if claim.get("d", ds.d) != ds.d:
        raise BadInput(f"claimed d = {claim['d']}, but the dataset is in d = {ds.d}", "$.claim.d")
    return ds


@dataclass
class Facts:
    """What a theorem check is about, for the VERDICT line: the ``construction`` named
    (None: none), ``constant``: the parameter bound it established (the proved constant,
    or ``P / (d M)`` without one), ``extensions``: heads and masks of the network,
    ``failure``: the first failing check of a REFUTED (a :class:`Witness` with its code)."""

    construction: str | None = None
    constant: str = ""
    extensions: str = ""
    failure: Witness | None = None


def check(cert, route: str):
    """``(verdict, lines, route label, facts)`` of a theorem certificate (:class:`Facts`)."""
    claim, sem, st = cert["claim"], cert["semantics"], cert["claim"]["statement"]
    if sem["attention"] != BUDGETS[st][2]:
        raise BadInput(f"Theorem {st} is about {BUDGETS[st][2]} attention, the "
                       f"certificate's semantics are {sem['attention']}", "$.semantics.attention")
    if sem["attention"] == "hardmax" and cert.get("bounds"):
        raise BadInput("per-layer softmax bounds in a hardmax certificate", "$.bounds")
    ds = _dataset(cert)
    facts = Facts(claim.get("construction"))
    if digest(ds) != claim["dataset"]["sha256"]:
        return (Verdict.ERROR, ["the dataset's SHA-256 differs from the claim: it was changed"],
                "plain", facts)
    net = network_from_json(cert["network"])
    if net.d != ds.d:
        raise BadInput(f"network d = {net.d} but dataset d = {ds.d}", "$.network.d")
    lines = [f"dataset {escape(ds.name)}: N = {ds.N}, M = {ds.M}, d = {ds.d}; SHA-256 matches"]
    facts.extensions = network_extensions(net)
    if facts.extensions:  # docs/spec.md §1 "Extensions"
        lines.append(f"network: {facts.extensions}")
    bad = check_constants(claim, ds, net, lines)
    facts.constant = _constant_fact(claim, ds, net)
    if bad:
        facts.failure = bad[0]
        return Verdict.REFUTED, lines + [w.describe() for w in bad], "plain", facts
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    work = plain_work(net, ds, st != "1.6")
    try:
        if st == "1.6":
            v, label, facts.failure = _hardmax(net, inputs, targets, route, work, lines)
            tail = f"  [on this dataset: {ds.N} pair{'s' * (ds.N != 1)}]" if v.passed else ""
            v, lines = _theta(cert, net, v, lines + [f"exact hardmax evaluation: {v.value}{tail}"],
                              facts)
            return v, lines, label, facts
        v, label, facts.failure = _softmax(cert, net, inputs, targets, route, work, lines)
    except WitnessCheckFailed as e:  # a fast-tier answer whose witness does not hold
        return Verdict.ERROR, lines + [
            "route: fast (stopped: a shortcut's answer failed its witness check)",
            f"fast tier: witness check failed [{e.shortcut}]: {escape(e.detail, 400)} (the "
            "answer was not used)"], "fast", facts
    return (*_theta(cert, net, v, lines, facts), label, facts)


def _constant_fact(claim, ds, net) -> str:
    """The parameter bound a pass establishes, in the VERDICT line's words."""
    name, known = construction_of(claim)
    if known is not None:
        return f"P <= {known.param_constant} d M, the construction's proved constant"
    return (f"P / (d M) = {fmt_num(Fraction(net.n_params(), ds.d * ds.M))}, no O(d M) claim "
            f"({'a construction the kernel does not know' if name else 'no construction named'})")


def _label(fast) -> str:
    return f"fast ({', '.join(fast[1])})"


def _why(route, fast, work, left) -> str:
    """Why ``auto`` took the fast route alone: the plain route's estimate does not fit."""
    if route != "auto" or fast is None:
        return ""
    return (f"; auto: the plain route's estimated {work:,} units exceed the {left:,} left in "
            "the budget")


def _witness_key(w):
    """What two routes' witnesses must share: the code and every located, exact field."""
    return None if w is None else (w.code, w.block, w.sublayer, w.head, w.sequence, w.token,
                                   w.coordinate, w.expected, w.got)


def _disagree(what: str, plain, fast) -> tuple:
    return Verdict.ERROR, [f"routes disagree on {what}: plain {plain}, fast {fast}"]


def _hardmax(net, inputs, targets, route, work, lines):
    """Theorem 1.6: ``(verdict, route label, witness or None)``, the exact evaluation on the
    route(s) of :func:`fast_entry` (both: equal outputs, verdicts and witnesses, else ERROR)."""
    left = remaining()
    fast, both = fast_entry("flint", route, work, left)
    outs = {}
    for name, backend in ([("plain", PlainBackend)] if fast is None or both else []) + \
            ([("fast", fast[0])] if fast is not None else []):
        out = run(net, inputs, backend())
        outs[name] = (out, interpolation_witness(out, targets)[0])
    label = "plain+fast" if both else ("plain" if fast is None else _label(fast))
    w = next(iter(outs.values()))[1]
    if both:
        (po, pw), (fo, fw) = outs["plain"], outs["fast"]
        if po != fo or _witness_key(pw) != _witness_key(fw):
            v, more = _disagree("the exact outputs", pw.describe() if pw else "no witness",
                                fw.describe() if fw else "no witness")
            lines += [f"route: {label} (disagree)"] + more
            return v, label, None
    lines += [f"route: {label}{' (agree)' if both else _why(route, fast, work, left)}"] + \
        (["witness: " + w.describe()] if w else [])
    return (Verdict.REFUTED if w else Verdict.VERIFIED), label, w


def network_extensions(net) -> str:
    """The causal mask and the heads of ``net`` (docs/spec.md §1 "Extensions"), in words ('' for
    neither): ``causal mask on k of L SA layers, at most H heads per SA layer``."""
    k = sum(bool(b.sa.causal) for b in net.blocks)
    H = max((b.sa.H for b in net.blocks), default=1)
    parts = ([f"causal mask on {k} of {net.L} SA layers"] if k else []) + (
        [f"at most {H} heads per SA layer"] if H > 1 else [])
    return ", ".join(parts)


def _theta(cert, net, v, lines, facts=None):
    """The stated ``||theta*||^2`` (after the evaluation: a tampered parameter still
    yields the evaluation's witness); a mismatch becomes ``facts.failure`` when the
    evaluation passed."""
    claimed = cert["claim"].get("constants", {}).get("theta_sq_norm")
    if claimed is None:
        return v, lines
    claimed = parse_exact(claimed, "$.claim.constants.theta_sq_norm", "theta_sq_norm")
    if claimed != net.sq_norm():
        w = Witness(f"claimed theta_sq_norm = {fmt_num(claimed)}, but the sum of squares of "
                    f"every stored scalar is {fmt_num(net.sq_norm())}", code="constant-mismatch")
        if v.passed and facts is not None:
            facts.failure = w
        return (Verdict.REFUTED if v.passed else v), lines + [w.describe()]
    return v, lines + ["||theta*||^2 (theta_sq_norm) re-derived and equal"]


def _softmax(cert, net, inputs, targets, route, work, lines):
    """Theorem 1.8: one pass at the stated tau, floor and bounds, on the route(s) of
    :func:`fast_entry` (the fast records declining a step: the plain route decides; both:
    equal verdicts, witnesses and bounds, else ERROR); a pass that does not certify is
    REFUTED when the hardmax limit misses the targets (:func:`limit_witness`).  Returns
    ``(verdict, route label, witness of a REFUTED or None)``."""
    tau = positive_tau(cert["semantics"])
    F, stated = stated_bounds(cert)
    hints = align(stated, steps(net))
    left = remaining()
    fast, both = fast_entry("softmax", route, work, left)
    res = plain = None
    if fast is not None:
        traj = fast[0](net, inputs)
        try:
            res = check_bounds(traj, tau, F, targets, hints)
        except Undecided as e:
            lines.append(f"route: fast declined ({e}); the plain route decides")
    if res is None or both:
        traj = plain_trajectory(net, inputs, stream=True)  # streamed: one record at a time
        plain = check_bounds(traj, tau, F, targets, hints)
    label = "plain+fast" if both else ("plain" if res is None else _label(fast))
    if both and res is not None:
        if (res.verdict, _witness_key(res.witness), res.bounds) != \
                (plain.verdict, _witness_key(plain.witness), plain.bounds):
            v, more = _disagree("the softmax certificate",
                                f"{plain.verdict.value} ({plain.witness and plain.witness.code})",
                                f"{res.verdict.value} ({res.witness and res.witness.code})")
            lines += [f"route: {label} (disagree)"] + more
            return v, label, None
        lines.append(f"route: {label} (agree)")
    elif both:
        lines.append(f"route: {label} (fast declined)")
    else:
        lines.append(f"route: {label}{_why(route, fast if res is not None else None, work, left)}")
    res = plain if plain is not None else res
    if not res.verdict.passed and res.verdict is not Verdict.REFUTED:
        w = limit_witness(traj, targets, tau, res.witness, res.bounds)
        if w is not None:
            lines.append(f"softmax certificate at tau = {fmt_num(tau)}: {res.verdict.value} ("
                         + (res.witness.describe() if res.witness else "no witness") + ")")
            res.verdict, res.witness = Verdict.REFUTED, w
    if res.witness:
        lines.append("witness: " + res.witness.describe())
    tail = (f"  [on this dataset: every tau in (0, {fmt_num(tau)}]]" if res.verdict.passed else "")
    lines.append(f"softmax certificate at tau = {fmt_num(tau)}, exp bounds floored at 2^-{F}, "
                 f"{len(res.bounds)} bounds (stated, else derived) in one pass: {res.verdict.value}{tail}")
    return res.verdict, label, res.witness if res.verdict is Verdict.REFUTED else None


def limit_witness(traj, targets, tau=None, stop=None, bounds=None) -> Witness | None:
    """The REFUTED witness of a softmax network at its hardmax limit, or ``None``.

    docs/spec.md §1: hardmax (ties averaged) is the tau -> 0 limit of softmax.  When the exact
    hardmax trajectory ``traj`` has no tie (every token's largest score is attained once,
    in every head of every SA layer) the limit holds along the whole network: by
    induction each layer's input tends to its hardmax value, its scores keep their
    positive gaps, so its softmax weights tend to the hardmax ones (FF layers are
    continuous).  So when the final hardmax tokens are not the targets as sets (an output
    that is no target, or a target no output hits), the softmax network misses the
    targets for every small enough tau > 0: the claim "for every tau in (0, tau*]" fails
    for every tau* (codes ``limit-output-not-target``, ``limit-target-not-hit``).  With a
    hardmax tie nothing is concluded (``None``).  ``stop``, ``bounds``: the witness and
    the bounds of the pass at ``tau`` (:class:`~proofcheck.kernel.softmax.Result`); when
    it reached the final boxes (``stop`` code ``final-box-not-a-point``), the largest final
    radius bounds every token's, and the witness also says whether the box of the
    missing token excludes the targets, so that the output misses them for every tau in
    (0, tau]."""
    if traj.stop is not None or traj.outputs is None:
        return None
    w, _ = interpolation_witness(traj.outputs, targets)
    if w is None:
        return None
    reason = (f"at the hardmax limit (tau -> 0; the hardmax trajectory has no tie): {w.reason}"
              f"; so for every small enough tau > 0 the softmax network misses the targets")
    box = _excluding_box(traj, targets, w, stop, bounds)
    if box is not None:
        reason += (f"; its certified box at tau = {fmt_num(tau)} (radius {fmt_num(box)} per "
                   f"coordinate) excludes every target, so it misses them for every tau in "
                   f"(0, {fmt_num(tau)}]")
    return Witness(reason, sequence=w.sequence, token=w.token, expected=w.expected, got=w.got,
                   code="limit-" + w.code)


def _excluding_box(traj, targets, w, stop, bounds):
    """The largest final radius (a 64-bit-mantissa rational, every coordinate's bound)
    when the pass reached the final boxes (``stop``) and the box of radius ``r`` around the
    witness's hardmax output (an output that is no target), or around every output of its
    sequence (a target no output hits), lies at distance > r from the targets concerned in
    some coordinate; else ``None``."""
    if stop is None or stop.code != "final-box-not-a-point" or not bounds:
        return None
    r = [q(x) for x in bounds[-1]["radius"]]
    far = lambda x, y: any(abs(q(a) - q(b)) > rc for a, b, rc in zip(x, y, r))  # noqa: E731
    outs, tg = traj.outputs[w.sequence], targets[w.sequence]
    if w.code == "output-not-target":
        ok = all(far(outs[w.token], y) for y in tg)
    else:
        ok = all(far(x, w.expected) for x in outs)
    return max(r) if ok else None


def stated_bounds(cert):
    """``(F, [(block, sublayer, hint, path)] or None)``.  /2: ``{"exp_floor_bits", "layers"}``,
    one per non-identity sub-layer.  /1: the SA layers' ``min_gap``, ``max_eps`` (radii
    derived; ``max_width`` and ``straddles`` are the certifier's notes, not read) and the finest
    floor the eps used.  No bounds (absent, null, an empty /1 list): ``None``, every bound
    derived, floor ``2^-256``."""
    b, out, d = cert.get("bounds") or [], [], cert["network"]["d"]
    if isinstance(b, dict):
        F = b["exp_floor_bits"]
        if not 1 <= F <= MAX_FLOOR_BITS:
            raise BadInput(f"exp_floor_bits must be 1..{MAX_FLOOR_BITS}", "$.bounds.exp_floor_bits")
        for k, h in enumerate(b["layers"]):
            p, n = f"$.bounds.layers[{k}]", len(h["radius"])
            if n != d:  # a short radius would drop coordinates from the boxes
                raise BadInput(f"radius has {n} coordinates, not d = {d}", p)
            hint = {"radius": [q(parse_exact(x, f"{p}.radius[{c}]"))
                               for c, x in enumerate(h["radius"])]}
            if h["sublayer"] == "SA":
                hs = [(x, f"{p}.heads[{j}]") for j, x in enumerate(h["heads"])] \
                    if "heads" in h else [(h, p)]
                gaps = [{"min_gap": None if x["min_gap"] is None else q(parse_exact(
                    x["min_gap"], f"{xp}.min_gap")), "max_eps": q(parse_exact(
                        x["max_eps"], f"{xp}.max_eps"))} for x, xp in hs]
                hint.update(gaps[0] if "heads" not in h else {"heads": gaps})
            out.append((h["block"], h["sublayer"], hint, p))
        return F, out
    F = FLOOR_BITS
    for k, h in enumerate(b):
        p, g = f"$.bounds[{k}]", h["min_gap"]
        e = q(parse_exact(h["max_eps"], f"{p}.max_eps"))
        F = max(F, e.denominator.bit_length() + 8)
        out.append((h["block"], h["sublayer"], {"min_gap": None if g is None else
                    q(parse_exact(g, f"{p}.min_gap")), "max_eps": e, "radius": None}, p))
    return min(F, MAX_FLOOR_BITS), (out or None)


def align(stated, plan):
    """The hints in record order (``plan``: :func:`~proofcheck.kernel.softmax.steps` of the
    network; ``None``: derive every bound).  A bound at the place of another sub-layer, or too
    many, is ``BadInput``; a sub-layer after the last stated bound gets ``MISSING``
    (INCONCLUSIVE when the pass reaches it: a stated list is never completed by derived
    bounds)."""
    if stated is None:
        return None
    every = all(h["radius"] is not None for _, _, h, _ in stated)
    want = [k for k, (_, kind, _) in enumerate(plan) if every or kind == "SA"]
    if len(stated) > len(want):
        raise BadInput(f"{len(stated)} per-layer bounds stated, the network has {len(want)} "
                       "such sub-layers", "$.bounds")
    hints = [None] * len(plan)
    for k, (block, sub, h, p) in zip(want, stated):
        rb, kind, H = plan[k]
        if (block, sub) != (rb, kind):
            raise BadInput(f"this bound is for block {block} {sub}, the sub-layer at its place "
                           f"is block {rb} {kind}", p)
        n = len(h.get("heads", [h]))
        if kind == "SA" and (n != H or H == 1 and "heads" in h):  # one head: no "heads"
            raise BadInput(f"this bound states {n} head(s), block {block} SA has {H}", p)
        hints[k] = h
    for k in want[len(stated):]:
        hints[k] = MISSING
    return hints
