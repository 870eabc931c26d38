"""Read a horizontal line's value off a log-scale plot in a PDF, from its geometry.

Used for the authors' ``figs/figure1a.pdf`` (statement ``tikhonov``): where does
its red "Tikhonov threshold" line sit?  Method (no pixels, no OCR):

1. the page's content stream is parsed with pypdf (operators and operands);
   the current transformation matrix (``q``/``Q``/``cm``) and stroke colour
   (``RG``/``G``) are tracked, and every stroked straight segment (``m``/``l``
   painted by ``S``/``B``/...) is recorded in page coordinates;
2. the axes box is the clipping rectangle (``re W``) of the plotted data;
3. y ticks are horizontal segments ending on the box's left edge and pointing
   outwards; the major ones are the longest; their labels are the text blocks
   left of the box reading ``10`` followed by a smaller-size exponent (matplotlib's
   ``10^{k}``), matched to the major ticks in order;
4. the line is the longest horizontal segment of the requested colour inside the
   box;
5. with the ticks at ``(k_a, y_a)`` and ``(k_b, y_b)`` (the outermost labelled
   ones) the line's decimal exponent is ``k_a + (y - y_a)(k_b - k_a)/(y_b - y_a)``,
   computed exactly from the decimal coordinates written in the file, and bounded
   over every coordinate moved by half a unit of the last written decimal (the
   writer rounds; matplotlib writes 6 decimals for paths), as an exact rational
   interval ``[e_lo, e_hi]``.

The log axis is checked to be linear: every labelled tick must lie where the
outermost two put its decade, within the same rounding.  Anything not found
raises ``ValueError`` naming it.  Needs pypdf (extra ``data``).
Run as ``python -m proofcheck.frontend.io.figure_reader FILE.pdf [--color r,g,b]``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from fractions import Fraction

from proofcheck.constructions.ts.balls import value_interval
from proofcheck.constructions.afz.theorems.tikhonov import exponent_interval


@dataclass(frozen=True)
class Segment:
    """A stroked straight segment in page coordinates (points, exact decimals)."""

    x0: Fraction
    y0: Fraction
    x1: Fraction
    y1: Fraction
    color: tuple


@dataclass(frozen=True)
class Label:
    """A text block: its origin (page coordinates) and ``(text, font size)`` runs."""

    x: Fraction
    y: Fraction
    runs: tuple


@dataclass(frozen=True)
class Reading:
    """What :func:`read_line` found.  ``ticks``: ``(exponent, y)`` of the labelled
    major y ticks; ``line_y``: the line's y; ``half_unit``: half a unit of the last
    written decimal; ``exponent``: the exact rational interval of log10(value)."""

    ticks: tuple
    line_y: Fraction
    line_x: tuple
    half_unit: Fraction
    exponent: tuple
    box: tuple


def _num(v) -> Fraction:
    return Fraction(repr(float(v))) if not isinstance(v, int) else Fraction(v)


def _decimals(v) -> int:
    s = repr(float(v))
    return len(s.split(".")[1]) if "." in s and "e" not in s else 0


class _Page:
    """Interprets the operators this reader needs; see the module docstring."""

    def __init__(self):
        self.ctm = (1, 0, 0, 1, 0, 0)
        self.stack, self.path, self.color, self.decimals = [], [], (0,), 0
        self.segments, self.labels, self.clips = [], [], []
        self.cur = None

    def pt(self, x, y):
        a, b, c, d, e, f = self.ctm
        return (a * x + c * y + e, b * x + d * y + f)

    def op(self, operands, name: bytes):
        handler = getattr(self, "_" + name.decode("latin-1").replace("*", "_star"), None)
        if handler is not None:
            handler([_num(v) if not hasattr(v, "encode") and _is_number(v) else v
                     for v in operands])
        if name in (b"m", b"l"):
            self.decimals = max([self.decimals] + [_decimals(v) for v in operands])

    def _q(self, _):
        self.stack.append((self.ctm, self.color))

    def _Q(self, _):
        self.ctm, self.color = self.stack.pop() if self.stack else (self.ctm, self.color)

    def _cm(self, o):
        a, b, c, d, e, f = o
        A, B, C, D, E, F = self.ctm
        self.ctm = (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D,
                    e * A + f * C + E, e * B + f * D + F)

    def _RG(self, o):
        self.color = tuple(o)

    def _G(self, o):
        self.color = (o[0],) * 3

    def _m(self, o):
        self.cur = self.pt(*o)
        self.path.append([self.cur])

    def _l(self, o):
        if self.path:
            self.path[-1].append(self.pt(*o))

    def _re(self, o):
        x, y, w, h = o
        self.path.append(["re", self.pt(x, y), self.pt(x + w, y + h)])

    def _W(self, _):
        self.clips += [(p[1], p[2]) for p in self.path if p and p[0] == "re"]

    def _n(self, _):
        self.path = []

    def _stroke(self, _):
        for p in self.path:
            if p and p[0] != "re":
                self.segments += [Segment(*a, *b, self.color) for a, b in zip(p, p[1:])]
        self.path = []

    _S = _s = _B = _B_star = _b = _b_star = _stroke

    def _f(self, _):
        self.path = []

    _F = _f_star = _f


def _is_number(v) -> bool:
    try:
        float(v)
        return not isinstance(v, (bytes, str))
    except (TypeError, ValueError):
        return False


def parse(path) -> _Page:
    """Segments, clipping rectangles and text blocks of page 1 of the PDF ``path``.
    Raises ``ValueError`` if the file cannot be read as a PDF or an operator it
    interprets has operands of the wrong number or kind (naming the operator)."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError
    from pypdf.generic import ContentStream
    try:
        reader = PdfReader(path)
        pg = reader.pages[0]
        ops = ContentStream(pg.get_contents(), reader).operations
    except (PdfReadError, OSError, IndexError, AttributeError, KeyError) as e:
        raise ValueError(f"{path}: not a readable PDF page ({type(e).__name__}: {e})") from e
    page = _Page()
    for k, (operands, name) in enumerate(ops):
        try:
            page.op(operands, name)
        except (TypeError, ValueError, ArithmeticError) as e:  # operands of the wrong kind
            op = name.decode("latin-1", "replace")
            raise ValueError(f"{path}: content-stream operator {k} ({op!r}) has operands it "
                             f"cannot take: {[str(v)[:20] for v in operands][:8]} "
                             f"({type(e).__name__}: {e})") from None
    page.labels = _text_blocks(pg)
    return page


