"""The piecewise-linear profile of an FF layer along one direction (docs/spec.md §2,
3.1–3.3).  If every row of ``U`` is ``alpha_k w``, then for EVERY token x ::

    FF(x) = eta x + G(<w, x>),   G(t) = sum_k W_k relu(alpha_k t + b_k),

continuous piecewise linear with kinks only at ``-b_k / alpha_k``.  Two such maps
agree on an interval iff they agree at its finite ends and every kink inside, and
have the same slope beyond an infinite end: :meth:`Profile.first_difference`, so
"FF(x) = x + L(<w,x>) whenever <w,x> in I" is proved for all x, not sampled.  Generic
in the scalars: :data:`EXACT` decides rational signs; ``proofcheck.constructions.provers.symbolic`` passes
a sympy field (an undecided sign raises :class:`Undecided`, never a pass)."""
from collections import namedtuple
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from proofcheck.kernel.verdicts import Verdict, Witness


class Undecided(Exception):
    """A sign or an order could not be decided (symbolic parameters)."""


class NotAlong(Exception):
    """A row of ``U`` is not a multiple of the direction."""

    def __init__(self, row: int):
        self.row = row
        super().__init__(f"row {row} of U is not a multiple of the direction")


#: ``sign(x)`` in {-1, 0, 1} (or :class:`Undecided`); ``is_zero(x)``: identically 0
Field = namedtuple("Field", "sign is_zero")


#: the field of exact rationals
EXACT = Field(lambda x: (Fraction(x) > 0) - (Fraction(x) < 0), lambda x: x == 0)


def _alpha(u, w, f: Field, row: int):
    """``alpha`` with ``u = alpha w`` (raises NotAlong / Undecided)."""
    if all(f.is_zero(a - b) for a, b in zip(u, w)):
        return 1
    if all(f.is_zero(a) for a in u):
        return 0
    for a, b in zip(u, w):
        try:
            if f.sign(b) != 0:
                alpha = a / b
                break
        except Undecided:
            continue
    else:
        raise Undecided(f"no coordinate of the direction is decidably non-zero (row {row})")
    if not all(f.is_zero(a - alpha * b) for a, b in zip(u, w)):
        raise NotAlong(row)
    return alpha


@dataclass
class Profile:
    """``G(t) = sum_k cols[k] relu(alphas[k] t + betas[k])`` and ``eta`` (:meth:`along`)."""

    eta: object
    alphas: list
    betas: list
    cols: list
    d: int
    field: Field = EXACT

    @classmethod
    def along(cls, ff, w, field: Field = EXACT) -> "Profile":
        """Profile of ``ff`` along ``w``; :class:`NotAlong` if a row of ``U`` is not a
        multiple of ``w``, :class:`Undecided` if that cannot be decided."""
        alphas = [_alpha(u, w, field, k) for k, u in enumerate(ff.U)]
        return cls(ff.eta, alphas, list(ff.b), [list(c) for c in ff.W], len(w), field)

    def kinks(self) -> list:
        """The points ``-b_k / alpha_k`` (``alpha_k != 0``), in row order."""
        return [-b / a for a, b in zip(self.alphas, self.betas) if not self.field.is_zero(a)]

    def value(self, t) -> list:
        """``G(t)`` exactly (raises Undecided if a ReLU's sign is undecided)."""
        out = [0] * self.d
        for a, b, col in zip(self.alphas, self.betas, self.cols):
            arg = a * t + b
            if self.field.sign(arg) > 0:
                out = [o + c * arg for o, c in zip(out, col)]
        return out

    def slope(self, side: str) -> list:
        """Slope of G left of every kink (``side="left"``) or right of every kink."""
        out = [0] * self.d
        for a, col in zip(self.alphas, self.cols):
            s = self.field.sign(a)
            if (s > 0 and side == "right") or (s < 0 and side == "left"):
                out = [o + c * a for o, c in zip(out, col)]
        return out

    def first_difference(self, lo, hi, target: Callable):
        """``None`` iff ``G(t) == target(t)`` (affine) for every t in ``[lo, hi]``
        (``None``: infinite end), else ``(t or "slope left"/"slope right", got, expected)``."""
        pts = [x for x in (lo, hi) if x is not None]
        for k in self.kinks():
            if (lo is None or self.field.sign(k - lo) > 0) and (hi is None or self.field.sign(k - hi) < 0):
                pts.append(k)
        if not pts:
            pts = [0]
        for t in pts:
            got, exp = self.value(t), list(target(t))
            if not all(self.field.is_zero(g - e) for g, e in zip(got, exp)):
                return t, got, exp
        t_slope = [b - a for a, b in zip(target(0), target(1))]
        for side, open_end in (("left", lo), ("right", hi)):
            if open_end is None:
                got = self.slope(side)
                if not all(self.field.is_zero(g - e) for g, e in zip(got, t_slope)):
                    return f"slope {side}", got, t_slope
        return None


def ff_form(layer, width: int, statement: str, semantics, eta=1):
    """The lines so far (the form) for an FF of this width and ``eta``, else the REFUTED
    ``(verdict, [why], witness)`` of why it is not a Lemma layer."""
    if not hasattr(layer, "eta"):
        bad = f"Lemma {statement} needs an FF layer"
    elif layer.width != width:
        bad = f"Lemma {statement} needs an FF of width {width}; the layer has width {layer.width}"
    elif layer.eta != eta:
        bad = f"Lemma {statement} needs eta = {eta}; the layer has eta = {layer.eta}"
    else:
        return [f"form: FF of width {width}, eta = {eta} (attention rule {semantics['attention']}: "
                "irrelevant to an FF layer)"]
    return Verdict.REFUTED, [bad], Witness(bad, code="form")


def direction(layer):
    """The first non-zero row of ``U`` (``None`` if U = 0)."""
    return next((u for u in layer.U if any(x != 0 for x in u)), None)


def profile_failure(prof: Profile, lo, hi, target, token_at, text: str):
    """``None`` if ``G = target`` on ``[lo, hi]``, else a Witness at an exact token
    ``token_at(t)`` where ``FF(x) != x + target(<w,x>)``."""
    bad = prof.first_difference(lo, hi, target)
    if bad is None:
        return None
    t = bad[0]
    if isinstance(t, str):  # a slope differs: a point beyond every kink and finite end
        pts = [x for x in (lo, hi) if x is not None] + prof.kinks()
        t = Fraction(0) if not pts else min(pts) - 1 if t == "slope left" else max(pts) + 1
    got, exp = prof.value(t), list(target(t))
    c = next(i for i, (a, b) in enumerate(zip(got, exp)) if a != b)
    x = token_at(t)
    return Witness(f"{text} fails at the token x = ({', '.join(str(v) for v in x)}) with "
                   f"<w,x> = {t}: FF(x) - x", coordinate=c, expected=exp[c], got=got[c],
                   code="conclusion")
