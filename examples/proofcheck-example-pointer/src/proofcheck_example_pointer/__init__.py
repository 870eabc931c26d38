"""Two example statements.  x.memorise: N distinct points t_1 < ... < t_N of Q and any
y_i in Q: a width-N FF with eta = 0 maps every t_i to y_i.  x.pointer-shift: one SA
layer adds to every token (a, p) with p > 0 the first coordinate of the token with
the largest pointer p (single head; the two-head version needs multi-head SA)."""
import random
from fractions import Fraction as F
from proofcheck.api import (FF, NO_DATASET, SA, BadInput, Factored, Statement, argued,
                            check_layer, prove_attention, symbols)


def memorise_ff(ts, ys) -> FF:
    """Unit k: relu(x - c_k), c = (t_1 - 1, t_1, ..., t_{N-1}); W solves a triangular system."""
    cs, w = [ts[0] - 1] + ts[:-1], []
    for t, y, c in zip(ts, ys, cs):
        w.append((y - sum(wk * (t - ck) for wk, ck in zip(w, cs))) / (t - c))
    return FF(F(0), U=((F(1),),) * len(ts), b=tuple(-c for c in cs), W=tuple((x,) for x in w))


def one_token_pairs(ds) -> None:  # the datasets x.memorise admits
    if ds.d != 1 or any(len(p.inputs) != 1 or len(p.outputs) != 1 for p in ds.pairs):
        raise BadInput("x.memorise needs d = 1 and pairs of one input and one output token")
    if len({p.inputs for p in ds.pairs}) < ds.N:
        raise BadInput("x.memorise: two pairs share their input token")


def run_memorise(dataset, seed=0):
    rng = random.Random(seed)
    pairs = sorted((p.inputs[0][0], p.outputs[0][0]) for p in dataset.pairs) if dataset \
        else [(F(k, 2), F(rng.randint(-9, 9))) for k in range(8)]       # a 1-D grid
    ff = memorise_ff([t for t, _ in pairs], [y for _, y in pairs])
    return [check_layer(f"width-{len(pairs)} FF maps t_i -> y_i", ff, [[(t,) for t, _ in pairs]],
                        [[(y,) for _, y in pairs]]),
            argued("for every N the system for W is solvable", "it is triangular with "
                   "diagonal t_i - c_i > 0 (the points are distinct and sorted)")]


def pointer_sa() -> SA:   # rho = 1, A = e2 e2^T (scores p_i p_l), V = e1 e1^T
    e1, e2 = (F(1), F(0)), (F(0), F(1))
    return SA(F(1), Factored(F(0), (e2,), (e2,)), Factored(F(0), (e1,), (e1,)))


def run_pointer(dataset, seed=0):
    seq = [(F(random.Random(seed + i).randint(-5, 5)), F(p)) for i, p in enumerate((3, 1, 2))]
    exp = [(a + seq[0][0], p) for a, p in seq]      # every pointer positive: every token stated
    a, b, c = symbols("a", 3, real=True)
    p, P, gap = symbols("p", 3, positive=True)  # p > 0; the top pointer P + gap > P
    return [check_layer("pointer shift, top pointer 3", pointer_sa(), [seq], [exp]),
            prove_attention("every (a, p) with p > 0 attends to the top pointer (all values)",
                            pointer_sa(), (a, p), (b, P + gap), [(c, P)], output=(a + b, p),
                            hypotheses="p > 0, a competitor's pointer below the top one")]


STATEMENTS = (
    Statement("x.memorise", "FF lemma", "A width-N FF memorises N points of a line", "-",
              "project", checks=(run_memorise,), admissible=one_token_pairs,
              hypotheses=("t_1 < ... < t_N distinct in Q, y_i in Q",)),
    Statement("x.pointer-shift", "SA lemma", "Pointer-selected shift by one SA layer", "-",
              "project", checks=(run_pointer,), admissible=NO_DATASET, scope="all-parameters",
              hypotheses=("tokens (a, p) in Q^2; one token has the largest pointer",)))
