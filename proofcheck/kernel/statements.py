"""The statements whose checks the kernel trusts (docs/spec.md §2), from nothing outside
the kernel: catalogue ids and aliases, each lemma's instance form and re-deriving
module, the budgets of Theorems 1.6 / 1.8 and, per construction the kernel knows, its
block formula and proved parameter constant (:data:`KNOWN_CONSTRUCTIONS`).  The project's
registry is tested to agree.  A plugin id may not pose as one of these (:func:`poses_as`)."""
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable

#: every catalogue id (docs/spec.md §2 and the project's later additions)
CATALOGUE_IDS = (
    "3.1", "3.2", "3.2p", "3.3", "4.1", "4.2", "4.3", "separation", "leaders", "collapse",
    "interpolation", "tag-growth", "1.6", "1.8", "1.8-collapse", "softmax-gap", "tikhonov",
    "resnet", "length-independence", "low-rank", "causal-first-token",
    "C.1", "C.3", "C.4", "E.1", "G.1", "G.2")

#: other names of catalogue statements (``lemma hat`` is ``lemma 3.2``)
ALIASES = {"theorem-1.6": "1.6", "theorem-1.8": "1.8", "hardmax": "1.6", "softmax": "1.8",
           "translation": "3.1", "hat": "3.2", "relocation": "3.2", "plateau": "3.2p",
           "snap": "3.3", "clustering": "4.1", "tag": "4.1", "corner": "4.2", "sphere": "4.3"}

#: lemma id -> (kind of its layer, FF width or None, kernel module re-deriving it)
LEMMA_FORMS = {"3.1": ("FF", 1, "translation"), "3.2": ("FF", 3, "hat"),
               "3.2p": ("FF", 4, "hat"), "3.3": ("FF", 4, "snap"),
               "4.1": ("SA", None, "clustering"), "4.2": ("SA", None, "corner"),
               "4.3": ("SA", None, "sphere")}

#: the explicit parameter bound of the default construction, P <= PARAM_CONSTANT * d * M
#: (P = (16d+16)M + (10d+8)R + 6d + 5 with R <= N - 1 <= M - 1 and d >= 2 gives
#: P <= (26d + 24)M <= 38 d M; docs/spec.md §4 "Budget")
PARAM_CONSTANT = 38

#: each theorem's block budget (docs/spec.md §2) as a function of (N, M), and its attention rule
BUDGETS = {"1.6": ("2M + 2N + 1", lambda N, M: 2 * M + 2 * N + 1, "hardmax"),
           "1.8": ("2M + 3N", lambda N, M: 2 * M + 3 * N, "softmax")}


def param_formula(d: int, M: int, R: int) -> int:
    """Parameters of the construction with R probe rounds (docs/spec.md §4): translation + tag
    (6d + 5), R probe + tag blocks (10d + 8 each), M leader moves and snaps with the
    collapse (16d + 16 each).  The construction (``proofcheck/constructions/``) imports this."""
    return (16 * d + 16) * M + (10 * d + 8) * R + 6 * d + 5


