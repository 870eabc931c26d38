"""Command line: ``python -m proofcheck {list,lemma,theorem}`` (SPEC §2, §5).

Exit codes: 0 verified, 1 refuted, 2 bad input or usage, 3 inconclusive,
4 internal error or resource limit.
"""
from __future__ import annotations

import argparse
import sys
import traceback

from . import __version__
from .errors import BadInput, ResourceLimit
from .verdicts import EXIT_BAD_INPUT, Verdict, combine


def _load(args):
    """``(dataset, extra_info)`` from --dataset / --example, or ``(None, {})``."""
    from .dataset import load_dataset
    from .examples import EXAMPLES
    if args.dataset is not None and args.example is not None:
        raise BadInput("give either --dataset or --example, not both")
    if args.dataset is not None:
        if not args.dataset.strip():
            raise BadInput("--dataset is empty")
        if args.limit is not None or args.task != "label":
            raise BadInput("--limit and --task apply to --example (or the default sample) only")
        return load_dataset(args.dataset), {}
    if args.example is not None and not args.example.strip():
        raise BadInput("--example is empty")
    if args.example:
        if args.example not in EXAMPLES:
            raise BadInput(f"unknown example {args.example!r}; known: {', '.join(EXAMPLES)}")
        if args.limit is not None and args.limit < 1:
            raise BadInput(f"--limit must be at least 1 (got {args.limit})")
        ds, info = EXAMPLES[args.example](limit=args.limit, task=args.task)
        from .dataset import check_admissible
        check_admissible(ds)
        return ds, info
    return None, {}


def cmd_list(args) -> int:
    from .catalogue import load
    rows = [(s.id, s.kind, s.paper, s.flag, "implemented" if s.implemented else "planned", s.title)
            for s in load()]
    w = [max(len(r[i]) for r in rows + [("id", "kind", "paper no.", "flag", "status", "")])
         for i in range(5)]
    head = ("id", "kind", "paper no.", "flag", "status", "statement")
    for r in [head] + rows:
        print("  ".join(x.ljust(w[i]) for i, x in enumerate(r[:5])) + "  " + r[5])
    print("\nflags: confirmed = paper number known; assumed = project's guess "
          "(edit proofcheck/data/catalogue.json); project/seed = not numbered in the paper")
    return 0


def _print_results(results) -> Verdict:
    for r in results:
        print("\n".join(r.lines()))
    return combine(r.verdict for r in results)


def _finish(results) -> int:
    v = _print_results(results)
    print(f"\nVERDICT: {v.value}")
    return v.exit_code


def cmd_lemma(args) -> int:
    from .catalogue import find
    st = find(args.id)
    if not st.implemented:
        raise BadInput(f"statement {st.id} ({st.title}) is in the catalogue but not implemented "
                       "in this version (status: planned)")
    ds, _ = _load(args)
    print(f"{st.id}: {st.title}  [{st.kind}; paper: {st.paper} ({st.flag})]")
    print(f"instance: {'dataset ' + ds.name if ds else 'built-in'}, seed {args.seed}\n")
    results = st.runner()(ds, args.seed)
    code = _finish(results)
    if args.certificate:
        from .certificates import lemma_certificate, write_certificate
        cert = lemma_certificate(st.id, results, combine(r.verdict for r in results))
        if cert is None:
            raise BadInput(f"statement {st.id} has no exact layer instances to certify "
                           "(its checks are symbolic or numeric; re-run `lemma` instead)")
        print(f"certificate: {write_certificate(args.certificate, cert)}")
    return code


def _progress(total: int):
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None, lambda: None
    bar = tqdm(total=total, desc="exact check", unit="block", delay=2.0, file=sys.stderr,
               leave=False)
    return (lambda b: bar.update(1)), bar.close


def _header(title, ds, info):
    print(f"{title} on dataset '{ds.name}': N = {ds.N}, M = {ds.M}, d = {ds.d}, "
          f"{ds.n_tokens} input tokens")
    if info.get("duplicates_dropped") is not None:
        print(f"  {info.get('used', ds.N)} image(s) used; {info['duplicates_dropped']} duplicate "
              f"image(s) dropped from the {info.get('images_total', '?')} available")
    for n in ds.notes:
        print(f"  note: {n}")


def _check_outputs(args):
    """Fail before the run (exit 2) when a report folder or certificate path cannot
    be written."""
    import os
    from pathlib import Path
    if not args.no_report:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise BadInput("--out exists and is not a folder", str(out))
        parent = next((p for p in [out, *out.parents] if p.exists()), None)
        if parent is None or not parent.is_dir() or not os.access(parent, os.W_OK):
            raise BadInput("--out cannot be created (no writable parent folder)", str(out))
    if args.certificate:
        c = Path(args.certificate)
        if c.is_dir() or not c.parent.is_dir() or not os.access(c.parent, os.W_OK):
            raise BadInput("--certificate is not a writable file path", str(c))


