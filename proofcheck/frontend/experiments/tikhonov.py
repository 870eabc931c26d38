"""The Tikhonov training experiment (docs/spec.md §2, statement ``tikhonov``, experimental
part; needs the optional extra ``torch``).

Trains the authors' architecture — one block, softmax self-attention (tau = 1,
one head: scores ``(x q)(x' k)``) with ``rho``, ``V``, then an FF of width 4 with
``eta``, ``U``, ``b``, ``W`` (SA first, then FF, as in the authors' script) — on
their ``torch.manual_seed(seed)`` draw of the synthetic data, reproduced exactly
(:func:`proofcheck.frontend.io.synthetic.authors_setting`), minimising

    F_eps(theta) = J(theta) + eps ||theta||^2,
    J = mean over sequences of max over tokens ||T(X_j)_i - y_j||^2

(the authors' loss; ``||theta||^2`` = ``rho^2 + ||q||^2 + ||k||^2 + ||V||_F^2 +
eta^2 + ||U||^2 + ||b||^2 + ||W||^2``, the parametrisation that is trained), with
full-batch Adam in float64 for each eps of a grid spanning several decades.

Since ``J(theta*) = 0`` exactly for the drawn ``theta*`` (checked by ``lemma
tikhonov``), ``min F_eps <= eps ||theta*||^2``: a trained objective above that
line proves the run did not reach a global minimiser (up to float rounding of
F, which is far below the margins reported).  The committed script's value of
``||theta*||^2`` (``||V||^2`` taken on the value tensor: a bug in its
``generateData.py``; the published figure 1a draws the correct value) is drawn too,
labelled as such: it is about 86 times larger and would hide such departures.

Float only: this is a simulation; it decides no verdict.
"""
from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction

DEFAULT_EPS = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0)


class TorchMissing(RuntimeError):
    """PyTorch (the optional extra ``torch``) is not installed."""


def import_torch():
    """``torch``, or :class:`TorchMissing` naming the extra to install."""
    try:
        import torch
    except ImportError as e:
        raise TorchMissing("the Tikhonov experiment needs PyTorch, the optional extra "
                           "'torch': pip install 'proofcheck[torch]' (or pip install torch)"
                           ) from e
    return torch


@dataclass
class EpsRun:
    """One training run: final values in float64 (``theta_sq`` = ||theta_eps||^2)."""

    eps: float
    J: float
    objective: float
    theta_sq: float
    best_objective: float
    seconds_cpu: float


@dataclass
class Experiment:
    """Everything one experiment measured; ``threshold`` / ``script_threshold``
    are the exact ||theta*||^2 values (authors' parametrisation / the committed
    script's value) for the same draw."""

    seed: int
    steps: int
    lr: float
    threshold: Fraction
    script_threshold: Fraction
    j_at_theta_star: float
    j_at_zero: float
    runs: list[EpsRun] = field(default_factory=list)
    seconds_cpu: float = 0.0
    warm: bool = True


def _model(torch, d: int, width: int, dtype):
    """The authors' block as torch parameters (initialised like their script:
    rho = eta = 0, the linear maps with torch's default uniform init)."""
    nn = torch.nn
    q = nn.Linear(d, 1, bias=False).to(dtype)
    k = nn.Linear(d, 1, bias=False).to(dtype)
    v = nn.Linear(d, d, bias=False).to(dtype)
    u = nn.Linear(d, width).to(dtype)
    w = nn.Linear(width, d, bias=False).to(dtype)
    return {"rho": nn.Parameter(torch.zeros(1, dtype=dtype)), "q": q.weight, "k": k.weight,
            "V": v.weight, "eta": nn.Parameter(torch.zeros(1, dtype=dtype)),
            "U": u.weight, "b": u.bias, "W": w.weight}


def forward(torch, p: dict, X, tau: float = 1.0):
    """``T(X)`` for ``X`` of shape ``(N, n, d)``: ``Z = rho X + softmax(s / tau) X V^T``
    with ``s_il = (x_i . q)(x_l . k)``, then ``eta Z + relu(Z U^T + b) W^T``."""
    s = (X @ p["q"].T) @ (X @ p["k"].T).transpose(1, 2)
    att = torch.softmax(s / tau, dim=-1)
    Z = p["rho"] * X + att @ (X @ p["V"].T)
    return p["eta"] * Z + torch.relu(Z @ p["U"].T + p["b"]) @ p["W"].T


