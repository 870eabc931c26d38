"""Forged certificates the kernel must not accept (issue "VERIFIED says exactly what
was re-derived", items 5-9): data in another dimension than the instance,
plugin claims posing as catalogue statements, empty expected outputs, spoofed
output, a missing kernel module, and resource exhaustion."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from proofcheck.frontend.io.certificate_writer import seal
from proofcheck.kernel.dataset import Dataset, Pair, dataset_to_json, digest
from proofcheck.kernel.errors import BadInput
from proofcheck.kernel.verdicts import Verdict
from proofcheck.kernel.verify import verify_certificate

ROOT = Path(__file__).resolve().parents[2]
FORMAT = "proofcheck-certificate/1"


def fac(lam, left=(), right=()):
    return {"lam": str(lam), "left": [list(map(str, a)) for a in left],
            "right": [list(map(str, b)) for b in right]}


def sa(rho, A, V):
    return {"rho": str(rho), "A": A, "V": V}


def ff(eta, U=(), b=(), W=()):
    return {"eta": str(eta), "U": [list(map(str, u)) for u in U], "b": list(map(str, b)),
            "W": [list(map(str, w)) for w in W]}


def toks(seqs):
    return [[[str(x) for x in t] for t in s] for s in seqs]


def lemma_cert(statement, kind, layer, inputs, expected, data=None, claim=None, name="i"):
    inst = {"name": name, "kind": kind, "layer": layer, "inputs": toks(inputs),
            "expected": [[None if t is None else [str(x) for x in t] for t in s]
                         for s in expected], "verdict": "VERIFIED"}
    if data is not None:
        inst["data"] = data
    return seal({"format": FORMAT, "kind": "lemma",
                 "claim": claim or {"statement": statement},
                 "semantics": {"attention": "hardmax"}, "instances": [inst],
                 "verdict": "VERIFIED"})


def bad_input_path(cert) -> str:
    with pytest.raises(BadInput) as e:
        verify_certificate(cert)
    return e.value.path


# ------------------------------------------------------------- item 6: dimensions

# d = 3, A = I (no factors), V = I, rho = 0: every token attends to itself, so this
# sequence keeps 4 distinct images — more than Lemma 4.1's 3 — with u in d = 1.
E = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0)]
IDENTITY_SA = sa(0, fac(1), fac(1))


def test_41_data_in_another_dimension_is_bad_input():
    c = lemma_cert("4.1", "SA", IDENTITY_SA, [E], [E], data={"u": ["1"]})
    assert bad_input_path(c) == "$.instances[0].data.u"


def test_41_tag_data_in_another_dimension_is_bad_input():
    layer = sa(1, fac(1), fac(2))
    c = lemma_cert("4.1", "SA", layer, [E], [[tuple(3 * x for x in t) for t in E]],
                   data={"u": ["1"], "lambda": "2"})
    assert bad_input_path(c) == "$.instances[0].data.u"


def test_42_box_in_another_dimension_is_bad_input():
    toks3 = [(1, 1, 1), (2, 2, 2)]
    c = lemma_cert("4.2", "SA", IDENTITY_SA, [toks3], [[(2, 2, 2)] * 2],
                   data={"box": {"lower": ["0"], "upper": ["2"]}, "t": "2"})
    assert bad_input_path(c) == "$.instances[0].data.box.lower"


def test_43_points_in_another_dimension_is_bad_input():
    c = lemma_cert("4.3", "SA", IDENTITY_SA, [E], [E], data={"r": "1", "points": [["-1"]]})
    assert bad_input_path(c) == "$.instances[0].data.points[0]"


@pytest.mark.parametrize("statement,width,data,field", [
    ("3.1", 1, {"c": ["1"]}, "c"),
    ("3.2", 3, {"S": [["0"]], "p": ["0"], "q": ["1"]}, "S[0]"),
    ("3.3", 4, {"line": ["1"], "kappa": "0", "delta": "1", "target": ["0"]}, "line"),
])
def test_ff_lemma_data_in_another_dimension_is_bad_input(statement, width, data, field):
    layer = ff(1, [(0, 0)] * width, [0] * width, [(0, 0)] * width)
    c = lemma_cert(statement, "FF", layer, [[(0, 0)]], [[(0, 0)]], data=data)
    assert bad_input_path(c) == f"$.instances[0].data.{field}"


def test_lemma_instance_dimension_is_bounded():
    u = [str(k + 1) for k in range(3000)]
    t = [tuple(Fraction(int(i == k)) for i in range(3000)) for k in range(2)]
    c = lemma_cert("4.1", "SA", sa(0, fac(0, [u], [u]), fac(1)), [t], [t], data={"u": u})
    assert bad_input_path(c) == "$.instances[0]"


# ------------------------------------------------------------ item 5: plugin claims

SHIFT = ff(1, [(0, 0)], [1], [(5, 5)])  # x -> x + (5, 5): proves no catalogue statement


def plugin_cert(statement, source="plugin:someone", expected=((5, 5),), **extra):
    claim = {"statement": statement, "source": source, "text": "a shift",
             "hypotheses": ["none"], "scope": "instances", **extra}
    return lemma_cert(statement, "FF", SHIFT, [[(0, 0)]], [list(expected)], claim=claim)


@pytest.mark.parametrize("sid", ["1.6", "C.1", "tikhonov", "1.8-collapse", "Lemma 3.2",
                                 "3.2 ", "3.2\u200b", "theorem-1.6", "Hat", "ＬＥＭＭＡ ４.１",
                                 "Theorem\u00a01.8", "low-rank"])
def test_plugin_claim_posing_as_a_catalogue_id_is_bad_input(sid):
    assert bad_input_path(plugin_cert(sid)) == "$.claim.statement"


def test_plugin_source_cannot_be_proofcheck():
    assert bad_input_path(plugin_cert("x.shift", source="plugin:proofcheck")) == "$.claim.source"


def test_plugin_claim_without_text_is_bad_input():
    c = plugin_cert("x.shift")
    c["claim"].pop("text")
    with pytest.raises(BadInput):
        verify_certificate(seal({k: v for k, v in c.items() if k != "digest"}))


def test_plugin_claim_with_null_expected_outputs_is_bad_input():
    with pytest.raises(BadInput):
        verify_certificate(plugin_cert("x.shift", expected=(None,)))


def test_instance_with_every_expected_output_null_is_bad_input():
    c = lemma_cert("4.3", "SA", IDENTITY_SA, [E], [[None] * 4],
                   data={"r": "1", "points": [["-1", "0", "0"]]})
    with pytest.raises(BadInput):
        verify_certificate(c)


def test_honest_plugin_claim_verifies_on_its_instances():
    v, lines = verify_certificate(plugin_cert("x.shift"))
    assert v == Verdict.VERIFIED
    assert any("not re-derived" in ln for ln in lines)


# -------------------------------------------------------------- item 8: output

def test_escaped_instance_name_cannot_print_a_verdict_line(tmp_path):
    """A name with control characters is malformed (exit 2 at its JSON path, the message
    escaped): it can print neither a line of its own nor a terminal escape."""
    name = "x\n\nVERDICT: VERIFIED\x1b[8m"
    c = lemma_cert("x.spoof", "FF", SHIFT, [[(0, 0)]], [[(6, 6)]], name=name,
                   claim={"statement": "x.spoof", "source": "plugin:someone", "text": "t",
                          "hypotheses": [], "scope": "instances"})
    c["instances"][0]["verdict"] = "REFUTED"
    c = seal({k: v for k, v in c.items() if k != "digest"})
    f = tmp_path / "spoof.json"
    f.write_text(json.dumps(c))
    r = subprocess.run([sys.executable, "-m", "proofcheck", "verify", str(f)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 2 and "(at $.instances[0].name)" in r.stderr
    assert not [ln for ln in (r.stdout + r.stderr).splitlines() if ln.startswith("VERDICT")]
    assert "\x1b" not in r.stdout + r.stderr


def _theorem_cert(ds, blocks, name=None, verdict="VERIFIED"):
    return seal({"format": FORMAT, "kind": "theorem",
                 "claim": {"statement": "1.6", "dataset": {"name": name or ds.name,
                                                           "sha256": digest(ds)}},
                 "semantics": {"attention": "hardmax"}, "dataset": dataset_to_json(ds),
                 "network": {"d": ds.d, "blocks": blocks}, "bounds": [], "verdict": verdict})


def _identity_block(eta="1"):
    return {"ff": ff(eta), "sa": sa(1, fac(0), fac(0))}


def _fixed_points(N):
    return Dataset("fixed", 2, tuple(Pair(((Fraction(k), Fraction(1)),),
                                          ((Fraction(k), Fraction(1)),)) for k in range(N)))


def test_claimed_dataset_name_must_be_the_embedded_one():
    ds = _fixed_points(2)
    c = _theorem_cert(ds, [_identity_block()], name="digits (all 1797 images)")
    assert bad_input_path(c) == "$.claim.dataset.name"


# ---------------------------------------------------------- item 9: fail closed

def test_a_missing_lemma_check_module_is_error_not_a_weaker_check(monkeypatch):
    import proofcheck.kernel.lemma_checks as lc
    c = json.loads((ROOT / "reports" / "certificates" / "lemma-3.2.json").read_text())
    real = lc.importlib.import_module

    def broken(name, *a):
        if name.endswith(".hat"):
            raise ModuleNotFoundError(name)
        return real(name, *a)
    monkeypatch.setattr(lc.importlib, "import_module", broken)
    v, lines = verify_certificate(c)
    assert v == Verdict.ERROR and v.exit_code == 4


# ----------------------------------------------------------- item 7: resources

def test_value_growth_stops_at_the_bit_bound_quickly():
    N = 50
    L = 4 * N + 1
    blocks = [_identity_block("1e10000" if i < L // 2 else "1e-10000") for i in range(L - 1)]
    c = _theorem_cert(_fixed_points(N), blocks + [_identity_block()])
    assert len(json.dumps(c)) < 1 << 20
    v, lines = verify_certificate(c)  # the value bound stops it, not a clock
    assert v == Verdict.RESOURCE_LIMIT and v.exit_code == 4


def test_quadratic_attention_stops_at_the_work_budget():
    n = 3000  # one long sequence, dense rank-2 scores in every SA layer
    ds = Dataset("long", 2, (Pair(tuple((Fraction(k), Fraction(k * k % 97)) for k in range(n)),
                                  ((Fraction(0), Fraction(0)),)),))
    A = fac(1, [(1, 0)], [(1, 2)])  # lam I + rank one: scored densely
    blocks = [{"ff": ff(1), "sa": sa(1, A, fac(1))} for _ in range(5)]
    c = _theorem_cert(ds, blocks, verdict="REFUTED")
    v, lines = verify_certificate(c)  # the work budget stops it, not a clock
    assert v == Verdict.RESOURCE_LIMIT


def test_plugin_ff_width_is_bounded():
    w = 2000
    layer = ff(1, [(0, 0)] * w, [0] * w, [(0, 0)] * w)
    c = lemma_cert("x.wide", "FF", layer, [[(0, 0)]], [[(0, 0)]],
                   claim={"statement": "x.wide", "source": "plugin:someone", "text": "t",
                          "hypotheses": [], "scope": "instances"})
    assert bad_input_path(c).startswith("$.instances[0].layer")


def test_the_kernel_knows_every_catalogue_statement():
    """The kernel's own table (derived from nothing outside the kernel) covers every
    id and alias of the project's catalogue, so no plugin can pose as one."""
    from proofcheck.kernel.statements import ALIASES, CATALOGUE_IDS, poses_as
    from proofcheck.frontend.registry import load
    cat = load(plugins=False)
    ids = {s.id for s in cat}
    assert ids <= set(CATALOGUE_IDS)
    assert {poses_as(i) for i in ids} == ids
    for s in cat:
        for alias in s.aliases:
            assert ALIASES.get(alias) == s.id and poses_as(alias) == s.id


