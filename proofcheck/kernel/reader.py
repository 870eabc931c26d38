"""The kernel's own reader (docs/spec.md §3): a parsed JSON document (:mod:`.documents`) checked field by
field as a ``proofcheck-certificate/1`` or ``/2`` or a ``proofcheck-dataset/1`` — every key, type,
range, string pattern and number — and returned as the same tree with every number read ONCE
into the kernel's types: an exact value (a JSON integer or a number string of docs/spec.md §3's grammar,
:func:`~proofcheck.kernel.numbers.parse_string`) becomes a ``Fraction``, an integer field an
``int``; a dataset file's JSON float stays a finite ``float`` (the dataset reader takes its exact
binary value and notes it).  Non-finite floats (the literals ``NaN``, ``Infinity``) are refused
wherever they stand, ``provenance`` included.

Each format is a few declarative records below (:class:`Record`: its keys and their specs, the
required keys, a rule for the few keys that exclude each other; :class:`Choice` picks a record by
one key's value, and :class:`Variant` says what that form adds), walked by each spec's ``read``.
Errors are ``BadInput`` with the JSON path of the offending value, or of the key that is missing
or not allowed (``$.network.blocks[3].ff.W[0][1]``, ``$.pairs[0].outputs``); strings from the
input are escaped.  The published JSON Schemas
(``proofcheck/schemas/``) state the same rules for users; tests/kernel/test_kernel_reader.py holds both
equal.  What no schema states (vectors of length d, tau > 0, admissibility, the digest) is checked
where the values are used."""
import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.numbers import fmt_num, parse_string
from proofcheck.kernel.verdicts import escape

EXACT_WORDS = "an exact number (a JSON integer or a string such as '3', '-7/2', '0.125')"

#: characters refused in names (C0/C1 controls, invisible format marks, bidi overrides, line
#: and paragraph separators, spaces other than U+0020, surrogates, private use); the schemas
#: state the same class as ``"not": {"pattern": ...}`` (dataset names are further held to
#: ``str.isprintable`` by :func:`proofcheck.kernel.dataset.check_name`)
NAME_REFUSED = (r"[\u0000-\u001f\u007f-\u00a0\u00ad\u061c\u1680\u180e\u2000-\u200f"
                r"\u2028-\u202f\u205f-\u206f\u3000\ud800-\uf8ff\ufeff\ufff9-\ufffb]")
_NAME_REFUSED = re.compile(NAME_REFUSED)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def key_path(path: str, key: str) -> str:
    """The JSON path of ``key`` in the object at ``path``: ``$.a.key`` or ``$.a["k y"]``."""
    key = str(key)
    return f"{path}.{key}" if _IDENT.fullmatch(key) else f"{path}[{json.dumps(escape(key))}]"


def _name(path: str) -> str:
    """How messages call the value at ``path``: its last key with the indexes after it."""
    last = path.rsplit(".", 1)[-1]
    return "the document" if last == "$" else last.lstrip("$") or "value"


def kind_of(x) -> str:
    """A JSON value's kind in words: ``a boolean (true)``, ``a JSON float (0.5)``, ``null``."""
    if x is None:
        return "null"
    if x is True or x is False:
        return f"a boolean ({json.dumps(x)})"
    if isinstance(x, float):
        return f"a JSON float ({x!r})"
    return {int: "an integer", str: "a string", list: "a list", dict: "an object"}.get(
        type(x), f"a {type(x).__name__}")


def _wrong_type(x, path: str, want: str) -> BadInput:
    return BadInput(f"{_name(path)} is {kind_of(x)}, expected {want}", path)


# ------------------------------------------------------------------ leaves

@dataclass(frozen=True)
class Exact:
    """An exact rational (docs/spec.md §3): a JSON integer or a number string -> ``Fraction``;
    ``floats``: a finite JSON float is also accepted and kept (dataset files only)."""

    floats: bool = False

    def read(self, x, path, cache):
        if type(x) is str:
            q = cache.get(x)
            if q is None:
                try:
                    q = cache[x] = parse_string(x)
                except BadInput:
                    parse_string(x, path, _name(path))  # raises, worded at its path
                    raise
            return q
        if type(x) is int:
            return Fraction(x)
        if type(x) is float and math.isfinite(x) and self.floats:
            return x
        if type(x) is float and not math.isfinite(x):
            raise BadInput(f"{_name(path)} is not a finite number ({x!r})", path)
        raise _wrong_type(x, path, EXACT_WORDS + " or a JSON float" * self.floats)


