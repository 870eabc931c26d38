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

from fractions import Fraction

from proofcheck.kernel.dataset import check_admissible, dataset_from_json, digest
from proofcheck.kernel.documents import read_json, validate
from proofcheck.kernel import low_rank
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import format_q, parse_exact
from proofcheck.kernel.serialize import (
    ff_from_json,
    network_from_json,
    sa_from_json,
    sha256,
)
from proofcheck.kernel.verdicts import Verdict

FORMAT = "proofcheck-certificate/1"

#: the explicit parameter bound of the construction, P <= PARAM_CONSTANT * d * M
#: (derivation: P = (16d+16)M + (10d+8)R + 6d + 5 with R <= N - 1 <= M - 1 and
#: d >= 2 gives P <= (26d + 24)M <= 38 d M; SPEC §4 "Budget")
PARAM_CONSTANT = 38

#: the block budget of each theorem (SPEC §2) as a function of (N, M)
BUDGETS = {"1.6": ("2M + 2N + 1", lambda N, M: 2 * M + 2 * N + 1),
           "1.8": ("2M + 3N", lambda N, M: 2 * M + 3 * N)}

#: the attention rule each theorem is about
THEOREM_SEMANTICS = {"1.6": "hardmax", "1.8": "softmax"}


def param_formula(d: int, M: int, R: int) -> int:
    """Parameter count of the construction with R probe rounds (SPEC §4):
    ``(16d + 16) M + (10d + 8) R + 6d + 5``.  Re-derived here from the layer
    shapes of the construction (translation + tag, R probe + tag blocks, M leader
    moves, one collapse, M snaps), independently of ``lemmas/``."""
    return (16 * d + 16) * M + (10 * d + 8) * R + 6 * d + 5


def _fail(v: Verdict, reason: str):
    return v, [reason]


def verify_file(path, dataset_path=None) -> tuple[Verdict, list[str]]:
    """Read a certificate file strictly (duplicate keys rejected; see
    :func:`proofcheck.kernel.documents.read_json`) and :func:`verify_certificate` it;
    with ``dataset_path`` also require that the certificate is about that dataset
    file (``.json`` or ``.npz``, loaded and checked as by ``theorem``).
    Raises ``BadInput`` (exit 2) for unreadable or malformed input, including a
    dataset that is not the certificate's (the reason names both SHA-256)."""
    cert = read_json(path, "certificate")
    dataset = None
    if dataset_path is not None:
        from proofcheck.kernel.dataset import load_dataset
        dataset = load_dataset(dataset_path)
    return verify_certificate(cert, dataset=dataset)


def verify_certificate(cert, dataset=None) -> tuple[Verdict, list[str]]:
    """``(verdict, lines)`` for a parsed certificate (SPEC §3, §5).

    ``dataset``: an optional :class:`~proofcheck.kernel.dataset.Dataset` the
    certificate must be about.  Malformed content (schema violation, bad number,
    shape that does not match d, semantics that do not fit the statement, a
    ``dataset`` that is not the certificate's) raises ``BadInput`` (exit 2) with
    the JSON path; everything else is a verdict.
    """
    if not isinstance(cert, dict):
        raise BadInput(f"not a {FORMAT} certificate: the top-level JSON value is not an "
                       "object", "$")
    if cert.get("format") != FORMAT:
        raise BadInput(f"not a {FORMAT} certificate (format is "
                       f"{str(cert.get('format'))[:60]!r})", "$.format")
    validate(cert, "certificate")
    if dataset is not None:
        _same_dataset(cert, dataset)
    body = {k: v for k, v in cert.items() if k != "digest"}
    if sha256(body) != cert.get("digest"):
        return _fail(Verdict.ERROR, "digest mismatch: the certificate was altered after sealing")
    stated = cert.get("verdict")
    kind = cert.get("kind")
    if kind == "theorem":
        got, lines = _theta_sq_norm(cert, *_theorem(cert))
    elif kind == "lemma":
        got, lines = _lemma(cert)
    else:  # excluded by the schema
        raise BadInput(f"unknown certificate kind {kind!r}", "$.kind")
    lines.append(f"re-checked verdict: {got.value}; stated: {stated}")
    if got.value != stated:
        v = Verdict.REFUTED if got != Verdict.ERROR else Verdict.ERROR
        return v, lines + [f"the certificate states {stated} but the re-check gives {got.value}"]
    return got, lines


