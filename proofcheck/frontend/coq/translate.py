"""A certificate as Coq source (docs/architecture/coq.md): its network, its dataset in chunks of pairs, or
its lemma instances, every number transcribed by :func:`proofcheck.frontend.coq.numerals.literal`, and
the files that state the claim of ``coq/theories/Semantics.v`` and check it.  Reads the
certificate with the kernel's reader (strict JSON, the published schema) and checks shapes
(every vector of length d, one ``U``, ``b``, ``W`` entry per hidden unit, ``left`` and ``right``
of one length) from the text; computes nothing about the network.

Errors: ``BadInput`` (exit 2) with the JSON path: a certificate outside this route (Theorem
1.8, a softmax SA instance), a shape or a number it cannot transcribe."""
from dataclasses import dataclass

from proofcheck.frontend.coq.numerals import literal
from proofcheck.kernel.documents import read_json
from proofcheck.kernel.reader import read_certificate
from proofcheck.kernel.errors import BadInput

HEADER = ("From Coq Require Import List.\n"
          "From Proofcheck Require Import Semantics Fast Checker Soundness.\n"
          "Import ListNotations.\nOpen Scope cert_scope.\n")


def read(path) -> dict:
    """A certificate file (JSON as written: numbers stay the strings the file holds), read
    strictly and checked field by field by the kernel's reader (docs/spec.md §3); ``BadInput``
    at the JSON path of the first violation."""
    cert = read_json(path, "certificate")
    read_certificate(cert)  # every field and number checked; the translation copies the text
    return cert


# ------------------------------------------------------------------ terms
def vector(v, d: int, path: str) -> str:
    if len(v) != d:
        raise BadInput(f"a vector of {len(v)} numbers, the dimension is d = {d}", path)
    return "[" + "; ".join(literal(x, f"{path}[{i}]") for i, x in enumerate(v)) + "]"


def matrix(rows, d: int, path: str) -> str:
    return "[" + "; ".join(vector(r, d, f"{path}[{k}]") for k, r in enumerate(rows)) + "]"


def factored(o, d: int, path: str) -> str:
    if len(o["left"]) != len(o["right"]):
        raise BadInput("'left' and 'right' have different lengths", path)
    return (f"(Factored {literal(o['lam'], path + '.lam')} {matrix(o['left'], d, path + '.left')} "
            f"{matrix(o['right'], d, path + '.right')})")


def ff(o, d: int, path: str) -> str:
    if not len(o["U"]) == len(o["b"]) == len(o["W"]):
        raise BadInput("U, b and W have different numbers of hidden units", path)
    b = "[" + "; ".join(literal(x, f"{path}.b[{k}]") for k, x in enumerate(o["b"])) + "]"
    return (f"(FF {literal(o['eta'], path + '.eta')} {matrix(o['U'], d, path + '.U')} {b} "
            f"{matrix(o['W'], d, path + '.W')})")


def sa(o, d: int, path: str) -> str:
    """One head as ``A``, ``V`` is the list of that one head; ``causal`` absent is false."""
    heads = ([(o, path)] if "heads" not in o
             else [(h, f"{path}.heads[{k}]") for k, h in enumerate(o["heads"])])
    hs = "; ".join(f"Head {factored(h['A'], d, p + '.A')} {factored(h['V'], d, p + '.V')}"
                   for h, p in heads)
    return (f"(SA {literal(o['rho'], path + '.rho')} [{hs}] "
            f"{'true' if o.get('causal', False) else 'false'})")


def sequence(s, d: int, path: str) -> str:
    return matrix(s, d, path)


# ------------------------------------------------------------------ Theorem 1.6
@dataclass(frozen=True)
class Theorem:
    """A Theorem 1.6 certificate: ``net`` (its network's definitions), ``pairs`` (the
    dataset's pair objects), ``d``, ``blocks``; ``tokens(j)``: input tokens of pair ``j``."""

    d: int
    net: str
    pairs: list
    blocks: int

    def tokens(self, j: int) -> int:
        return len(self.pairs[j]["input"])


