"""Re-checking a lemma certificate (docs/spec.md §2, §3).  Per instance: its dimension d (of every token,
factor and datum), the layer's form, the stated inputs -> outputs by exact evaluation, for a
catalogue lemma the conclusion re-derived from its ``data`` (:mod:`.lemma_checks`), the stated
verdict.  A plugin's claim (``claim.source``) is checked on its instances only and may not pose as
a catalogue statement."""
import re

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.layercheck import layer_check
from proofcheck.kernel.lemma_checks import checker
from proofcheck.kernel.limits import MAX_LEMMA_D
from proofcheck.kernel.numbers import parse_exact, positive_tau
from proofcheck.kernel.serialize import ff_from_json, sa_from_json
from proofcheck.kernel.statements import LEMMA_FORMS, normalise_id, poses_as
from proofcheck.kernel.verdicts import Verdict, combine, escape

#: a plugin statement id: ASCII, no white space (no look-alikes of catalogue ids)
PLUGIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")


def claim_of(cert) -> tuple[str, str | None]:
    """``(statement, plugin source or None)``; ``BadInput`` for a claim posing as a
    catalogue statement or a built-in id without a lemma form."""
    st, src = cert["claim"]["statement"], cert["claim"].get("source")
    if src is None:
        if st not in LEMMA_FORMS:
            raise BadInput(f"no lemma certificate form for statement {escape(st)!r} (a plugin's "
                           "statement needs claim.source)", "$.claim.statement")
        return st, None
    if poses_as(st) is not None:
        raise BadInput(f"a plugin claim may not pose as a catalogue statement: {escape(st)!r} "
                       f"is (or aliases) the catalogue id {poses_as(st)!r}", "$.claim.statement")
    if not PLUGIN_ID.fullmatch(st):
        raise BadInput(f"a plugin statement id must be ASCII letters, digits and . _ - (got "
                       f"{escape(st)!r})", "$.claim.statement")
    if normalise_id(src.removeprefix("plugin:")) == "proofcheck":
        raise BadInput("a plugin's source may not be proofcheck itself", "$.claim.source")
    return st, src


def _semantics(sem) -> dict:
    if sem["attention"] == "hardmax":
        return {"attention": "hardmax"}
    return {"attention": "softmax", "tau": positive_tau(sem)}


def _tokens(obj, d, path):
    """Sequences of exact tokens of dimension ``d`` (``None``: a token the statement
    says nothing about; built-in statements only)."""
    def tok(t, p):
        if t is None:
            return None
        if len(t) != d:
            raise BadInput(f"token has {len(t)} coordinates, the instance is in d = {d}", p)
        return tuple(parse_exact(x, f"{p}[{c}]") for c, x in enumerate(t))
    return [[tok(t, f"{path}[{j}][{i}]") for i, t in enumerate(s)] for j, s in enumerate(obj)]


def _instance(k, i, st, plugin, kind, sem, lines):
    """The verdict of instance ``k`` (lines appended); ``None``: not the statement's form."""
    p = f"$.instances[{k}]"
    d = i.get("d") or next((len(t) for s in i["inputs"] for t in s), 0)
    if not 1 <= d <= MAX_LEMMA_D:
        raise BadInput(f"an instance must live in dimension 1..{MAX_LEMMA_D} (d = {d})", p)
    width = None if plugin else LEMMA_FORMS[st][1]
    if i["kind"] != kind or (width is not None and len(i["layer"]["U"]) != width):
        lines.append(f"instance {k} is not a Lemma {st} layer (expected {kind}"
                     + (f" of width {width})" if width else ")"))
        return None
    inputs, expected = _tokens(i["inputs"], d, f"{p}.inputs"), _tokens(i["expected"], d,
                                                                       f"{p}.expected")
    if len(inputs) != len(expected) or any(len(a) != len(b) for a, b in zip(inputs, expected)):
        raise BadInput("inputs and expected outputs differ in shape", p)
    if any(None in s for s in inputs) or all(t is None for s in expected for t in s):
        raise BadInput("an instance must state every input and at least one expected output",
                       f"{p}.expected")
    layer = (ff_from_json if kind == "FF" else sa_from_json)(i["layer"], d, f"{p}.layer")
    name, parts = escape(i.get("name", f"instance {k}")), []
    if kind == "FF" or sem["attention"] == "hardmax":
        v, _, w = layer_check(layer, inputs, expected)
        parts.append(v)
        lines.append(f"[{v.value}] {name}: stated inputs -> stated outputs"
                     + ("  [on these instances only]" if v.passed else ""))
        lines += ["    witness: " + w.describe()] if w else []
    if plugin is not None:
        lines.append(f"    {escape(st)} ({escape(plugin)}): conclusion not re-derived (a plugin's "
                     "statement: the kernel re-checks only the stated inputs -> outputs)")
    else:
        if "data" not in i:
            raise BadInput(f"a Lemma {st} instance must carry the lemma's data", f"{p}.data")
        v, more, w = checker(st)(st, i["data"], layer, sem, p, d)
        parts.append(v)
        lines.append(f"[{v.value}] Lemma {st} conclusion re-derived from the instance's data"
                     + ("  [for every token of this layer]" if v.passed else ""))
        lines += ["    " + x for x in more] + (["    witness: " + w.describe()] if w else [])
    got = combine(parts)
    if i["verdict"] != got.value:
        lines.append(f"    instance {k} states {i['verdict']} but the re-check gives {got.value}")
        got = combine([got, Verdict.REFUTED])
    return got


def check(cert):
    """``(verdict, lines)`` of a lemma certificate."""
    st, plugin = claim_of(cert)
    sem = _semantics(cert["semantics"])
    kind = cert["instances"][0]["kind"] if plugin else LEMMA_FORMS[st][0]
    if sem["attention"] == "softmax" and kind == "SA" and plugin:
        raise BadInput(f"{escape(st)} instances cannot be certified under softmax here (no "
                       "re-derivation module); state hardmax semantics", "$.semantics")
    verdicts, lines = [], []
    for k, i in enumerate(cert["instances"]):
        v = _instance(k, i, st, plugin, kind, sem, lines)
        if v is None:
            return Verdict.REFUTED, lines
        verdicts.append(v)
    return combine(verdicts), lines
