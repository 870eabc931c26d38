"""The statements whose checks the kernel trusts (SPEC §2), from nothing outside
the kernel: catalogue ids and aliases, each lemma's instance form and re-deriving
module, the constants of Theorems 1.6 / 1.8.  The project's registry is tested to
agree.  A plugin id may not pose as one of these (:func:`poses_as`).
"""
import re
import unicodedata

#: every catalogue id (SPEC §2 and the project's later additions)
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

#: the explicit parameter bound of the construction, P <= PARAM_CONSTANT * d * M
#: (P = (16d+16)M + (10d+8)R + 6d + 5 with R <= N - 1 <= M - 1 and d >= 2 gives
#: P <= (26d + 24)M <= 38 d M; SPEC §4 "Budget")
PARAM_CONSTANT = 38

#: each theorem's block budget (SPEC §2) as a function of (N, M), and its attention rule
BUDGETS = {"1.6": ("2M + 2N + 1", lambda N, M: 2 * M + 2 * N + 1, "hardmax"),
           "1.8": ("2M + 3N", lambda N, M: 2 * M + 3 * N, "softmax")}


def param_formula(d: int, M: int, R: int) -> int:
    """Parameters of the construction with R probe rounds (SPEC §4): translation + tag
    (6d + 5), R probe + tag blocks (10d + 8 each), M leader moves and snaps with the
    collapse (16d + 16 each).  The construction (``lemmas/``) imports this."""
    return (16 * d + 16) * M + (10 * d + 8) * R + 6 * d + 5


_PREFIX = re.compile(r"^(lemma|theorem|proposition|prop|thm|lem|statement)\b[\s.:#-]*")


def normalise_id(s: str) -> str:
    """NFKC, invisible characters dropped, white space collapsed, case folded, a
    leading "Lemma"/"Theorem"/"Proposition" removed: ``"Lemma  3.2\\u200b"`` -> ``"3.2"``."""
    s = unicodedata.normalize("NFKC", s)
    s = "".join(ch for ch in s if unicodedata.category(ch)[0] != "C")
    s = " ".join(s.split()).casefold()
    return _PREFIX.sub("", s).strip()


_KNOWN = {normalise_id(k): v for k, v in [(i, i) for i in CATALOGUE_IDS] + list(ALIASES.items())}


def poses_as(sid: str) -> str | None:
    """The catalogue id that ``sid`` equals or aliases after :func:`normalise_id`
    (also with ``-``/``_``/space read alike), else ``None``."""
    n = normalise_id(sid)
    for cand in (n, n.replace("_", "-").replace(" ", "-"), n.replace(" ", "")):
        if cand in _KNOWN:
            return _KNOWN[cand]
    return None
