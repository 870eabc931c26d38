"""scikit-learn's bundled handwritten digits (the ``data`` extra): the one module
that reads them.  :func:`proofcheck.frontend.io.examples.digits` turns the images
into patch sequences."""
from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

from proofcheck.kernel.errors import BadInput

#: the file ``sklearn.datasets.load_digits`` reads, inside the installed scikit-learn package
BUNDLED = ("datasets", "data", "digits.csv.gz")


def load_images():
    """``(images, labels)`` of ``sklearn.datasets.load_digits()``: 1797 arrays of
    shape ``(8, 8)`` with values 0..16, and their labels 0..9 (bundled with
    scikit-learn, no download).  The bundled file is read as ``load_digits`` reads it
    (gzip, ``numpy.loadtxt``, the last column the label) without importing scikit-learn,
    whose import takes about a second; where that file is not found, ``load_digits``
    runs.  Raises ``BadInput`` when scikit-learn is missing."""
    path = _bundled_file()
    if path is not None:
        import numpy as np
        try:
            with gzip.open(path, mode="rt", encoding="utf-8") as f:
                data = np.loadtxt(f, delimiter=",")
        except (OSError, ValueError, EOFError):
            data = None
        if data is not None and data.ndim == 2 and data.shape[1] == 65:
            return data[:, :-1].reshape(-1, 8, 8), data[:, -1].astype(int)
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise BadInput("the 'digits' example needs scikit-learn: pip install -e .[data] "
                       "(or use --example digits-sample)") from None
    bunch = load_digits()
    return bunch.images, bunch.target


def _bundled_file() -> Path | None:
    """The installed scikit-learn's ``digits.csv.gz`` (found without importing the
    package), or ``None``."""
    try:
        spec = importlib.util.find_spec("sklearn")
    except (ImportError, ValueError):
        return None
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    path = next((Path(r).joinpath(*BUNDLED) for r in roots
                 if Path(r).joinpath(*BUNDLED).is_file()), None)
    return path
