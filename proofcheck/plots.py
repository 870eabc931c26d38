"""Pictures for reports (matplotlib, Agg backend; deterministic metadata)."""
from __future__ import annotations

from pathlib import Path


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def softmax_error_plot(path, curve, trials, tau_cert, tau_num, title: str) -> Path:
    """PNG of the simulated error against tau (log-log), with the certified
    trials marked; ``curve``: ``[(tau, error)]``, ``trials``: ``[(tau, verdict)]``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    if curve:
        pts = sorted((float(t), max(float(e), 1e-300)) for t, e in curve)
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label="simulated error (mpmath)")
        ax.set_ylabel("max distance output ↔ target")
    else:
        ax.set_xscale("log")
        ax.set_yticks([])
    xs = [float(t) for t, _ in curve] + ([float(tau_cert)] if tau_cert is not None else [])
    lo, hi = (min(xs) / 2, max(xs) * 2) if xs else (None, None)
    for t, v in trials:
        if lo is not None and not lo <= float(t) <= hi:
            continue
        ok = v.value == "VERIFIED-CERTIFIED"
        ax.axvline(float(t), color="tab:green" if ok else "tab:red", alpha=0.25, lw=1)
    if tau_cert is not None:
        ax.axvline(float(tau_cert), color="tab:green", lw=2, label=f"tau_cert = {float(tau_cert):.4g}")
    if tau_num is not None:
        ax.axvline(float(tau_num), color="tab:orange", lw=2, ls="--", label=f"tau_num = {float(tau_num):.4g}")
    if lo is not None:
        ax.set_xlim(lo, hi)
    ax.set_xlabel("temperature tau")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)
    return path
