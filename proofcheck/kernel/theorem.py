"""Re-checking a theorem certificate (1.6, 1.8; SPEC §2-§5): the embedded dataset (SHA-256,
admissibility, d), the block budget, width <= 4, P <= C d M, the low-rank form and every stated
constant, then the exact hardmax evaluation with set equality (1.6) or the softmax certificate at
its stated tau, floor and bounds (1.8), then ``||theta*||^2`` when stated. Malformed content raises
``BadInput``. The route: the plain evaluator or a fast one the fast tier (``proofcheck.kernel.fast``,
never imported here) registers (:func:`register`, :func:`fast_entry`)."""
from proofcheck.kernel import low_rank
from proofcheck.kernel.dataset import check_admissible, digest, embedded_dataset
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.evaluate import PlainBackend, interpolation_witness, q, run
from proofcheck.kernel.numbers import fmt_num, format_q, parse_exact, positive_tau
from proofcheck.kernel.serialize import network_from_json
from proofcheck.kernel.softmax import (FLOOR_BITS, MAX_FLOOR_BITS, MISSING, Undecided,
                                       check_bounds, plain_trajectory, steps)
from proofcheck.kernel.statements import BUDGETS, PARAM_CONSTANT, param_formula
from proofcheck.kernel.verdicts import Verdict, escape

#: tokens x non-identity sub-layers above which ``auto`` takes the fast route
AUTO_FAST_WORK = 200_000
ROUTES = ("auto", "plain", "fast")

#: name -> (backend class, modules it runs); filled by proofcheck.kernel.fast
FAST: dict[str, tuple] = {}


def register(name: str, backend, modules: tuple[str, ...]) -> None:
    """For the fast tier: ``backend()`` has PlainBackend's interface and values."""
    FAST[name] = (backend, tuple(modules))


def fast_entry(name: str, route: str, work: int):
    """``(entry, label)``: the registered fast ``name`` entry ``(backend, modules)`` the route takes
    or ``(None, "plain")``: ``"plain"``, ``"fast"`` (``BadInput`` if none is loaded), or ``"auto"``:
    fast when registered and ``work`` is above :data:`AUTO_FAST_WORK`."""
    if route not in ROUTES:
        raise BadInput(f"unknown route {route!r} (use one of {', '.join(ROUTES)})", "--route")
    fast = FAST.get(name)
    if route == "fast" and fast is None:
        raise BadInput("--route fast: no fast tier is loaded", "--route")
    if route == "fast" or (route == "auto" and fast and work > AUTO_FAST_WORK):
        return fast, f"fast ({', '.join(fast[1])})"
    return None, "plain"


def derived_constants(ds, net, R=None, C=PARAM_CONSTANT) -> dict:
    """``{key: (value function, how derived)}`` of every constant a certificate may
    state; ``R`` (probe rounds) defaults to ``L - 2M - 1``, ``C`` is the stated constant."""
    N, M, d, L = ds.N, ds.M, ds.d, net.L
    R = L - 2 * M - 1 if R is None else R
    return {"N": (lambda: N, "pairs of the dataset"), "M": (lambda: M, "target tokens"),
            "d": (lambda: d, "dimension of the dataset"), "L": (lambda: L, "blocks"),
            "max_width": (lambda: net.max_width, "largest FF width"),
            "P": (net.n_params, "stored scalars of the network"),
            "max_bits": (net.max_bits, "largest bit size of a parameter"),
            "R": (lambda: L - 2 * M - 1, "L - 2M - 1"),
            "L_construction": (lambda: 2 * M + R + 1, "2M + R + 1"),
            "L_paper_hardmax": (lambda: 2 * M + 2 * N + 1, "2M + 2N + 1"),
            "L_paper_softmax": (lambda: 2 * M + 3 * N, "2M + 3N"),
            "P_formula": (lambda: param_formula(d, M, R), "(16d+16)M + (10d+8)R + 6d + 5"),
            "param_constant": (lambda: C, "the stated constant"),
            "P_bound": (lambda: C * d * M, f"{C} d M"),
            "theta_sq_norm": (net.sq_norm, "sum of squares of every stored scalar")}


