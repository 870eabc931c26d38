"""``proofcheck export 1.6|1.8``: write the constructed network for PyTorch, ONNX
or safetensors (issue 13; docs/howto/export-and-audit.md).  The exact check runs first (unless
``--no-check``) so that every file carries the certificate digest; the export
is the nearest-rounding of the exact weights to ``--dtype``; a tau or weight that is
not 0 but rounds to 0 or a subnormal, or overflows, in that format is refused (exit 2,
naming the value and the format's range) before anything is written."""
from __future__ import annotations

import sys

from proofcheck.frontend.cli.common import check_file_output, data_options, refuse_same_files
from proofcheck.kernel.errors import BadInput

EXTRAS = {"torch": ("torch", "torch"), "onnx": ("onnx", "export"),
          "safetensors": ("safetensors", "export")}


def require(module: str, extra: str):
    """Import ``module`` or raise BadInput naming the optional extra (exit 2)."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise BadInput(f"this needs the optional dependency {module!r} ({e}); install it with "
                       f"pip install 'proofcheck[{extra}]'") from None


def theorem_args(q) -> None:
    q.add_argument("id", help="theorem: 1.6 (hardmax) or 1.8 (softmax); e.g. 1.6")
    data_options(q)
    q.add_argument("--tau", help="theorem 1.8: softmax temperature (e.g. 1/8); without it the "
                   "certified search of `theorem 1.8` chooses tau_cert")
    q.add_argument("--float-safe", metavar="FMT", choices=["float64", "float32", "bfloat16",
                                                           "float16"],
                   help="construction option: float-safe snaps for this format "
                   "(proofcheck/constructions/afz/options.py); `audit` also decides the rounding certificate "
                   "for it; e.g. --float-safe float32")
    q.add_argument("--construction", default="default", metavar="NAME",
                   help="which construction builds the network (`python -m proofcheck list` "
                   "ends with them), e.g. --construction bounded")


def options_of(args):
    """The construction options asked for on the command line (None: default)."""
    if getattr(args, "float_safe", None) is None:
        return None
    from proofcheck.constructions.afz.options import ConstructionOptions
    return ConstructionOptions(float_format=args.float_safe)


def load_theorem_data(args):
    """``(statement id, dataset, tau)`` from the common options (BadInput on misuse)."""
    from proofcheck.frontend.cli.common import data_request
    from proofcheck.kernel.numbers import parse_number
    from proofcheck.frontend.registry import find
    from proofcheck.frontend.runs.instances import theorem_data
    st = find(args.id)
    if st.id not in ("1.6", "1.8"):
        raise BadInput(f"{st.id} is not a theorem; theorems: 1.6, 1.8")
    tau = None
    if args.tau is not None:
        if st.id == "1.6":
            raise BadInput("--tau applies to theorem 1.8 (softmax) only")
        tau, _ = parse_number(args.tau, "--tau")
        if tau <= 0:
            raise BadInput(f"--tau must be positive (got {args.tau})")
    ds, _ = theorem_data(st, data_request(args))
    return st.id, ds, tau


def register(sub) -> None:
    q = sub.add_parser(
        "export", help="write the constructed network (torch, onnx, safetensors)",
        description="Construct the network of Theorem 1.6 or 1.8 for a dataset, check it "
        "exactly, and write it for PyTorch, ONNX or safetensors with the dataset SHA-256, "
        "the certificate digest and the rounding used as metadata (extras 'export', 'torch').",
        epilog="examples: python -m proofcheck export 1.6 --format onnx --out net.onnx | "
        "python -m proofcheck export 1.6 --example digits --format torch --out torch-net/")
    theorem_args(q)
    q.add_argument("--format", required=True, choices=["torch", "onnx", "safetensors"],
                   help="file format; e.g. --format onnx")
    q.add_argument("--out", required=True, metavar="PATH",
                   help="torch: a directory; onnx: a .onnx file; safetensors: a .safetensors "
                   "file (+ PATH.json); e.g. --out net.onnx")
    q.add_argument("--dtype", default="float64", choices=["float64", "float32", "bfloat16"],
                   help="weights rounded to the nearest value of this format (bfloat16: torch "
                   "only); e.g. --dtype float32")
    q.add_argument("--no-check", action="store_true",
                   help="skip the exact check (the files then carry no certificate digest)")
    q.add_argument("--certificate", metavar="FILE",
                   help="also write the certificate whose digest the files carry (missing "
                   "folders are created; never the --dataset file or an --out file); e.g. "
                   "--certificate net.json")
    q.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    """Refuse what cannot be written (before any work), build and check the network
    (:func:`proofcheck.frontend.runs.build.build`), write nothing unless its check verifies (or
    was skipped), then the certificate and the export."""
    from pathlib import Path
    out = Path(args.out)
    _check_outputs(args, out)
    statement, ds, tau = load_theorem_data(args)
    from proofcheck.frontend.export.arch import Unrepresentable, check_representable
    try:
        check_representable(tau=tau, dtype=args.dtype)  # before any work
    except Unrepresentable as e:
        raise BadInput(str(e)) from None
    print(f"Theorem {statement} on dataset '{ds.name}': N = {ds.N}, M = {ds.M}, d = {ds.d}",
          flush=True)
    b, refused = _built(args, statement, ds, tau)
    if refused is not None:
        return refused
    try:
        check_representable(b.net, b.tau, args.dtype)
    except Unrepresentable as e:
        raise BadInput(str(e)) from None
    if args.certificate and b.certificate is not None:
        from proofcheck.frontend.io.certificate_writer import write_certificate
        print(f"certificate: {write_certificate(args.certificate, b.certificate)}")
    _write_export(args, out, b)
    return 0 if b.verdict is None else b.verdict.exit_code


def _check_outputs(args, out) -> None:
    """Usage errors and unwritable outputs (exit 2) before any work; the format's
    extra must be installed."""
    if args.dtype == "bfloat16" and args.format != "torch":
        raise BadInput("--dtype bfloat16 is available for --format torch only (numpy-based "
                       "writers have no bfloat16)")
    if not str(args.out).strip():
        raise BadInput("--out is empty")
    if out.exists() and args.format != "torch" and out.is_dir():
        raise BadInput(f"--out {out} is a directory; {args.format} writes a file")
    _require_files(args, out)
    if args.format == "torch":
        from proofcheck.frontend.export.torch_module import replaceable
        if not replaceable(out):
            raise BadInput(f"--out {out} exists and is not a previous torch export (a directory "
                           "holding only architecture.json, state_dict.pt, proofcheck_net.py); "
                           "choose a new directory")
    mod, extra = EXTRAS[args.format]
    require(mod, extra)
    if args.format == "onnx":
        require("onnxruntime", "export")


def _built(args, statement, ds, tau):
    """``(Built, None)``, or ``(None, exit code)`` when nothing may be exported: the
    construction failed (REFUTED), the check did not verify, or theorem 1.8 found no
    certified temperature."""
    from proofcheck.constructions.afz.theorems.theorem_1_6 import ConstructionFailed
    from proofcheck.frontend.runs.build import build
    try:
        b = build(statement, ds, tau=tau, check=not args.no_check, options=options_of(args),
                  construction=args.construction)
    except ConstructionFailed as e:  # REFUTED on this admissible dataset: no network
        print("\n".join(e.result.lines()))
        print("the construction failed on this dataset: nothing exported", file=sys.stderr)
        return None, e.result.verdict.exit_code
    except (ValueError, KeyError) as e:
        raise BadInput(e.args[0] if e.args else str(e)) from None
    if b.verdict is not None:
        print(f"exact check: {b.verdict.value}"
              + (f" (tau = {b.tau})" if b.tau is not None else ""))
        if not b.verdict.passed:
            print(f"the exact check is {b.verdict.value}: nothing exported (files would carry "
                  "the digest of a certificate that does not verify the network)",
                  file=sys.stderr)
            return None, b.verdict.exit_code
    if statement == "1.8" and b.tau is None:
        print("no certified temperature found: nothing exported", file=sys.stderr)
        return None, b.verdict.exit_code if b.verdict is not None else 3
    return b, None


def _write_export(args, out, b) -> None:
    """The float export of ``b`` in ``args.format`` and the lines that say what it is."""
    from proofcheck.frontend.export.arch import arrays, describe
    from proofcheck.frontend.export.rounding import get_format, round_network
    from proofcheck.frontend.runs.build import metadata
    meta = metadata(b, args.dtype)
    desc = describe(b.net, b.attention, b.tau, meta)
    tensors = arrays(b.net, "float32" if args.dtype == "bfloat16" else args.dtype) \
        if args.dtype != "bfloat16" else _bf16_arrays(b.net)
    if args.format == "torch":
        from proofcheck.frontend.export.torch_module import write_torch
        path = write_torch(out, tensors, desc, args.dtype)
    elif args.format == "onnx":
        from proofcheck.frontend.export.onnx_graph import write_onnx
        path = write_onnx(out, tensors, desc, args.dtype)
    else:
        from proofcheck.frontend.export.safetensors_writer import write_safetensors
        path = write_safetensors(out, tensors, desc)
    print(f"wrote {args.format} export: {path}  (L = {b.net.L} blocks, d = {b.net.d}, "
          f"{b.net.n_params()} parameters, {args.dtype})")
    print(f"dataset sha256 {meta['dataset_sha256']}; certificate digest "
          f"{meta['certificate_digest'] or 'none (not checked)'}")
    _, st = round_network(b.net, get_format(args.dtype))
    print(f"rounding: {st['changed']} of {st['total']} stored scalars changed by rounding to "
          f"{args.dtype} (none overflows or underflows: checked before writing)")
    print("the exported float network is NOT what the exact verdict is about; see "
          "`proofcheck audit` for what floating point does to it")


def _bf16_arrays(net):
    from proofcheck.frontend.export.arch import arrays
    return arrays(net, "bfloat16")


def _require_files(args, out) -> None:
    """BadInput (before any work) when a file this export would write exists and is not
    a regular file (a device such as /dev/null, a FIFO, a folder), or cannot be
    written: the certificate's folder must exist and take a file; the export's
    nearest existing folder must take one."""
    from pathlib import Path

    from proofcheck.frontend.io.files import require_replaceable, require_writable_folder
    if args.certificate:
        check_file_output(args.certificate, "--certificate")
    paths = [] if args.format == "torch" else [("--out", out)]
    if args.format == "safetensors":
        paths.append(("--out's side file", out.with_name(out.name + ".json")))
    from proofcheck.frontend.export.torch_module import FILES
    written = paths if args.format != "torch" else [
        (f"--out's file {n}", out / n) for n in FILES]
    refuse_same_files([("--dataset", args.dataset), ("--certificate", args.certificate)]
                      + [(what, str(p)) for what, p in written])
    folder = next((p for p in [out.parent, *out.parents] if p.exists()), Path("."))
    try:
        for what, p in paths:
            require_replaceable(p, what)
        require_writable_folder(out if out.is_dir() else folder, "--out")
    except OSError as e:
        raise BadInput(e.strerror or str(e), str(e.filename)) from None
