"""Statements of Alcalde–Fantuzzi–Zuazua (SPEC §2): lemmas 3.1–4.3, the four
phase propositions, and Theorem 1.6."""
