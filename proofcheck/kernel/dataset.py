"""Datasets (docs/spec.md §1, §3): ``Dataset(name, d, pairs)`` of ``Pair(inputs, outputs)``, tokens tuples
of ``d`` Fractions; admissibility (``Inadmissible`` with the JSON path); the canonical form and its
SHA-256 (without the name).  Files are read by :mod:`proofcheck.frontend.io.datasets`."""
import hashlib
from dataclasses import dataclass
from fractions import Fraction

from proofcheck.kernel.errors import BadInput, Inadmissible
from proofcheck.kernel.numbers import format_q, parse_exact
from proofcheck.kernel.serialize import canonical

FORMAT = "proofcheck-dataset/1"

Token = tuple[Fraction, ...]


@dataclass(frozen=True)
class Pair:
    """One sample: ``inputs`` X_j (n_j tokens) and target ``outputs`` Y_j (m_j tokens)."""

    inputs: tuple[Token, ...]
    outputs: tuple[Token, ...]


@dataclass(frozen=True)
class Dataset:
    """A dataset {(X_j, Y_j)}_{j<N} of rational tokens in Q^d (docs/spec.md §1)."""

    name: str
    d: int
    pairs: tuple[Pair, ...]
    notes: tuple[str, ...] = ()

    @property
    def N(self) -> int:
        return len(self.pairs)

    @property
    def M(self) -> int:
        """Target tokens, ``sum_j m_j``."""
        return sum(len(p.outputs) for p in self.pairs)

    @property
    def n_tokens(self) -> int:
        """Input tokens, ``sum_j n_j``."""
        return sum(len(p.inputs) for p in self.pairs)


def check_name(name: str, root: str = "$") -> None:
    """Names end up in file names and report titles: printable, UTF-8, <= 120 chars."""
    where = f"{root}.name"
    if len(name) > 120:
        raise BadInput(f"name is {len(name)} characters long, at most 120 allowed", where)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("name is not valid Unicode text (lone surrogate)", where) from None
    if (bad := next((i for i, ch in enumerate(name) if not ch.isprintable()), None)) is not None:
        raise BadInput(f"name contains the non-printable character U+{ord(name[bad]):04X} at index {bad}", where)


def embedded_dataset(obj, root: str = "$.dataset") -> Dataset:
    """The :class:`Dataset` of a schema-validated dataset object (tokens of ``d``
    coordinates, exact numbers)."""
    check_name(obj["name"], root)
    d = obj["d"]

    def seq(s, path):
        for t, tok in enumerate(s):
            if len(tok) != d:
                raise BadInput(f"token has {len(tok)} coordinates, expected d = {d}", f"{path}[{t}]")
        return tuple(tuple(tok) if all(type(x) is Fraction for x in tok) else  # read already
                     tuple(parse_exact(x, f"{path}[{t}][{c}]") for c, x in enumerate(tok))
                     for t, tok in enumerate(s))
    return Dataset(obj["name"], d, tuple(
        Pair(seq(p["input"], f"{root}.pairs[{j}].input"), seq(p["output"], f"{root}.pairs[{j}].output"))
        for j, p in enumerate(obj["pairs"])))


def token_key(token) -> tuple:
    """``(p_0, q_0, p_1, ...)`` of a token of Fractions in lowest terms: equal iff the tokens
    are (and hashed much faster than a tuple of Fractions)."""
    return tuple([v for x in token for v in (x.numerator, x.denominator)])


