"""Statements from the appendix of Takakura & Suzuki, *Approximation and Estimation
Ability of Transformers for Sequence-to-Sequence Functions with Infinite
Dimensional Input* (ICML 2023), as read in a Japanese study note on its appendix
(one of the two source notes; docs/spec.md §2, rows C.1, C.3, C.4, E.1, G.1, G.2).

One module per statement:

=====  =========================  ==============================================
id     module                     method
=====  =========================  ==============================================
C.1    ``softmax_concentration``  sympy proof of the sharp form + arb instances
C.3    ``near_orthogonal``        seeded ±1 construction, exact integer Gram
C.4    ``score_lipschitz``        sympy constant count + exact integer instances
E.1    ``competitors``            sympy reduction to C.1 + arb instances/witness
G.1    ``polarisation``           sympy identity (every dimension) + exact witness
G.2    ``bernstein_union``        sympy algebra + exact small-case distributions
=====  =========================  ==============================================

Helpers: ``balls`` (three-valued comparisons of python-flint ``arb`` balls: an
overlap is *undecided*, never a pass) and ``search`` (seeded counterexample search,
with hypothesis when it is installed).  No float ever decides a verdict.

Each ``run(dataset=None, seed=0)`` ignores ``dataset`` (these statements are about
parameters, not sequence data); ``seed`` drives the instances.  The first check of
every run lists the conventions used (lines starting ``convention:``).
"""
