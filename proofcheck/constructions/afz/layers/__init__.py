"""The layer lemmas of the construction (docs/spec.md §2): one module per statement —
``translation`` (3.1), ``hat`` (3.2, 3.2p), ``snap`` (3.3), ``clustering`` (4.1 and
the tag), ``corner`` (4.2), ``sphere`` (4.3), ``softmax_gap``.  Each returns exact
(or sympy-symbolic) FF/SA parameters; its kernel check in
``proofcheck.kernel.lemma_checks`` carries the same name."""
