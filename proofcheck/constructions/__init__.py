"""Construction lemmas, one module per catalogue statement, grouped by paper.

``proofcheck.constructions.afz``: Alcalde, Fantuzzi, Zuazua, *Exact Sequence Interpolation with
Transformers*.  These modules are the untrusted, constructive side: they build
exact parameters; ``proofcheck.checker`` and ``proofcheck.backends`` check them.
"""