def cmd_theorem(args) -> int:
    from .catalogue import find
    st = find(args.id)
    if st.id not in ("1.6", "1.8"):
        raise BadInput(f"{st.id} is not a theorem; theorems: 1.6, 1.8")
    if st.id == "1.6" and args.tau is not None:
        raise BadInput("--tau applies to theorem 1.8 (softmax) only")
    _check_outputs(args)
    ds, info = _load(args)
    if ds is None:
        from .examples import sample
        if args.limit is not None and args.limit < 1:
            raise BadInput(f"--limit must be at least 1 (got {args.limit})")
        ds, info = sample(limit=args.limit, task=args.task)
    if st.id == "1.8":
        return cmd_softmax(args, ds, info)
    from lemmas.afz.theorem_1_6 import verify

    from .report import theorem_report, write_theorem_report
    _header("Theorem 1.6 (hardmax exact interpolation)", ds, info)
    print("constructing the network ...", flush=True)
    bar_holder = {}

    def progress(b, total):
        if "bar" not in bar_holder:
            bar_holder["bar"] = _progress(total)
        bar_holder["bar"][0](b)
    tc = verify(ds, backend=args.backend, progress=progress)
    if "bar" in bar_holder:
        bar_holder["bar"][1]()
    v = _print_results(tc.results)
    c = tc.constants
    print(f"\nN = {c['N']}, M = {c['M']}, d = {c['d']}, R = {c['R']}")
    print(f"L = {c['L']} blocks (2M + R + 1 = {c['L_construction']}; paper: 2M + 2N + 1 = "
          f"{c['L_paper_hardmax']})")
    print(f"max width = {c['max_width']}; parameters P = {c['P']} (formula {c['P_formula']}, "
          f"bound {c['param_constant']}·d·M = {c['P_bound']}); largest rational {c['max_bits']} bits")
    print("time: " + ", ".join(f"{k} {s:.2f} s" for k, s in tc.seconds.items()))
    if not args.no_report:
        rep = theorem_report("1.6", ds, tc, v, extra=info)
        md, js = write_theorem_report(args.out, rep)
        print(f"report: {md} and {js}")
    if args.certificate:
        from .certificates import theorem_certificate, write_certificate
        cert = theorem_certificate("1.6", ds, tc.construction.net, v, constants=c)
        print(f"certificate: {write_certificate(args.certificate, cert)}")
    print(f"\nVERDICT: {v.value}")
    return v.exit_code


def cmd_softmax(args, ds, info) -> int:
    from fractions import Fraction

    from lemmas.afz.theorem_1_8 import verify

    from .numbers import parse_number
    from .report import softmax_report, write_softmax_report
    tau = None
    if args.tau is not None:
        tau, _ = parse_number(args.tau, "--tau")
        if tau <= 0:
            raise BadInput(f"--tau must be positive (got {args.tau})")
    _header("Theorem 1.8 (softmax exact interpolation)", ds, info)
    print("certifying tau = " + (str(tau) if tau is not None else "(search: largest dyadic)"),
          flush=True)

    def progress(t, verdict):
        print(f"  certificate at tau = {t} (≈ {float(t):.4g}): {verdict.value}", flush=True)
    sc = verify(ds, tau=tau, progress=progress, simulate_num=not args.no_simulation)
    if tau is not None:
        progress(tau, sc.certificate.verdict)
    v = _print_results(sc.results)
    c = sc.constants
    f = lambda x: "n/a" if x is None else f"{x} (≈ {float(Fraction(x)):.4g})"  # noqa: E731
    print(f"\ntau_cert = {f(sc.tau_cert)}  [certified: covers every tau in (0, tau_cert]]")
    print(f"tau_closed = {sc.tau_closed if sc.tau_closed is None else f'{sc.tau_closed:.4g}'}  "
          f"[closed-form estimate from the minimum gap; certificate: "
          f"{sc.tau_closed_certified.value if sc.tau_closed_certified else 'n/a'}]")
    print(f"tau_num = {f(sc.tau_num)}  [mpmath simulation; a search aid, not a proof]")
    sa = [b for b in sc.certificate.bounds if b.sublayer == "SA" and b.max_eps is not None]
    if sa:
        print("softmax layers: " + "; ".join(
            f"block {b.block}: gap >= {float(b.min_gap):.4g}, eps <= {float(b.max_eps):.3g}"
            for b in sa[:12]) + (" ..." if len(sa) > 12 else ""))
    print(f"L = {c['L']} blocks (paper: 2M + 3N = {c['L_paper_softmax']}), max width "
          f"{c['max_width']}, P = {c['P']}")
    print("time: " + ", ".join(f"{k} {s:.2f} s" for k, s in sc.seconds.items()))
    if not args.no_report:
        rep = softmax_report(ds, sc, v, extra=info, tau_given=tau)
        md, js, png = write_softmax_report(args.out, rep, sc)
        print(f"report: {md}, {js}, {png}")
    if args.certificate:
        from .certificates import theorem_certificate, write_certificate
        t = sc.tau_cert if sc.tau_cert is not None else (tau if tau is not None else
                                                          sc.certificate.tau)
        cert = theorem_certificate("1.8", ds, sc.construction.net, v, tau=t,
                                   bounds=[b.to_json() for b in sc.certificate.bounds
                                           if b.max_eps is not None], constants=c)
        print(f"certificate: {write_certificate(args.certificate, cert)}")
    print(f"\nVERDICT: {v.value}")
    return v.exit_code


