"""``lemma ID``: run every check a statement declares, certify its exact layer
instances and take the verdict from the kernel's re-check of that certificate.

Pipeline: the statement's instances (``--dataset`` or its defaults) → each
declared check (:attr:`Statement.checks`) → the lemma certificate of the exact
layer instances (:func:`proofcheck.frontend.io.certificate_writer.lemma_certificate`) →
:func:`proofcheck.frontend.runs.recheck.recheck` → the verdict: the kernel's verdict on the
instances, combined with the checks the certificate cannot carry (symbolic proofs,
rigorous numerics, searches).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from proofcheck.kernel.errors import BadInput
from proofcheck.constructions.results import CheckResult
from proofcheck.kernel.verdicts import Scope, Verdict, combine
from proofcheck.frontend.runs.recheck import Recheck, recheck, witness_text


@dataclass
class LemmaRun:
    """The outcome of one ``lemma`` run.

    ``results``: every check's results, in declaration order; ``certificate``: the
    sealed lemma certificate (``None`` when no result has an exact layer instance);
    ``recheck``: the kernel's re-check of it; ``verdict``: the run's verdict (see
    the module docstring); ``instance``: what the checks ran on, in words;
    ``dataset``: the name of the dataset given (``--dataset``/``--example``), or
    ``None``."""

    statement: object
    reading: str | None
    seed: int
    instance: str
    results: list[CheckResult] = field(default_factory=list)
    certificate: dict | None = None
    recheck: Recheck | None = None
    datasets: int | None = None   # datasets the checks ran on (None: not known)
    given: bool = False           # the dataset was given (--dataset / --example)
    dataset: str | None = None

    @property
    def on_dataset(self) -> list[CheckResult]:
        """The results of checks that ran on the given dataset: by the convention of
        the statements' checks, those whose name carries the dataset's name in quotes
        (``'digits-sample': ...``, ``... of 'digits-sample-patch2x2' ...``)."""
        if self.dataset is None:
            return []
        return [r for r in self.results if f"'{self.dataset}" in r.name]

    @property
    def certified(self) -> list[CheckResult]:
        """The results the certificate carries: the exact layer instances, for a
        statement the kernel has a lemma form for (a declared ``kernel_check``, or a
        plugin's statement); none otherwise."""
        if not certifiable(self.statement):
            return []
        return [r for r in self.results if getattr(r, "instance", None) is not None]

    @property
    def verdict(self) -> Verdict:
        """The kernel's verdict on the certified instances, combined with every other
        computed check; argued steps do not count, and a run with nothing computed
        is INCONCLUSIVE."""
        kept = {id(r) for r in self.certified}
        rest = [r.verdict for r in self.results if id(r) not in kept and not is_argued(r)]
        if self.recheck is not None:
            rest.append(self.recheck.verdict)
        return combine(rest) if rest else Verdict.INCONCLUSIVE


def certificate_refusal(run: LemmaRun) -> str | None:
    """Why the run's certificate must not be written, or ``None``: a certificate states
    the verdict of the instances it carries, so a run that checks beside it decided
    differently (a REFUTED symbolic proof beside passing instances) has none (it would
    read as a passing run)."""
    if run.certificate is None:
        return None
    stated = combine(r.verdict for r in run.certified)
    if stated == run.verdict:
        return None
    return (f"the run is {run.verdict.value} by checks the certificate cannot carry, while "
            f"its {len(run.certified)} exact instance(s) are {stated.value}")


def certifiable(statement) -> bool:
    """True when a lemma certificate of the statement's instances is one the kernel
    reads: the kernel re-derives the statement (``kernel_check``), or it is a
    plugin's (instances re-checked only)."""
    return statement.kernel_check is not None or statement.source != "proofcheck"


def check_reading(statement, reading: str | None) -> None:
    """``--reading NAME`` must name one of the statement's readings (else exit 2)."""
    if reading is None:
        return
    if not statement.readings:
        from proofcheck.frontend.registry import load
        raise BadInput(f"statement {statement.id} has no readings; --reading applies to "
                       + ", ".join(s.id for s in load() if s.readings))
    if reading not in statement.readings:
        raise BadInput(f"unknown reading {reading!r} of {statement.id}; its readings: "
                       f"{statement.readings[0]} (default), " + ", ".join(statement.readings[1:]))


def run_checks(statement, dataset=None, seed: int = 0, reading: str | None = None) -> list:
    """Every declared check of ``statement`` on ``dataset`` (``None``: its default
    instances, built for ``seed``), results in declaration order; no certificate."""
    from proofcheck.frontend.runs.instances import defaults
    if not statement.implemented:
        raise BadInput(f"statement {statement.id} ({statement.title}) is in the catalogue but "
                       "not implemented in this version (status: planned)")
    check_reading(statement, reading)
    kwargs = defaults(statement, seed)
    if dataset is not None:
        kwargs["dataset"] = dataset
    data = kwargs.pop("dataset", None)
    if reading is not None:
        kwargs["reading"] = reading
    results = []
    plugin = statement.source != "proofcheck"
    for fn in statement.check_functions():
        results += (_plugin_check(statement, fn, data, seed, kwargs) if plugin
                    else list(fn(data, seed, **kwargs)))
    if plugin:
        mark_argued(results)
    return results


#: the witness code of a construction that raised on an input it must accept
CONSTRUCTION_RAISED = "construction-raised"


def _plugin_check(statement, fn, data, seed: int, kwargs: dict) -> list:
    """``fn(data, seed, **kwargs)`` of a plugin statement.  An exception (other than
    ``BadInput``, exit 2, and ``ResourceLimit``, exit 4) is REFUTED with the input as
    witness (code :data:`CONSTRUCTION_RAISED`), as for a built-in construction: the
    plugin's routine does not build its layer there.  ``sys.exit`` propagates (no
    verdict, exit 4)."""
    from proofcheck.kernel.errors import ResourceLimit
    from proofcheck.kernel.verdicts import Witness
    try:
        return list(fn(data, seed, **kwargs))
    except (BadInput, ResourceLimit):
        raise
    except Exception as exc:  # noqa: BLE001  (any failure on an accepted input refutes)
        name = getattr(fn, "__qualname__", None) or repr(fn)
        where = _input_text(data, seed)
        return [CheckResult(f"{statement.id}: {name} runs on its input", Verdict.REFUTED,
                            ["the plugin's check raised on an input the statement accepts"],
                            Witness(f"the plugin's check raised on an input the statement "
                                    f"accepts ({type(exc).__name__}: {str(exc)[:160]})",
                                    got=where, code=CONSTRUCTION_RAISED))]


def _input_text(data, seed: int) -> str:
    """The input a check ran on, in words: the dataset (name, d, N) or the check's own
    instances, and the seed."""
    if data is None:
        return f"its own instances, seed {seed}"
    if hasattr(data, "pairs"):
        return f"dataset '{data.name}' (d = {data.d}, N = {data.N}), seed {seed}"
    return f"{type(data).__name__} instance, seed {seed}"


def is_argued(res: CheckResult) -> bool:
    return bool(getattr(res, "argued", False))


def mark_argued(results) -> None:
    """A plugin's passing result that no check of :mod:`proofcheck.frontend.api` computed is an
    argued step (it was written by hand): marked so, it never counts as VERIFIED."""
    from proofcheck.frontend.api import is_computed
    for r in results:
        if not isinstance(r, CheckResult):
            raise TypeError(f"a check returned {type(r).__name__}, not a CheckResult")
        if r.verdict.passed and not is_computed(r):
            r.argued = True


def run_lines(run: LemmaRun) -> list[str]:
    """Every result's lines (:func:`result_lines`), in order: what ``lemma`` prints
    after the header and the report's page shows."""
    return [line for r in run.results for line in result_lines(r)]


def result_lines(res: CheckResult) -> list[str]:
    """The lines of one result; an argued step is labelled as such, not with a verdict."""
    lines = res.lines()
    if is_argued(res):
        lines[0] = f"[ARGUED, not computed] {res.name}"
    return lines


def run_lemma(statement, dataset=None, seed: int = 0, reading: str | None = None) -> LemmaRun:
    """:func:`run_checks`, then the certificate of the exact layer instances and the
    kernel's re-check of it.  Raises ``BadInput`` for a statement that is not
    implemented or an unknown reading; an exception inside a check propagates (an
    internal error)."""
    run = LemmaRun(statement, reading, seed, _instance_text(statement, dataset, seed),
                   run_checks(statement, dataset, seed, reading),
                   datasets=1 if dataset is not None else _default_datasets(statement),
                   given=dataset is not None,
                   dataset=None if dataset is None else dataset.name)
    run.certificate = certificate_of(statement, run.certified)
    if run.certificate is not None:
        run.recheck = recheck(run.certificate)
    return run


def certificate_of(statement, certified: list[CheckResult]) -> dict | None:
    """The sealed lemma certificate of the exact layer instances (its stated verdict
    is theirs: the checks it cannot carry are not part of it), or ``None``."""
    from proofcheck.frontend.io.certificate_writer import lemma_certificate
    if not certified:
        return None
    source = None if statement.source == "proofcheck" else statement.source
    return lemma_certificate(statement.id, certified, combine(r.verdict for r in certified),
                             source=source, text=statement.title,
                             hypotheses=statement.hypotheses)


def _default_datasets(statement) -> int | None:
    """How many datasets the statement's default instances hold (None: none declared)."""
    n = sum(len(v) if isinstance(v, tuple) else 1 for v in statement.instances.values())
    return n or None


def _instance_text(statement, given, seed: int) -> str:
    if given is not None:
        return f"dataset {given.name}"
    from proofcheck.frontend.registry.instances import describe
    names = [f"{k}: {describe(spec)}" for k, spec in statement.instances.items()]
    names += [statement.own_instances] if statement.own_instances else []
    what = "; ".join(names) if names else "built-in"
    return f"{what}, seed {seed}"


def header_lines(run: LemmaRun) -> list[str]:
    """What ``lemma`` prints before the checks: the statement, its source,
    hypotheses, admissibility, scope, reading and instance."""
    st = run.statement
    out = [f"{st.id}: {st.title}  [{st.kind}; paper: {st.paper} ({st.flag})]"]
    if st.source != "proofcheck":
        out.append(f"source: plugin package {st.source}")
    out += [f"hypothesis: {h}" for h in st.hypotheses]
    if st.readings:
        r = run.reading or st.readings[0]
        out.append(f"reading: {r}" + (" (default)" if r == st.readings[0] else " (variant)")
                   + "; readings: " + ", ".join(st.readings))
    out.append(f"scope: {scope_text(run)}")
    out.append(f"instance: {run.instance}")
    if run.dataset is not None:
        out.append(dataset_use(run))
    return out


def dataset_use(run: LemmaRun) -> str:
    """Which checks of a ``--dataset``/``--example`` run used the dataset."""
    used, n = len(run.on_dataset), len(run.results)
    if not used:
        return (f"dataset '{run.dataset}': used by none of the {n} checks (each runs on "
                "the statement's own instances)")
    rest = ("" if used == n else "; the other checks run on the statement's own "
            "instances (built-in, seeded, symbolic)")
    return (f"dataset '{run.dataset}': used by {used} of the {n} checks (named "
            f"'{run.dataset}' below){rest}")


def scope_text(run: LemmaRun) -> str:
    """The run's scope as ``lemma`` prints it and the report shows it: the declared
    scope when what ran establishes it, else ``mixed, per check (...); declared: ...``
    (:func:`_mixed`)."""
    declared = run.statement.scope
    summary = scope_summary(run)
    if not _mixed(declared, summary, _unscoped_pass(run)):
        return declared + _fixed_dimensions(run) if declared == "all-parameters" else declared
    return f"mixed, per check ({_scope_text(summary, run)}); declared: {declared}"


def _fixed_dimensions(run: LemmaRun) -> str:
    """``" (d = 2, 3)"``: the dimensions the run's passing all-parameter checks fixed
    (:meth:`~proofcheck.constructions.results.CheckResult.fixed_dimensions`); empty when
    none fixed one."""
    dims = sorted({d for r in run.results if r.verdict.passed for d in r.fixed_dimensions()})
    return f" (d = {', '.join(map(str, dims))})" if dims else ""


def _unscoped_pass(run: LemmaRun) -> bool:
    """Whether a passing computed check states no scope (a construction's own check:
    the statement's declared scope speaks for it)."""
    return any(r.verdict.passed and r.scope is None and not is_argued(r) for r in run.results)


def scope_summary(run: LemmaRun) -> list[tuple[str, int]]:
    """``(scope wording, number of passing computed checks)`` per :class:`Scope` the
    run's results state, broadest first (argued steps and unscoped results left out)."""
    got = [r.scope for r in run.results if r.verdict.passed and r.scope is not None
           and not is_argued(r)]
    return [(s.value, got.count(s)) for s in Scope if s in got]


#: a declared scope (:data:`proofcheck.frontend.registry.statement.SCOPES`) in the kernel's words
_WORDS = {"all-parameters": Scope.ALL_PARAMETERS.value, "dataset": Scope.DATASET.value,
          "instances": Scope.INSTANCES.value}


def _mixed(declared: str, summary: list[tuple[str, int]], unscoped: bool = False) -> bool:
    """True when what ran does not match the declared scope: a check establishes a
    scope other than the declared one (exact instances beside a proof apart: every
    declared scope allows them), or no check establishes the declared scope (a
    statement declared ``all-parameters`` whose checks are all exact instances);
    ``unscoped``: a passing check states no scope, so the declaration speaks for it."""
    said = {s for s, _ in summary}
    want = _WORDS.get(declared)
    if not said:
        return False
    return bool(said - {want, Scope.INSTANCES.value}) or (want not in said and not unscoped)


def _scope_text(summary: list[tuple[str, int]], run: LemmaRun | None = None) -> str:
    """``"2 checks for all parameters, assuming Hoeffding's inequality, 3 checks on these
    7 datasets"``: each scope in the run's words (:func:`_scope_words`)."""
    return ", ".join(f"{n} check{'s' if n != 1 else ''} {_scope_words(s, run)}"
                     for s, n in summary)


def _scope_words(scope: str, run: LemmaRun | None) -> str:
    """A scope's wording for this run: "on this dataset" becomes "on these N datasets"
    when the checks ran on several, and the inequalities its checks assume are named."""
    if run is None:
        return scope
    words = _dataset_words(run) if scope == Scope.DATASET.value else scope
    if scope == Scope.ALL_PARAMETERS.value:
        words += _fixed_dimensions(run)
    assumed = list(dict.fromkeys(a for r in run.results if r.verdict.passed and r.scope
                                 is not None and r.scope.value == scope for a in r.assumes))
    return words + (f", assuming {' and '.join(assumed)}" if assumed else "")


def _dataset_words(run: LemmaRun) -> str:
    """"on this dataset", or "on these N datasets" (and the routine's own instances)
    when the run covered several."""
    own = "" if run.given else run.statement.own_instances.split(" (")[0]
    k = run.datasets
    if (k is None or k == 1) and not own:
        return Scope.DATASET.value
    return (f"on these {k} datasets" if k and k > 1 else Scope.DATASET.value) + (
        f" and {own}" if own else "")


def verdict_text(run: LemmaRun) -> str:
    """The VERDICT line of a lemma run: the kernel's (with the scope of what it
    re-derived) when the run's verdict is the kernel's; else (checks beside the
    certificate decided it, or there is no certificate) the verdict with, for a pass,
    the scope of each kind of check that established it."""
    if run.verdict is Verdict.REFUTED:
        return refuted_text(run)
    if run.recheck is not None and run.recheck.verdict == run.verdict:
        return run.recheck.verdict_line()
    if not run.verdict.passed:
        return f"VERDICT: {run.verdict.value}{_undecided_reason(run)}"
    summary = scope_summary(run)
    said = _scope_text(summary, run) if summary else (
        _dataset_words(run) if run.statement.scope == "dataset"
        else _WORDS.get(run.statement.scope, ""))
    where = "no certificate" if run.recheck is None else "not the certificate's verdict"
    return f"VERDICT: {run.verdict.value} ({said}; {where})"


def _undecided_reason(run: LemmaRun) -> str:
    """Why a run that neither passed nor was refuted did not decide: every step argued
    (nothing computed), else the first check that did not pass, with its witness code."""
    computed = [r for r in run.results if not is_argued(r)]
    if run.results and not computed:
        return (" (nothing was computed: every step is argued by hand, which never counts as "
                "VERIFIED; docs/howto/plugins.md)")
    first = next((r for r in computed if not r.verdict.passed), None)
    if first is None:
        return ""
    code = f" [{first.witness.code}]" if first.witness is not None and first.witness.code else ""
    return f" (first undecided check: {first.name}{code})"


def refuted_text(run: LemmaRun) -> str:
    """The VERDICT line of a REFUTED lemma run: what it refutes is the routine's layer (or
    the stated bound) on the instance or parameters its first failing check names, with
    the witness and its code (docs/spec.md §5); never the statement beyond them."""
    r = next(r for r in run.results if r.verdict is Verdict.REFUTED and not is_argued(r)) \
        if any(r.verdict is Verdict.REFUTED for r in run.results) else None
    if r is None:  # the kernel refuted the certificate itself
        return f"VERDICT: REFUTED (the certificate of {run.statement.id}'s instances: " + next(
            (x.strip() for x in run.recheck.lines if "witness:" in x), "see the re-check above") + ")"
    w = witness_text(r.witness)
    return (f"VERDICT: REFUTED (on the instance or parameters the check names, not the "
            f"statement beyond them: {r.name}{w})")


def brief_lines(res: CheckResult) -> list[str]:
    """One result for the summary ``lemma`` prints by default: a pass (or an argued
    step) as its one line with verdict, name and scope, and any witness among its
    details (a variant reading refuted in a note); anything else with every detail and
    its witness."""
    lines = result_lines(res)
    if not (res.verdict.passed or is_argued(res)):
        return lines
    return lines[:1] + [x for x in lines[1:] if x.lstrip().startswith("witness")]


#: the instance label a check's name starts with (``'edge-ties' (d = 2) seed 1: ``)
_LABEL = re.compile(r"'[^'\n]*'(?: \(d = \d+\))?(?: seed \d+)?: ")


def brief_results(results: list[CheckResult]) -> list[str]:
    """Every result as :func:`brief_lines` prints it, except that passing checks which
    differ only in their instance label (``'edge-ties' (d = 2): ...``) share one line
    with their verdict, scope and the number and labels of their instances, at the
    place of the first of them."""
    out: list = []
    groups: dict[tuple, list] = {}
    for r in results:
        m = _LABEL.match(r.name)
        if m is None or not r.verdict.passed or is_argued(r) or len(brief_lines(r)) > 1:
            out += brief_lines(r)
            continue
        key = (r.verdict, r.scope, r.name[m.end():])
        if any(label == m.group(0)[:-2] for label, _ in groups.get(key, ())):
            out += brief_lines(r)  # the same check twice on one instance: its own line
            continue
        if key not in groups:
            groups[key] = []
            out.append(key)
        groups[key].append((m.group(0)[:-2], r))
    return [x if isinstance(x, str) else _group_line(groups[x]) for x in out]


def _group_line(members: list) -> str:
    """The summary line of passing checks that differ only in their instance label."""
    label, first = members[0]
    line = result_lines(first)[0]
    if len(members) == 1:
        return line
    labels = ", ".join(lab for lab, _ in members)
    labels = labels if len(labels) <= 80 else labels[:77] + "..."
    return line.replace(f"{label}: ", "", 1) + f" -- on {len(members)} instances: {labels}"


def brief_recheck(lines: list[str]) -> list[str]:
    """The kernel's re-check lines (:func:`recheck_lines`) for the summary: its first
    line, one line counting the kernel's checks by verdict, every check that did not
    pass with its details, and the kernel's other top-level lines (the re-checked
    verdict)."""
    head, body = lines[:1], lines[1:]
    counts: dict[str, int] = {}
    out, showing = [], False
    for x in body:
        if x.startswith("    ["):  # one of the kernel's checks
            verdict = x[5:x.find("]")]
            counts[verdict] = counts.get(verdict, 0) + 1
            showing = not _passed(verdict)
        elif not x.startswith("     "):  # a top-level line of the kernel
            showing = True
        if showing:
            out.append(x)
    count = ([f"    {sum(counts.values())} kernel checks: "
              + ", ".join(f"{n} {v}" for v, n in counts.items())] if counts else [])
    return head + count + out


def _passed(verdict: str) -> bool:
    try:
        return Verdict(verdict).passed
    except ValueError:  # not a verdict: shown
        return False


def run_output(run: LemmaRun, verbose: bool = False) -> list[str]:
    """What ``lemma`` prints between the header and the VERDICT line: every check and
    the kernel's re-check; by default the summary (:func:`brief_lines`,
    :func:`brief_recheck`) with a line saying how many detail lines ``--verbose``
    adds."""
    full = run_lines(run) + [""] + recheck_lines(run)
    if verbose:
        return full
    brief = brief_results(run.results) + [""] + brief_recheck(recheck_lines(run))
    hidden = len(full) - len(brief)
    return brief + ([f"({hidden} detail line{'s' * (hidden != 1)} not shown: --verbose shows every check's "
                     "details and the kernel's re-check line by line)"] if hidden else [])


def recheck_lines(run: LemmaRun) -> list[str]:
    """The kernel's re-check of the certificate, as printed after the checks."""
    if run.recheck is None and any(getattr(r, "instance", None) is not None
                                   for r in run.results):
        return [f"kernel re-check: none (the kernel has no certificate form for "
                f"{run.statement.id}; its exact layer checks above ran in the kernel's "
                "layer check)"]
    if run.recheck is None:
        return ["kernel re-check: none (no exact layer instance to certify; the checks above "
                "ran in this process)"]
    n = len(run.certified)
    return ([f"kernel re-check of the certificate ({n} exact layer instance"
             f"{'s' if n != 1 else ''}, verify_certificate): {run.recheck.verdict.value}"]
            + ["    " + x for x in run.recheck.lines])
