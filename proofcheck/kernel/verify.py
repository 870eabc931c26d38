"""The trusted kernel of ``python -m proofcheck verify FILE`` (SPEC §3, §5).

Re-checks a certificate with no construction or search code (it imports nothing
from ``lemmas``, ``proofcheck.io``, ``proofcheck.reporting`` or ``proofcheck.cli``;
an import-linter contract in ``.importlinter`` enforces it):

0. the certificate is validated against the published JSON Schema
   (``proofcheck/schemas/proofcheck-certificate-1.schema.json``) before any
   arithmetic; every numeric string goes through the one number parser
   (``proofcheck.kernel.numbers``); anything malformed raises ``BadInput``
   (exit 2) with the JSON path;
1. the digest over the canonical JSON;
2. the embedded dataset against the claimed SHA-256 (and, when given, against a
   dataset file: a mismatch is ``BadInput``);
3. the claim itself, recomputed — for a theorem: the block budget of the
   statement (1.6: L <= 2M + 2N + 1, 1.8: L <= 2M + 3N), width <= 4, the explicit
   parameter bound P <= 38 d M, every stated constant re-derived from the dataset
   and the network and compared as a number (including the parameter formula
   P = (16d + 16)M + (10d + 8)R + 6d + 5 and ||theta||^2 when stated), then the
   exact hardmax evaluation with set equality (1.6) or the softmax certificate at
   the stated tau with the stated per-layer bounds compared as numbers (1.8);
   for a lemma: each layer instance;
4. the stated verdict against the recomputed one.

Any mismatch is REFUTED or ERROR with the reason, never VERIFIED.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from proofcheck.kernel.dataset import check_admissible, dataset_from_json, digest
from proofcheck.kernel.documents import read_json, validate
from proofcheck.kernel.errors import BadInput, ResourceLimit
from proofcheck.kernel.expbounds import FLOOR_BITS
from proofcheck.kernel.evaluate import interpolation_witness, q, run
from proofcheck.kernel.limits import MAX_LEMMA_D, budget
from proofcheck.kernel.numbers import format_q, parse_exact
from proofcheck.kernel.routes import AUTO_FAST_WORK, FAST, choose
from proofcheck.kernel.softmax import (
    MAX_FLOOR_BITS,
    SARecord,
    Undecided,
    check_bounds,
    plain_trajectory,
)
from proofcheck.kernel.serialize import (
    canonical,
    ff_from_json,
    network_from_json,
    sa_from_json,
    sha256,
)
from proofcheck.kernel.statements import (
    BUDGETS,
    LEMMA_FORMS,
    PARAM_CONSTANT,
    THEOREM_SEMANTICS,
    normalise_id,
    param_formula,
    poses_as,
)
from proofcheck.kernel.verdicts import Scope, Verdict, combine, escape, fmt_num

FORMAT = "proofcheck-certificate/2"
#: the formats this kernel reads -> their schema (proofcheck.kernel.documents.FORMATS)
READS = {"proofcheck-certificate/1": "certificate", "proofcheck-certificate/2": "certificate-2"}

#: a plugin statement id: ASCII, no white space (no look-alikes of catalogue ids)
PLUGIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")


@dataclass
class Outcome:
    """What :func:`verify_certificate` established (the in-memory API of the kernel).

    ``verdict``; ``lines`` (every check, in order); ``scope`` (for a passing verdict:
    what was established, :class:`Scope`) and ``detail`` (its extent, e.g. "12
    stated maps; the statement itself is not re-derived"); ``route`` (``"plain"`` or
    ``"fast (<modules>)"``).  ``verdict_line()`` is the one VERDICT line every
    command prints; ``exit_code(require_conclusion)`` the exit code (SPEC §5; with
    ``require_conclusion`` a pass whose conclusion was not re-derived exits 3).
    Unpacks as ``verdict, lines`` for callers of the older tuple form."""

    verdict: Verdict
    lines: list[str] = field(default_factory=list)
    scope: Scope | None = None
    detail: str = ""
    route: str = "plain"

    def __iter__(self):
        return iter((self.verdict, self.lines))

    def __getitem__(self, k):
        return (self.verdict, self.lines)[k]

    @property
    def conclusion_rederived(self) -> bool:
        return self.verdict.passed and self.scope is not None and self.scope.rederived

    def verdict_line(self) -> str:
        if self.verdict.passed and self.scope is not None:
            return f"VERDICT: {self.verdict.value} ({self.scope.value}: {self.detail})"
        return f"VERDICT: {self.verdict.value}"

    def exit_code(self, require_conclusion: bool = False) -> int:
        if require_conclusion and self.verdict.passed and not self.conclusion_rederived:
            return Verdict.INCONCLUSIVE.exit_code
        return self.verdict.exit_code


def _fail(v: Verdict, reason: str) -> Outcome:
    return Outcome(v, [reason])


def verify_file(path, dataset=None, route: str = "auto") -> Outcome:
    """Read a certificate file strictly (duplicate keys rejected; see
    :func:`proofcheck.kernel.documents.read_json`) and :func:`verify_certificate` it
    (``dataset``: a :class:`~proofcheck.kernel.dataset.Dataset` it must be about).
    Raises ``BadInput`` (exit 2) for unreadable or malformed input."""
    return verify_certificate(read_json(path, "certificate"), dataset=dataset, route=route)


def verify_certificate(cert, dataset=None, route: str = "auto") -> Outcome:
    """The :class:`Outcome` of re-checking a parsed certificate (SPEC §3, §5).

    ``dataset``: an optional :class:`~proofcheck.kernel.dataset.Dataset` the
    certificate must be about.  ``route``: ``"auto"`` (the fast route above a size,
    when the fast tier is loaded), ``"plain"`` (the definitional evaluator) or
    ``"fast"`` (:mod:`proofcheck.kernel.routes`).  Malformed content (schema violation, bad number,
    shape that does not match d, semantics that do not fit the statement, a
    ``dataset`` that is not the certificate's, a plugin claim posing as a catalogue
    statement) raises ``BadInput`` (exit 2) with the JSON path; everything else is
    an outcome: an exception inside the kernel is ERROR, a resource bound
    (:mod:`proofcheck.kernel.limits`) RESOURCE-LIMIT — never a weaker check.
    """
    if not isinstance(cert, dict):
        raise BadInput(f"not a {FORMAT} certificate: the top-level JSON value is not an "
                       "object", "$")
    if cert.get("format") not in READS:
        raise BadInput(f"not a proofcheck certificate (format is {escape(cert.get('format'), 60)!r}"
                       f"; this kernel reads {', '.join(READS)})", "$.format")
    validate(cert, READS[cert["format"]])
    if dataset is not None:
        _same_dataset(cert, dataset)
    body = {k: v for k, v in cert.items() if k != "digest"}
    raw = canonical(body)
    where = {"route": "plain"}
    if sha256(body) != cert.get("digest"):
        return _fail(Verdict.ERROR, "digest mismatch: the certificate was altered after sealing")
    try:
        with budget(len(raw)):
            got, lines = _check(cert, route, where)
    except (BadInput, KeyboardInterrupt):
        raise
    except ResourceLimit as e:  # a bound of proofcheck.kernel.limits: nothing decided
        return _fail(Verdict.RESOURCE_LIMIT, f"resource limit: {e}")
    except Exception as e:  # fail closed: an internal error is never a weaker check
        return _fail(Verdict.ERROR, f"internal error in the kernel: {type(e).__name__}: "
                     f"{escape(e)}")
    stated = cert["verdict"]
    lines.append(f"re-checked verdict: {got.value}; stated: {stated}")
    if got.value != stated and got not in (Verdict.ERROR, Verdict.RESOURCE_LIMIT):
        return Outcome(Verdict.REFUTED, lines + [f"the certificate states {stated} but the "
                                                 f"re-check gives {got.value}"],
                       route=where["route"])
    return Outcome(got, lines, *_scope(cert), route=where["route"])


def _check(cert, route, where):
    if cert["kind"] == "theorem":
        return _theta_sq_norm(cert, *_theorem(cert, route, where))
    return _lemma(cert)


def _scope(cert) -> tuple[Scope, str]:
    """What a passing re-check of ``cert`` established, and its extent."""
    claim = cert["claim"]
    if cert["kind"] == "theorem":
        n = len(cert["dataset"]["pairs"])
        if cert["semantics"]["attention"] == "hardmax":
            return Scope.DATASET, (f"Theorem {claim['statement']} on its {n} pairs, exact "
                                   "hardmax evaluation; budget and constants re-derived")
        return Scope.DATASET, (f"Theorem {claim['statement']} on its {n} pairs, softmax for "
                               f"every tau in (0, {escape(cert['semantics']['tau'], 60)}]")
    k = len(cert["instances"])
    if "source" in claim:
        return Scope.INSTANCES, (f"{k} stated map{'s' * (k != 1)} of {escape(claim['statement'])}"
                                 "; the statement itself is not re-derived")
    return Scope.EVERY_TOKEN, (f"the conclusion of Lemma {claim['statement']} re-derived on "
                               f"{k} stated layer{'s' * (k != 1)}")


def _same_dataset(cert, ds) -> None:
    if cert["kind"] != "theorem":
        raise BadInput("--dataset given, but a lemma certificate is not about a dataset",
                       "$.kind")
    want = cert["claim"]["dataset"]["sha256"]
    got = digest(ds)
    if got != want:
        raise BadInput(f"the given dataset '{escape(ds.name)}' is not the certificate's "
                       f"dataset '{escape(cert['claim']['dataset']['name'])}': its SHA-256 is {got}, the "
                       f"certificate claims {want}", "$.claim.dataset.sha256")


def _derived_constants(ds, net, R_stated):
    """Every constant a theorem certificate may state, re-derived lazily:
    ``{key: (function returning the value, how it is derived)}``.  ``R`` is the
    stated number of probe rounds, or ``L - 2M - 1`` (the only value with
    ``L = 2M + R + 1``) when none is stated."""
    N, M, d = ds.N, ds.M, ds.d
    L = net.L
    R = R_stated if R_stated is not None else L - 2 * M - 1
    return {
        "N": (lambda: N, "pairs of the dataset"), "M": (lambda: M, "target tokens of the dataset"),
        "d": (lambda: d, "dimension of the dataset"), "L": (lambda: L, "blocks of the network"),
        "max_width": (lambda: net.max_width, "largest FF width of the network"),
        "P": (net.n_params, "stored scalars of the network"),
        "max_bits": (net.max_bits, "largest bit size of a parameter"),
        "R": (lambda: L - 2 * M - 1, "L - 2M - 1"),
        "L_construction": (lambda: 2 * M + R + 1, "2M + R + 1"),
        "L_paper_hardmax": (lambda: 2 * M + 2 * N + 1, "2M + 2N + 1"),
        "L_paper_softmax": (lambda: 2 * M + 3 * N, "2M + 3N"),
        "P_formula": (lambda: param_formula(d, M, R), "(16d+16)M + (10d+8)R + 6d + 5"),
        "param_constant": (lambda: PARAM_CONSTANT, "the kernel's constant"),
        "P_bound": (lambda: PARAM_CONSTANT * d * M, f"{PARAM_CONSTANT} d M"),
        "theta_sq_norm": (net.sq_norm, "sum of squares of every stored scalar"),
    }


def _check_constants(claim, ds, net, st, lines):
    """Re-derive the statement's bounds and every stated constant; ``None`` if all
    hold, else the list of reasons (REFUTED)."""
    # theta_sq_norm is compared after the evaluation (_theta_sq_norm)
    stated_raw = {k: v for k, v in claim.get("constants", {}).items() if k != "theta_sq_norm"}
    stated = {k: parse_exact(v, f"$.claim.constants.{k}", k) for k, v in stated_raw.items()}
    N, M, d = ds.N, ds.M, ds.d
    R_stated = None
    if "R" in stated:
        if stated["R"].denominator != 1:
            return [f"claimed R = {format_q(stated['R'])} is not an integer"]
        R_stated = stated["R"].numerator
    derived = _derived_constants(ds, net, R_stated)
    bad = []
    for k, q in stated.items():
        value, how = derived[k]
        got = value()
        if q != got:
            bad.append(f"claimed {k} = {format_q(q)}, but {how} = {format_q(Fraction(got))}")
    L, width, P = net.L, net.max_width, net.n_params()
    name, budget = BUDGETS[st]
    budget = budget(N, M)
    if L > budget:
        bad.append(f"L = {L} blocks exceeds the budget {name} = {budget} of Theorem {st}")
    if width > 4:
        bad.append(f"max FF width {width} > 4 violates Theorem {st}")
    P_bound = PARAM_CONSTANT * d * M
    if P > P_bound:
        bad.append(f"P = {P} parameters exceeds the explicit bound {PARAM_CONSTANT} d M = "
                   f"{P_bound} (d = {d}, M = {M})")
    formula = ""
    if "R" in stated or "P_formula" in stated:  # the parameter formula is stated
        R = derived["L_construction"][0]() - 2 * M - 1
        if not 0 <= R <= N - 1:
            bad.append(f"R = {R} probe rounds is outside 0..N-1 = 0..{N - 1}")
        if L != 2 * M + R + 1:
            bad.append(f"L = {L} but 2M + R + 1 = {2 * M + R + 1} (R = {R})")
        if P != param_formula(d, M, R):
            bad.append(f"P = {P} but (16d+16)M + (10d+8)R + 6d + 5 = "
                       f"{param_formula(d, M, R)} (d = {d}, M = {M}, R = {R})")
        formula = f", P = (16d+16)M + (10d+8)R + 6d + 5 with R = {R}"
    if bad:
        return bad
    lines.append(f"L = {L} <= {name} = {budget}, width {width} <= 4, P = {P} <= "
                 f"{PARAM_CONSTANT} d M = {P_bound}{formula}")
    if stated:
        lines.append(f"stated constants re-derived and equal: {', '.join(sorted(stated))}")
    return None


def _theta_sq_norm(cert, got, lines):
    """The claimed ``||theta*||^2`` (``claim.constants.theta_sq_norm``; SPEC §2,
    tikhonov) against ``sq_norm()`` of the certified network, compared as numbers
    AFTER the evaluation (so a tampered parameter still yields the evaluation's
    witness first); a mismatch turns a passing re-check into REFUTED."""
    claimed = cert["claim"].get("constants", {}).get("theta_sq_norm")
    if claimed is None:
        return got, lines
    claimed = parse_exact(claimed, "$.claim.constants.theta_sq_norm", "theta_sq_norm")
    have = network_from_json(cert["network"]).sq_norm()
    if claimed != have:
        lines = lines + [f"claimed theta_sq_norm = {format_q(claimed)}, but the sum of squares "
                         f"of every stored scalar is {format_q(have)}"]
        return (Verdict.REFUTED if got.passed else got), lines
    return got, lines + ["||theta*||^2 (theta_sq_norm) re-derived and equal"]


def _theorem(cert, route, where):
    claim = cert["claim"]
    st = claim["statement"]
    sem = cert["semantics"]
    if sem["attention"] != THEOREM_SEMANTICS[st]:
        raise BadInput(f"Theorem {st} is about {THEOREM_SEMANTICS[st]} attention, the "
                       f"certificate's semantics are {sem['attention']}",
                       "$.semantics.attention")
    if sem["attention"] == "hardmax" and cert.get("bounds"):
        raise BadInput("per-layer softmax bounds in a hardmax certificate", "$.bounds")
    ds = dataset_from_json(cert["dataset"], "<certificate>", root="$.dataset",
                           schema_checked=True)  # validated with the certificate
    check_admissible_at(ds)
    if digest(ds) != claim["dataset"]["sha256"]:
        return Verdict.ERROR, ["dataset SHA-256 differs from the claim: the dataset was changed"]
    net = network_from_json(cert["network"])
    if net.d != ds.d:
        raise BadInput(f"network d = {net.d} but dataset d = {ds.d}", "$.network.d")
    if claim.get("d", ds.d) != ds.d:
        raise BadInput(f"the claim states d = {claim['d']} but the dataset and the network are "
                       f"in d = {ds.d}", "$.claim.d")
    if claim["dataset"]["name"] != ds.name:
        raise BadInput(f"the claim names the dataset {escape(claim['dataset']['name'])!r} but the "
                       f"embedded dataset is {escape(ds.name)!r}", "$.claim.dataset.name")
    lines = [f"dataset {escape(ds.name)}: N = {ds.N}, M = {ds.M}, d = {ds.d}; digest and SHA-256 match"]
    bad = _check_constants(claim, ds, net, st, lines)
    if bad:
        return Verdict.REFUTED, lines + bad
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    work = ds.n_tokens * sum((not b.ff.is_identity) + (not b.sa.is_identity) for b in net.blocks)
    if st == "1.6":
        backend, where["route"] = choose(route, work)
        lines.append(f"route: {where['route']}")
        w, _ = interpolation_witness(run(net, inputs, backend), targets)
        v = Verdict.REFUTED if w else Verdict.VERIFIED
        if w:
            lines.append("witness: " + w.describe())
        tail = f"  [on this dataset: {ds.N} pairs]" if v.passed else ""
        return v, lines + [f"exact hardmax evaluation: {v.value}{tail}"]
    return _softmax(cert, ds, net, inputs, targets, route, where, lines, work)


def _softmax(cert, ds, net, inputs, targets, route, where, lines, work):
    """Theorem 1.8: the softmax certificate at the stated tau, floor and bounds."""
    tau = parse_exact(cert["semantics"]["tau"], "$.semantics.tau", "tau")
    if tau <= 0:
        raise BadInput(f"tau must be positive (got {fmt_num(tau)})", "$.semantics.tau")
    F, stated = _stated_bounds(cert)
    fast = FAST.get("softmax")
    use_fast = fast is not None and (route == "fast" or (route == "auto" and
                                                          work > AUTO_FAST_WORK))
    if route == "fast" and fast is None:
        raise BadInput("--route fast: no fast tier is loaded", "--route")
    res = None
    if use_fast:
        where["route"] = f"fast ({', '.join(fast[1])})"
        traj = fast[0](net, inputs)
        try:
            res = check_bounds(traj, tau, F, targets, _align(stated, traj))
        except Undecided as e:
            lines.append(f"route: fast declined ({e}); the plain route decides")
    if res is None:
        where["route"] = "plain"
        traj = plain_trajectory(net, inputs)
        res = check_bounds(traj, tau, F, targets, _align(stated, traj))
    lines.append(f"route: {where['route']}")
    if res.witness:
        lines.append("witness: " + res.witness.describe())
    tail = (f"  [on this dataset: {ds.N} pairs, every tau in (0, {fmt_num(tau)}]]"
            if res.verdict.passed else "")
    lines.append(f"softmax certificate at tau = {fmt_num(tau)}, exp bounds floored at "
                 f"2^-{F}, {len(res.bounds)} stated bounds checked in one pass: "
                 f"{res.verdict.value}{tail}")
    return res.verdict, lines


def _qx(v, path):
    return q(parse_exact(v, path))


def _stated_bounds(cert):
    """``(F, [(block, sublayer, hint, path)])`` of a softmax certificate.
    ``proofcheck-certificate/2``: ``bounds = {"exp_floor_bits", "layers": [...]}``, one
    entry per non-identity sub-layer.  ``/1``: a list of the SA layers' ``min_gap``
    and ``max_eps`` (radii derived), with the floor implied by the stated eps (the
    finest floor any of them used: a finer floor only lowers an exp bound).  No bounds:
    the kernel derives them, with the floor ``2^-256``."""
    b = cert.get("bounds") or []
    out = []
    if isinstance(b, dict):
        F = b["exp_floor_bits"]
        if not 1 <= F <= MAX_FLOOR_BITS:
            raise BadInput(f"exp_floor_bits must be 1..{MAX_FLOOR_BITS}", "$.bounds.exp_floor_bits")
        for k, h in enumerate(b["layers"]):
            p = f"$.bounds.layers[{k}]"
            hint = {"radius": [_qx(x, f"{p}.radius[{c}]") for c, x in
                               enumerate(h["radius"])]}
            if h["sublayer"] == "SA":
                g = h["min_gap"]
                hint.update(min_gap=None if g is None else _qx(g, f"{p}.min_gap"),
                            max_eps=_qx(h["max_eps"], f"{p}.max_eps"))
            out.append((h["block"], h["sublayer"], hint, p))
        return F, out
    F = FLOOR_BITS
    for k, h in enumerate(b):
        p = f"$.bounds[{k}]"
        g = h["min_gap"]
        e = _qx(h["max_eps"], f"{p}.max_eps")
        F = max(F, e.denominator.bit_length() + 8)
        out.append((h["block"], h["sublayer"], {"min_gap": None if g is None else
                    _qx(g, f"{p}.min_gap"), "max_eps": e, "radius": None}, p))
    return min(F, MAX_FLOOR_BITS), out


def _align(stated, traj):
    """The stated hints in the trajectory's record order (``None``: derive).  /2
    states every record, /1 the SA records; a bound for another sub-layer than the
    record at its place is ``BadInput``."""
    if not stated:
        return None
    recs = traj.records
    every = all(h["radius"] is not None for _, _, h, _ in stated)
    want = [r for r in recs if every or isinstance(r, SARecord)]
    if len(stated) > len(want) and traj.stop is None:
        raise BadInput(f"{len(stated)} per-layer bounds stated, the network has {len(want)} "
                       "such sub-layers", "$.bounds")
    by_rec = {}
    for rec, (block, sub, h, p) in zip(want, stated):
        kind = "SA" if isinstance(rec, SARecord) else "FF"
        if (block, sub) != (rec.block, kind):
            raise BadInput(f"this bound is for block {block} {sub}, the sub-layer at its place is "
                           f"block {rec.block} {kind}", p)
        by_rec[id(rec)] = h
    return [by_rec.get(id(r)) for r in recs]


def check_admissible_at(ds) -> None:
    """``check_admissible`` for the dataset embedded in a certificate: the JSON
    paths are re-rooted at ``$.dataset``."""
    try:
        check_admissible(ds)
    except BadInput as e:
        path = e.path
        if path and path.startswith("$"):
            path = "$.dataset" + path[1:]
        raise type(e)(e.message, path) from None


def _lemma_semantics(sem) -> dict:
    """``{"attention": "hardmax"}`` or ``{"attention": "softmax", "tau": Fraction > 0}``."""
    if sem["attention"] == "hardmax":
        return {"attention": "hardmax"}
    tau = parse_exact(sem["tau"], "$.semantics.tau", "tau")
    if tau <= 0:
        raise BadInput(f"tau must be positive (got {format_q(tau)[:40]})", "$.semantics.tau")
    return {"attention": "softmax", "tau": tau}


def _lemma_tokens(obj, d, path):
    """Sequences of exact tokens of dimension ``d`` (``None``: a token the statement
    says nothing about; the schema admits it for built-in statements only)."""
    out = []
    for j, s in enumerate(obj):
        seq = []
        for i, t in enumerate(s):
            p = f"{path}[{j}][{i}]"
            if t is not None and len(t) != d:
                raise BadInput(f"token has {len(t)} coordinates, the instance is in d = {d}", p)
            seq.append(None if t is None else
                       tuple(parse_exact(x, f"{p}[{c}]") for c, x in enumerate(t)))
        out.append(seq)
    return out


def _lemma_claim(cert) -> tuple[str, str | None]:
    """``(statement, plugin source or None)``; a plugin claim must not pose as a
    catalogue statement (``BadInput``, exit 2)."""
    claim = cert["claim"]
    st, src = claim["statement"], claim.get("source")
    if src is None:
        if st not in LEMMA_FORMS:
            raise BadInput(f"no lemma certificate form for statement {escape(st)!r} (a plugin's "
                           "statement needs claim.source)", "$.claim.statement")
        return st, None
    alias = poses_as(st)
    if alias is not None:
        raise BadInput(f"a plugin claim may not pose as a catalogue statement: "
                       f"{escape(st)!r} is (or aliases) the catalogue id {alias!r}",
                       "$.claim.statement")
    if not PLUGIN_ID.fullmatch(st):
        raise BadInput(f"a plugin statement id must be ASCII letters, digits and . _ - "
                       f"(got {escape(st)!r})", "$.claim.statement")
    if normalise_id(src.removeprefix("plugin:")) == "proofcheck":
        raise BadInput("a plugin's source may not be proofcheck itself", "$.claim.source")
    return st, src


def _instance_d(i, p) -> int:
    """The instance's dimension: its stated ``d``, else that of its first token."""
    d = i.get("d")
    if d is None:
        d = next((len(t) for s in i["inputs"] for t in s), 0)
    if not 1 <= d <= MAX_LEMMA_D:
        raise BadInput(f"an instance must live in dimension 1..{MAX_LEMMA_D} (d = {d})", p)
    return d