def cmd_report(args) -> int:
    from pathlib import Path

    from .reports import regenerate
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise BadInput("--out exists and is not a folder", args.out)
    return regenerate(args.out)


def cmd_verify(args) -> int:
    import json

    from .kernel import verify_certificate
    try:
        with open(args.file, encoding="utf-8") as f:
            cert = json.load(f)
    except OSError as e:
        raise BadInput(f"cannot read certificate: {e.strerror}", args.file) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"certificate is not valid JSON ({e})", args.file) from None
    if args.dataset:
        from .dataset import digest, load_dataset
        ds = load_dataset(args.dataset)
        want = (cert.get("claim", {}).get("dataset", {}) or {}).get("sha256") \
            if isinstance(cert, dict) else None
        if digest(ds) != want:
            print("the given dataset is not the certificate's dataset (SHA-256 differs)")
            print("\nVERDICT: ERROR")
            return Verdict.ERROR.exit_code
    v, lines = verify_certificate(cert)
    for ln in lines:
        print(ln)
    print(f"\nVERDICT: {v.value}")
    return v.exit_code


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="proofcheck", description="Exact proof checker for "
                                "constructive theorems about transformers.")
    p.add_argument("--version", action="version", version=f"proofcheck {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="print the statement catalogue")

    def data_opts(q):
        q.add_argument("--dataset", help="proofcheck-dataset/1 JSON or .npz file")
        q.add_argument("--example", help="built-in example: digits, digits-sample")
        q.add_argument("--limit", type=int, help="use the first K examples (after dedupe)")
        q.add_argument("--task", default="label", choices=["label", "inpaint"],
                       help="digits target: label token or the masked patches")
    q = sub.add_parser("lemma", help="check one catalogue statement")
    q.add_argument("id")
    data_opts(q)
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--certificate", metavar="FILE", help="write a certificate of the exact instances")
    q = sub.add_parser("theorem", help="construct and check a theorem on a dataset")
    q.add_argument("id")
    data_opts(q)
    q.add_argument("--backend", default="flint", choices=["flint", "fraction"],
                   help="exact backend for theorem 1.6")
    q.add_argument("--tau", help="theorem 1.8: certify this temperature (e.g. 1/8) instead of "
                   "searching")
    q.add_argument("--no-simulation", action="store_true",
                   help="theorem 1.8: skip the mpmath simulation (tau_num)")
    q.add_argument("--out", default="reports", help="report directory (default: reports)")
    q.add_argument("--no-report", action="store_true", help="do not write report files")
    q.add_argument("--certificate", metavar="FILE", help="write the certificate (SPEC §3)")
    q = sub.add_parser("verify", help="re-check a certificate with the small trusted kernel")
    q.add_argument("file")
    q.add_argument("--dataset", help="also check that the certificate is about this dataset")
    q = sub.add_parser("report", help="regenerate the reports/ folder")
    q.add_argument("--out", default="reports")
    return p


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # argparse: usage errors exit 2
        return int(e.code or 0)
    try:
        return {"list": cmd_list, "lemma": cmd_lemma, "theorem": cmd_theorem,
                "verify": cmd_verify, "report": cmd_report}[args.cmd](args)
    except BadInput as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    except ResourceLimit as e:
        print(f"ERROR: resource limit: {e}", file=sys.stderr)
        return Verdict.ERROR.exit_code
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return Verdict.ERROR.exit_code
    except Exception:  # fail closed: an internal error is never a pass
        traceback.print_exc()
        print("ERROR: internal error (see traceback above)", file=sys.stderr)
        return Verdict.ERROR.exit_code