def check_admissible(ds: Dataset, ordered: bool = False) -> None:
    """``Inadmissible`` unless ``ds`` satisfies docs/spec.md §1's hypotheses, in this order: d >= 2; per
    pair X_j, Y_j non-empty with distinct tokens, m_j <= n_j; the X_j distinct as sets (``ordered``:
    as tuples, the hypothesis under a causal mask). A token of the wrong length is ``BadInput``."""
    if ds.d < 2:
        raise Inadmissible(f"d must be at least 2 (got {ds.d})", "$.d")
    pending = []
    for j, pair in enumerate(ds.pairs):
        seqs = (("input", pair.inputs), ("output", pair.outputs))
        for kind, seq in seqs:
            if not seq:
                raise Inadmissible(f"{kind} {j} is empty", f"$.pairs[{j}].{kind}")
        for kind, seq in seqs:
            path = f"$.pairs[{j}].{kind}"
            seen: dict[tuple, int] = {}
            for t, tok in enumerate(seq):
                if len(tok) != ds.d:
                    raise BadInput(f"token {t} of {kind} {j} has {len(tok)} coordinate(s), "
                                   f"expected {ds.d}", f"{path}[{t}]")
                key = token_key(tok)
                if key in seen:
                    raise Inadmissible(f"repeated token in {kind} {j}: tokens {seen[key]} "
                                       f"and {t} are equal", f"{path}[{t}]")
                seen[key] = t
            if kind == "input":
                keys = tuple(seen)  # the input tokens' keys, in order (they are distinct)
        m, n = len(pair.outputs), len(pair.inputs)
        if m > n:
            raise Inadmissible(f"output longer than input in pair {j} (m={m} > n={n})",
                               f"$.pairs[{j}]")
        pending.append(keys if ordered else frozenset(keys))
    first: dict = {}
    for j, s in enumerate(pending):
        if (k := first.setdefault(s, j)) != j:
            raise Inadmissible(f"input sequences {k} and {j} are equal (as tuples: the "
                               "hypothesis under a causal mask)" if ordered else
                               _equal_sets_message(ds, k, j), f"$.pairs[{j}].input")


def _equal_sets_message(ds: Dataset, k: int, j: int) -> str:
    """Why equal input sets k and j are rejected, with the witness."""
    where = {tok: t for t, tok in enumerate(ds.pairs[k].inputs)}
    perm = [where[tok] for tok in ds.pairs[j].inputs]
    same_targets = set(ds.pairs[k].outputs) == set(ds.pairs[j].outputs)
    how = ("identical sequences" if perm == list(range(len(perm))) else
           f"the same tokens in another order: input {j} lists input {k}'s tokens in the "
           f"order {', '.join(map(str, perm[:8]))}{', ...' if len(perm) > 8 else ''}")
    return (f"input sequences {k} and {j} are equal as sets ({how}). proofcheck requires "
            "inputs distinct as sets, a strengthening of the seed's 'input sequences are "
            "distinct': a transformer is permutation equivariant, so it maps both to the "
            "same set of outputs and cannot meet two different targets"
            + (" (here their targets are equal sets too: a duplicated pair)" if same_targets
               else f" (here outputs {k} and {j} differ as sets)"))


def dataset_to_json(ds: Dataset) -> dict:
    """The ``proofcheck-dataset/1`` object of ``ds`` (numbers as ``format_q`` strings)."""
    def seq(s):
        return [[format_q(c) for c in tok] for tok in s]
    return {"format": FORMAT, "name": ds.name, "d": ds.d,
            "pairs": [{"input": seq(p.inputs), "output": seq(p.outputs)} for p in ds.pairs]}


def canonical_bytes(ds: Dataset) -> bytes:
    """Canonical JSON (sorted keys, no spaces, UTF-8: ASCII, as every number is a ``format_q``
    string) of ``format``, ``d``, ``pairs`` (:func:`proofcheck.kernel.serialize.canonical`)."""
    return canonical({k: v for k, v in dataset_to_json(ds).items() if k != "name"})


def digest(ds: Dataset) -> str:
    """SHA-256 hex digest of ``canonical_bytes(ds)`` (kept on the dataset, which is frozen)."""
    got = ds.__dict__.get("_digest")
    if got is None:
        got = hashlib.sha256(canonical_bytes(ds)).hexdigest()
        object.__setattr__(ds, "_digest", got)
    return got
