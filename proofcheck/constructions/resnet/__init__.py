"""The ``resnet`` statement (docs/spec.md §2): residual FF networks on flattened sequences
against the transformer of Theorem 1.6, and the token-wise obstruction.

=============  ==============================================================
module         holds
=============  ==============================================================
``chain``      a chain of relocation layers (Lemma 3.2) mapping points to images
``flattened``  the ResNet on flattened sequences, tokenisations, padding
``tokenwise``  shared-token obstruction, exact decision, FF-only networks
``checks``     ``run``: the checks printed by ``python -m proofcheck lemma resnet``
=============  ==============================================================
"""
