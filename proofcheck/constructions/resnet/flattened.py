"""A residual FF network (ResNet) on flattened sequences of fixed length n (docs/spec.md §2
``resnet`` (a)).

A sequence ``X = (x_1, ..., x_n)`` of tokens in Q^d is read as ONE vector
``z = (x_1, ..., x_n)`` in Q^{n d} (tokens concatenated in sequence order).  The
network is a stack of residual layers ``z -> z + W relu(U z + b)`` (the FF layer of
docs/spec.md §1 in dimension ``n d``, ``eta = 1``, width 3), one per sequence: layer ``t``
relocates one flattened input ``z_j`` onto the flattened target
``z^_j = (y_1, ..., y_{m_j}, y_{m_j}, ..., y_{m_j})`` (the targets, the last one
repeated up to n tokens) and fixes every other current point (Lemma 3.2,
:func:`proofcheck.constructions.resnet.chain.relocation_chain`).  Reading the n output tokens of
``z^_j`` as a set gives ``Y_j`` exactly (docs/spec.md §1: Hausdorff distance 0).

Parameter count: each layer stores ``1 + 3 (2 n d + 1) = 6 n d + 4`` scalars, so
``P = K (6 n d + 4)`` with ``K`` the number of layers (``N`` when every sequence moves
and no detour is needed; at most ``2N``): ``O(d N n)`` — the seed's count for a ResNet.

Sequences of different lengths are padded to the longest with a padding token that
occurs nowhere in the dataset (the standard choice; only the ResNet sees the
padding).  The network is not permutation equivariant: it interpolates the
sequences in the order given.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from proofcheck.constructions.resnet.chain import Chain, relocation_chain
from proofcheck.constructions.claims import Fixed, Moves
from proofcheck.kernel.dataset import Dataset, Pair, check_admissible
from proofcheck.constructions.layers import identity_sa
from proofcheck.kernel.model import Block, Transformer
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import plural
from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value


def flatten(seq) -> tuple[Fraction, ...]:
    """``(n, d)`` tokens -> one ``(n d,)`` vector (tokens concatenated in order)."""
    return tuple(Fraction(x) for tok in seq for x in tok)


def unflatten(z, d: int) -> list[tuple[Fraction, ...]]:
    """``(n d,)`` vector -> ``n`` tokens of length ``d``.  Raises ``ValueError`` if
    ``d`` does not divide the length."""
    if d < 1 or len(z) % d:
        raise ValueError(f"cannot split a vector of length {len(z)} into tokens of length {d}")
    return [tuple(z[i:i + d]) for i in range(0, len(z), d)]


def target_vector(targets, n: int) -> tuple[Fraction, ...]:
    """Flattened target of length ``n``: the ``m <= n`` targets, the last one repeated."""
    ys = [tuple(y) for y in targets]
    if not 1 <= len(ys) <= n:
        raise ValueError(f"need 1 <= m <= n, got m = {len(ys)}, n = {n}")
    return flatten(ys + [ys[-1]] * (n - len(ys)))


def padding_token(ds: Dataset) -> tuple[Fraction, ...]:
    """A token occurring in no input or target of ``ds``: first coordinate one above
    the largest absolute first coordinate, the others 0."""
    top = max((abs(t[0]) for p in ds.pairs for t in p.inputs + p.outputs), default=Fraction(0))
    return (top + 1,) + (Fraction(0),) * (ds.d - 1)


@dataclass
class FlatResNet:
    """The network of this module for one dataset: ``chain.layers`` act on Q^{n d}."""

    n: int
    d: int
    chain: Chain
    inputs: list[tuple]    # flattened (padded) inputs z_j
    outputs: list[tuple]   # flattened targets z^_j
    padded: int            # number of sequences that were padded

    @property
    def K(self) -> int:
        return len(self.chain.layers)

    def n_params(self) -> int:
        """Stored scalars of the residual layers (the identity SA blocks used to run
        them through the kernel are not part of the ResNet and are not counted)."""
        return sum(ff.n_params() for ff in self.chain.layers)

    def param_formula(self) -> int:
        return self.K * (6 * self.n * self.d + 4)

    def network(self) -> Transformer:
        """The layers as blocks with identity SA on one-token sequences (dimension
        ``n d``), so that the kernel's exact checker evaluates them."""
        return Transformer(self.n * self.d, [Block(ff, identity_sa(), phase="resnet")
                                             for ff in self.chain.layers])

    def claims(self) -> list:
        return [(Moves({m.index: m.q}), Fixed()) for m in self.chain.moves]