def loss_J(torch, out, Y):
    """The authors' loss: mean over sequences of the largest squared distance
    from an output token to the (single) target; ``Y``: ``(N, 1, d)``."""
    return ((out - Y) ** 2).sum(-1).max(dim=1).values.mean()


def sq_norm(p: dict):
    return sum((t ** 2).sum() for t in p.values())


def _theta_star(torch, setting, dtype) -> dict:
    d = setting.dataset.d
    t = lambda rows: torch.tensor([[float(x) for x in r] for r in rows], dtype=dtype)
    return {"rho": torch.zeros(1, dtype=dtype), "q": torch.zeros(1, d, dtype=dtype),
            "k": torch.zeros(1, d, dtype=dtype), "V": torch.eye(d, dtype=dtype),
            "eta": torch.tensor([float(setting.eta)], dtype=dtype), "U": t(setting.U),
            "b": torch.tensor([float(x) for x in setting.b], dtype=dtype),
            "W": t(setting.W).T.contiguous()}


def run(seed: int = 0, eps_grid=DEFAULT_EPS, steps: int = 3000, lr: float = 1e-2,
        threads: int = 1, progress: bool | None = None, setting=None,
        warm: bool = True) -> Experiment:
    """Train once per eps, from the largest eps down, and return the
    measurements (``runs`` in increasing eps).  ``warm``: each eps starts from the
    previous eps's result (continuation, as the authors' script reuses one model
    across its weight decays); otherwise every eps starts from the same seeded
    initialisation.  ``setting`` defaults to the authors' draw
    ``authors_setting(seed)``.  Raises :class:`TorchMissing` without PyTorch,
    ``ValueError`` for an empty grid, a non-positive eps, steps < 1 or lr <= 0."""
    torch = import_torch()
    from proofcheck.constructions.afz.theorems.tikhonov import authors_network, authors_sq_norm, script_sq_norm
    from proofcheck.frontend.io.synthetic import authors_setting
    eps_grid = [float(e) for e in eps_grid]
    if not eps_grid or any(not (e > 0 and math.isfinite(e)) for e in eps_grid):
        raise ValueError(f"eps values must be positive and finite (got {eps_grid})")
    if steps < 1 or not lr > 0:
        raise ValueError(f"steps must be >= 1 and lr > 0 (got {steps}, {lr})")
    t_cpu = time.process_time()
    setting = authors_setting(seed) if setting is None else setting
    net = authors_network(setting)
    inputs = [list(p.inputs) for p in setting.dataset.pairs]
    th, _ = authors_sq_norm(net)
    sc, _ = script_sq_norm(net, inputs)
    torch.set_num_threads(max(1, threads))
    dt = torch.float64
    X = torch.tensor([[[float(c) for c in x] for x in Xj] for Xj in inputs], dtype=dt)
    Y = torch.tensor([[[float(c) for c in p.outputs[0]]] for p in setting.dataset.pairs],
                     dtype=dt)
    star = _theta_star(torch, setting, dt)
    with torch.no_grad():
        j_star = float(loss_J(torch, forward(torch, star, X), Y))
        j_zero = float(loss_J(torch, torch.zeros_like(X), Y))
    ex = Experiment(seed, steps, lr, th, sc, j_star, j_zero, warm=warm)
    if progress is None:
        progress = sys.stderr.isatty()
    from tqdm import tqdm
    bar = tqdm(total=steps * len(eps_grid), desc="training", unit="step", disable=not progress,
               file=sys.stderr, leave=False, mininterval=0.5)
    try:
        torch.manual_seed(seed)
        p = _model(torch, setting.dataset.d, len(setting.U), dt)
        for eps in sorted(eps_grid, reverse=True):  # continuation: warm start, large eps first
            t0 = time.process_time()
            if not warm:
                torch.manual_seed(seed)
                p = _model(torch, setting.dataset.d, len(setting.U), dt)
            opt = torch.optim.Adam(list(p.values()), lr=lr)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
            best = math.inf
            for _ in range(steps):
                opt.zero_grad()
                J = loss_J(torch, forward(torch, p, X), Y)
                F = J + eps * sq_norm(p)
                F.backward()
                opt.step()
                sched.step()
                best = min(best, float(F.detach()))
                bar.update(1)
            with torch.no_grad():
                J = float(loss_J(torch, forward(torch, p, X), Y))
                n2 = float(sq_norm(p))
            if not all(math.isfinite(v) for v in (J, n2)):
                raise FloatingPointError(f"training diverged at eps = {eps} (J = {J})")
            ex.runs.append(EpsRun(eps, J, J + eps * n2, n2, min(best, J + eps * n2),
                                  time.process_time() - t0))
    finally:
        bar.close()
    ex.runs.sort(key=lambda r: r.eps)
    ex.seconds_cpu = time.process_time() - t_cpu
    return ex