def _text_blocks(pg) -> list:
    """Text grouped by the matrix it is drawn under (matplotlib draws each label as
    ``q <cm> BT ... ET Q``): pypdf's text extraction decodes the fonts (ToUnicode)
    and reports each piece with its ``cm`` and font size."""
    groups: dict = {}

    def visit(text, cm, tm, font, size):
        if text.strip():
            groups.setdefault((cm[4], cm[5]), []).append((text.strip(), size))
    pg.extract_text(visitor_text=visit)
    return [Label(_num(x), _num(y), tuple(runs)) for (x, y), runs in groups.items()]


def _exponent(label: Label) -> int | None:
    """``k`` for a label reading ``10`` then a smaller-size ``k`` (``−`` or ``-``)."""
    if not label.runs:
        return None
    big = max(s for _, s in label.runs)
    base = "".join(t for t, s in label.runs if s == big).strip()
    exp = "".join(t for t, s in label.runs if s != big).strip().replace("\u2212", "-")
    if base != "10" or not exp.lstrip("-").isdigit():
        return None
    return int(exp)


def _box(page: _Page) -> tuple:
    if not page.clips:
        raise ValueError("no clipping rectangle (axes box) found")
    (x0, y0), (x1, y1) = max(page.clips, key=lambda c: (c[1][0] - c[0][0]) * (c[1][1] - c[0][1]))
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def _major_ticks(page: _Page, box, tol) -> list:
    x0, y0, _, y1 = box
    ticks = []
    for s in page.segments:
        if s.y0 == s.y1 and y0 - tol <= s.y0 <= y1 + tol:
            a, b = sorted((s.x0, s.x1))
            if abs(b - x0) <= tol and a < b:
                ticks.append((b - a, s.y0))
    if not ticks:
        raise ValueError("no y ticks on the left edge of the axes box")
    longest = max(t[0] for t in ticks)
    return sorted({y for length, y in ticks if length == longest})


