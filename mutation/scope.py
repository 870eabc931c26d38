"""What the measurement mutates and how a mutant is judged.

:data:`MODULES`: every construction module of ``proofcheck/constructions/afz`` with the functions
that are check code (statements, proofs, instance generators), which are not
mutated; everything else defined in the module is construction code and is.
:data:`CHECKS`: the user-facing commands that judge a mutant of the module, in
order (a mutant is judged by the first that refutes it); ``{case}`` stands for
each dataset of :func:`dataset_files`, ``{handed}`` for each handed case of :data:`CASES`
found on this machine, and ``{kill}`` for each dataset of :func:`dataset_files` on which
the unmutated command ends VERIFIED (exit 0): the kill datasets of a construction whose
hypothesis not every dataset meets (the seed 1.8 construction's block budget, the causal
constructions' prefix map).  :data:`GROUPS`: the construction group of each module, for
the per-group table.
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_LAYER_CHECK_CODE = ("run", "run_plateau", "symbolic", "_symbolic", "symbolic_tag", "_instance",
                     "_exact", "_fmt", "prove_scores", "prove_dominance", "prove_self_attention",
                     "prove_points", "layer_with", "predicted", "predicted_tag", "attended",
                     "_mean", "perpendicular", "probe_sequences", "random_instances",
                     "random_direction", "box_probes", "R_shift", "many_points_check",
                     "search_bound_check", "rejection_check", "_hat_instance",
                     "_plateau_instance", "tight_direction_sets", "direction_search_check",
                     "search_instances", "search_sweep_check", "rejections_check", "last_fails_sets",
                     "_stated_parameter", "least_k")

# name -> (file, functions that are check code); the table's module names
MODULES = {
    "translation": ("proofcheck/constructions/afz/layers/translation.py", _LAYER_CHECK_CODE),
    "hat": ("proofcheck/constructions/afz/layers/hat.py", _LAYER_CHECK_CODE + ("plateau_ff",)),
    "plateau": ("proofcheck/constructions/afz/layers/hat.py", None),  # plateau_ff only (see functions())
    "snap": ("proofcheck/constructions/afz/layers/snap.py", _LAYER_CHECK_CODE),
    "scalars": ("proofcheck/constructions/afz/scalars.py", ()),
    "clustering/tag": ("proofcheck/constructions/afz/layers/clustering.py", _LAYER_CHECK_CODE),
    "corner": ("proofcheck/constructions/afz/layers/corner.py", _LAYER_CHECK_CODE),
    "sphere": ("proofcheck/constructions/afz/layers/sphere.py", _LAYER_CHECK_CODE),
    "collapse": ("proofcheck/constructions/afz/phases/collapse.py", _LAYER_CHECK_CODE),
    "separation": ("proofcheck/constructions/afz/phases/separation.py", ()),
    "leaders": ("proofcheck/constructions/afz/phases/leaders.py", ()),
    "interpolation": ("proofcheck/constructions/afz/phases/interpolation.py", ()),
    "assembly": ("proofcheck/constructions/afz/theorems/theorem_1_6.py",
                 ("param_formula", "constant_checks", "verify", "run", "construction_failure",
                  "ConstructionFailed", "TheoremCheck", "low_rank_check")),
    # the peel construction (theorem 1.6 --construction peel)
    "peel": ("proofcheck/constructions/afz/layers/peel.py", _LAYER_CHECK_CODE),
    "peeling": ("proofcheck/constructions/afz/phases/peeling.py", ("direct_placement_bound",)),
    "top-collapse": ("proofcheck/constructions/afz/phases/top_collapse.py", ()),
    "peel assembly": ("proofcheck/constructions/afz/theorems/peel.py",
                      ("block_formula", "param_formula", "constant_checks")),
    # the bounded construction (theorem 1.6 --construction bounded)
    "flag": ("proofcheck/constructions/afz/layers/flag.py", ()),
    "bounded separation": ("proofcheck/constructions/afz/phases/bounded_separation.py", ()),
    "flag collapse": ("proofcheck/constructions/afz/phases/flag_collapse.py", ()),
    "bounded assembly": ("proofcheck/constructions/afz/theorems/bounded.py",
                         ("param_formula", "block_formula", "magnitude_bound", "constant_checks")),
    # proofcheck's reconstruction of the seed's 1.8 mechanism (theorem 1.8 --construction seed)
    "converge": ("proofcheck/constructions/afz/layers/converge.py", ("profile", "symbolic", "_symbolic")),
    "seed 1.8": ("proofcheck/constructions/afz/theorems/theorem_1_8_seed.py",
                 ("param_formula", "constant_checks", "notes", "converge_blocks",
                  "softmax_checks", "_flat_check", "converge_layers", "kinks_of", "built_flats",
                  "collapse_half_width")),
    # the causal constructions (theorem 1.6 --attention causal --construction causal-...)
    "causal": ("proofcheck/constructions/causal/prefix_construction.py",
               ("param_formula", "constant_checks", "default_counts", "NoCausalInterpolant")),
}

#: construction group -> modules (the per-group table of ``python -m mutation groups``)
GROUPS = {
    "layer lemmas": ("translation", "hat", "plateau", "snap", "scalars", "clustering/tag",
                     "corner", "sphere"),
    "default phases": ("collapse", "separation", "leaders", "interpolation", "assembly"),
    "peel": ("peel", "peeling", "top-collapse", "peel assembly"),
    "bounded": ("flag", "bounded separation", "flag collapse", "bounded assembly"),
    "seed 1.8": ("converge", "seed 1.8"),
    "causal": ("causal",),
}
ONLY = {"plateau": ("plateau_ff",)}

# handed cases with a VERIFIED verdict (tests/cases or $PROOFCHECK_CASES)
CASES = ("overlap-2d.json", "nested-chain.json", "shared-targets.json")

_THEOREM = [["theorem", "1.6", "--no-report", "--dataset", "{case}"]]
_PEEL = [["theorem", "1.6", "--construction", "peel", "--no-report", "--dataset", "{case}"]]
_BOUNDED = [["theorem", "1.6", "--construction", "bounded", "--no-report", "--dataset", "{case}"]]
_PHASE_CASES = lambda sid: [["lemma", sid, "--dataset", "{handed}"]]  # noqa: E731
_SEED = [["theorem", "1.8", "--construction", "seed", "--no-report", "--dataset", "{kill}"]]
_CAUSAL = [["theorem", "1.6", "--attention", "causal", "--construction", c, "--no-report",
            "--dataset", "{kill}"] for c in ("causal-last", "causal-all")]
CHECKS = {
    "translation": [["lemma", "3.1"], ["lemma", "separation"]] + _THEOREM,
    "hat": [["lemma", "3.2"], ["lemma", "3.2p"]] + _THEOREM,
    "plateau": [["lemma", "3.2p"], ["lemma", "separation"], ["lemma", "leaders"]] + _THEOREM,
    "snap": [["lemma", "3.3"], ["lemma", "interpolation"]] + _THEOREM,
    "scalars": [["lemma", "3.1"], ["lemma", "3.2"], ["lemma", "3.2p"], ["lemma", "3.3"]] + _THEOREM,
    "clustering/tag": [["lemma", "4.1"], ["lemma", "separation"]] + _THEOREM,
    "corner": [["lemma", "4.2"], ["lemma", "collapse"]],
    # the bounded construction's general path uses the default phases L, C, I too
    "sphere": [["lemma", "4.3"], ["lemma", "leaders"], ["lemma", "collapse"]] + _THEOREM
    + _BOUNDED,
    "collapse": [["lemma", "collapse"]] + _PHASE_CASES("collapse") + _THEOREM + _BOUNDED,
    "separation": [["lemma", "separation"]] + _PHASE_CASES("separation") + _THEOREM,
    "leaders": [["lemma", "leaders"]] + _PHASE_CASES("leaders") + _THEOREM + _BOUNDED,
    "interpolation": [["lemma", "interpolation"]] + _PHASE_CASES("interpolation") + _THEOREM
    + _BOUNDED,
    "assembly": [["lemma", "1.6"], ["lemma", "separation"], ["lemma", "leaders"],
                 ["lemma", "collapse"], ["lemma", "interpolation"]] + _THEOREM,
    "peel": _PEEL,
    "peeling": _PEEL,
    "top-collapse": _PEEL,
    "peel assembly": _PEEL,
    "flag": _BOUNDED,
    "bounded separation": _BOUNDED,
    "flag collapse": _BOUNDED,
    "bounded assembly": _BOUNDED,
    "converge": _SEED,
    "seed 1.8": _SEED,
    "causal": _CAUSAL,
}
KEYS = ("{case}", "{handed}", "{kill}")


def cases_dir() -> Path | None:
    """``$PROOFCHECK_CASES`` when set, else the repository's ``tests/cases``, else
    ``None`` (the checks on handed cases are then left out)."""
    env = os.environ.get("PROOFCHECK_CASES")
    for cand in ([Path(env)] if env else []) + [ROOT / "tests" / "cases"]:
        if (cand / CASES[0]).is_file():
            return cand
    return None


def dataset_files() -> list[Path]:
    """The datasets ``{case}`` stands for: the handed cases of :data:`CASES` found
    on this machine, then the edge datasets, seeded datasets (d = 2..5) and the
    edge datasets with one target per pair, written once to ``mutants/datasets/``."""
    from proofcheck.constructions.afz.edges import edge_datasets, held_leader_datasets, peel_spread, single_target
    from proofcheck.frontend.io.generate import random_dataset
    where = cases_dir()
    out = [where / c for c in CASES] if where is not None else []
    sets = edge_datasets() + [random_dataset(40 + d, d=d, N=5, style="mixed") for d in (2, 3, 4, 5)]
    edges = len(edge_datasets())
    sets += [single_target(ds) for ds in sets[:edges]]  # M = N: the bounded construction's flag path
    sets += held_leader_datasets()  # the flag-1 token is the first lifted leader (flag path)
    sets.append(peel_spread())  # targets on both sides: the peel layers' fixed region
    return out + write_datasets(sets, ROOT / "mutants" / "datasets")


def write_datasets(sets, folder: Path) -> list[Path]:
    """Each dataset of ``sets`` as ``folder/NAME.json`` (written only when its
    text changed); the paths, in order."""
    import json

    from proofcheck.kernel.dataset import dataset_to_json
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for ds in sets:
        f = folder / f"{ds.name}.json"
        text = json.dumps(dataset_to_json(ds))
        if not f.exists() or f.read_text() != text:
            f.write_text(text)
        out.append(f)
    return out


#: module -> its expanded commands, computed once per process (by the parent before it
#: forks the children, with the unmutated code: see :func:`commands`)
_EXPANDED: dict[str, list[list[str]]] = {}


def commands(module: str, passes=None) -> list[list[str]]:
    """The argument lists of :data:`CHECKS` for ``module``: ``{case}`` expanded
    over :func:`dataset_files`, ``{handed}`` over the handed cases only (the phase
    statements run the edge and seeded datasets by default), ``{kill}`` over the
    datasets of :func:`dataset_files` whose command ``passes(argv)`` (the unmutated
    code VERIFIES it).  Cached per module: the first call (the parent's warm-up, with
    ``passes``) decides the kill datasets before any mutant is installed."""
    if module in _EXPANDED:
        return _EXPANDED[module]
    files = dataset_files()
    where = cases_dir()
    handed = [where / c for c in CASES] if where is not None else []
    out = []
    for argv in CHECKS[module]:
        key = next((k for k in KEYS if k in argv), None)
        if key is None:
            out.append(list(argv))
            continue
        exp = [[str(f) if a == key else a for a in argv]
               for f in (handed if key == "{handed}" else files)]
        if key == "{kill}":
            if passes is None:
                raise RuntimeError(f"the kill datasets of {module} are decided by the unmutated "
                                   "code first (mutation.run.warm_up)")
            exp = [a for a in exp if passes(a)]
        out += exp
    _EXPANDED[module] = out
    return out


def functions(module: str) -> dict[str, tuple[int, int]]:
    """Top-level functions and classes of the module that are construction code:
    name -> (first line, last line), decorators and defaults included."""
    import ast
    path, excluded = MODULES[module]
    tree = ast.parse((ROOT / path).read_text())
    out = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        if module in ONLY:
            if node.name not in ONLY[module]:
                continue
        elif node.name in excluded or any(node.name in ONLY[m] for m in ONLY
                                          if MODULES[m][0] == path):
            continue
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        out[node.name] = (first, node.end_lineno)
    return out
