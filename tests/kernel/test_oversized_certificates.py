"""Forged and oversized certificates the kernel must refuse (exit 2) or stop on (RESOURCE-LIMIT),
never VERIFIED: committed certificates with one field changed and resealed, short stated radii,
plugin ids that look like catalogue ids, and small files whose values or checks blow up."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from proofcheck.frontend.io.certificate_writer import seal
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate

ROOT = Path(__file__).resolve().parents[2]
CERTS = ROOT / "reports" / "certificates"


PLUGIN_CLAIM = {"statement": "x.big", "source": "plugin:someone", "text": "t",
                "hypotheses": ["none"], "scope": "instances"}


def committed(name: str) -> dict:
    return json.loads((CERTS / f"{name}.json").read_text(encoding="utf-8"))


def resealed(cert: dict) -> dict:
    body = {k: v for k, v in copy.deepcopy(cert).items() if k != "digest"}
    return seal(body)


@pytest.mark.parametrize("radius", [[], ["0"]])
def test_18_radius_with_fewer_coordinates_than_d_is_bad_input(radius):
    """Stated radii of the wrong length were zipped with the derived ones: ``[]``
    checked nothing and reset every box to a point, so a tau far beyond tau* verified."""
    c = committed("theorem-1.8-generated-7")
    c["semantics"]["tau"] = "1000000"
    for h in c["bounds"]["layers"]:
        h["radius"] = list(radius)
        if h["sublayer"] == "SA":
            h["max_eps"] = "1"
    with pytest.raises(BadInput) as e:
        verify_certificate(resealed(c))
    assert e.value.path == "$.bounds.layers[0]"


@pytest.mark.parametrize("sid,catalogue", [
    ("lemma3.2", "3.2"), ("Lemma_3.2", "3.2"), ("theorem1.6", "1.6"), ("Theorem_1.6", "1.6"),
    ("thm1.6", "1.6"), ("lowrank", "low-rank"), ("1.8.collapse", "1.8-collapse"),
    ("C1", "C.1"), ("3.2.", "3.2"), ("lemma_hat", "3.2"), ("theorem_1.8_collapse", "1.8-collapse")])
def test_plugin_ids_glued_to_a_prefix_or_without_separators_pose_as_catalogue(sid, catalogue):
    """ASCII look-alikes the plugin id grammar accepts: a prefix glued on ("lemma3.2",
    "Lemma_3.2") was not stripped, separators dropped ("lowrank") were not compared."""
    from proofcheck.kernel.statements import poses_as
    from test_forged_lemma_certificates import plugin_cert
    assert poses_as(sid) == catalogue
    with pytest.raises(BadInput) as e:
        verify_certificate(plugin_cert(sid))
    assert e.value.path == "$.claim.statement"


def _verdict_under_memory_limit(cert: dict, tmp_path) -> str:
    import subprocess
    import sys
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert), encoding="utf-8")
    assert path.stat().st_size < 1 << 20
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29)); "
            "from proofcheck.kernel.verify import verify_file; "
            "print(verify_file(sys.argv[1]).verdict.name)")
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                       timeout=60, cwd=ROOT)
    return r.stdout.strip()


def _big_value_sa_cert(n: int) -> dict:
    """A 43 KB plugin SA instance: one sequence of ``n`` tokens of ~33,000-bit values
    (``k e-9999``), ``A = V = I``: n^2 dense scores of ~66,000 bits each."""
    from test_forged_lemma_certificates import fac, lemma_cert, sa
    claim = PLUGIN_CLAIM
    c = lemma_cert("x.big", "SA", sa(1, fac(1), fac(1)), [[(0, 0)]], [[(0, 0)]], claim=claim)
    inst = c["instances"][0]
    inst["inputs"] = [[[f"{k}e-9999", f"{k * k + 1}e-9998"] for k in range(1, n + 1)]]
    inst["expected"] = [[["0", "0"]] * n]
    return resealed(c)


def test_dense_scores_of_huge_values_stop_at_the_work_budget(tmp_path):
    """The score work was charged by count only: this 43 KB certificate ran 111 s in
    16 GB before REFUTED.  Under a 1.5 GB address-space limit: RESOURCE-LIMIT, not a
    MemoryError (ERROR) or a timeout."""
    assert _verdict_under_memory_limit(_big_value_sa_cert(1000), tmp_path) == "RESOURCE_LIMIT"


def _exponent_ff_cert(n: int, exponent: int) -> dict:
    """A plugin FF instance on ``n`` one-token sequences whose coordinates are
    ``k e-<exponent>``: 7 characters each, ~3.3 x exponent bits each."""
    from test_forged_lemma_certificates import ff, lemma_cert
    claim = PLUGIN_CLAIM
    layer = ff("1/3", [("1/7", "2/11")] * 4, ["1/13"] * 4, [("3/17", "5/19")] * 4)
    c = lemma_cert("x.big", "FF", layer, [[(0, 0)]], [[(0, 0)]], claim=claim)
    inst = c["instances"][0]
    inst["inputs"] = [[[f"{k}e-{exponent}", f"{k + 7}e-{exponent - 1}"]] for k in range(1, n + 1)]
    inst["expected"] = [[["0", "0"]]] * n
    return resealed(c)


def test_decimal_exponents_are_charged_to_the_work_budget(tmp_path):
    """900 KB of ``"k e-9999"`` coordinates (33,000-bit values from 7 characters) ran 26 s
    in 3.6 GB, most of it in the schema's parse before any budget; now RESOURCE-LIMIT."""
    assert _verdict_under_memory_limit(_exponent_ff_cert(20000, 9999), tmp_path) == \
        "RESOURCE_LIMIT"


