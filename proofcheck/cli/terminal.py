"""Mathematical symbols on terminals that cannot encode them: the output streams get
an error handler that writes an ASCII spelling (τ → tau, ≤ → <=, 𝟙 → 1vec, …)
instead of raising ``UnicodeEncodeError``."""
from __future__ import annotations

import codecs
import sys

ASCII = {
    "τ": "tau", "≤": "<=", "≥": ">=", "≠": "!=", "≈": "~", "𝟙": "1vec", "∈": " in ",
    "ℚ": "Q", "ℝ": "R", "‖": "||", "→": "->", "←": "<-", "↦": "|->", "⇒": "=>", "∞": "inf",
    "·": "*", "×": "x", "−": "-", "–": "-", "—": "--", "…": "...", "²": "^2", "³": "^3",
    "⁻": "^-", "¹": "^1", "₁": "_1", "₂": "_2", "ε": "eps", "δ": "delta", "κ": "kappa",
    "λ": "lambda", "ρ": "rho", "η": "eta", "σ": "sigma", "π": "pi", "Δ": "Delta", "θ": "theta",
    "χ": "chi", "β": "beta", "⟨": "<", "⟩": ">", "∘": "o", "Σ": "sum", "∑": "sum", "√": "sqrt",
    "∪": "U", "∩": "^", "⊂": " subset ", "∖": "\\", "ᵀ": "^T", "e₁": "e_1", "✓": "ok", "✗": "x",
}
HANDLER = "proofcheck-ascii"


def _fallback(err: UnicodeEncodeError):
    bad = err.object[err.start:err.end]
    return "".join(ASCII.get(ch, "?") for ch in bad), err.end


def install() -> None:
    """Give stdout and stderr the ASCII fallback (idempotent; never raises)."""
    try:
        codecs.lookup_error(HANDLER)
    except LookupError:
        codecs.register_error(HANDLER, _fallback)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors=HANDLER)
        except (AttributeError, ValueError, OSError):
            pass
