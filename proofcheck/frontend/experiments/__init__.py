"""Experiments: float training runs beside the exact checks (clearly labelled
simulations; no verdict is ever decided here).  Optional dependencies (PyTorch)
are imported lazily inside each experiment."""