def _labelled(page: _Page, box, majors) -> list:
    labels = sorted(((k, lab.y) for lab in page.labels
                     if lab.x < box[0] and (k := _exponent(lab)) is not None),
                    key=lambda t: t[1])
    if len(labels) != len(majors) or len(majors) < 2:
        raise ValueError(f"{len(labels)} y tick labels of the form 10^k for {len(majors)} "
                         "major y ticks (need equal counts, at least 2)")
    ks = [k for k, _ in labels]
    if any(b <= a for a, b in zip(ks, ks[1:])):
        raise ValueError(f"y tick exponents not increasing upwards: {ks}")
    return [(k, y) for (k, _), y in zip(labels, majors)]


def _line(page: _Page, box, color, tol) -> Segment:
    x0, y0, x1, y1 = box
    cands = [s for s in page.segments if s.y0 == s.y1 and y0 - tol <= s.y0 <= y1 + tol
             and tuple(Fraction(c) for c in s.color) == tuple(Fraction(c) for c in color)]
    if not cands:
        raise ValueError(f"no horizontal line of colour {color} inside the axes box")
    return max(cands, key=lambda s: abs(s.x1 - s.x0))


def _check_linear(ticks, h) -> None:
    (ka, ya), (kb, yb) = ticks[0], ticks[-1]
    for k, y in ticks[1:-1]:
        lo, hi = exponent_interval(ka, ya, kb, yb, y, h)
        if not lo <= k <= hi:
            raise ValueError(f"y axis is not a log axis read linearly: tick 10^{k} at y = {y} "
                             f"reads as exponent in [{float(lo):.6f}, {float(hi):.6f}]")


def read_line(path, color=(1, 0, 0)) -> Reading:
    """The value of the longest horizontal line of ``color`` (RGB in [0, 1]) in the
    log-scale plot of page 1 of ``path``, as an exact interval of its decimal
    exponent (module docstring).  Raises ``ValueError`` naming what is missing."""
    page = parse(path)
    h = Fraction(1, 2 * 10 ** page.decimals)
    box = _box(page)
    tol = 4 * h
    ticks = _labelled(page, box, _major_ticks(page, box, tol))
    _check_linear(ticks, h)
    line = _line(page, box, color, tol)
    (ka, ya), (kb, yb) = ticks[0], ticks[-1]
    exp = exponent_interval(Fraction(ka), ya, Fraction(kb), yb, line.y0, h)
    return Reading(tuple(ticks), line.y0, (line.x0, line.x1), h, exp, box)


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m proofcheck.frontend.io.figure_reader",
                                 description="Read a horizontal line's value off a log-scale "
                                 "plot in a PDF (see the module docstring for the method).")
    ap.add_argument("pdf")
    ap.add_argument("--color", default="1,0,0", help="stroke colour r,g,b (default 1,0,0)")
    a = ap.parse_args(argv)
    try:
        r = read_line(a.pdf, tuple(Fraction(c) for c in a.color.split(",")))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("labelled y ticks (10^k at y):", ", ".join(f"10^{k} at {float(y)}" for k, y in r.ticks))
    print(f"line at y = {float(r.line_y)} (x from {float(r.line_x[0])} to {float(r.line_x[1])}); "
          f"coordinates rounded to +-{float(r.half_unit)}")
    lo, hi = value_interval(r.exponent)
    print(f"log10(value) in [{float(r.exponent[0]):.9f}, {float(r.exponent[1]):.9f}]; "
          f"value in [{lo}, {hi}] = [{float(lo)}, {float(hi)}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