def _lemma(cert):
    """Re-check a lemma certificate: per instance (1) the form (kind, FF width),
    (2) the stated inputs -> stated outputs by exact evaluation (numbers, never
    spellings), (3) for a catalogue lemma the statement's own re-derivation from the
    instance's ``data`` (``proofcheck.kernel.lemma_checks``), (4) the instance's
    stated verdict against the recomputed one.  Every vector (tokens, layer factors,
    lemma data) must have the instance's dimension (else ``BadInput``)."""
    from proofcheck.kernel.layercheck import check_layer
    from proofcheck.kernel.lemma_checks import checker
    st, plugin = _lemma_claim(cert)
    sem = _lemma_semantics(cert["semantics"])
    insts = cert["instances"]
    kind, width, _ = LEMMA_FORMS[st] if plugin is None else (insts[0]["kind"], None, None)
    check = checker(st) if plugin is None else None
    if sem["attention"] == "softmax" and kind == "SA" and check is None:
        raise BadInput(f"{escape(st)} instances cannot be certified under softmax here (no "
                       "re-derivation module); state hardmax semantics", "$.semantics")
    verdicts, lines = [], []
    for k, i in enumerate(insts):
        p = f"$.instances[{k}]"
        d = _instance_d(i, p)
        if i["kind"] != kind or (width is not None and len(i["layer"]["U"]) != width):
            lines.append(f"instance {k} is not a Lemma {st} layer (expected {kind}"
                         + (f" of width {width})" if width else ")"))
            return Verdict.REFUTED, lines
        inputs = _lemma_tokens(i["inputs"], d, f"{p}.inputs")
        expected = _lemma_tokens(i["expected"], d, f"{p}.expected")
        if len(inputs) != len(expected) or any(len(a) != len(b) for a, b in zip(inputs, expected)):
            raise BadInput("inputs and expected outputs differ in shape", p)
        if any(None in s for s in inputs) or not any(t is not None for s in expected for t in s):
            raise BadInput("an instance must state at least one expected output token "
                           "(and every input token)", f"{p}.expected")
        layer = (ff_from_json(i["layer"], d, f"{p}.layer") if kind == "FF"
                 else sa_from_json(i["layer"], d, f"{p}.layer"))
        name = escape(i.get("name", f"instance {k}"))
        parts = []
        if kind == "FF" or sem["attention"] == "hardmax":
            r = check_layer(name, layer, inputs, expected)
            parts.append(r.verdict)
            tail = "  [on these instances only]" if r.verdict.passed else ""
            lines.append(f"[{r.verdict.value}] {name}: stated inputs -> stated outputs{tail}")
            if r.witness:
                lines.append("    witness: " + r.witness.describe())
        if plugin is not None:
            lines.append(f"    {escape(st)} ({escape(plugin)}): conclusion not re-derived (a "
                         "plugin's statement: the kernel re-checks only the stated inputs -> "
                         "outputs)")
        else:
            if "data" not in i:
                raise BadInput(f"a Lemma {st} instance must carry the lemma's data", f"{p}.data")
            v2, l2, w2 = check(st, i["data"], layer, sem, p, d)
            parts.append(v2)
            tail = "  [for every token of this layer]" if v2.passed else ""
            lines.append(f"[{v2.value}] Lemma {st} conclusion re-derived from the instance's "
                         f"data{tail}")
            lines += ["    " + x for x in l2]
            if w2 is not None:
                lines.append("    witness: " + w2.describe())
        got = combine(parts)
        stated = i["verdict"]
        if stated != got.value:
            lines.append(f"    instance {k} states {stated} but the re-check gives {got.value}")
            got = combine([got, Verdict.REFUTED])
        verdicts.append(got)
    return combine(verdicts), lines
