"""The lines ``theorem 1.6|1.8`` prints after the checks: the constants (1.6) or the
temperatures (1.8), ``||theta*||^2``, and the time of every phase (:func:`time_line`).  Every number is
printed through :func:`proofcheck.kernel.verdicts.fmt_num`."""
from __future__ import annotations

from proofcheck.kernel.verdicts import fmt_num
from proofcheck.frontend.reporting.theta import theta_line


def summary_lines(statement: str, check) -> list[str]:
    """``check``: the ``TheoremCheck`` (1.6) or ``SoftmaxCheck`` (1.8) of the run."""
    lines = _constants_16(check.constants) if statement == "1.6" else _softmax_18(check)
    lines.append(theta_line(check.construction.net))
    return lines + comparison_lines(getattr(check, "comparison", None))


def time_line(seconds: dict, sharded: bool = False) -> str:
    """The ``time:`` line: every phase of the run, in order (``seconds``: phase -> wall
    seconds, the last ones the report, the certificate file and end to end), and a line
    saying which phases overlap, so that their sum is not read as the run's time
    (``sharded``: the kernel's re-check ran in shards after the exact check, ``--workers`` /
    ``--scheduler``, rather than in a forked process beside it)."""
    notes = []
    if any(k.startswith("construct phase") for k in seconds):
        notes.append("the construct phases are parts of construct total")
    shards = [k for k in seconds if k.endswith(" shards")]
    if shards:
        notes.append(f"{' and '.join(shards)}: the parts of those phases spent in their shards "
                     "(the rest of each ran in one process)")
    if "kernel re-check" in seconds and "exact check" in seconds:
        notes.append("the kernel re-check ran in shards after the exact check" if sharded else
                     "the kernel re-check ran in a forked process beside the exact check, "
                     "so the two overlap")
    return ("time: " + ", ".join(f"{k} {s:.2f} s" for k, s in seconds.items())
            + (f"\n      (wall seconds; {'; '.join(notes)})" if notes else ""))


def comparison_lines(rows) -> list[str]:
    """The side-by-side table of ``proofcheck.constructions.afz.theorems.theorem_1_8.compare_constructions``
    (nothing when there is none)."""
    if not rows:
        return []
    out = ["", "side by side on this dataset (first row: this run; the others: tau_cert "
           "searched, no simulation; time = construct + trajectory + certificates "
           "[+ simulation]):",
           f"  construction | verdict | L | P | ||theta*||^2 | minus {rows[0]['construction']}'s "
           "| tau_cert | time s"]
    for r in rows:
        tau = "n/a" if r["tau_cert"] is None else fmt_num(r["tau_cert"])
        out.append(f"  {r['construction']} | {r['verdict']} | {_f(r['L'])} | {_f(r['P'])} | "
                   f"{_f(r['theta_sq_norm'])} | {_f(r['theta_sq_diff'])} | {tau} | "
                   f"{r['seconds']:.2f}")
    return out


def _constants_16(c: dict) -> list[str]:
    return [f"N = {c['N']}, M = {c['M']}, d = {c['d']}, R = {c['R']}",
            r_line(c["R"], c["N"], c.get("round_text"), c.get("R_claim")),
            f"construction {c['construction']}: L = {c['block_formula']}",
            f"L = {c['L']} blocks (the construction's {c['block_formula']} = {c['L_construction']}"
            + (f"; the default's 2M + R + 1 = {c['L_default']}" if "L_default" in c else "")
            + f"; the seed's count 2M + 2N + 1 = {c['L_paper_hardmax']}, read as a bound)",
            f"max width = {c['max_width']}; parameters P = {c['P']} (formula {c['P_formula']}"
            + (f", bound {c['param_constant']}·d·M = {c['P_bound']}" if "P_bound" in c else "")
            + (f"; the default's P = {c['P_default']}" if "P_default" in c else "")
            + f"); largest rational {c['max_bits']} bits",
            f"SA layers: A = λI + rank ≤ {c['max_rank_A_minus_lam_I']}, V = λI + rank ≤ "
            f"{c['max_rank_V_minus_lam_I']} (all {c['sa_layers']}; checked by the kernel)"]


def r_line(R: int, N: int, what: str | None = None, claim: str | None = None) -> str:
    """What R is, in the theorem output (``what``: the construction's own words for a
    round, its constant ``round_text``, if it has one; ``claim``: its bound on R, if
    not the default's ``R <= N - 1``)."""
    what = what or ("each round makes a token shared by several sequences the unique top of "
                    "some of them and tags again")
    return (f"R = {R} separation round{'' if R == 1 else 's'} (phase S: {what}; "
            f"R {claim or f'<= N - 1 = {N - 1}'})")


def _f(x) -> str:
    return "n/a" if x is None else fmt_num(x)


def _softmax_18(sc) -> list[str]:
    c = sc.constants
    if sc.tau_free:
        lines = ["tau_cert = every tau > 0  [no token has an attention competitor]"]
    else:
        lines = [f"tau_cert = {_f(sc.tau_cert)}  [certified: covers every tau in (0, tau_cert]]"]
    if sc.search_note:
        lines.append(f"  search: {sc.search_note}")
    closed = sc.tau_closed_certified.value if sc.tau_closed_certified else "n/a"
    lines += [f"tau_closed = {_f(sc.tau_closed)}  [closed-form estimate from the minimum gap; "
              f"certificate: {closed}]",
              f"tau_num = {_f(sc.tau_num)}  [mpmath simulation: an audit, not a proof; it never "
              "changes the verdict]"]
    lines += [f"  {line}" for line in sc.simulation.lines(sc.tau_cert)]
    sa = [b for b in sc.certificate.bounds if b.sublayer == "SA" and b.max_eps is not None]
    if sa:
        lines.append("softmax layers: " + "; ".join(
            f"block {b.block}: gap >= {_f(b.min_gap)}, eps <= {_f(b.max_eps)}"
            for b in sa[:6]) + (f" ... ({len(sa)} layers)" if len(sa) > 6 else ""))
    lines.append(r_line(sc.construction.info["R"], sc.constants["N"], c.get("round_text")))
    lines.append(f"L = {c['L']} blocks (construction {c['construction']}: {c['block_formula']}; "
                 f"the seed's count 2M + 3N = {c['L_paper_softmax']}, read as a bound), max "
                 f"width {c['max_width']}, P = {c['P']}")
    return lines
