"""The theorems and the statements about whole networks: ``theorem_1_6``
(hardmax), ``theorem_1_8`` (softmax), ``softmax_collapse`` (1.8-collapse),
``tikhonov``; ``phase_statements`` (the four phases as statements, checked on the
1.6 construction); ``constructions`` (the named constructions)."""
