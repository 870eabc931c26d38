"""``proofcheck experiment tikhonov --out DIR``: the Tikhonov training experiment
(docs/spec.md §2, statement ``tikhonov``, experimental part; optional extra ``torch``).

Float training, clearly labelled: it decides no verdict.  Exit 0 when the run
completes and its files are written, 2 for bad usage or when PyTorch is missing
(the message names the extra), 4 on an internal error (e.g. diverged training).
"""
from __future__ import annotations

import sys

from proofcheck.frontend.cli.common import integer_arg
from proofcheck.kernel.errors import BadInput

EXPERIMENTS = ("tikhonov",)


def register(sub) -> None:
    q = sub.add_parser(
        "experiment", help="float experiments beside the exact checks "
        "(tikhonov: needs the extra 'torch')",
        description="Float experiments, clearly labelled: they decide no verdict. "
        "tikhonov trains the authors' one-block setting with J(θ) + ε‖θ‖² over several "
        "decades of ε and compares the loss with the exact bound ε‖θ*‖².",
        epilog="example: python -m proofcheck experiment tikhonov --out /tmp/tik")
    q.add_argument("name", metavar="NAME", help="experiment: " + ", ".join(EXPERIMENTS)
                   + "; e.g. tikhonov")
    q.add_argument("--out", required=True, metavar="DIR",
                   help="output folder (JSON, Markdown, PNG); e.g. --out /tmp/tik")
    q.add_argument("--seed", type=integer_arg, default=0, help="seed of the data draw and of training; e.g. --seed 1")
    q.add_argument("--eps", help="comma-separated eps values (default: 1e-5 .. 1, "
                   "two per decade); e.g. --eps 1e-3,1e-2")
    q.add_argument("--steps", type=integer_arg, default=1500, help="Adam steps per eps (default 1500); e.g. --steps 300")
    q.add_argument("--lr", default="0.01", help="Adam learning rate (default 0.01); e.g. --lr 0.005")
    q.add_argument("--cold", action="store_true", help="start every eps from the seeded "
                   "initialisation (default: warm start from the previous, larger eps)")
    q.add_argument("--threads", type=integer_arg, default=1, help="torch threads (default 1); e.g. --threads 2")
    q.set_defaults(func=cmd_experiment)


def _floats(text: str, what: str) -> list[float]:
    from proofcheck.kernel.numbers import parse_number
    out = []
    for i, part in enumerate(text.split(",")):
        q, _ = parse_number(part.strip(), f"{what}[{i}]", what)
        if q <= 0:
            raise BadInput(f"{what} values must be positive (got {part.strip()})", f"{what}[{i}]")
        out.append(float(q))
    return out


def cmd_experiment(args) -> int:
    import json
    import os
    import tempfile
    from pathlib import Path

    from proofcheck.frontend.experiments import tikhonov as exp
    from proofcheck.frontend.io.files import atomic_write
    if args.name != "tikhonov":
        raise BadInput(f"unknown experiment {args.name!r}; known: {', '.join(EXPERIMENTS)}")
    eps = _floats(args.eps, "--eps") if args.eps else list(exp.DEFAULT_EPS)
    [lr] = _floats(args.lr, "--lr")
    if args.steps < 1:
        raise BadInput(f"--steps must be at least 1 (got {args.steps})")
    if args.threads < 1:
        raise BadInput(f"--threads must be at least 1 (got {args.threads})")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise BadInput("--out exists and is not a folder", str(out))
    try:
        exp.import_torch()
    except exp.TorchMissing as e:
        raise BadInput(str(e)) from None
    print(f"Tikhonov experiment (float64 training; a simulation, no verdict): authors' "
          f"setting, seed {args.seed}, {len(eps)} eps values x {args.steps} steps, "
          f"{'cold starts' if args.cold else 'warm start from the larger eps'}", flush=True)
    ex = exp.run(seed=args.seed, eps_grid=eps, steps=args.steps, lr=lr, threads=args.threads,
                 warm=not args.cold)
    js = exp.summary(ex)
    out.mkdir(parents=True, exist_ok=True)
    png = out / "tikhonov-experiment.png"
    fd, tmp = tempfile.mkstemp(dir=out, suffix=".png")
    os.close(fd)
    try:
        exp.plot(tmp, js)
        os.replace(tmp, png)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    atomic_write(out / "tikhonov-experiment.json", json.dumps(js, indent=1) + "\n")
    md = exp.markdown(js, png.name)
    atomic_write(out / "tikhonov-experiment.md", md)
    print(md)
    print(f"files: {out / 'tikhonov-experiment.md'}, {out / 'tikhonov-experiment.json'}, {png}")
    print(f"CPU time {js['seconds_cpu']} s", file=sys.stderr)
    return 0