def theorem(cert) -> Theorem:
    """``BadInput`` unless a Theorem 1.6 (hardmax) certificate of consistent dimension."""
    if cert["claim"]["statement"] != "1.6" or cert["semantics"]["attention"] != "hardmax":
        raise BadInput("Coq re-checks Theorem 1.6 (hardmax) certificates and lemma instances; "
                       "a Theorem 1.8 (softmax) certificate's exp bounds and their propagation "
                       "stay with the kernel (docs/architecture/coq.md)", "$.claim.statement")
    d = cert["network"]["d"]
    for where, value in (("$.dataset.d", cert["dataset"]["d"]),
                         ("$.claim.d", cert["claim"].get("d", d))):
        if value != d:
            raise BadInput(f"d = {value} here but the network states d = {d}", where)
    return Theorem(d, net_defs(cert["network"]), cert["dataset"]["pairs"],
                   len(cert["network"]["blocks"]))


def net_defs(network) -> str:
    """``d`` and ``net``, one definition per block (small terms parse fast)."""
    d, names = network["d"], []
    lines = [f"Definition d : nat := {d}.\n"]
    for i, b in enumerate(network["blocks"]):
        at = f"$.network.blocks[{i}]"
        names.append(f"block_{i}")
        lines.append(f"Definition block_{i} : block num := "
                     f"Block {ff(b['ff'], d, at + '.ff')} {sa(b['sa'], d, at + '.sa')}.")
    lines.append(f"\nDefinition net : list (block num) := [{'; '.join(names)}].\n")
    return "\n".join(lines)


#: the network prepared and found well formed once, for every chunk of pairs
NET_PREP = ("Definition pnet := Eval vm_compute in prepare (read_net net).\n"
            "Lemma pnet_ok : prepare (read_net net) = pnet.\n"
            "Proof. vm_cast_no_check (eq_refl pnet). Qed.\n"
            "Lemma net_wf : net_okb d net = true.\n"
            "Proof. vm_cast_no_check (eq_refl true). Qed.\n")

#: the claim of a chunk, computed once at ``Qed`` by Coq's kernel, and its assumptions
CLAIM = ("Lemma computed : check_data d pnet data = true.\n"
         "Proof. vm_cast_no_check (eq_refl true). Qed.\n\n"
         "Theorem claim : theorem_1_6 d net data.\n"
         "Proof. exact (chunk_sound d net pnet data net_wf pnet_ok computed). Qed.\n\n"
         "Print Assumptions claim.\n")

#: where a failed chunk fails (Checker.diagnose_data): ``[]`` nowhere, ``[0]`` not well
#: formed, ``[1; j; i]`` output ``i`` of pair ``j`` (within the chunk) is not a target,
#: ``[2; j; k]`` target ``k`` of pair ``j`` is not hit
DIAG = "Eval vm_compute in diagnose_data d pnet data.\n"


def data_defs(th: Theorem, lo: int, hi: int) -> str:
    """The pairs ``lo <= j < hi`` as ``data``, one definition per pair."""
    lines, d = [], th.d
    for j in range(lo, hi):
        at = f"$.dataset.pairs[{j}]"
        p = th.pairs[j]
        lines.append(f"Definition pair_{j} : list (list num) * list (list num) := "
                     f"({sequence(p['input'], d, at + '.input')}, "
                     f"{sequence(p['output'], d, at + '.output')}).")
    names = "; ".join(f"pair_{j}" for j in range(lo, hi))
    lines.append(f"\nDefinition data : list (list (list num) * list (list num)) := [{names}].\n")
    return "\n".join(lines)


def files(th: Theorem, parts) -> dict:
    """``{module: text}`` for the chunks ``parts`` (``[(lo, hi)]``): one ``Certificate.v``
    for one chunk, else ``Net.v`` and a ``Chunk{k}.v`` per chunk; the diagnosis modules
    (``Diagnosis.v``, ``Diag{k}.v``) are run only after a failed check."""
    net = th.net
    if len(parts) == 1:
        data = data_defs(th, *parts[0])
        return {"Certificate": HEADER + net + NET_PREP + data + CLAIM,
                "Diagnosis": HEADER + net + "Definition pnet := prepare (read_net net).\n"
                             + data + DIAG}
    out = {"Net": HEADER + net + NET_PREP}
    for k, (lo, hi) in enumerate(parts):
        data = data_defs(th, lo, hi)
        use = "From Cert Require Import Net.\n"
        out[f"Chunk{k}"] = HEADER + use + data + CLAIM
        out[f"Diag{k}"] = HEADER + use + data + DIAG
    return out


