"""The provers beside the kernel, timed: sympy and z3 on every all-parameter layer
conclusion (3.1, 3.2, 3.2p, 3.3 in several dimensions; 4.1, the tag, 4.2, 4.3 in the
dimensions ``lemma`` uses), each on the layer the routine returns and on a variant with
one parameter changed (z3 must refute it with a model); and Coq Interval on the stated
exp bounds of softmax certificates (``verify --prove-exp``).

    python -m bench.provers                      # writes bench/results-provers.json
    python -m bench.provers --dims 2 3 5 10 20   # the FF lemmas' dimensions
    python -m bench.provers --exp CERT ...       # exp-bound rows for these certificates
    python -m bench.provers --readme [--full]    # prints the README block (every row)

Wall seconds, one process, in order; ``z3_s`` is the time inside z3's calls
(translation, solving, the exact re-check of a model), ``sympy_s`` the rest of the
proof.  The machine is shared: numbers are indicative.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

OUT = Path(__file__).with_name("results-provers.json")
ROOT = Path(__file__).resolve().parents[1]
CERTS = [ROOT / "reports" / "certificates" / "theorem-1.8-generated-7.json",
         ROOT / "tests" / "data" / "theorem-1.8-format1.json"]


class _Clock:
    """Seconds spent inside the z3 prover's public calls (patched while measuring)."""

    def __init__(self):
        self.z3 = 0.0

    def __enter__(self):
        from proofcheck.constructions.provers import smt
        self.saved = {n: getattr(smt.Z3Prover, n) for n in ("zero", "sign", "profile_claim")}
        for n, fn in self.saved.items():
            setattr(smt.Z3Prover, n, self._timed(fn))
        return self

    def _timed(self, fn):
        def call(prover, *a, **k):
            t0 = time.perf_counter()
            try:
                return fn(prover, *a, **k)
            finally:
                self.z3 += time.perf_counter() - t0
        return call

    def __exit__(self, *exc):
        from proofcheck.constructions.provers import smt
        for n, fn in self.saved.items():
            setattr(smt.Z3Prover, n, fn)


def _measure(fn) -> tuple[object, float, float]:
    with _Clock() as c:
        t0 = time.perf_counter()
        r = fn()
        total = time.perf_counter() - t0
    return r, total, c.z3


def _wrong(module, name, edit):
    """A context in which ``module.name`` returns its layer with ``edit`` applied."""
    class Swap:
        def __enter__(self):
            self.real = getattr(module, name)
            setattr(module, name, lambda *a, **k: edit(self.real(*a, **k)))

        def __exit__(self, *exc):
            setattr(module, name, self.real)
    return Swap()


def cases(dims):
    """``(lemma, d, proof, module, routine, one-parameter edit)`` for every conclusion."""
    from proofcheck.constructions.afz.layers import clustering, corner, hat, snap, sphere, translation
    from proofcheck.kernel.model import Factored
    F = Fraction
    out = []
    for d in dims:
        out += [("3.1", d, lambda d=d: translation.symbolic(d), translation, "translation_ff",
                 lambda f: replace(f, b=(F(2),))),
                ("3.2", d, lambda d=d: hat._symbolic.__wrapped__(d)[0], hat, "hat_ff",
                 lambda f: replace(f, W=f.W[:2] + (tuple(2 * x for x in f.W[2]),))),
                ("3.2p", d, lambda d=d: hat._symbolic.__wrapped__(d)[1], hat, "plateau_ff",
                 lambda f: replace(f, b=(f.b[0] + 1,) + f.b[1:])),
                ("3.3", d, lambda d=d: snap._symbolic.__wrapped__(d, 0), snap, "snap_ff",
                 lambda f: replace(f, W=f.W[:3] + (tuple(2 * x for x in f.W[3]),)))]

    def skew(f):  # A = u (u + e_0)^T
        v = tuple(x + (1 if i == 0 else 0) for i, x in enumerate(f.A.right[0]))
        return replace(f, A=Factored(f.A.lam, f.A.left, (v,)))
    for d in (2, 3):
        out += [("4.1", d, lambda d=d: clustering.symbolic(d), clustering, "cluster_sa", skew),
                ("tag", d, lambda d=d: clustering.symbolic_tag(d), clustering, "tag_sa",
                 lambda f: replace(f, rho=F(0))),
                ("4.2", d, lambda d=d: corner.symbolic(d), corner, "corner_sa",
                 lambda f: replace(f, A=Factored(F(-1)))),
                ("4.3", d, lambda d=d: sphere.symbolic(d), sphere, "sphere_sa",
                 lambda f: replace(f, rho=F(1)))]
    return out