EXACT = Exact()


@dataclass(frozen=True)
class Integer:
    """A JSON integer (never a boolean or ``1.0``) in ``lo..hi`` -> ``int``."""

    lo: int
    hi: int | None = None

    def read(self, x, path, cache):
        if type(x) is not int:
            raise _wrong_type(x, path, "an integer")
        if x < self.lo or (self.hi is not None and x > self.hi):
            top = ".." if self.hi is None else f"..{self.hi}"
            raise BadInput(f"{_name(path)} = {fmt_num(x)} is out of its range {self.lo}{top}",
                           path)
        return x


@dataclass(frozen=True)
class Text:
    """A string of ``min_len..max_len`` characters, fully matching ``pattern`` if given
    (``re.fullmatch``: no final newline slips through); ``name``: no :data:`NAME_REFUSED`
    character."""

    min_len: int = 0
    max_len: int | None = None
    pattern: str | None = None
    name: bool = False

    def read(self, x, path, cache):
        if type(x) is not str:
            raise _wrong_type(x, path, "a string")
        if len(x) < self.min_len or (self.max_len is not None and len(x) > self.max_len):
            raise BadInput(f"{_name(path)} has {len(x)} characters, expected {self.min_len}.."
                           f"{self.max_len if self.max_len is not None else ''}", path)
        if self.pattern is not None and not re.fullmatch(self.pattern, x):
            raise BadInput(f"{_name(path)} {escape(x, 80)!r} is not of the form "
                           f"{self.pattern}", path)
        if self.name and (bad := _NAME_REFUSED.search(x)):
            raise BadInput(f"{_name(path)} contains the non-printable character "
                           f"U+{ord(bad.group()):04X} at index {bad.start()}", path)
        return x


@dataclass(frozen=True)
class OneOf:
    """One of the strings ``values``."""

    values: tuple

    def read(self, x, path, cache):
        if type(x) is not str or x not in self.values:
            shown = repr(escape(x, 60)) if type(x) is str else kind_of(x)
            raise BadInput(f"{_name(path)} is {shown}, expected "
                           f"{' or '.join(map(repr, self.values))}", path)
        return x


@dataclass(frozen=True)
class Boolean:
    """``true`` or ``false``."""

    def read(self, x, path, cache):
        if type(x) is not bool:
            raise _wrong_type(x, path, "true or false")
        return x


@dataclass(frozen=True)
class Nullable:
    """``null`` (kept as ``None``) or ``spec``."""

    spec: object

    def read(self, x, path, cache):
        return None if x is None else self.spec.read(x, path, cache)


# ------------------------------------------------------------------ lists

def _check_list(x, path, lo, hi, what):
    if type(x) is not list:
        raise _wrong_type(x, path, what)
    if len(x) < lo or (hi is not None and len(x) > hi):
        n = "at least 1 item" if hi is None else f"{lo}..{hi} items"
        raise BadInput(f"{_name(path)} has {len(x)} item{'s' * (len(x) != 1)}, expected {n}",
                       path)


@dataclass(frozen=True)
class ListOf:
    """A list of ``min_items..max_items`` values, each read by ``item``."""

    item: object
    min_items: int = 0
    max_items: int | None = None

    def read(self, x, path, cache):
        _check_list(x, path, self.min_items, self.max_items, "a list")
        return [self.item.read(v, f"{path}[{i}]", cache) for i, v in enumerate(x)]


@dataclass(frozen=True)
class Vector:
    """A list of ``min_items..max_items`` exact numbers (``number``: :class:`Exact`) -> a list
    of Fractions.  Fast path: a vector of number strings read before (``cache``)."""

    number: Exact = EXACT
    min_items: int = 0
    max_items: int | None = None

    def read(self, x, path, cache):
        _check_list(x, path, self.min_items, self.max_items, "a list of numbers")
        read = self.number.read
        try:
            return [q if (q := cache.get(v)) is not None else read(v, path, cache) for v in x]
        except (BadInput, TypeError):  # again, item by item, to name the item
            for i, v in enumerate(x):
                read(v, f"{path}[{i}]", cache)
            raise


