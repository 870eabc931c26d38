"""The constructions of the Theorem 1.6/1.8 networks, by name (docs/spec.md §4).

``theorem 1.6 --construction NAME`` (and ``theorem 1.8 --construction NAME`` for the
constructions that serve 1.8) selects one; ``python -m proofcheck list`` ends with
one line per construction, ``NAME: L = <block formula>``.  Every construction is
untrusted: it returns a network and one claim per sub-layer
(:class:`proofcheck.constructions.afz.theorems.theorem_1_6.Construction`), and the kernel checks the
network it returned, exactly, like the default one.

A construction is declared once, here, as a :class:`ConstructionSpec`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class ConstructionSpec:
    """One construction of the theorem networks.

    ``name``: the ``--construction`` value; ``theorems``: the theorem ids it serves;
    ``blocks``: its block count as a formula in N, M, R (printed by ``list``);
    ``summary``: one line on what it does and whose it is (a reconstruction of the
    seed's proof, or proofcheck's own); ``build``: ``(inputs, targets, d, **options)
    -> Construction``; ``constant_checks``: ``(net, d, N, M, info, targets=None) ->
    (checks, constants)``, the construction's own exact constant checks (L against its
    block formula and the theorem's budget, width, P; ``targets[j]``: pair j's targets,
    for a formula that counts them); ``notes``: ``(construction,
    certificate or None) -> lines`` that ``theorem 1.8`` prints about it (None: the
    default's own note); ``conclusions``: ``(construction, inputs, targets, d) ->
    checks``, the construction's stated conclusions checked on the network it built
    for the dataset (None: none beyond its claims and constants); ``softmax_checks``:
    ``(construction, certificate, inputs, targets) -> checks``, what ``theorem 1.8``
    checks of the construction's softmax mechanism beside the certificate (None: none).
    """

    name: str
    theorems: tuple[str, ...]
    blocks: str
    summary: str
    build: Callable
    constant_checks: Callable
    notes: Callable | None = None
    conclusions: Callable | None = None
    softmax_checks: Callable | None = None


def _default_build(inputs, targets, d, **options):
    from proofcheck.constructions.afz.theorems.theorem_1_6 import construct
    return construct(inputs, targets, d, **options)


def _default_constants(net, d, N, M, info, targets=None):
    from proofcheck.constructions.afz.theorems.theorem_1_6 import constant_checks
    return constant_checks(net, d, N, M, info["R"])


def _peel_build(inputs, targets, d, **options):
    from proofcheck.constructions.afz.theorems.peel import construct
    return construct(inputs, targets, d, **options)


def _peel_constants(net, d, N, M, info, targets=None):
    from proofcheck.constructions.afz.theorems.peel import constant_checks
    return constant_checks(net, d, N, M, info)


def _seed_build(inputs, targets, d, **options):
    from proofcheck.constructions.afz.theorems.theorem_1_8_seed import construct
    return construct(inputs, targets, d, **options)


def _seed_constants(net, d, N, M, info, targets=None):
    from proofcheck.constructions.afz.theorems.theorem_1_8_seed import constant_checks
    return constant_checks(net, d, N, M, info)


def _seed_notes(construction, cert=None):
    from proofcheck.constructions.afz.theorems.theorem_1_8_seed import notes
    return notes(construction, cert)


def _seed_softmax_checks(construction, cert, inputs, targets):
    from proofcheck.constructions.afz.theorems.theorem_1_8_seed import softmax_checks
    return softmax_checks(construction, cert, inputs, targets)


def _seed_conclusions(c, inputs, targets, d):
    from proofcheck.constructions.afz.theorems.seed_conclusions import seed_conclusions
    return seed_conclusions(c, inputs, targets, d)


def _bounded_build(inputs, targets, d, **options):
    from proofcheck.constructions.afz.theorems.bounded import construct
    return construct(inputs, targets, d, **options)


def _bounded_constants(net, d, N, M, info, targets=None):
    from proofcheck.constructions.afz.theorems.bounded import constant_checks
    return constant_checks(net, d, N, M, info, targets)


def _peel_conclusions(c, inputs, targets, d):
    from proofcheck.constructions.afz.theorems.conclusions import peel_conclusions
    return peel_conclusions(c, inputs, targets, d)


def _bounded_conclusions(c, inputs, targets, d):
    from proofcheck.constructions.afz.theorems.conclusions import bounded_conclusions
    return bounded_conclusions(c, inputs, targets, d)


DEFAULT = "default"

CONSTRUCTIONS: dict[str, ConstructionSpec] = {
    DEFAULT: ConstructionSpec(
        DEFAULT, ("1.6", "1.8"), "2M + R + 1",
        "proofcheck's construction (2M + R + 1 blocks, R <= N - 1), a reconstruction of the "
        "seed's: separation (R rounds), M leader moves, one collapse, M snaps",
        _default_build, _default_constants),
    "peel": ConstructionSpec(
        "peel", ("1.6",), "R + 1 + (M - N) + ceil(M/4)",
        "proofcheck's own: each sequence's top is its first leader (collapse with "
        "A = mu I + u u^T), M - N extra leaders moved, four targets placed per FF",
        _peel_build, _peel_constants, conclusions=_peel_conclusions),
    "seed": ConstructionSpec(
        "seed", ("1.8",), "2M + R + 1 + ceil(M/2)",
        "proofcheck's reconstruction of the seed's Theorem 1.8 mechanism (departures: "
        "dimension reduced by the rank-one collapse, not by eta = 0; tokens onto f(kappa), "
        "not onto the leaders; ceil(M/2) blocks where the seed's count leaves N - 1): after "
        "the softmax collapse, "
        "ceil(M/2) non-residual (eta = 0) ReLU FF blocks converge two certified "
        "neighbourhoods each onto their leader's image, then M point hats",
        _seed_build, _seed_constants, _seed_notes, conclusions=_seed_conclusions,
        softmax_checks=_seed_softmax_checks),
    "bounded": ConstructionSpec(
        "bounded", ("1.6",), "R + 1 + max(1, M') + D' (one output per pair), else 2M + R + 1",
        "proofcheck's own: separation by flag tags (numbers linear in N, no 2^R growth), "
        "one flag lift per pair, a flag collapse, snaps only for targets off the e_1 ray",
        _bounded_build, _bounded_constants, conclusions=_bounded_conclusions),
}


def get(name: str, theorem: str) -> ConstructionSpec:
    """The construction called ``name`` for ``theorem``.  Raises ``KeyError`` with
    the known names when there is none (the CLI turns it into exit 2)."""
    spec = CONSTRUCTIONS.get(name)
    if spec is None or theorem not in spec.theorems:
        known = ", ".join(n for n, s in CONSTRUCTIONS.items() if theorem in s.theorems)
        raise KeyError(f"no construction {name!r} for Theorem {theorem} (known: {known})")
    return spec


#: constants a certificate of a construction the kernel does not know states: the kernel
#: re-derives each from the network and the dataset alone; such a construction has no
#: parameter constant the kernel knows (P / (d M) is reported, no O(d M) claim)
PORTABLE_CONSTANTS = ("N", "M", "d", "L", "max_width", "P")


def certified_constants(consts: dict) -> dict:
    """The constants a certificate of this run states: for a construction the kernel knows
    (:data:`proofcheck.kernel.statements.KNOWN_CONSTRUCTIONS`) every one of them, its R,
    block count and parameter count read by the kernel with that construction's own
    formulas (no ``P_formula`` when it has no closed form); :data:`PORTABLE_CONSTANTS`
    for any other."""
    from proofcheck.kernel.statements import KNOWN_CONSTRUCTIONS
    known = KNOWN_CONSTRUCTIONS.get(consts.get("construction", DEFAULT))
    if known is None:
        return {k: consts[k] for k in PORTABLE_CONSTANTS if k in consts}
    return {k: v for k, v in consts.items() if k != "P_formula" or known.params is not None}