def _same_dataset(cert, ds) -> None:
    if cert["kind"] != "theorem":
        raise BadInput("--dataset given, but a lemma certificate is not about a dataset",
                       "$.kind")
    want = cert["claim"]["dataset"]["sha256"]
    got = digest(ds)
    if got != want:
        raise BadInput(f"the given dataset '{ds.name}' is not the certificate's dataset "
                       f"'{cert['claim']['dataset']['name']}': its SHA-256 is {got}, the "
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
    bad += low_rank.check(net, lines)
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


def _theorem(cert):
    from proofcheck.kernel.checker import check_network
    from proofcheck.kernel.softmax_certifier import certify
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
    lines = [f"dataset {ds.name}: N = {ds.N}, M = {ds.M}, d = {ds.d}; digest and SHA-256 match"]
    bad = _check_constants(claim, ds, net, st, lines)
    if bad:
        return Verdict.REFUTED, lines + bad
    inputs = [list(p.inputs) for p in ds.pairs]
    targets = [list(p.outputs) for p in ds.pairs]
    if st == "1.6":
        res = check_network(net, inputs, targets, None)
        if res.witness:
            lines.append("witness: " + res.witness.describe())
        return res.verdict, lines + [f"exact hardmax evaluation: {res.verdict.value}"]
    tau = parse_exact(sem["tau"], "$.semantics.tau", "tau")
    if tau <= 0:
        raise BadInput(f"tau must be positive (got {format_q(tau)[:40]})", "$.semantics.tau")
    res = certify(net, inputs, targets, tau)
    if res.witness:
        lines.append("witness: " + res.witness.describe())
    lines.append(f"softmax certificate at tau = {format_q(tau)}: {res.verdict.value}")
    stated_bounds = [_bound(b, f"$.bounds[{k}]") for k, b in enumerate(cert.get("bounds", []))]
    got_bounds = [_bound(b.to_json(), "re-computed") for b in res.bounds
                  if b.max_eps is not None]
    if stated_bounds and stated_bounds != got_bounds:
        k = next((i for i, (a, b) in enumerate(zip(stated_bounds, got_bounds)) if a != b),
                 min(len(stated_bounds), len(got_bounds)))
        why = (f"{len(stated_bounds)} bounds stated, {len(got_bounds)} re-computed"
               if k >= min(len(stated_bounds), len(got_bounds)) else
               f"stated {_show(stated_bounds[k])}, re-computed {_show(got_bounds[k])}")
        return Verdict.REFUTED, lines + [f"stated per-layer bound {k} differs from the "
                                         f"re-computed one: {why}"]
    if stated_bounds:
        lines.append(f"{len(got_bounds)} per-layer softmax bounds re-computed and equal")
    return res.verdict, lines


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


_BOUND_KEYS = ("block", "sublayer", "min_gap", "max_eps", "max_width", "straddles")


def _bound(b: dict, path: str) -> tuple:
    """A per-layer bound as a tuple of numbers (``None`` kept) in ``_BOUND_KEYS``
    order, so that bounds are compared as numbers, never as spellings."""
    def num(k):
        v = b.get(k)
        if v is None or k == "sublayer":
            return v
        return parse_exact(v, f"{path}.{k}", k)
    return tuple(num(k) for k in _BOUND_KEYS)


def _show(t: tuple) -> str:
    return ", ".join(f"{k} = {v if not isinstance(v, Fraction) else format_q(v)}"
                     for k, v in zip(_BOUND_KEYS, t))


def _num_field(v, path) -> Fraction:
    """An exact value of a certificate through the one number parser."""
    return parse_exact(v, path)


# what each lemma's instances must be (kind, FF width); the kernel checks the
# stated layer maps the stated inputs to the stated outputs, has this shape, and
# (through proofcheck.kernel.lemma_checks) re-derives the lemma's conclusion
LEMMA_SHAPES = {"3.1": ("FF", 1), "3.2": ("FF", 3), "3.2p": ("FF", 4), "3.3": ("FF", 4),
                "4.1": ("SA", None), "4.2": ("SA", None), "4.3": ("SA", None)}


def _lemma_semantics(sem) -> dict:
    """``{"attention": "hardmax"}`` or ``{"attention": "softmax", "tau": Fraction > 0}``."""
    from proofcheck.kernel.numbers import parse_number
    if not isinstance(sem, dict) or sem.get("attention") not in ("hardmax", "softmax"):
        raise BadInput("semantics must be {'attention': 'hardmax'} or "
                       "{'attention': 'softmax', 'tau': '<rational>'}", "$.semantics")
    if sem["attention"] == "hardmax":
        return {"attention": "hardmax"}
    if not isinstance(sem.get("tau"), str):
        raise BadInput("softmax semantics need tau as an exact rational string", "$.semantics.tau")
    tau, _ = parse_number(sem["tau"], "$.semantics.tau", "tau")
    if tau <= 0:
        raise BadInput(f"tau must be positive (got {tau})", "$.semantics.tau")
    return {"attention": "softmax", "tau": tau}


def _lemma_tokens(obj, path, allow_none: bool):
    """Sequences of exact tokens (``None`` entries allowed in expected outputs)."""
    from proofcheck.kernel.numbers import parse_number
    if not isinstance(obj, list) or not all(isinstance(s, list) for s in obj):
        raise BadInput("expected a list of sequences (lists of tokens)", path)
    out = []
    for j, s in enumerate(obj):
        seq = []
        for i, t in enumerate(s):
            p = f"{path}[{j}][{i}]"
            if t is None and allow_none:
                seq.append(None)
                continue
            if not isinstance(t, list) or not t:
                raise BadInput("expected a token (a non-empty list of numbers)", p)
            if any(isinstance(x, float) for x in t):
                raise BadInput("expected exact rational strings, got a JSON float", p)
            seq.append(tuple(parse_number(x, f"{p}[{c}]")[0] for c, x in enumerate(t)))
        out.append(seq)
    return out


def _lemma(cert):
    """Re-check a lemma certificate: per instance (1) the form (kind, FF width),
    (2) the stated inputs -> stated outputs by exact evaluation (numbers, never
    spellings), (3) the statement's own re-derivation from the instance's ``data``
    (``proofcheck.kernel.lemma_checks``; "conclusion not re-derived" where no module
    exists), (4) the instance's stated verdict against the recomputed one."""
    from proofcheck.kernel.layercheck import check_layer
    from proofcheck.kernel.lemma_checks import checker
    from proofcheck.kernel.verdicts import combine
    insts = cert.get("instances")
    if not isinstance(insts, list) or not insts:
        raise BadInput("a lemma certificate needs a non-empty list of instances", "$.instances")
    claim = cert.get("claim")
    if not isinstance(claim, dict):
        raise BadInput("claim must be an object with a statement", "$.claim")
    st = claim.get("statement")
    plugin = claim.get("source") if st not in LEMMA_SHAPES else None
    if not isinstance(st, str) or (st not in LEMMA_SHAPES and plugin is None):
        raise BadInput(f"no lemma certificate form for statement {st!r}", "$.claim.statement")
    sem = _lemma_semantics(cert.get("semantics"))
    check = checker(st) if plugin is None else None
    kind, width = LEMMA_SHAPES[st] if plugin is None else (insts[0].get("kind"), None)
    if plugin is not None and kind not in ("FF", "SA"):
        raise BadInput("an instance's kind must be FF or SA", "$.instances[0].kind")
    if sem["attention"] == "softmax" and kind == "SA" and check is None:
        raise BadInput(f"Lemma {st} instances cannot be certified under softmax here (no "
                       "re-derivation module); state hardmax semantics", "$.semantics")
    verdicts, lines = [], []
    for k, i in enumerate(insts):
        p = f"$.instances[{k}]"
        if not isinstance(i, dict):
            raise BadInput("an instance must be an object", p)
        layer_json = i.get("layer")
        if i.get("kind") != kind or not isinstance(layer_json, dict) or (
                width is not None and len(layer_json.get("U") or []) != width):
            lines.append(f"instance {k} is not a Lemma {st} layer (expected {kind}"
                         + (f" of width {width})" if width else ")"))
            return Verdict.REFUTED, lines
        inputs = _lemma_tokens(i.get("inputs"), f"{p}.inputs", False)
        expected = _lemma_tokens(i.get("expected"), f"{p}.expected", True)
        if len(inputs) != len(expected) or any(len(a) != len(b) for a, b in zip(inputs, expected)):
            raise BadInput("inputs and expected outputs differ in shape", p)
        d = len(inputs[0][0]) if inputs and inputs[0] else 0
        if d == 0 or any(len(t) != d for s in inputs for t in s) or any(
                t is not None and len(t) != d for s in expected for t in s):
            raise BadInput("tokens must be non-empty and all of one dimension d", f"{p}.inputs")
        layer = (ff_from_json(layer_json, d, f"{p}.layer") if kind == "FF"
                 else sa_from_json(layer_json, d, f"{p}.layer"))
        name = i.get("name", f"instance {k}")
        parts = []
        if kind == "FF" or sem["attention"] == "hardmax":
            r = check_layer(str(name), layer, inputs, expected)
            parts.append(r.verdict)
            lines.append(f"[{r.verdict.value}] {r.name}: stated inputs -> stated outputs")
            if r.witness:
                lines.append("    witness: " + r.witness.describe())
        if plugin is not None:
            lines.append(f"    {st} ({plugin}): conclusion not re-derived (a plugin's statement: "
                         "the kernel re-checks only the stated inputs -> outputs)")
        elif check is None:
            if all(e is None or e == x for se, sx in zip(expected, inputs) for e, x in zip(se, sx)) \
                    and st != "4.3":
                parts.append(Verdict.REFUTED)
                lines.append(f"    instance {k} claims nothing moves: not an instance of Lemma {st}")
            lines.append(f"    Lemma {st}: conclusion not re-derived (no lemma_checks module); "
                         "only the stated inputs -> outputs were checked")
        else:
            if "data" not in i:
                raise BadInput(f"a Lemma {st} instance must carry the lemma's data", f"{p}.data")
            v2, l2, w2 = check(st, i["data"], layer, sem, p)
            parts.append(v2)
            lines.append(f"[{v2.value}] Lemma {st} conclusion re-derived from the instance's data")
            lines += ["    " + x for x in l2]
            if w2 is not None:
                lines.append("    witness: " + w2.describe())
        got = combine(parts)
        stated = i.get("verdict")
        if stated not in {v.value for v in Verdict}:
            raise BadInput(f"unknown instance verdict {stated!r}", f"{p}.verdict")
        if stated != got.value:
            lines.append(f"    instance {k} states {stated} but the re-check gives {got.value}")
            got = combine([got, Verdict.REFUTED])
        verdicts.append(got)
    return combine(verdicts), lines