def build(ds: Dataset) -> FlatResNet:
    """The residual network of this module for ``ds`` (pairs in dataset order).
    Raises ``ValueError`` if two padded flattened inputs coincide (impossible for an
    admissible dataset)."""
    n = max(len(p.inputs) for p in ds.pairs)
    pad = padding_token(ds)
    inputs = [flatten(list(p.inputs) + [pad] * (n - len(p.inputs))) for p in ds.pairs]
    outputs = [target_vector(p.outputs, n) for p in ds.pairs]
    padded = sum(len(p.inputs) < n for p in ds.pairs)
    return FlatResNet(n, ds.d, relocation_chain(inputs, outputs, label="residual relocation"),
                      inputs, outputs, padded)


def verify(ds: Dataset, net: FlatResNet | None = None,
           backends: tuple[str, ...] = ("flint",)) -> CheckResult:
    """Exact check that the residual network interpolates ``ds``: every layer does
    what its relocation claims (kernel checker on each of ``backends``, outputs
    compared between them), each output vector is the flattened target, and its n tokens
    read as a set equal ``Y_j`` (both inclusions).  Also ``P = K (6 n d + 4)``.
    The witness names the layer (block) and sequence, or the pair whose token set
    differs."""
    from proofcheck.constructions.claim_check import check_network, interpolation_witness
    net = build(ds) if net is None else net
    name = (f"resnet (a) exact: residual FF network on flattened sequences of '{ds.name}' "
            f"(n = {net.n}, d = {net.d}, dimension n d = {net.n * net.d})")
    det = [f"method: exact evaluation by the kernel checker ({' and '.join(backends)} "
           "backend" + ("s, outputs compared" if len(backends) > 1 else "") +
           "); one relocation claim per layer",
           f"layers K = {net.K} (residual, eta = 1, width 3; {net.chain.detours} detour(s)) for "
           f"N = {ds.N} sequences" + (f"; {net.padded} sequence(s) padded to n = {net.n} with the "
                                       f"token {fmt_value(padding_token(ds))}" if net.padded else ""),
           f"P = {net.n_params()} stored scalars; K (6 n d + 4) = {net.param_formula()}"]
    T = net.network()
    ins = [[z] for z in net.inputs]
    checks = [check_network(T, ins, [[y] for y in net.outputs], net.claims(), backend=b)
              for b in backends]
    for nc in checks:
        if not nc.verdict.passed:
            det += [ln for r in nc.results for ln in r.lines()]
            return CheckResult(name, Verdict.REFUTED if nc.verdict == Verdict.REFUTED
                               else nc.verdict, det, nc.witness)
    if any(c.outputs != checks[0].outputs for c in checks[1:]):
        return CheckResult(name, Verdict.ERROR, det + ["backends disagree"])
    tokens = [unflatten(out[0], ds.d) for out in checks[0].outputs]
    w, mult = interpolation_witness(tokens, [list(p.outputs) for p in ds.pairs])
    if w is not None:
        return CheckResult(name, Verdict.REFUTED, det, w)
    if net.n_params() != net.param_formula():
        return CheckResult(name, Verdict.REFUTED, det, Witness(
            "parameter count differs from K (6 n d + 4)", expected=net.param_formula(),
            got=net.n_params()))
    det.append(f"every output vector equals its flattened target; read as {net.n} tokens, "
               f"{{output tokens}} = Y_j for all {plural(ds.N, 'pair')} (both inclusions; multiplicity of "
               f"each target token between {min(min(m.values()) for m in mult)} and "
               f"{max(max(m.values()) for m in mult)})")
    res = CheckResult(name, Verdict.VERIFIED, det)
    res.data = {"n": net.n, "d": net.d, "K": net.K, "P": net.n_params()}
    return res