# ------------------------------------------------------------------ objects

@dataclass(frozen=True)
class Variant:
    """What one form of a :class:`Choice` adds to its record: keys it also requires, keys of
    the record it does not allow, a rule of its own (``rule(obj, path)``, ``BadInput``)."""

    required: tuple = ()
    excluded: tuple = ()
    rule: Callable | None = None


@dataclass(frozen=True)
class Record:
    """A JSON object read as ``what`` (for messages): keys ``fields`` (key -> spec), of which
    ``required`` must be present, no other key; ``rule(obj, path)`` checks keys that exclude
    each other (``BadInput`` at the object); ``variant``: what its form adds.  Checked in the
    order a schema validator ranks the violations (so both name the same path): the variant's
    keys and rule, the required keys, unknown keys, the rule, then each value (document order).
    A key missing or not allowed is reported at its own path."""

    what: str
    fields: dict
    required: tuple = ()
    rule: Callable | None = None
    variant: Variant = Variant()

    def read(self, x, path, cache):
        if type(x) is not dict:
            raise _wrong_type(x, path, f"an object ({self.what})")
        self._keys(x, path, self.variant.required, self.variant.excluded)
        if self.variant.rule is not None:
            self.variant.rule(x, path)
        self._keys(x, path, self.required, ())
        for k in x:
            if k not in self.fields:
                raise BadInput(f"unknown key {escape(k, 40)!r} in {self.what}; allowed keys: "
                               f"{', '.join(self.fields)}", key_path(path, k))
        if self.rule is not None:
            self.rule(x, path)
        # every key of a format is an identifier: its path is path.key
        return {k: self.fields[k].read(v, f"{path}.{k}", cache) for k, v in x.items()}

    def _keys(self, x, path, required, excluded):
        for k in required:
            if k not in x:
                raise BadInput(f"key {k!r} is missing from {self.what} (required: "
                               f"{', '.join(self.required + self.variant.required)})",
                               key_path(path, k))
        for k in x:
            if k in excluded:
                raise BadInput(f"key {k!r} is not allowed in {self.what}", key_path(path, k))


@dataclass(frozen=True)
class Choice:
    """An object whose form depends on its content: ``choose(obj)`` names the record of
    ``forms`` to read it with (a non-object: the first form, which refuses it)."""

    choose: Callable
    forms: dict

    def read(self, x, path, cache):
        form = self.choose(x) if type(x) is dict else next(iter(self.forms))
        return self.forms[form].read(x, path, cache)


@dataclass(frozen=True)
class DataValue:
    """A lemma's data (docs/spec.md §3): exact numbers, booleans, ``null``, lists and objects of them."""

    def read(self, x, path, cache):
        if x is None or type(x) is bool:
            return x
        if type(x) is list:
            return [self.read(v, f"{path}[{i}]", cache) for i, v in enumerate(x)]
        if type(x) is dict:
            return {k: self.read(v, key_path(path, k), cache) for k, v in x.items()}
        return EXACT.read(x, path, cache)


@dataclass(frozen=True)
class AnyObject:
    """An object of any JSON content (``provenance``), kept as given; no non-finite float
    and only JSON types anywhere in it."""

    def read(self, x, path, cache):
        if type(x) is not dict:
            raise _wrong_type(x, path, "an object")
        _strict_json(x, path)
        return x


def _strict_json(x, path):
    if type(x) is dict:
        for k, v in x.items():
            _strict_json(v, key_path(path, k))
    elif type(x) is list:
        for i, v in enumerate(x):
            _strict_json(v, f"{path}[{i}]")
    elif type(x) is float and not math.isfinite(x):
        raise BadInput(f"{_name(path)} is not a finite number ({x!r}; not JSON)", path)
    elif not (x is None or type(x) in (bool, int, float, str)):
        raise _wrong_type(x, path, "a JSON value")


