"""Which datasets a statement admits (``lemma ID --dataset``, ``theorem``).

Theorems 1.6 and 1.8 need docs/spec.md §1's admissibility (d >= 2, non-empty sequences,
pairwise distinct tokens in every X_j and Y_j, m_j <= n_j, inputs distinct as
sets): :data:`THEOREM`, which is exactly the kernel's
:func:`~proofcheck.kernel.dataset.check_admissible`.  A layer lemma needs less (a
relocation works on any finite set of points, repeated tokens included; a plugin's
statement may accept a one-dimensional grid), so each statement declares its own
:class:`Admissibility`; a statement whose checks do not read a dataset refuses one
(:data:`NO_DATASET`) rather than ignoring it silently.

Every refusal is ``Inadmissible`` (exit 2) naming the statement, the rule and the
JSON path of the offending value.
"""
from __future__ import annotations

from dataclasses import dataclass

from proofcheck.kernel.errors import BadInput, Inadmissible


@dataclass(frozen=True)
class Admissibility:
    """The rules a dataset must satisfy for one statement.

    ``takes_dataset``: False when the statement's checks use built-in instances only
    (``--dataset`` is then refused); ``min_d``: the smallest token dimension;
    ``distinct_tokens``: the tokens of every X_j and of every Y_j are pairwise
    distinct; ``outputs_fit``: ``m_j <= n_j``; ``distinct_inputs``: the X_j are
    pairwise distinct as sets; ``theorem``: all of docs/spec.md §1 through the kernel's
    ``check_admissible`` (the other fields are then implied); ``ordered``: with
    ``theorem``, the inputs compared as tuples instead (docs/spec.md §1 "Extensions": a causal
    mask).
    """

    takes_dataset: bool = True
    min_d: int = 1
    distinct_tokens: bool = False
    outputs_fit: bool = False
    distinct_inputs: bool = False
    theorem: bool = False
    ordered: bool = False

    def describe(self) -> str:
        """The rules in words (printed by ``lemma`` and the docs table)."""
        if not self.takes_dataset:
            return "no dataset (built-in instances only)"
        if self.theorem:
            return "admissible dataset (docs/spec.md §1)" + (
                ", inputs compared as tuples (causal mask)" if self.ordered else "")
        rules = [f"d >= {self.min_d}"]
        rules += [text for on, text in ((self.distinct_tokens, "distinct tokens"),
                                        (self.outputs_fit, "m_j <= n_j"),
                                        (self.distinct_inputs, "inputs distinct as sets"))
                  if on]
        return ", ".join(rules) + ("" if len(rules) > 1 else "; repeated tokens allowed")

    def check(self, ds, statement: str) -> None:
        """Raise ``Inadmissible`` (or ``BadInput`` for a dataset given to a statement
        that takes none) unless ``ds`` satisfies the rules."""
        if not self.takes_dataset:
            raise BadInput(f"statement {statement} takes no dataset: its checks run on "
                           "built-in instances (drop --dataset/--example)")
        if self.theorem:
            from proofcheck.kernel.dataset import check_admissible
            check_admissible(ds, self.ordered)  # the kernel's rules and messages, unchanged
            return
        if ds.d < self.min_d:
            raise Inadmissible(f"statement {statement} needs d >= {self.min_d} (got "
                               f"{ds.d})", "$.d")
        for j, pair in enumerate(ds.pairs):
            self._check_pair(j, pair, statement)
        if self.distinct_inputs:
            _distinct_sets(ds, statement)

    def _check_pair(self, j: int, pair, statement: str) -> None:
        if self.outputs_fit and len(pair.outputs) > len(pair.inputs):
            raise Inadmissible(f"statement {statement}: output longer than input in pair {j} "
                               f"(m={len(pair.outputs)} > n={len(pair.inputs)})", f"$.pairs[{j}]")
        if not self.distinct_tokens:
            return
        for kind, seq in (("input", pair.inputs), ("output", pair.outputs)):
            first = {}
            for t, tok in enumerate(seq):
                k = first.setdefault(tok, t)
                if k != t:
                    raise Inadmissible(f"statement {statement}: repeated token in {kind} {j} "
                                       f"(tokens {k} and {t} are equal)", f"$.pairs[{j}].{kind}[{t}]")


def _distinct_sets(ds, statement: str) -> None:
    first = {}
    for j, pair in enumerate(ds.pairs):
        k = first.setdefault(frozenset(pair.inputs), j)
        if k != j:
            raise Inadmissible(f"statement {statement}: input sequences {k} and {j} are equal "
                               "as sets", f"$.pairs[{j}].input")


#: docs/spec.md §1 (Theorems 1.6, 1.8 and the statements about their construction)
THEOREM = Admissibility(min_d=2, distinct_tokens=True, outputs_fit=True, distinct_inputs=True,
                        theorem=True)
#: docs/spec.md §1 under a causal mask: the inputs distinct as tuples (docs/spec.md §1 "Extensions")
CAUSAL_THEOREM = Admissibility(min_d=2, distinct_tokens=True, outputs_fit=True,
                               distinct_inputs=False, theorem=True, ordered=True)
#: any well-formed dataset (repeated tokens allowed)
ANY_DATASET = Admissibility()
#: the statement's checks read no dataset
NO_DATASET = Admissibility(takes_dataset=False)