def check_constants(claim, ds, net, lines) -> list[str]:
    """The failures (REFUTED) of the statement's bounds and stated constants (``theta_sq_norm``
    later).  ``P <= C d M`` with the construction's constant C as stated (``param_constant``, a
    positive integer; none: the default construction's :data:`PARAM_CONSTANT`)."""
    st, N, M, d = claim["statement"], ds.N, ds.M, ds.d
    stated = {k: parse_exact(v, f"$.claim.constants.{k}", k)
              for k, v in claim.get("constants", {}).items() if k != "theta_sq_norm"}
    R, C = stated.get("R"), stated.get("param_constant", PARAM_CONSTANT)
    if C.denominator != 1 or C < 1:
        raise BadInput(f"param_constant must be a positive integer (got {format_q(C)})",
                       "$.claim.constants.param_constant")
    if R is not None and R.denominator != 1:
        return [f"claimed R = {format_q(R)} is not an integer"]
    derived = derived_constants(ds, net, None if R is None else R.numerator, C.numerator)
    bad = [f"claimed {k} = {format_q(v)}, but {derived[k][1]} = {derived[k][0]()}"
           for k, v in stated.items() if v != derived[k][0]()]
    L, width, P, C = net.L, net.max_width, net.n_params(), C.numerator
    name, budget = BUDGETS[st][0], BUDGETS[st][1](N, M)
    if L > budget:
        bad.append(f"L = {L} blocks exceeds the budget {name} = {budget} of Theorem {st}")
    if width > 4:
        bad.append(f"max FF width {width} > 4 violates Theorem {st}")
    bad += low_rank.check(net, lines)
    whose = ("the construction's stated constant" if "param_constant" in stated else
             "none stated: the default construction's constant")
    if P > C * d * M:
        bad.append(f"P = {P} parameters exceeds the explicit bound C d M = {C * d * M} (C = "
                   f"{C}, {whose}; d = {d}, M = {M})")
    formula = ""
    if "R" in stated or "P_formula" in stated:  # the parameter formula is stated
        R = L - 2 * M - 1 if R is None else R.numerator
        if not 0 <= R <= N - 1:
            bad.append(f"R = {R} probe rounds is outside 0..N-1 = 0..{N - 1}")
        if L != 2 * M + R + 1:
            bad.append(f"L = {L} but 2M + R + 1 = {2 * M + R + 1} (R = {R})")
        if P != param_formula(d, M, R):
            bad.append(f"P = {P} but (16d+16)M + (10d+8)R + 6d + 5 = {param_formula(d, M, R)}")
        formula = f", P = (16d+16)M + (10d+8)R + 6d + 5 with R = {R}"
    if not bad:
        lines.append(f"L = {L} <= {name} = {budget}, width {width} <= 4, P = {P} <= C d M = "
                     f"{C * d * M} with C = {C} ({whose}){formula}")
        if stated:
            lines.append(f"stated constants re-derived and equal: {', '.join(sorted(stated))}")
    return bad


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