# ------------------------------------------------------------------ lemma instances
@dataclass(frozen=True)
class Lemma:
    """A lemma certificate: ``module`` (Instances.v), ``count`` instances."""

    statement: str
    module: str
    count: int


def _instance_d(i, k: int) -> int:
    d = i.get("d")
    if d is None:  # format 1: the instance's dimension is its tokens'
        d = len(i["inputs"][0][0])
    return d


def _expected(E, d: int, path: str) -> str:
    rows = []
    for j, s in enumerate(E):
        toks = ["None" if t is None else f"Some {vector(t, d, f'{path}[{j}][{i}]')}"
                for i, t in enumerate(s)]
        rows.append("[" + "; ".join(toks) + "]")
    return "[" + "; ".join(rows) + "]"


def instance_defs(i, k: int, hardmax: bool) -> str:
    at, d = f"$.instances[{k}]", _instance_d(i, k)
    if i["kind"] == "SA" and not hardmax:
        raise BadInput("a softmax SA instance: Coq re-checks hardmax SA layers only "
                       "(docs/architecture/coq.md)", at)
    if len(i["inputs"]) != len(i["expected"]) or any(
            len(a) != len(b) for a, b in zip(i["inputs"], i["expected"])):
        raise BadInput("inputs and expected outputs differ in shape", at)
    if all(y is None for s in i["expected"] for y in s):  # as the kernel's lemma check
        raise BadInput("an instance must state every input and at least one expected output "
                       "(every expected output is null: nothing to check)", at + ".expected")
    layer = (f"FFLayer {ff(i['layer'], d, at + '.layer')}" if i["kind"] == "FF"
             else f"SALayer {sa(i['layer'], d, at + '.layer')}")
    inputs = "[" + "; ".join(sequence(s, d, f"{at}.inputs[{j}]")
                             for j, s in enumerate(i["inputs"])) + "]"
    return (f"Definition d_{k} : nat := {d}.\n"
            f"Definition layer_{k} : layer num := {layer}.\n"
            f"Definition inputs_{k} : list (list (list num)) := {inputs}.\n"
            f"Definition expected_{k} : list (list (option (list num))) := "
            f"{_expected(i['expected'], d, at + '.expected')}.\n")


def lemma(cert) -> Lemma:
    hardmax = cert["semantics"]["attention"] == "hardmax"
    defs = [instance_defs(i, k, hardmax) for k, i in enumerate(cert["instances"])]
    return Lemma(cert["claim"]["statement"], HEADER + "\n".join(defs), len(defs))


def lemma_files(lem: Lemma) -> dict:
    """``Instances.v``: the instances, one claim per instance computed once at ``Qed``, and
    their conjunction ``claim``; ``InstDiag.v`` (run after a failure): each instance's check."""
    parts = [lem.module]
    for k in range(lem.count):
        parts.append(f"Lemma computed_{k} : check_instance d_{k} layer_{k} inputs_{k} "
                     f"expected_{k} = true.\nProof. vm_cast_no_check (eq_refl true). Qed.\n"
                     f"Theorem claim_{k} : instance d_{k} layer_{k} inputs_{k} expected_{k}.\n"
                     f"Proof. exact (check_instance_sound _ _ _ _ computed_{k}). Qed.\n")
    props = [f"instance d_{k} layer_{k} inputs_{k} expected_{k}" for k in range(lem.count)]
    proof = f"claim_{lem.count - 1}"
    for k in reversed(range(lem.count - 1)):
        proof = f"(conj claim_{k} {proof})"
    conj = " /\\ ".join(props)
    parts.append(f"Theorem claim : {conj}.\nProof. exact {proof}. Qed.\n\nPrint Assumptions claim.")
    checks = "; ".join(f"check_instance d_{k} layer_{k} inputs_{k} expected_{k}"
                       for k in range(lem.count))
    return {"Instances": "\n".join(parts) + "\n",
            "InstDiag": lem.module + f"\nEval vm_compute in [{checks}].\n"}


def translate(cert):
    """The :class:`Theorem` or :class:`Lemma` of a read certificate."""
    return theorem(cert) if cert["kind"] == "theorem" else lemma(cert)