def peel_param_formula(d: int, N: int, M: int, R: int) -> int:
    """Parameters of the ``peel`` construction with R probe rounds: phase S
    ``(10d+8) R + 4d + 5``, the ``M - N`` extra leaders ``(8d+8)`` each, the
    ``ceil(M/4)`` peels ``(2d+1) M + 4 ceil(M/4)`` (one ReLU unit per target, eta and an
    identity SA's three scalars per layer), and the collapse: ``2d`` over the tag it
    replaces (every m_j = 1) or ``4d`` over an identity SA.  With ``R <= N - 1`` and
    ``N <= M``: ``P <= (12d + 10) M - 2d <= 17 d M`` for ``d >= 2``
    (``5 d M - 10 M + 2d >= 0``).  The construction imports this."""
    return ((10 * d + 8) * R + (8 * d + 8) * (M - N) + (2 * d + 1) * M + 4 * -(-M // 4)
            + 4 * d + 5 + (2 * d if M == N else 4 * d))


def seed_param_formula(d: int, M: int, R: int) -> int:
    """Parameters of the ``seed`` construction (Theorem 1.8 sketch, reconstructed):
    :func:`param_formula` with the M snaps (``8d + 5`` each) replaced by point hats
    (``6d + 4``), plus ``K = ceil(M/2)`` converge blocks of ``8d + 8`` (a width-4 FF
    and an identity SA).  With ``R <= N - 1 <= M - 1`` and ``K <= (M + 1)/2``:
    ``P <= (28d + 27) M + 1 <= 42 d M`` for ``d >= 2`` (``14 d M - 27 M - 1 >= M - 1
    >= 0``).  The construction imports this."""
    return param_formula(d, M, R) - (2 * d + 1) * M + (8 * d + 8) * ((M + 1) // 2)


def bounded_base(ds) -> tuple[int, str]:
    """``L - R`` of the ``bounded`` construction on the dataset ``ds``
    (:func:`bounded_base_of` its targets)."""
    return bounded_base_of([p.outputs for p in ds.pairs])


def bounded_base_of(outputs) -> tuple[int, str]:
    """``L - R`` of the ``bounded`` construction for the targets ``outputs[j]`` (the
    ``m_j`` tokens of pair j), computed from them alone, and its formula (with the counts):
    when every pair has one output, ``1 + max(1, M') + D'`` with ``M'`` the pairs whose
    target is not 0 (one flag lift each; none: one collapse block) and ``D'`` the distinct
    targets off the ray ``{t e_1 : t >= 0}`` (one snap each); else the default's
    ``2M + 1``.  The construction imports this."""
    M = sum(len(ys) for ys in outputs)
    if any(len(ys) != 1 for ys in outputs):
        return 2 * M + 1, "2M + 1 (some pair has several outputs)"
    ys = [tuple(y[0]) for y in outputs]
    m1 = sum(any(v != 0 for v in y) for y in ys)
    d1 = len({y for y in ys if y[0] < 0 or any(v != 0 for v in y[1:])})
    return 1 + max(1, m1) + d1, f"1 + max(1, M') + D' with M' = {m1}, D' = {d1}"


@dataclass(frozen=True)
class KnownConstruction:
    """A construction whose block formula and parameter constant the kernel holds
    (proved in the docstrings here, regression-tested): ``L = R + base(dataset)`` with
    ``base(ds) -> (value, formula text)`` and
    ``0 <= R <= N - 1`` probe rounds, ``P <= param_constant * d * M`` for every
    admissible dataset, and, where it has one, the exact ``P = params(d, N, M, R)``.
    A certificate naming it cannot choose another constant."""

    name: str
    theorems: tuple[str, ...]
    blocks: str
    base: Callable
    param_constant: int
    params: Callable | None = None
    params_text: str = ""


#: the constructions the kernel knows, by the name a certificate states
#: (``claim.construction``).  Bounded's constant 42: block 1 (the layout FF of width <= 3:
#: at most two folds and the translation unit, and the signature tag: A and V of rank
#: <= 1) has at most ``10d + 7`` scalars, a probe round ``12d + 8`` (a lift of width
#: <= 4, a flag tag), a leader lift or a snap block ``8d + 8``, the flag collapse adds
#: ``4d`` to the last leader block (``6d + 5`` for its own block when M' = 0); with
#: ``R <= N - 1``, ``M', D' <= M = N``: ``P <= (28d + 24) M + 2d - 1``; when some pair has
#: several outputs (``N <= M - 1``): block 1, R rounds, the default's M leader moves, M
#: snaps and a collapse adding ``2d``: ``P <= (28d + 24) M - 12d - 9``.  Both are
#: ``<= 42 d M`` for ``d >= 2`` (``14 d M - 24 M - 2d + 1 >= 4M - 3 >= 1``).
KNOWN_CONSTRUCTIONS = {c.name: c for c in (
    KnownConstruction("default", ("1.6", "1.8"), "2M + R + 1",
                      lambda ds: (2 * ds.M + 1, "2M + 1"), PARAM_CONSTANT,
                      lambda d, N, M, R: param_formula(d, M, R),
                      "(16d+16)M + (10d+8)R + 6d + 5"),
    KnownConstruction("peel", ("1.6",), "R + 1 + (M - N) + ceil(M/4)",
                      lambda ds: (1 + ds.M - ds.N - (-ds.M // 4), "1 + (M - N) + ceil(M/4)"),
                      17, peel_param_formula,
                      "(10d+8)R + (8d+8)(M-N) + (2d+1)M + 4 ceil(M/4) + 4d + 5 + (2d or 4d)"),
    KnownConstruction("seed", ("1.8",), "2M + R + 1 + ceil(M/2)",
                      lambda ds: (2 * ds.M + 1 + (ds.M + 1) // 2, "2M + 1 + ceil(M/2)"),
                      42, lambda d, N, M, R: seed_param_formula(d, M, R),
                      "(16d+16)M + (10d+8)R + 6d + 5 - (2d+1)M + (8d+8) ceil(M/2)"),
    KnownConstruction("bounded", ("1.6",),
                      "R + 1 + max(1, M') + D' (one output per pair), else 2M + R + 1",
                      bounded_base, 42),
)}


_PREFIX = re.compile(r"^(lemma|theorem|proposition|prop|thm|lem|statement)[\s._:#-]*")


def normalise_id(s: str) -> str:
    """NFKC, invisible characters dropped, white space collapsed, case folded, a
    leading "Lemma"/"Theorem"/"Proposition" removed: ``"Lemma  3.2\\u200b"`` -> ``"3.2"``."""
    s = unicodedata.normalize("NFKC", s)
    s = "".join(ch for ch in s if unicodedata.category(ch)[0] != "C")
    s = " ".join(s.split()).casefold()
    return _PREFIX.sub("", s).strip()


_KNOWN = {normalise_id(k): v for k, v in [(i, i) for i in CATALOGUE_IDS] + list(ALIASES.items())}

_SEP = re.compile(r"[\s._:#-]")  # dropped: "1.8.collapse", "lowrank", "C1" read as the ids
_SQUASHED = {_SEP.sub("", k): v for k, v in _KNOWN.items()}


def poses_as(sid: str) -> str | None:
    """The catalogue id that ``sid`` equals or aliases after :func:`normalise_id`
    (also with ``-``/``_``/space read alike, or with every separator dropped), else ``None``."""
    n = normalise_id(sid)
    for cand in (n, n.replace("_", "-").replace(" ", "-"), n.replace(" ", "")):
        if cand in _KNOWN:
            return _KNOWN[cand]
    return _SQUASHED.get(_SEP.sub("", n))