@dataclass(frozen=True)
class MapOf:
    """An object with any keys, each value read by ``item``."""

    item: object

    def read(self, x, path, cache):
        if type(x) is not dict:
            raise _wrong_type(x, path, "an object")
        return {k: self.item.read(v, key_path(path, k), cache) for k, v in x.items()}


# ------------------------------------------------------------------ the formats (docs/spec.md §3)

VERDICT = OneOf(("VERIFIED", "VERIFIED-CERTIFIED", "REFUTED", "INCONCLUSIVE", "ERROR"))
SHA256 = Text(64, 64, r"[0-9a-f]{64}")
NAME = Text(max_len=120, name=True)
LABEL = Text(name=True)
DIMENSION = Integer(1, 100_000)
SUBLAYER = OneOf(("FF", "SA"))
#: most rows of U and W, entries of b, heads of an SA layer
MAX_WIDTH = 1024
#: the stated constants a theorem certificate may carry (each re-derived by the kernel)
CONSTANTS = ("N", "M", "d", "R", "L", "max_width", "P", "P_formula", "P_bound", "param_constant",
             "L_construction", "L_paper_hardmax", "L_paper_softmax", "max_bits", "theta_sq_norm")


def _sequences(number: Exact) -> ListOf:
    """A non-empty list of non-empty tokens (a dataset's input or output)."""
    return ListOf(Vector(number, min_items=1), min_items=1)


def dataset_form(file: bool) -> Record:
    """``proofcheck-dataset/1``: a file (``file``: ``name`` optional, a ``source`` text, JSON
    floats allowed) or a certificate's embedded dataset (``name`` required, exact values)."""
    seq = _sequences(Exact(floats=file))
    pair = Record("a pair", {"input": seq, "output": seq}, ("input", "output"))
    fields = {"format": OneOf(("proofcheck-dataset/1",)), "name": NAME,
              **({"source": Text()} if file else {}), "d": DIMENSION,
              "pairs": ListOf(pair, min_items=1)}
    return Record("a dataset", fields, ("format", "d", "pairs") if file else
                  ("format", "name", "d", "pairs"))


def _one_head_or_heads(o: dict, path: str) -> None:
    keys = {"A", "V", "heads"} & o.keys()
    if keys not in ({"A", "V"}, {"heads"}):
        raise BadInput("an SA layer states one head as 'A' and 'V' or several as 'heads' "
                       f"(here: {', '.join(sorted(keys)) or 'neither'})", path)


def _gap_or_heads(o: dict, path: str) -> None:
    keys = {"min_gap", "max_eps", "heads"} & o.keys()
    if keys not in ({"min_gap", "max_eps"}, {"heads"}):
        raise BadInput("an SA bound states 'min_gap' and 'max_eps' (one head) or 'heads' "
                       f"(here: {', '.join(sorted(keys)) or 'neither'})", path)


ROWS = ListOf(Vector())
FACTORED = Record("a factored matrix lam I + sum_r left[r] right[r]^T",
                  {"lam": EXACT, "left": ROWS, "right": ROWS}, ("lam", "left", "right"))
FF = Record("an FF layer", {"eta": EXACT, "U": ListOf(Vector(), max_items=MAX_WIDTH),
                            "b": Vector(max_items=MAX_WIDTH),
                            "W": ListOf(Vector(), max_items=MAX_WIDTH), "label": LABEL},
            ("eta", "U", "b", "W"))
SA = {1: Record("an SA layer", {"rho": EXACT, "A": FACTORED, "V": FACTORED, "label": LABEL},
                ("rho", "A", "V")),
      2: Record("an SA layer", {"rho": EXACT, "A": FACTORED, "V": FACTORED, "label": LABEL,
                                "heads": ListOf(Record("a head", {"A": FACTORED, "V": FACTORED},
                                                       ("A", "V")), 1, MAX_WIDTH),
                                "causal": Boolean()}, ("rho",), _one_head_or_heads)}


def network_form(fmt: int) -> Record:
    """The network of a certificate of format ``fmt``: ``d`` and blocks of FF then SA."""
    block = Record("a block", {"ff": FF, "sa": SA[fmt], "phase": LABEL}, ("ff", "sa"))
    return Record("the network", {"d": DIMENSION, "blocks": ListOf(block)}, ("d", "blocks"))