def summary(ex: Experiment) -> dict:
    """The JSON form: exact thresholds as ``"p/q"`` plus approximations, one row
    per eps (trained J, objective F, ||theta_eps||^2, both lines, F / line), the
    log-log slopes of F between neighbouring eps, and where F leaves the linear
    regime (F above eps ||theta*||^2: provably not a global minimiser)."""
    from proofcheck.kernel.numbers import format_q
    from proofcheck.kernel.numbers import approx as sig_digits
    thf, scf = float(ex.threshold), float(ex.script_threshold)
    rows = []
    for r in ex.runs:
        line = r.eps * thf
        rows.append({"eps": r.eps, "J": r.J, "objective": r.objective, "theta_sq": r.theta_sq,
                     "line_exact": line, "line_script": r.eps * scf,
                     "objective_over_line": r.objective / line,
                     "above_exact_line": r.objective > line,
                     "above_script_line": r.objective > r.eps * scf,
                     "seconds_cpu": round(r.seconds_cpu, 3)})
    slopes = []
    for a, b in zip(ex.runs, ex.runs[1:]):
        if a.objective > 0 and b.objective > 0:
            slopes.append({"eps": [a.eps, b.eps], "slope": math.log(b.objective / a.objective)
                           / math.log(b.eps / a.eps)})
    above = [r["eps"] for r in rows if r["above_exact_line"]]
    return {
        "format": "proofcheck-experiment/1", "experiment": "tikhonov",
        "note": "float64 training (a simulation): decides no verdict",
        "seed": ex.seed, "steps_per_eps": ex.steps, "lr": ex.lr, "optimizer":
        "Adam, full batch, cosine schedule; objective J + eps ||theta||^2 (explicit)",
        "theta_sq_norm": {"exact": format_q(ex.threshold), "approx": sig_digits(ex.threshold),
                          "role": "the threshold the bound uses: min J + eps||theta||^2 <= "
                                  "eps ||theta*||^2"},
        "script_value": {"exact": format_q(ex.script_threshold),
                         "approx": sig_digits(ex.script_threshold),
                         "role": "the committed script's value (||V||^2 on the value tensor: a "
                                 "code bug; the published figure 1a uses the correct value)",
                         "ratio_to_threshold": sig_digits(ex.script_threshold / ex.threshold, 4)},
        "J_at_theta_star_float64": ex.j_at_theta_star, "J_at_zero": ex.j_at_zero,
        "runs": rows, "slopes": slopes,
        "leaves_linear_regime": {
            "above_exact_line_at_eps": above,
            "above_script_line_at_eps": [r["eps"] for r in rows if r["above_script_line"]],
            "largest_eps_above_exact_line": max(above) if above else None,
            "flat_intervals": [s["eps"] for s in slopes if s["slope"] < 0.5],
        },
        "seconds_cpu": round(ex.seconds_cpu, 2),
    }


