"""Mutation helper of the tests: a network with one stored scalar replaced."""
from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from proofcheck.kernel.model import Transformer


def _set(tup, idx, value):
    lst = list(tup)
    lst[idx] = value
    return tuple(lst)


def with_parameter(net: Transformer, block: int, sublayer: str, name: str, value) -> Transformer:
    """A copy of ``net`` with one stored scalar replaced (names as yielded by
    :meth:`Transformer.parameters`).  Used by mutation tests.  Raises ``KeyError``
    for an unknown name."""
    value = Fraction(value)
    blocks = list(net.blocks)
    blk = blocks[block - 1]
    idx = [int(x) for x in re.findall(r"\[(\d+)\]", name)]
    base = name.split("[")[0]
    if sublayer == "FF":
        ff = blk.ff
        if base == "eta":
            ff = replace(ff, eta=value)
        elif base == "U":
            ff = replace(ff, U=_set(ff.U, idx[0], _set(ff.U[idx[0]], idx[1], value)))
        elif base == "b":
            ff = replace(ff, b=_set(ff.b, idx[0], value))
        elif base == "W":  # W[i][k]: row i of column k
            ff = replace(ff, W=_set(ff.W, idx[1], _set(ff.W[idx[1]], idx[0], value)))
        else:
            raise KeyError(name)
        blk = replace(blk, ff=ff)
    else:
        sa = blk.sa
        if base == "rho":
            sa = replace(sa, rho=value)
        else:
            which, part = base.split(".")
            f = getattr(sa, which)
            if part == "lam":
                f = replace(f, lam=value)
            elif part in ("left", "right"):
                facs = getattr(f, part)
                f = replace(f, **{part: _set(facs, idx[0], _set(facs[idx[0]], idx[1], value))})
            else:
                raise KeyError(name)
            sa = replace(sa, **{which: f})
        blk = replace(blk, sa=sa)
    blocks[block - 1] = blk
    return Transformer(net.d, blocks)
