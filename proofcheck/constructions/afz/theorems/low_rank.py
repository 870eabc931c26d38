"""Statement ``low-rank`` (project label; seed 000 §3.3: the construction's
self-attention uses low-rank matrices, "A is a rank-one matrix plus a multiple of
the identity").

Checked on the networks every construction of the table returns (``default`` for
Theorems 1.6 and 1.8 — with 1.8's leader scales —, ``peel`` for 1.6, ``seed`` for 1.8):
every SA layer has ``A = lam_A I + (rank <= 1)`` and
``V = lam_V I + (rank <= 1)`` — by the kernel's check
(:mod:`proofcheck.kernel.low_rank`, the same one ``verify`` runs on theorem
certificates), on the stored matrices.  Per kind of layer (phase) the output lists
what is found: tags ``A = u u^T``, ``V = lam I``; identity SA ``A = V = 0``; the
collapse ``A = I``, ``V = e_1 k^T``.  So A is exactly of the seed's form; V is of rank
<= 1 except on the R + 1 tag layers, where it is a multiple of I (rank d) — said in
the output, since the seed's sentence is about A.
"""
from __future__ import annotations

from proofcheck.constructions.afz.low_rank_summary import ranks, summary
from proofcheck.kernel import low_rank
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Verdict, Witness

ID = "low-rank"


def _kinds(net) -> dict:
    """``{phase label: (count, set of (lam_A != 0, rank A - lam I, lam_V != 0, rank V - lam I))}``."""
    out: dict = {}
    for (b, ra, rv), blk in zip(ranks(net), net.blocks):
        key = blk.sa.label or "SA"
        n, forms = out.get(key, (0, set()))
        forms.add((blk.sa.A.lam != 0, ra, blk.sa.V.lam != 0, rv))
        out[key] = (n + 1, forms)
    return out


def _form(lam_nonzero: bool, r: int) -> str:
    return ("lam I" if lam_nonzero else "0") if r == 0 else \
        (f"lam I + rank {r}" if lam_nonzero else f"rank {r}")


def check_network(title: str, net) -> CheckResult:
    """The kernel's low-rank check on ``net``, with the forms found per layer kind."""
    bad = low_rank.failures(net)
    s = summary(net)
    det = [f"{n} x {kind}: " + "; ".join(f"A = {_form(a, ra)}, V = {_form(v, rv)}"
                                         for a, ra, v, rv in sorted(forms))
           for kind, (n, forms) in _kinds(net).items()]
    det.append(f"V = lam I alone (rank d, not rank <= 1) on {s['V_multiple_of_identity']} layer(s): "
               "the tags; A always has the seed's form lam I + rank <= 1")
    if bad:
        b = int(bad[0].split()[1])
        return CheckResult(title, Verdict.REFUTED, det + bad,
                           Witness(bad[0], block=b, sublayer="SA"))
    return CheckResult(title, Verdict.VERIFIED, det)


def check_instance(ds) -> list[CheckResult]:
    """The check on the network of every construction of the table
    (:data:`proofcheck.constructions.afz.theorems.constructions.CONSTRUCTIONS`) for every theorem it
    serves (1.8 with its leader scales), built for ``ds``."""
    from proofcheck.constructions.afz.theorems.constructions import CONSTRUCTIONS
    from proofcheck.constructions.afz.theorems.theorem_1_8 import SCALES
    ins, tg = [list(p.inputs) for p in ds.pairs], [list(p.outputs) for p in ds.pairs]
    out = []
    for name, spec in CONSTRUCTIONS.items():
        for thm in spec.theorems:
            net = spec.build(ins, tg, ds.d, **(SCALES if thm == "1.8" else {})).net
            out.append(check_network(f"Theorem {thm} network, construction {name} ({net.L} "
                                     "blocks): every SA layer has A, V = lam I + rank <= 1", net))
    return out


def run(dataset, seed: int = 0):
    """``lemma low-rank`` on ``dataset`` (by default the registry's: the digits sample
    and seeded generated datasets in several dimensions)."""
    from proofcheck.constructions.afz.instances import scoped
    return scoped("low-rank", check_instance, dataset)