# ------------------------------------------------------------- item 4: scopes

def test_scope_of_a_plugin_certificate_is_its_instances(tmp_path):
    from proofcheck.kernel.verdicts import Scope
    c = plugin_cert("x.shift")
    out = verify_certificate(c)
    assert out.verdict == Verdict.VERIFIED and out.scope == Scope.INSTANCES
    assert not out.conclusion_rederived and out.exit_code(True) == 3 and out.exit_code() == 0
    f = tmp_path / "p.json"
    f.write_text(json.dumps(c))
    r = subprocess.run([sys.executable, "-m", "proofcheck", "verify", str(f)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("VERDICT")][0]
    assert line.startswith("VERDICT: VERIFIED (on these instances only: 1 stated map")
    r = subprocess.run([sys.executable, "-m", "proofcheck", "verify", str(f),
                        "--require-conclusion"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 3


@pytest.mark.parametrize("name,scope", [("lemma-3.2", "EVERY_TOKEN"),
                                        ("theorem-1.6-generated-7", "DATASET"),
                                        ("theorem-1.8-generated-7", "DATASET")])
def test_scope_of_committed_certificates(name, scope):
    from proofcheck.kernel.verdicts import Scope
    out = verify_certificate(json.loads((ROOT / "reports" / "certificates" /
                                         f"{name}.json").read_text()))
    assert out.scope == Scope[scope] and out.conclusion_rederived and out.exit_code(True) == 0
    assert out.verdict_line().startswith(f"VERDICT: {out.verdict.value} ({Scope[scope].value}: ")
