"""Coq re-checks certificates (docs/architecture/coq.md): every committed Theorem 1.6 certificate, every
handed VERIFIED case and every committed lemma certificate is VERIFIED by Coq's kernel with no
axiom; one changed weight, one changed target, one dropped block and one changed instance output
are REFUTED with Coq's witness; equal numbers spelled differently stay VERIFIED.  Skipped with
the reason where ``coqc`` is absent (the library is compiled once per session, into the cache
outside the checkout)."""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CASES, case_table

from proofcheck.frontend.cli import main
from proofcheck.frontend.coq import library, run
from proofcheck.kernel.serialize import sha256

pytestmark = pytest.mark.skipif(shutil.which("coqc") is None,
                                reason=f"coqc is not on PATH (install: {library.INSTALL})")

ROOT = Path(__file__).resolve().parents[2]
CERTS = ROOT / "reports" / "certificates"
THEOREMS = sorted(CERTS.glob("theorem-1.6-*.json")) + [ROOT / "tests/data/theorem-1.6-format1.json"]
LEMMAS = sorted(CERTS.glob("lemma-*.json")) + [ROOT / "tests/data/lemma-4.1-format1.json"]
VERIFIED_CASES = [r[0] for r in case_table() if r[2] == 0]


@pytest.fixture(scope="session")
def coq_library():
    """The Coq library, compiled once (cached outside the checkout, keyed by its sources)."""
    return library.build(library.coqc())


def _check(coq_library, cert, tmp_path, name="c.json", **kw):
    """Coq's outcome on ``cert`` (a file, or a dict re-sealed first: the route checks the seal,
    so a mutation reaches Coq only re-sealed)."""
    if isinstance(cert, dict):
        path = tmp_path / name
        path.write_text(json.dumps({**cert, "digest": sha256(
            {k: v for k, v in cert.items() if k != "digest"})}))
        cert = path
    return run.check(cert, **kw)


def test_a_mutation_not_resealed_is_error_before_any_coq_run(coq_library, tmp_path):
    cert, _ = _mutations()["weight"]
    path = tmp_path / "unsealed.json"
    path.write_text(json.dumps(cert))
    out = run.check(path)
    assert (out.status, out.runs) == ("ERROR", []) and "digest mismatch" in out.detail