def test_small_decimal_exponents_still_verify():
    """The same form with ``e-3``: well inside the budget, checked and refuted (the
    stated outputs are wrong)."""
    assert verify_certificate(_exponent_ff_cert(200, 3)).verdict.name == "REFUTED"


def _lemma41_d64(n: int) -> dict:
    """``n`` true Lemma 4.1 instances in d = 64 (1,800 bytes each): every one forms
    several dense 64 x 64 matrices of Python Fractions."""
    c = committed("lemma-4.1")
    d, u = 64, [str(k % 7 + 1) for k in range(64)]
    inst = {"name": "x", "kind": "SA", "d": d, "verdict": "VERIFIED", "data": {"u": u},
            "layer": {"rho": "0", "A": {"lam": "0", "left": [u], "right": [u]},
                      "V": {"lam": "1", "left": [], "right": []}},
            "inputs": [[["0"] * d]], "expected": [[["0"] * d]]}
    c["instances"] = [copy.deepcopy(inst) for _ in range(n)]
    return resealed(c)


def test_dense_lemma_matrices_are_charged_as_fraction_work():
    """548 such instances (1 MB) took 23 s: the dense matrices were charged like fmpq
    steps.  Now 40 units an entry-term: 40 instances (70 KB) exceed the 2e7 budget (work
    units, not a clock, stop it)."""
    assert verify_certificate(_lemma41_d64(40)).verdict.name == "RESOURCE_LIMIT"
    assert verify_certificate(_lemma41_d64(2)).verdict.name == "VERIFIED"


def _sphere_points(n: int) -> dict:
    """One Lemma 4.3 instance with ``n`` rational points of the unit circle in the
    negative quadrant: its conclusion compares every pair of points."""
    from fractions import Fraction
    c = committed("lemma-4.3")
    pts = []
    for t in range(1, n + 1):
        s = Fraction(t, n + 1)
        pts.append([str(-(1 - s * s) / (1 + s * s)), str(-2 * s / (1 + s * s))])
    c["instances"] = [{"name": "x", "kind": "SA", "d": 2, "verdict": "VERIFIED",
                       "layer": {"rho": "0", "A": {"lam": "1", "left": [], "right": []},
                                 "V": {"lam": "1", "left": [], "right": []}},
                       "inputs": [[["-1", "0"]]], "expected": [[["-1", "0"]]],
                       "data": {"r": "1", "points": pts}}]
    return resealed(c)


def test_sphere_points_pairwise_work_is_charged():
    """6,000 points (270 KB) ran over a minute (an uncharged pairwise loop); 1,200 now
    stop at the work budget, 10 still verify."""
    assert verify_certificate(_sphere_points(1200)).verdict.name == "RESOURCE_LIMIT"
    assert verify_certificate(_sphere_points(10)).verdict.name == "VERIFIED"


def test_low_rank_check_of_wide_layers_is_charged():
    """The low-rank form of A and V was decided on dense Python-Fraction matrices without
    a charge: 22 SA layers with 32 factors in d = 64 (1 MB) took 12.5 s.  32 <= d - 2 terms are
    decided from their 32 x 32 Gram product (a few thousand units): three such layers (130 KB)
    are REFUTED with the first block's rank.  31 terms of 33,000-bit entries in d = 32 (a dense
    decision: 15 s of exact ranks) stop at the budget, charged by their entries' bits."""
    import random
    from fractions import Fraction
    from proofcheck.kernel.dataset import Dataset, Pair
    from test_forged_lemma_certificates import _theorem_cert
    rng = random.Random(2)

    def data(d):
        e = [tuple(Fraction(int(i == k)) for i in range(d)) for k in range(2)]
        return Dataset("wide", d, tuple(Pair((t,), (t,)) for t in e))

    def fac(d, r, entry):
        return {"lam": "0", "left": [[entry() for _ in range(d)] for _ in range(r)],
                "right": [[entry() for _ in range(d)] for _ in range(r)]}
    small = lambda: str(rng.randint(-9, 9))  # noqa: E731
    blocks = [{"ff": {"eta": "1", "U": [], "b": [], "W": []},
               "sa": {"rho": "1", "A": fac(64, 32, small), "V": fac(64, 32, small)}}
              for _ in range(3)]
    out = verify_certificate(_theorem_cert(data(64), blocks, verdict="REFUTED"))
    assert out.verdict.name == "REFUTED"
    assert any(ln.startswith("block 1 SA: A - c I has rank >= 32 > 1") for ln in out.lines)
    huge = lambda: f"{rng.randint(1, 9)}e-9999"  # noqa: E731
    blocks = [{"ff": {"eta": "1", "U": [], "b": [], "W": []},
               "sa": {"rho": "1", "A": fac(32, 31, huge), "V": fac(32, 0, huge)}}]
    assert verify_certificate(_theorem_cert(data(32), blocks)).verdict.name == "RESOURCE_LIMIT"


@pytest.mark.parametrize("name", ["theorem-1.6-digits-sample", "theorem-1.8-generated-7",
                                  "lemma-3.2"])
def test_a_stated_refutation_whose_content_holds_is_error(name):
    """A re-sealed certificate stating REFUTED whose network meets its claim has no witness
    to give: the certificate contradicts itself, ERROR (exit 4), not REFUTED."""
    c = committed(name)
    assert verify_certificate(c).verdict.passed
    c["verdict"] = Verdict.REFUTED.value
    out = verify_certificate(resealed(c))
    assert out.verdict == Verdict.ERROR and out.exit_code() == 4