def layer_row(lemma, d, proof, module, routine, edit) -> dict:
    r, total, z3 = _measure(proof)
    with _wrong(module, routine, edit):
        w, wtotal, wz3 = _measure(proof)
    row = {"lemma": lemma, "d": d, "verdict": r.verdict.value, "provers": r.provers,
           "total_s": round(total, 3), "z3_s": round(z3, 3), "sympy_s": round(total - z3, 3),
           "wrong_variant": {"edit": f"{routine}: one parameter changed",
                             "verdict": w.verdict.value, "provers": w.provers,
                             "witness_code": w.witness.code if w.witness else None,
                             "model": {k: str(v) for k, v in (w.counterexample or {}).items()},
                             "total_s": round(wtotal, 3), "z3_s": round(wz3, 3)}}
    print(f"{lemma:5} d = {d:2}: {row['verdict']} {r.provers} sympy {row['sympy_s']:.2f} s, "
          f"z3 {row['z3_s']:.2f} s; wrong variant {w.verdict.value} "
          f"({row['wrong_variant']['witness_code']}), z3 {wz3:.2f} s", file=sys.stderr)
    return row


def exp_row(path) -> dict:
    from proofcheck.constructions.provers import exp_bounds
    cert = json.loads(Path(path).read_text())
    r = exp_bounds.prove(cert)
    tau, bounds = exp_bounds.stated_exp_bounds(cert)
    row = {"certificate": Path(path).name, "bytes": Path(path).stat().st_size,
           "pairs": len(cert["dataset"]["pairs"]), "tau": str(tau), "bounds": r.total,
           "proved": r.proved, "verdict": r.verdict.value, "coqc_s": round(r.seconds, 2),
           "largest_number_bits": max((max(b.gap.numerator.bit_length(),
                                           b.gap.denominator.bit_length(),
                                           b.eps.denominator.bit_length()) for b in bounds),
                                      default=0)}
    print(f"{row['certificate']}: {r.summary()}", file=sys.stderr)
    return row


BEGIN, END = "<!-- provers:begin -->", "<!-- provers:end -->"


def readme(res: dict, full: bool = False) -> str:
    """The README block (between :data:`BEGIN` and :data:`END`): per conclusion the
    smallest and largest dimension measured (``full``: every row), then the exp-bound
    rows."""
    rows = res["layers"]
    if not full:
        keep = {}
        for r in rows:
            ds = sorted({x["d"] for x in rows if x["lemma"] == r["lemma"]})
            keep[r["lemma"]] = {ds[0], ds[-1]}
        rows = [r for r in rows if r["d"] in keep[r["lemma"]]]
    m = res["machine"]
    out = [BEGIN, f"One run of `python -m bench.provers` ({m['platform']}, Python {m['python']}, "
           f"z3 {m['z3']}; wall seconds on a shared machine):", "",
           "| conclusion | d | sympy | z3 | sympy s | z3 s | one parameter changed (sympy / z3) | z3 s |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        w = r["wrong_variant"]
        out.append(f"| {r['lemma']} | {r['d']} | {r['provers']['sympy']} | {r['provers']['z3']} "
                   f"| {r['sympy_s']:.2f} | {r['z3_s']:.2f} | {w['provers']['sympy']} / "
                   f"{w['provers']['z3']} (`{w['witness_code']}`) | {w['z3_s']:.2f} |")
    out += ["", "| softmax certificate | pairs | stated exp bounds | Coq Interval | coqc s |",
            "|---|---|---|---|---|"]
    for r in res["exp_bounds"]:
        out.append(f"| {r['certificate']} | {r['pairs']} | {r['bounds']} | proved {r['proved']} "
                   f"of {r['bounds']} ({r['verdict']}) | {r['coqc_s']:.1f} |")
    return "\n".join(out + [END])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.provers", description=__doc__.split("\n")[0])
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 3, 5, 10, 20])
    ap.add_argument("--exp", nargs="*", default=None, metavar="CERT",
                    help="softmax certificates for the exp-bound rows (default: the committed ones)")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--readme", action="store_true", help="print the README block")
    ap.add_argument("--full", action="store_true", help="with --readme: every dimension")
    args = ap.parse_args(argv)
    if args.readme:
        print(readme(json.loads(Path(args.out).read_text()), full=args.full))
        return 0
    import z3
    res = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                       "z3": z3.get_version_string()},
           "layers": [layer_row(*c) for c in cases(args.dims)],
           "exp_bounds": [exp_row(p) for p in (CERTS if args.exp is None else args.exp)]}
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    print(readme(res, full=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
