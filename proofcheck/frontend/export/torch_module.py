"""PyTorch export (issue 13, deliverable 1): a directory with

* ``proofcheck_net.py`` — the standalone module source
  (:mod:`proofcheck.frontend.export.standalone_torch`, copied verbatim; imports only torch);
* ``state_dict.pt`` — the tensors (:func:`proofcheck.frontend.export.arch.arrays`), saved
  with ``torch.save`` (load with ``weights_only=True``);
* ``architecture.json`` — the description with the metadata.

torch is an optional extra (``pip install proofcheck[torch]``), imported lazily.
"""
from __future__ import annotations

import json
from pathlib import Path

SOURCE_NAME = "proofcheck_net.py"


def module_source() -> str:
    """Text of the standalone module (no proofcheck import)."""
    return (Path(__file__).with_name("standalone_torch.py")).read_text(encoding="utf-8")


FILES = ("architecture.json", "state_dict.pt", SOURCE_NAME)


def replaceable(directory) -> bool:
    """True when ``directory`` does not exist, or is a directory holding nothing but
    a previous export's files (so replacing it loses nothing else)."""
    directory = Path(directory)
    if not directory.exists():
        return True
    return directory.is_dir() and all(p.name in FILES for p in directory.iterdir())


def write_torch(directory, tensors: dict, description: dict, dtype: str = "float64") -> Path:
    """Write the export directory; ``tensors``: name -> numpy array; ``dtype``:
    ``float64``, ``float32`` or ``bfloat16`` (values already rounded to it, so the
    cast is exact).  Files are written to a temporary folder first and moved into
    place, so a failure leaves nothing half-written.  Returns the directory."""
    import os
    import shutil
    import tempfile

    import torch

    from proofcheck.frontend.export.arch import require_one_unmasked_head
    require_one_unmasked_head(description, "the PyTorch export")
    tdt = {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16}[dtype]
    directory = Path(directory)
    if not replaceable(directory):
        raise ValueError(f"{directory} exists and holds other files than a proofcheck torch "
                         "export; refusing to replace it")
    directory.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=directory.parent, prefix=".tmp-export-"))
    try:
        sd = {k: torch.from_numpy(v.copy()).to(tdt) for k, v in tensors.items()}
        torch.save(sd, tmp / "state_dict.pt")
        (tmp / "architecture.json").write_text(json.dumps(description, indent=1) + "\n",
                                               encoding="utf-8")
        (tmp / SOURCE_NAME).write_text(module_source(), encoding="utf-8")
        for p in tmp.iterdir():
            os.chmod(p, 0o644)
        os.chmod(tmp, 0o755)
        if directory.exists():
            shutil.rmtree(directory)
        os.replace(tmp, directory)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return directory