def _form_by(key: str, forms: tuple) -> Callable:
    """``choose`` of a :class:`Choice` keyed on ``obj[key]``: that value when it names one of
    ``forms``, else ``"other"`` (the record without a variant: the key's own error)."""
    return lambda o: o[key] if type(o.get(key)) is str and o[key] in forms else "other"


_ATTENTION = {"attention": OneOf(("hardmax", "softmax")), "tau": EXACT}
#: hardmax, or softmax at tau
SEMANTICS = Choice(_form_by("attention", ("softmax", "hardmax")), {
    "other": Record("the semantics", _ATTENTION, ("attention",)),
    "softmax": Record("softmax semantics", _ATTENTION, ("attention",), None,
                      Variant(required=("tau",))),
    "hardmax": Record("hardmax semantics", _ATTENTION, ("attention",), None,
                      Variant(excluded=("tau",)))})

_GAPS = {"min_gap": Nullable(EXACT), "max_eps": EXACT}
_LAYER_BOUND = {"block": Integer(1), "sublayer": SUBLAYER, "radius": Vector(), **_GAPS,
                "heads": ListOf(Record("a head's bound", _GAPS, ("min_gap", "max_eps")),
                                1, MAX_WIDTH)}
BOUNDS = {
    1: ListOf(Record("a per-layer bound", {"block": Integer(1), "sublayer": SUBLAYER, **_GAPS,
                                           "max_width": EXACT, "straddles": Integer(0)},
                     ("block", "sublayer", "min_gap", "max_eps", "max_width", "straddles"))),
    2: Record("the bounds", {"exp_floor_bits": Integer(1, 65536), "layers": ListOf(Choice(
        _form_by("sublayer", ("SA", "FF")),
        {"other": Record("a per-layer bound", _LAYER_BOUND, ("block", "sublayer", "radius")),
         "SA": Record("an SA bound", _LAYER_BOUND, ("block", "sublayer", "radius"), None,
                      Variant(rule=_gap_or_heads)),
         "FF": Record("an FF bound", _LAYER_BOUND, ("block", "sublayer", "radius"), None,
                      Variant(excluded=("min_gap", "max_eps", "heads")))}))},
        ("exp_floor_bits", "layers"))}

_CLAIMED_DATASET = Record("the claimed dataset", {"name": NAME, "sha256": SHA256},
                         ("name", "sha256"))
THEOREM_CLAIM = {fmt: Record(
    "a theorem claim", {"statement": OneOf(("1.6", "1.8")), "dataset": _CLAIMED_DATASET,
                        "constants": Record("the stated constants",
                                            dict.fromkeys(CONSTANTS, EXACT)),
                        **({"d": DIMENSION, "construction": Text(1, 64, name=True)}
                           if fmt == 2 else {})},
    ("statement", "d", "dataset") if fmt == 2 else ("statement", "dataset")) for fmt in (1, 2)}

_LEMMA_CLAIM = {"statement": Text(1, 40, name=True),
                "source": Text(pattern=r"plugin:[A-Za-z0-9._-]{1,100}"),
                "text": Text(1, 2000), "hypotheses": ListOf(Text(1, 500), max_items=50),
                "scope": OneOf(("instances",))}
_PLUGIN_KEYS = ("text", "hypotheses", "scope")
#: a catalogue lemma's claim, or a plugin's (``source``: with its text, hypotheses, scope)
LEMMA_CLAIM = Choice(lambda o: "plugin" if "source" in o else "catalogue", {
    "catalogue": Record("a lemma claim", _LEMMA_CLAIM, ("statement",), None,
                        Variant(excluded=_PLUGIN_KEYS)),
    "plugin": Record("a plugin's claim", _LEMMA_CLAIM, ("statement",), None,
                     Variant(required=_PLUGIN_KEYS))})