# ---------------------------------------------------------------- datasets
def digits_images(ds: Dataset):
    """``(images, labels)`` when ``ds`` is a digits label dataset of
    :mod:`proofcheck.frontend.io.examples` (16 tokens ``(p00, p01, p10, p11, r, c)`` per image,
    target ``label * e_1``), else ``None``.  ``images``: 8 x 8 lists of ints."""
    if ds.d != 6:
        return None
    images, labels = [], []
    for p in ds.pairs:
        if len(p.inputs) != 16 or len(p.outputs) != 1 or any(p.outputs[0][1:]):
            return None
        img = [[None] * 8 for _ in range(8)]
        for tok in p.inputs:
            if any(x.denominator != 1 for x in tok):
                return None
            p00, p01, p10, p11, r, c = (int(x) for x in tok)
            if not (0 <= r < 4 and 0 <= c < 4) or img[2 * r][2 * c] is not None:
                return None
            img[2 * r][2 * c], img[2 * r][2 * c + 1] = p00, p01
            img[2 * r + 1][2 * c], img[2 * r + 1][2 * c + 1] = p10, p11
        images.append(img)
        labels.append(p.outputs[0][0])
    return images, labels


def tokenise(images, labels, size: int, name: str) -> Dataset:
    """Digits with ``size x size`` patches: token = the patch's pixels (row-major)
    + (patch row, patch column), ``d = size^2 + 2``, ``n = (8/size)^2`` tokens per
    image (``size = 1``: single pixels, n = 64, d = 3); target ``label * e_1``.
    Raises ``ValueError`` unless ``size`` divides 8."""
    if size < 1 or 8 % size:
        raise ValueError("patch size must divide 8")
    g = 8 // size
    d = size * size + 2
    pairs = []
    for img, lab in zip(images, labels):
        toks = tuple(tuple(Fraction(img[size * r + a][size * c + b])
                           for a in range(size) for b in range(size)) + (Fraction(r), Fraction(c))
                     for r in range(g) for c in range(g))
        pairs.append(Pair(toks, ((Fraction(lab),) + (Fraction(0),) * (d - 1),)))
    out = Dataset(name=f"{name}-patch{size}x{size}", d=d, pairs=tuple(pairs))
    check_admissible(out)
    return out


def pad_to_length(ds: Dataset, n: int, seed: int = 0) -> Dataset:
    """``ds`` with every input sequence extended to exactly ``n`` tokens by fresh
    tokens (seeded rationals occurring nowhere in ``ds`` nor in another sequence);
    targets and N unchanged, admissibility kept.  Raises ``ValueError`` if a sequence
    is longer than ``n``."""
    rng = random.Random(seed)
    used = {t for p in ds.pairs for t in p.inputs + p.outputs}
    pairs = []
    for p in ds.pairs:
        if len(p.inputs) > n:
            raise ValueError(f"sequence longer than n = {n}")
        extra = []
        while len(extra) < n - len(p.inputs):
            den = rng.choice((1, 2, 3))
            t = tuple(Fraction(rng.randint(-40 * den, 40 * den), den) for _ in range(ds.d))
            if t not in used:
                used.add(t)
                extra.append(t)
        pairs.append(Pair(tuple(p.inputs) + tuple(extra), p.outputs))
    out = Dataset(name=f"{ds.name}-n{n}", d=ds.d, pairs=tuple(pairs))
    check_admissible(out)
    return out
