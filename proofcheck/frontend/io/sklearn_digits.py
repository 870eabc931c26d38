"""scikit-learn's bundled handwritten digits (the ``data`` extra): the one module
that imports scikit-learn.  :func:`proofcheck.frontend.io.examples.digits` turns the images
into patch sequences."""
from __future__ import annotations

from proofcheck.kernel.errors import BadInput


def load_images():
    """``(images, labels)`` of ``sklearn.datasets.load_digits()``: 1797 arrays of
    shape ``(8, 8)`` with values 0..16, and their labels 0..9 (bundled with
    scikit-learn, no download).  Raises ``BadInput`` when scikit-learn is missing."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise BadInput("the 'digits' example needs scikit-learn: pip install -e .[data] "
                       "(or use --example digits-sample)") from None
    bunch = load_digits()
    return bunch.images, bunch.target
