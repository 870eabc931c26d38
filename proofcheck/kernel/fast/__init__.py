"""The fast tier of the kernel: exact evaluations that give the same values as
the plain tier (:mod:`proofcheck.kernel.evaluate`) through shortcuts, each stated
with the lemma that justifies it in its docstring and checked against the plain
route by the tests (hypothesis, the handed cases, the differential run of
``bench/routes.py``).  It may import the plain kernel, never the reverse (an
import-linter contract); importing it registers the fast route with
:func:`proofcheck.kernel.theorem.register`.

* :mod:`.flint` — the flint backend: identity skips, rank-one FF layers per linear
  piece, lazy per-sequence tag offsets, rank-one and ``lam I`` hardmax attention;
* :mod:`.heads` — multi-head and causally masked SA (prefix extremes for rank-one
  heads under the mask);
* :mod:`.softmax` — the hardmax trajectory of a softmax certificate from the flint
  backend's evaluation (per-sequence extremes, rank-one FF pieces);
* :mod:`.selection` — exact maxima and minima over sequences and tokens among the
  candidates of a float64 pre-filter with a rigorous bound (the SA records);
* :mod:`.witness` — the plain checks of the shortcuts' witnesses.

**A certifying tier.**  Every shortcut returns, with its answer, a witness that
:mod:`.witness` checks exactly before the answer is used; a failed check raises
:class:`~proofcheck.kernel.errors.WitnessCheckFailed` with the shortcut's code, which
the kernel turns into verdict ERROR naming it (``witness check failed [code]``),
never a verdict.  What a float64 pre-filter leaves out is left out by its stated
rigorous bound (the lemmas in each module's docstring, IEEE rounding trusted); the
checks below re-evaluate that bound against the exact answer wherever a candidate
is chosen.  Identity sub-layers (``eta = 1, W = 0``; ``rho = 1, V = 0``) are skipped
on both routes, read from the parameters.

======================  ==========================  ==============================  ==========================================
code                    shortcut (where)            witness                         plain check (exact unless stated)
======================  ==========================  ==============================  ==========================================
``window``              rows of an FF's support:    the rows and their              each row's projection recomputed from its
                        float64 pre-filter          projections (the sorted         token (and offset) equals the one used and
                        (``_in_range``), sorted     index: also its neighbours      lies in ``[lo, hi]``; the neighbours lie
                        index (``_Index``), offset  just outside)                   outside
                        frame (``_offset_query``)
``nearest-outside``     nearest row outside an      ``(distance, row)`` or          the row's recomputed projection is outside
                        FF's support (``_nearest``, ``(radius, None)``, the         ``[lo, hi]``, at exactly that distance,
                        ``_Index``, full scan);     query's window radius           within the queried window; no row: the
                        bounds the boxes kept                                       distance is the window's radius
``ff-piece``            rank-one FF ``U = c w^T``:  the piece ``p`` of a row        ``kinks[p-1] <= t <= kinks[p]`` for the
                        one affine map per piece                                    row's exact ``t`` (the active units are
                        (``piece_index``)                                           constant between two kinks)
``box-piece``           softmax boxes of a rank-    the piece ``p``                 ``kinks[p-1] <= t - |w|.r`` and ``t +
                        one FF (``box_piece``):                                     |w|.r <= kinks[p]``
                        kept in an identity piece
                        or mapped by its ``J``
``tag-top``             lazy tag offsets: the       top row and runner-up of each   the top's projection, recomputed from its
                        unique top per sequence     recomputed sequence             row, exceeds the runner-up's
                        (cached ``_Dir``)
``tag-offsets``         lazy tag offsets: a         the sequences rebased           every sequence kept lazily has the same top
                        sequence grows by ``1 +                                     row as when it was rebased
                        lam`` (``rebase_set``)
``q-sign``              float64 sign of the         the per-sequence enclosure      the stated lower end is positive for every
                        smallest ``<b, x>`` before  (``_positive_bound``)           sequence named positive (float, directed)
                        a lazy tag
                        (``_sure_positive``; the
                        records' ``_signs`` read
                        the same kind of bound)
``unique-top``          rank-one hardmax gather:    top and float runner-up         the top's exact projection exceeds the
                        float64 argmax per                                          runner-up's
                        sequence (``_float_tops``)
``gram-argmax``         ``A = lam I`` hardmax:      the key and the float runner-   the float bound excludes every other key,
                        float64 Gram argmax         up                              and the exact scores order key and runner-
                        (``_gram_select``)                                          up
``gram-gap``            ``A = lam I`` softmax       the smallest exact margin       every token left out has a stated lower
                        records: candidates of the                                  bound above it (float, directed)
                        smallest margin
                        (``_gap_candidates``)
``rank-one-argmax``     rank-one SA records: the    sequence ``j``, its top,        the margin recomputed from the rows: ``q
                        smallest margin             runner-up and smallest ``q``    (p_top - p_second)``, both factors
                        (``min_product_candidates``)                                positive; every sequence left out has a
                                                                                    stated lower bound above it (float,
                                                                                    directed)
``max-modulus``         largest moduli ``P``,       the maximum                     every sequence or row left out has its
                        ``Q``, ``Xmax``                                             stated upper end (float copy) at most the
                        (``max_candidates``,                                        exact maximum (float, directed)
                        ``_top_copies``)
``head-prefix``         causal rank-one heads:      per token the prefix maximum    by induction: each is ``p_i`` or the
                        running prefix extremes     and minimum and their counts    previous one, bounds both, and the count
                        (``_prefix_means``)                                         follows
======================  ==========================  ==============================  ==========================================

"Float, directed": the exact value is compared with a float64 bound whose rounding
is moved the safe way (:func:`.witness.exceeds`).
"""
from __future__ import annotations

from proofcheck.kernel.evaluate import PlainBackend
from proofcheck.kernel.fast.flint import FlintBackend
from proofcheck.kernel.fast.softmax import fast_trajectory
from proofcheck.kernel.theorem import register

register("flint", FlintBackend, ("proofcheck.kernel.fast.flint",))
register("softmax", fast_trajectory, ("proofcheck.kernel.fast.flint", "proofcheck.kernel.fast.softmax",
                                      "proofcheck.kernel.fast.selection"))


def get_backend(name: str):
    """An evaluator by name: ``flint`` (fast, the default of construction runs) or
    ``plain`` (also ``fraction``/``reference``: the definitions read literally).
    Raises ``ValueError`` for another name."""
    if name in ("flint", "exact", "fast"):
        return FlintBackend()
    if name in ("plain", "fraction", "reference"):
        return PlainBackend()
    raise ValueError(f"unknown backend {name!r} (use 'flint' or 'plain')")