def check(cert, route: str):
    """``(verdict, lines, route label)`` of a theorem certificate."""
    claim, sem, st = cert["claim"], cert["semantics"], cert["claim"]["statement"]
    if sem["attention"] != BUDGETS[st][2]:
        raise BadInput(f"Theorem {st} is about {BUDGETS[st][2]} attention, the "
                       f"certificate's semantics are {sem['attention']}", "$.semantics.attention")
    if sem["attention"] == "hardmax" and cert.get("bounds"):
        raise BadInput("per-layer softmax bounds in a hardmax certificate", "$.bounds")
    ds = _dataset(cert)
    if digest(ds) != claim["dataset"]["sha256"]:
        return Verdict.ERROR, ["the dataset's SHA-256 differs from the claim: it was changed"], "plain"
    net = network_from_json(cert["network"])
    if net.d != ds.d:
        raise BadInput(f"network d = {net.d} but dataset d = {ds.d}", "$.network.d")
    lines = [f"dataset {escape(ds.name)}: N = {ds.N}, M = {ds.M}, d = {ds.d}; SHA-256 matches"]
    if net.causal or any(b.sa.H > 1 for b in net.blocks):  # SPEC §1 "Extensions"
        lines.append(f"network: {extensions(cert) or 'no causal mask'}, at most "
                     f"{max(b.sa.H for b in net.blocks)} heads per SA layer")
    bad = check_constants(claim, ds, net, lines)
    if bad:
        return Verdict.REFUTED, lines + bad, "plain"
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    work = ds.n_tokens * sum((not b.ff.is_identity) + (not b.sa.is_identity) for b in net.blocks)
    if st == "1.6":
        fast, label = fast_entry("flint", route, work)
        backend = fast[0]() if fast else PlainBackend()
        w, _ = interpolation_witness(run(net, inputs, backend), targets)
        v = Verdict.REFUTED if w else Verdict.VERIFIED
        lines += [f"route: {label}"] + (["witness: " + w.describe()] if w else [])
        tail = f"  [on this dataset: {ds.N} pair{'s' * (ds.N != 1)}]" if v.passed else ""
        v, lines = _theta(cert, net, v, lines + [f"exact hardmax evaluation: {v.value}{tail}"])
        return v, lines, label
    v, label = _softmax(cert, net, inputs, targets, route, work, lines)
    return (*_theta(cert, net, v, lines), label)


def extensions(cert) -> str:
    """The causal mask of the certificate's network, in words ('' for none)."""
    k = sum(bool(b["sa"].get("causal")) for b in cert["network"]["blocks"])
    return f"causal mask on {k} of {len(cert['network']['blocks'])} SA layers" if k else ""


def _theta(cert, net, v, lines):
    """The stated ``||theta*||^2`` (after the evaluation: a tampered parameter still
    yields the evaluation's witness)."""
    claimed = cert["claim"].get("constants", {}).get("theta_sq_norm")
    if claimed is None:
        return v, lines
    claimed = parse_exact(claimed, "$.claim.constants.theta_sq_norm", "theta_sq_norm")
    if claimed != net.sq_norm():
        return (Verdict.REFUTED if v.passed else v), lines + [
            f"claimed theta_sq_norm = {fmt_num(claimed)}, but the sum of squares of every "
            f"stored scalar is {fmt_num(net.sq_norm())}"]
    return v, lines + ["||theta*||^2 (theta_sq_norm) re-derived and equal"]


def _softmax(cert, net, inputs, targets, route, work, lines):
    """Theorem 1.8: one pass at the stated tau, floor and bounds, on the fast route's
    records when chosen (the plain route's when they cannot decide)."""
    tau = positive_tau(cert["semantics"])
    F, stated = stated_bounds(cert)
    hints = align(stated, steps(net))
    (fast, label), res = fast_entry("softmax", route, work), None
    if fast is not None:
        traj = fast[0](net, inputs)
        try:
            res = check_bounds(traj, tau, F, targets, hints)
        except Undecided as e:
            lines.append(f"route: fast declined ({e}); the plain route decides")
    if res is None:  # streamed: one record at a time
        label, traj = "plain", plain_trajectory(net, inputs, stream=True)
        res = check_bounds(traj, tau, F, targets, hints)
    lines.append(f"route: {label}")
    if res.witness:
        lines.append("witness: " + res.witness.describe())
    tail = (f"  [on this dataset: every tau in (0, {fmt_num(tau)}]]" if res.verdict.passed else "")
    lines.append(f"softmax certificate at tau = {fmt_num(tau)}, exp bounds floored at 2^-{F}, "
                 f"{len(res.bounds)} bounds (stated, else derived) in one pass: {res.verdict.value}{tail}")
    return res.verdict, label


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