def instance_form(fmt: int, plugin: bool) -> Choice:
    """A lemma instance: its layer read as its ``kind`` says; a plugin's states every
    expected token (no ``null``)."""
    def form(layer):
        token = Vector()
        return Record("a lemma instance", {
            "name": Text(max_len=500, name=True), "d": Integer(1), "kind": SUBLAYER,
            "layer": layer, "inputs": ListOf(ListOf(token, min_items=1), min_items=1),
            "expected": ListOf(ListOf(token if plugin else Nullable(token))),
            "verdict": VERDICT, "data": MapOf(DataValue())},
            ("kind", "d", "layer", "inputs", "expected", "verdict") if fmt == 2 else
            ("kind", "layer", "inputs", "expected", "verdict"))
    return Choice(_form_by("kind", ("FF", "SA")),
                  {"other": form(AnyObject()), "FF": form(FF), "SA": form(SA[fmt])})


def _certificate_kind(o: dict) -> str:
    kind, claim = o.get("kind"), o.get("claim")
    if kind == "lemma" and type(claim) is dict and "source" in claim:
        return "plugin"
    return kind if kind in ("theorem", "lemma") else "other"


def certificate_form(fmt: int) -> Choice:
    """``proofcheck-certificate/<fmt>``: a theorem certificate (claim, dataset, network,
    bounds) or a lemma certificate (claim, instances), a plugin's or the catalogue's."""
    fields = {"format": OneOf((f"proofcheck-certificate/{fmt}",)),
              "kind": OneOf(("theorem", "lemma")), "claim": AnyObject(), "semantics": SEMANTICS,
              "dataset": dataset_form(file=False), "network": network_form(fmt),
              "bounds": BOUNDS[fmt], "instances": ListOf(instance_form(fmt, False), min_items=1),
              "verdict": VERDICT, "provenance": AnyObject(), "digest": SHA256}
    required = ("format", "kind", "claim", "semantics", "verdict", "digest")
    lemma = Variant(required=("instances",), excluded=("dataset", "network", "bounds"))
    plugin = {"claim": LEMMA_CLAIM, "instances": ListOf(instance_form(fmt, True), min_items=1)}
    return Choice(_certificate_kind, {
        "other": Record("a certificate", fields, required),
        "theorem": Record("a theorem certificate", {**fields, "claim": THEOREM_CLAIM[fmt]},
                          required, None, Variant(required=("dataset", "network"),
                                                  excluded=("instances",))),
        "lemma": Record("a lemma certificate", {**fields, "claim": LEMMA_CLAIM}, required, None,
                        lemma),
        "plugin": Record("a plugin's certificate", {**fields, **plugin}, required, None, lemma)})


#: the certificate formats this kernel reads
CERTIFICATES = {f"proofcheck-certificate/{fmt}": certificate_form(fmt) for fmt in (1, 2)}
DATASET_FILE = dataset_form(file=True)


def _read(form, doc, root: str):
    try:
        return form.read(doc, root, {})
    except RecursionError:
        raise BadInput("the document is nested too deeply", root) from None


def read_certificate(doc) -> dict:
    """The certificate ``doc`` (parsed JSON, ``proofcheck-certificate/1`` or ``/2``, docs/spec.md §3)
    with every field checked and every number read (module docstring); ``BadInput`` at the
    JSON path of the first violation (a top level that is not an object: at ``$``; another
    format: at ``$.format``)."""
    if type(doc) is not dict:
        raise BadInput(f"not a proofcheck certificate: the top-level JSON value is "
                       f"{kind_of(doc)}, expected an object", "$")
    fmt = doc.get("format")
    if type(fmt) is not str or fmt not in CERTIFICATES:
        shown = repr(escape(fmt, 60)) if type(fmt) is str else kind_of(fmt)
        raise BadInput(f"not a proofcheck certificate (format is {shown}; this kernel reads "
                       f"{', '.join(CERTIFICATES)})", "$.format")
    return _read(CERTIFICATES[fmt], doc, "$")


def read_dataset(doc, root: str = "$") -> dict:
    """A ``proofcheck-dataset/1`` file's object (docs/spec.md §3; ``root``: its JSON path) checked and
    read: coordinates as Fractions, JSON floats kept as finite floats; ``BadInput`` at the
    path of the first violation.  Token length against ``d`` and admissibility are the dataset
    reader's (:mod:`proofcheck.kernel.dataset`)."""
    return _read(DATASET_FILE, doc, root)
