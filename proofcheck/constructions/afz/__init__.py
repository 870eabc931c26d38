"""Statements of Alcalde–Fantuzzi–Zuazua (docs/spec.md §2), by kind: ``layers`` (lemmas
3.1–4.3 and softmax-gap), ``phases`` (separation, leaders, collapse, interpolation),
``theorems`` (1.6, 1.8 and the statements about whole networks); ``scalars``,
``probes``, ``instances`` and ``options`` (construction options: float-safe snaps
and hats) are their shared helpers."""
