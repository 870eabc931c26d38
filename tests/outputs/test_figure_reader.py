"""The PDF figure reader (proofcheck.frontend.io.figure_reader) on synthetic matplotlib
figures made like the authors' figure 1a (log-log axes, a red dashed hlines, Type 42
fonts): the value read back contains the value drawn, and missing parts are errors."""
from __future__ import annotations

import os
from fractions import Fraction as F

import pytest

pytest.importorskip("pypdf", reason="the figure reader needs pypdf (extra 'data')")

from proofcheck.frontend.io.figure_reader import exponent_interval, main, read_line, value_interval  # noqa: E402


def _figure(path, value, color="red", fonttype=42, logy=True):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with matplotlib.rc_context({"pdf.fonttype": fonttype}):
        fig, ax = plt.subplots(figsize=(4.5, 3))
        ax.hlines(value, 0, 500, colors=color, linestyles="--", label="threshold")
        if logy:
            ax.loglog(range(1, 500), [3.0 / k for k in range(1, 500)], color="blue",
                      label="loss")
        else:
            ax.plot(range(1, 500), [3.0 / k for k in range(1, 500)], color="blue")
        ax.legend()
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


@pytest.mark.parametrize("value", [0.0062531623, 0.54027715, 1.7e-3])
def test_reads_back_the_drawn_value(tmp_path, value):
    p = tmp_path / "fig.pdf"
    _figure(p, value)
    r = read_line(p)
    lo, hi = value_interval(r.exponent)
    assert lo <= F(value) <= hi
    assert (hi - lo) / F(value) < F(1, 10 ** 5)    # resolution of 6-decimal coordinates
    assert len(r.ticks) >= 2 and r.half_unit == F(1, 2 * 10 ** 6)


def test_another_value_is_excluded(tmp_path):
    p = tmp_path / "fig.pdf"
    _figure(p, 0.0062531623)
    lo, hi = value_interval(read_line(p).exponent)
    assert not lo <= F("0.0062532") <= hi          # 1e-5 relative away: outside


@pytest.mark.parametrize("kwargs,what", [({"color": "green"}, "no horizontal line"),
                                         ({"logy": False}, r"labels of the form 10\^k")])
def test_missing_parts_are_errors(tmp_path, kwargs, what):
    p = tmp_path / "fig.pdf"
    _figure(p, 0.01, **kwargs)
    with pytest.raises(ValueError, match=what):
        read_line(p)


def test_not_a_pdf_is_an_error(tmp_path, capsys):
    p = tmp_path / "x.pdf"
    p.write_text("not a pdf")
    with pytest.raises(ValueError, match="not a readable PDF"):
        read_line(p)
    assert main([str(p)]) == 2 and "error:" in capsys.readouterr().err


def test_exponent_interval_corners():
    lo, hi = exponent_interval(F(-3), F(0), F(3), F(6), F(1), F(0))
    assert lo == hi == -2
    lo, hi = exponent_interval(F(-3), F(0), F(3), F(6), F(1), F(1, 10))
    assert lo < -2 < hi


@pytest.mark.skipif(not os.environ.get("PROOFCHECK_AUTHORS_FIGURE"),
                    reason="set PROOFCHECK_AUTHORS_FIGURE to the authors' figs/figure1a.pdf to "
                           "re-measure the recorded reading")
def test_authors_figure_matches_the_recorded_reading():
    from proofcheck.constructions.afz.theorems.tikhonov import FIGURE_1A, figure_exponent
    r = read_line(os.environ["PROOFCHECK_AUTHORS_FIGURE"])
    assert (r.ticks[0], r.ticks[-1]) == (FIGURE_1A["tick_low"], FIGURE_1A["tick_high"])
    assert r.line_y == FIGURE_1A["line_y"] and r.half_unit == FIGURE_1A["half_unit"]
    assert r.exponent == figure_exponent()


def _raw_pdf(path, content: bytes):
    """A one-page PDF whose content stream is ``content`` (written with pypdf)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, NameObject
    w = PdfWriter()
    page = w.add_blank_page(200, 200)
    st = DecodedStreamObject()
    st.set_data(content)
    page[NameObject("/Contents")] = w._add_object(st)
    w.write(str(path))
    return path


@pytest.mark.parametrize("content,op", [(b"q 1 0 0 cm Q", "cm"), (b"/Foo 0 m 1 1 l S", "m"),
                                        (b"1 0 re", "re")])
def test_malformed_operators_are_errors_naming_the_operator(tmp_path, capsys, content, op):
    """Operands of the wrong number or kind: exit 2 naming the operator (a TypeError
    traceback or an unexplained unpacking message before)."""
    p = _raw_pdf(tmp_path / "bad.pdf", content)
    with pytest.raises(ValueError, match=f"operator \\d+ \\('{op}'\\) has operands"):
        read_line(p)
    assert main([str(p)]) == 2
    assert f"('{op}')" in capsys.readouterr().err
