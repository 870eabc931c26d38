"""The constructions built for a causal mask (docs/spec.md §1 "Extensions"), by name, beside
the table of full-attention constructions
(:data:`proofcheck.constructions.afz.theorems.constructions.CONSTRUCTIONS`): ``theorem 1.6 --attention
causal --construction NAME`` selects one; any full-attention construction may be run
under the mask too (:func:`get`), which is the check of where it breaks.  ``list``
prints both tables.
"""
from __future__ import annotations

from proofcheck.constructions.afz.theorems.constructions import ConstructionSpec
from proofcheck.constructions.afz.theorems.constructions import get as get_full


def _build(reading: str):
    def build(inputs, targets, d, **options):
        from proofcheck.constructions.causal.prefix_construction import construct
        return construct(inputs, targets, d, reading=reading, **options)
    return build


def _constants(net, d, N, M, info, targets=None):
    from proofcheck.constructions.causal.prefix_construction import constant_checks
    return constant_checks(net, d, N, M, info)


def _conclusions(c, inputs, targets, d):
    from proofcheck.constructions.causal.conclusions import causal_conclusions
    return causal_conclusions(c, inputs, targets, d)


CAUSAL_CONSTRUCTIONS: dict[str, ConstructionSpec] = {
    "causal-last": ConstructionSpec(
        "causal-last", ("1.6",), "R + 1 + K (K relocation hats)",
        "proofcheck's own, for a causal mask and the reading 'the last m_j outputs': a prefix "
        "map (decided exactly; necessary), causal prefix tags and lifts until read positions "
        "with different targets differ, then one relocation hat per read value",
        _build("last-outputs"), _constants, conclusions=_conclusions),
    "causal-all": ConstructionSpec(
        "causal-all", ("1.6",), "R + 1 + K (K relocation hats)",
        "proofcheck's own, for a causal mask and the reading 'the set of all outputs': as "
        "causal-last with every position read (no prefix map, e.g. a first token shared by "
        "sequences with disjoint targets: no causal transformer interpolates)",
        _build("all-outputs"), _constants, conclusions=_conclusions),
}

#: the reading each causal construction serves
READING = {"causal-last": "last-outputs", "causal-all": "all-outputs"}


def get(name: str, theorem: str = "1.6", attention: str = "causal") -> ConstructionSpec:
    """The construction ``name`` for ``theorem`` under ``attention``: with
    ``"causal"`` a causal construction or any full-attention one (run under the mask);
    with ``"full"`` only a full-attention one.  ``KeyError`` naming the known ones."""
    spec = CAUSAL_CONSTRUCTIONS.get(name)
    if spec is not None and theorem in spec.theorems:
        if attention != "causal":
            raise KeyError(f"construction {name!r} builds a causal network; run it with "
                           "--attention causal")
        return spec
    try:
        return get_full(name, theorem)
    except KeyError as exc:
        causal = [n for n, s in CAUSAL_CONSTRUCTIONS.items() if theorem in s.theorems]
        if not causal:
            raise
        where = "under" if attention == "causal" else "only with"
        raise KeyError(exc.args[0][:-1] + f", and {where} --attention causal: "
                       + ", ".join(causal) + ")") from None
