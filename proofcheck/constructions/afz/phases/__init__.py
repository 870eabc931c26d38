"""The four phase propositions of the Theorem 1.6/1.8 construction (docs/spec.md §4):
``separation`` (phase S), ``leaders`` (phase L), ``collapse`` (phase C),
``interpolation`` (phase I); :mod:`proofcheck.constructions.afz.theorems.phase_statements` runs each
phase as a statement on the Theorem 1.6 construction."""
