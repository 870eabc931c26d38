"""Exact check of one layer against the outputs a statement predicts (lemma instances, docs/spec.md §2):
the layer is evaluated by the plain evaluator and every predicted token must equal its output,
number for number; the witness names the sequence, token and coordinate.  Predictions must come
from the statement, not from evaluating the layer (that would make the check circular)."""
from fractions import Fraction

from proofcheck.kernel.attention import HARDMAX
from proofcheck.kernel.errors import ResourceLimit
from proofcheck.kernel.evaluate import PlainBackend, bits
from proofcheck.kernel.limits import check_bits
from proofcheck.kernel.model import FF
from proofcheck.kernel.verdicts import Verdict, Witness


def evaluate_layer(layer, sequences, rule=HARDMAX):
    """Outputs (tuples of Fractions) of one FF or SA layer on ``sequences``
    (``(n_j, d)`` each), by the plain evaluator."""
    be = PlainBackend()
    st = be.load(sequences)
    st, _, _ = be.ff(layer, st) if isinstance(layer, FF) else be.sa(layer, st, rule)
    check_bits(max(map(bits, st.X.entries()), default=0), "a layer instance")
    rows = be.to_fractions(st)
    return [rows[lo:hi] for lo, hi in st.spans]


def layer_check(layer, sequences, expected, rule=HARDMAX, details: list[str] | None = None):
    """``(verdict, lines, witness)``: VERIFIED iff the layer maps ``sequences`` exactly to
    ``expected`` (``(n_j, d)`` per sequence; an entry ``None`` marks a token the statement says
    nothing about); an evaluation error is ERROR (fail closed)."""
    try:
        got = evaluate_layer(layer, sequences, rule)
    except ResourceLimit:
        raise
    except Exception as exc:  # fail closed
        return Verdict.ERROR, [f"{type(exc).__name__}: {exc}"], None
    n = sum(len(s) for s in sequences)
    det = list(details or []) + [f"{n} tokens in {len(sequences)} sequence(s), exact evaluation"]
    for j, (gs, es) in enumerate(zip(got, expected, strict=True)):
        for i, (g, e) in enumerate(zip(gs, es, strict=True)):
            if e is None:  # the statement says nothing about this token
                continue
            e = tuple(Fraction(x) for x in e)
            if g != e:
                c = next(k for k in range(len(e)) if g[k] != e[k])
                return Verdict.REFUTED, det, Witness(
                    "layer output differs from the lemma's conclusion", sequence=j, token=i,
                    coordinate=c, expected=e[c], got=g[c], code="layer-output")
    return Verdict.VERIFIED, det, None
