"""Real-data example datasets: handwritten digits as patch sequences (docs/spec.md §3, "Real data").

Each 8x8 image of scikit-learn's bundled digits (values 0..16, no download) becomes
a sequence of its 16 non-overlapping 2x2 patches, in row-major patch order.  A
token is (p00, p01, p10, p11, r, c) in Q^6: the four pixel values of the patch
(row-major inside the patch) followed by the patch's (row, column) in the 4x4
patch grid as a positional encoding, so d = 6 and tokens of one image are distinct.

Tasks:

* ``"label"``: input = the 16 patches; output = one token label * e_1 =
  (label, 0, 0, 0, 0, 0).
* ``"inpaint"``: the central 2x2 block of the patch grid (patch rows 1-2, columns
  1-2, i.e. pixels 2..5 x 2..5) is masked: input = the 12 other patches, output =
  the m = 4 masked patches as tokens (their pixel values + their positions).

Images are deduplicated before ``limit`` is applied: an exact duplicate image,
or any later image whose *input set* equals an earlier one (for ``inpaint``,
two different images can agree outside the mask), is dropped and counted in
``info["duplicates_dropped"]``; the first occurrence is kept.  ``limit`` then
keeps the first ``limit`` remaining images in dataset order.
"""
from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources

from proofcheck.frontend.io.datasets import dataset_from_json
from proofcheck.kernel.dataset import Dataset, Pair, Token, check_admissible
from proofcheck.kernel.errors import BadInput

TASKS = ("label", "inpaint")
MASK = frozenset((r, c) for r in (1, 2) for c in (1, 2))  # patch-grid positions masked
SAMPLE_FILE = "digits-sample.json"
_Q = [Fraction(v) for v in range(17)]  # shared Fractions for pixel values/positions


def _patch_tokens(image) -> list[tuple[tuple[int, int], Token]]:
    """The 16 (position, token) pairs of an 8x8 image, row-major patch order."""
    out = []
    for r in range(4):
        for c in range(4):
            px = [int(image[2 * r + a][2 * c + b]) for a in (0, 1) for b in (0, 1)]
            out.append(((r, c), tuple(_Q[v] if 0 <= v <= 16 else Fraction(v)
                                      for v in px + [r, c])))
    return out


def _build(images, labels, task: str, name: str, limit: int | None,
           notes: tuple[str, ...] = ()) -> tuple[Dataset, dict]:
    if task not in TASKS:
        raise BadInput(f"unknown task {task!r}, expected one of {', '.join(TASKS)}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise BadInput(f"limit must be a positive integer (got {limit!r})")
    seen_inputs: set[frozenset] = set()
    seen_images: set[tuple] = set()
    identical = dropped = 0
    pairs = []
    for image, label in zip(images, labels):
        key_img = tuple(int(v) for row in image for v in row)
        if key_img in seen_images:
            identical += 1
        seen_images.add(key_img)
        toks = _patch_tokens(image)
        if task == "label":
            xs = tuple(t for _, t in toks)
            ys = ((Fraction(int(label)),) + (Fraction(0),) * 5,)
        else:
            xs = tuple(t for pos, t in toks if pos not in MASK)
            ys = tuple(t for pos, t in toks if pos in MASK)
        key = frozenset(xs)
        if key in seen_inputs:
            dropped += 1
            continue
        seen_inputs.add(key)
        pairs.append(Pair(xs, ys))
    total = len(seen_images) + identical
    if limit is not None and limit < len(pairs):
        pairs = pairs[:limit]
        name = f"{name}-{limit}"
    ds = Dataset(name=name, d=6, pairs=tuple(pairs), notes=notes)
    check_admissible(ds)
    info = {"images_total": total, "duplicates_dropped": dropped,
            "identical_images": identical, "used": len(pairs), "task": task}
    return ds, info


def digits(limit: int | None = None, task: str = "label") -> tuple[Dataset, dict]:
    """Dataset from ``sklearn.datasets.load_digits()`` (1797 images, no download).

    Returns ``(dataset, info)``; ``info`` has ``images_total``,
    ``duplicates_dropped`` (images dropped because their input set repeats an
    earlier one, counted over all images), ``identical_images`` (exact duplicate
    images among them), ``used`` and ``task``.  Name ``digits`` or
    ``digits-inpaint``, suffixed ``-<limit>`` when a limit is given.
    Raises ``BadInput`` if scikit-learn is missing, the task is unknown or
    ``limit`` is not a positive integer.
    """
    from proofcheck.frontend.io.sklearn_digits import load_images
    images, labels = load_images()
    name = "digits" if task == "label" else f"digits-{task}"
    return _build(images, labels, task, name, limit)


def _sample_json() -> dict:
    ref = resources.files("proofcheck") / "data" / SAMPLE_FILE
    try:
        return json.loads(ref.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot read packaged sample {SAMPLE_FILE}: {e}") from None


def sample(limit: int | None = None, task: str = "label") -> tuple[Dataset, dict]:
    """The packaged ``digits-sample`` (first 40 distinct digits images, task label).

    Needs no optional dependency.  With ``task="inpaint"`` the images are
    rebuilt from the stored patches and masked as in ``digits``.
    Returns ``(dataset, info)`` like ``digits`` plus ``info["source"]``.
    """
    obj = _sample_json()
    base = dataset_from_json(obj, source=SAMPLE_FILE)
    images, labels = [], []
    for pair in base.pairs:
        img = [[0] * 8 for _ in range(8)]
        for tok in pair.inputs:
            p00, p01, p10, p11, r, c = (int(v) for v in tok)
            img[2 * r][2 * c], img[2 * r][2 * c + 1] = p00, p01
            img[2 * r + 1][2 * c], img[2 * r + 1][2 * c + 1] = p10, p11
        images.append(img)
        labels.append(int(pair.outputs[0][0]))
    name = base.name if task == "label" else f"{base.name}-{task}"
    ds, info = _build(images, labels, task, name, limit)
    info["source"] = obj.get("source", "")
    return ds, info


EXAMPLES = {"digits": digits, "digits-sample": sample}
"""Name -> ``f(limit=None, task="label") -> (Dataset, info)`` for ``--example NAME``."""
