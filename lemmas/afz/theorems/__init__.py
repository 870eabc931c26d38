"""The theorems and the statements about whole networks: ``theorem_1_6``
(hardmax), ``theorem_1_8`` (softmax), ``softmax_collapse`` (1.8-collapse),
``tikhonov``; ``options`` holds the construction options they share."""