def test_the_soundness_theorems_use_no_axiom(coq_library):
    r = subprocess.run(["coqc", "-q", "-Q", str(coq_library), "Proofcheck",
                        str(library.SOURCES / "assumptions.v")], capture_output=True, text=True,
                       cwd=coq_library, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(run.CLOSED) == 3 and "Axioms:" not in r.stdout


@pytest.mark.parametrize("cert", THEOREMS, ids=lambda p: p.name)
def test_committed_theorem_certificates_are_verified_by_coq(coq_library, cert):
    out = run.check(cert)
    assert (out.status, out.witness) == ("VERIFIED", None), out.detail


@pytest.mark.parametrize("cert", LEMMAS, ids=lambda p: p.name)
def test_committed_lemma_certificates_are_verified_by_coq(coq_library, cert):
    out = run.check(cert)
    assert (out.status, out.witness) == ("VERIFIED", None), out.detail


@pytest.mark.parametrize("fname", VERIFIED_CASES)
def test_handed_verified_cases_are_verified_by_coq(coq_library, fname, tmp_path):
    cert = tmp_path / "c.json"
    assert main(["theorem", "1.6", "--dataset", str(CASES / fname), "--no-report",
                 "--certificate", str(cert)]) == 0
    out = run.check(cert)
    assert (out.status, out.witness) == ("VERIFIED", None), out.detail


def _generated():
    return json.loads((CERTS / "theorem-1.6-generated-7.json").read_text())


def _mutations():
    weight, target, dropped = _generated(), _generated(), _generated()
    ff = weight["network"]["blocks"][-1]["ff"]
    ff["W"][0][0] = ff["W"][0][0] + "1"            # one digit more in one weight
    target["dataset"]["pairs"][1]["output"][0][0] = "12345"
    del dropped["network"]["blocks"][5]
    return {"weight": (weight, {"code": "output-not-target", "pair": 0, "token": 0}),
            "target": (target, {"code": "output-not-target", "pair": 1, "token": 0}),
            "dropped block": (dropped, {"code": "output-not-target", "pair": 2, "token": 0})}


@pytest.mark.parametrize("name", list(_mutations()))
def test_each_mutation_is_refuted_by_coq_with_its_witness(coq_library, name, tmp_path):
    cert, witness = _mutations()[name]
    out = _check(coq_library, cert, tmp_path)
    assert (out.status, out.witness, out.exit_code) == ("REFUTED", witness, 1)


def test_verify_coq_fails_on_a_resealed_mutation(coq_library, tmp_path, capsys):
    cert, _ = _mutations()["weight"]
    cert["digest"] = sha256({k: v for k, v in cert.items() if k != "digest"})
    path = tmp_path / "m.json"
    path.write_text(json.dumps(cert))
    assert main(["verify", "--coq", str(path)]) == 1
    assert "coq witness [output-not-target]" in capsys.readouterr().out


def test_verify_coq_passes_with_both_checkers(coq_library, capsys):
    assert main(["verify", "--coq", str(CERTS / "theorem-1.6-generated-7.json")]) == 0


def test_a_changed_instance_output_is_refuted(coq_library, tmp_path):
    cert = json.loads((CERTS / "lemma-3.2.json").read_text())
    tok = cert["instances"][2]["expected"][0][0]
    tok[0] = tok[0] + "1" if tok[0] != "0" else "1"
    out = _check(coq_library, cert, tmp_path)
    assert (out.status, out.witness) == ("REFUTED", {"code": "instance-output", "instance": 2})


def _respell(cert, fn):
    for p in cert["dataset"]["pairs"]:
        for seq in (p["input"], p["output"]):
            for tok in seq:
                tok[:] = [fn(x) for x in tok]
    return cert


def _equal_spelling(x):
    s = str(x)
    if "/" in s:
        p, q = s.split("/")
        return f"{p}0/{q}0"                         # 3/4 -> 30/40
    return f"{s}.0" if int(s) % 2 else f"{s}0e-1"  # 3 -> 3.0, 4 -> 40e-1


def test_equal_numbers_spelled_otherwise_stay_verified(coq_library, tmp_path):
    out = _check(coq_library, _respell(_generated(), _equal_spelling), tmp_path)
    assert (out.status, out.witness) == ("VERIFIED", None), out.detail


def test_a_decimal_spelling_of_another_value_is_refuted(coq_library, tmp_path):
    cert = _generated()
    tok = cert["dataset"]["pairs"][3]["output"][0]
    tok[1] = f"{tok[1]}.5" if "/" not in str(tok[1]) else "1.5"
    out = _check(coq_library, cert, tmp_path)
    assert (out.status, out.witness["code"], out.witness["pair"]) == (
        "REFUTED", "output-not-target", 3)


def test_chunks_run_in_parallel_and_all_must_pass(coq_library, tmp_path):
    out = run.check(CERTS / "theorem-1.6-generated-7.json", chunk_pairs=2, jobs=2)
    assert (out.status, out.detail.endswith("in 2 chunks")) == ("VERIFIED", True)
    assert sorted(f for f, _ in out.runs) == ["Chunk0.v", "Chunk1.v", "Net.v"]
    cert, witness = _mutations()["dropped block"]
    out = _check(coq_library, cert, tmp_path, chunk_pairs=1, jobs=1)
    assert (out.status, out.witness) == ("REFUTED", witness)
    assert [f for f, _ in out.runs] == ["Net.v", "Chunk0.v", "Chunk1.v", "Chunk2.v", "Diag2.v"]


def test_a_run_past_its_time_bound_is_a_resource_limit(coq_library, capsys):
    assert main(["coq", "--timeout", "1", str(CERTS / "theorem-1.6-digits-sample.json")]) == 4
    assert "coq: RESOURCE-LIMIT" in capsys.readouterr().out


def _random_network(seed: int, d: int = 3):
    """Two blocks exercising every path of Coq's checker: partially active FF units, two
    causal heads (a rank-one A and lambda I + rank one), then an unmasked rank-one tag with
    rho = 1; small integers, so scores tie."""
    import random
    from fractions import Fraction as F

    from proofcheck.kernel.model import FF, SA, Block, Factored, Transformer
    rng = random.Random(seed)

    def v():
        return tuple(F(rng.randint(-2, 2)) for _ in range(d))
    ff = FF(F(rng.choice([1, 2, -1])), (v(), v()), (F(rng.randint(-2, 2)), F(1, 2)), (v(), v()))
    heads = [(Factored(F(0), (v(),), (v(),)), Factored(F(1, 2), (v(),), (v(),))),
             (Factored(F(1), (v(),), (v(),)), Factored(F(-1), (), ()))]
    tag = SA(F(1), Factored(F(0), (v(),), (v(),)), Factored(F(3)))
    return Transformer(d, [Block(ff, SA.multi(F(1, 3), heads, causal=True)),
                           Block(FF(F(1)), tag)])


def _certificate_of(net, seed: int, shift=None) -> dict:
    """``net``'s certificate on random inputs whose targets are the kernel's own outputs
    (``shift``: one target coordinate moved by 1/7)."""
    import random
    from fractions import Fraction as F

    from proofcheck.frontend.io.certificate_writer import theorem_certificate
    from proofcheck.kernel.dataset import Dataset, Pair
    from proofcheck.kernel.evaluate import run as kernel_run
    from proofcheck.kernel.verdicts import Verdict
    rng = random.Random(seed + 100)
    inputs = [[tuple(F(rng.randint(-3, 3)) for _ in range(net.d)) for _ in range(rng.randint(2, 5))]
              for _ in range(3)]
    outs = kernel_run(net, inputs)
    targets = [list(dict.fromkeys(o)) for o in outs]
    if shift is not None:
        t = targets[shift]
        t[0] = (t[0][0] + F(1, 7),) + t[0][1:]
    ds = Dataset("random", net.d, tuple(Pair(tuple(x), tuple(y)) for x, y in zip(inputs, targets)))
    return theorem_certificate("1.6", ds, net, Verdict.VERIFIED)


@pytest.mark.parametrize("seed", [1, 2])
def test_coq_and_the_kernel_agree_on_heads_masks_and_ties(coq_library, seed, tmp_path):
    out = _check(coq_library, _certificate_of(_random_network(seed), seed), tmp_path)
    assert (out.status, out.witness) == ("VERIFIED", None), out.detail


def test_a_target_the_kernel_does_not_reach_is_refuted(coq_library, tmp_path):
    out = _check(coq_library, _certificate_of(_random_network(1), 1, shift=2), tmp_path)
    assert (out.status, out.witness["pair"]) == ("REFUTED", 2)