def markdown(js: dict, png_name: str | None) -> str:
    """A short Markdown report of :func:`summary`."""
    th, sc = js["theta_sq_norm"], js["script_value"]
    lv = js["leaves_linear_regime"]
    lines = ["# Tikhonov experiment (float64 training; a simulation, no verdict)", "",
             f"Authors' setting, seed {js['seed']}: N = 10, d = 16, n = 100, m = 1. "
             f"{js['steps_per_eps']} full-batch Adam steps per eps (lr {js['lr']}), "
             f"objective J + eps ||theta||^2.", "",
             f"- **||θ*||² = {th['approx']}** (exact {th['exact']}) — the threshold the bound "
             "uses: min J + ε‖θ‖² ≤ ε‖θ*‖²",
             f"- the committed script's value: {sc['approx']} ({sc['ratio_to_threshold']} × the "
             "threshold; ‖V‖² taken on the value tensor XV instead of the matrix V, a bug in "
             "its generateData.py; the published figure 1a draws the correct threshold)",
             f"- torch model at θ*: J = {js['J_at_theta_star_float64']:.3g} (float64; exact "
             f"J(θ*) = 0 is checked by `lemma tikhonov`); J(0) = {js['J_at_zero']:.4g}", ""]
    if png_name:
        lines += [f"![training loss against eps]({png_name})", ""]
    lines += ["| ε | trained J | J + ε‖θ‖² | ε‖θ*‖² | (J + ε‖θ‖²) / ε‖θ*‖² | ‖θ_ε‖² |",
              "|---|---|---|---|---|---|"]
    for r in js["runs"]:
        lines.append(f"| {r['eps']:.3g} | {r['J']:.4g} | {r['objective']:.4g} | "
                     f"{r['line_exact']:.4g} | {r['objective_over_line']:.3f}"
                     f"{' **above**' if r['above_exact_line'] else ''} | {r['theta_sq']:.4g} |")
    lines += ["", "Log-log slope of J + ε‖θ‖² between neighbouring ε (1 = linear regime): "
              + ", ".join(f"{s['slope']:.2f}" for s in js["slopes"]), ""]
    if lv["flat_intervals"]:
        lines.append("The trained objective stops following ε (log-log slope < 1/2) on "
                     + ", ".join(f"[{a:.3g}, {b:.3g}]" for a, b in lv["flat_intervals"]) + ".")
    if lv["above_exact_line_at_eps"]:
        lines.append("It lies ABOVE the exact line ε‖θ*‖² at ε = "
                     + ", ".join(f"{e:.3g}" for e in lv["above_exact_line_at_eps"])
                     + ": there the run provably did not reach a global minimiser (the linear "
                     "regime is left at ε ≈ " + f"{lv['largest_eps_above_exact_line']:.3g}"
                     + " and below). Above the committed script's line at ε = "
                     + (", ".join(f"{e:.3g}" for e in lv["above_script_line_at_eps"]) or "none")
                     + (" — with that (buggy) line the departure would go unnoticed."
                        if not lv["above_script_line_at_eps"] else "."))
    else:
        lines.append("The trained objective stays below ε‖θ*‖² at every ε (consistent with "
                     "the bound; no departure from the linear regime is certified).")
    return "\n".join(lines) + "\n"


def plot(path, js: dict) -> None:
    """Log-log plot: trained J and J + eps||theta||^2 against eps, with the lines
    eps ||theta*||^2 (exact threshold) and eps * the committed script's value."""
    from proofcheck.frontend.reporting.plots import pyplot, save_png
    plt = pyplot()
    eps = [r["eps"] for r in js["runs"]]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(eps, [r["objective"] for r in js["runs"]], "o-", color="tab:blue",
              label="trained J + ε‖θ‖²")
    ax.loglog(eps, [max(r["J"], 1e-300) for r in js["runs"]], "s:", color="tab:cyan",
              label="trained J (training loss)")
    ax.loglog(eps, [r["line_exact"] for r in js["runs"]], "-", color="tab:red",
              label=f"ε‖θ*‖², ‖θ*‖² = {js['theta_sq_norm']['approx']} (exact; the bound)")
    ax.loglog(eps, [r["line_script"] for r in js["runs"]], "--", color="gray",
              label=f"ε × {js['script_value']['approx']} (committed script's value: code bug)")
    ax.axhline(js["J_at_zero"], color="k", lw=0.6, ls="-.", label="J(θ = 0)")
    ax.set_xlabel("ε")
    ax.set_ylabel("loss")
    ax.set_title(f"Tikhonov: authors' setting, seed {js['seed']}", fontsize=10)
    ax.legend(fontsize=7, frameon=False, loc="lower right")
    save_png(fig, path)
