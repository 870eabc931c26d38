"""The second prover of the all-parameter layer lemmas: z3 (SMT over the real numbers).

Every "for all parameters" step that sympy proves on a returned layer
(``proofcheck.constructions.provers.symbolic.prove_profile`` for the FF lemmas 3.1, 3.2, 3.2p, 3.3;
``proofcheck.constructions.provers.sa_proofs.Proof`` for the SA lemmas 4.1, the tag, 4.2, 4.3) is decided
a second time by z3 when the lemma hands a :class:`Z3Prover` to it, from the same
objects: the sympy entries of the layer the routine returned, translated term by term
(:func:`to_z3`; nothing is typed again), the symbols' sympy assumptions as hypotheses
(``delta > 0``, ``u_c != 0``, ...).  A step is proved when the negation of its
conclusion is unsatisfiable.  The FF claims "FF(x) = x + L(<w,x>) for every token x with
lo <= <w,x> <= hi" are encoded over a free token x: ``FF(x) = eta x + sum_k W_k
If(a_k >= 0, a_k, 0)`` with ``a_k = <U_k, x> + b_k`` (:meth:`Z3Prover.profile_claim`).

Answers, per step: unsat -> VERIFIED; sat -> REFUTED only once the model, read as exact
rationals, is re-checked exactly (the FF layer instantiated at the model and evaluated
by the kernel's plain evaluator; an SA step's expression evaluated in exact rationals):
the witness, code ``smt-counterexample``; unknown, a timeout (:data:`TIMEOUT_MS`), an
expression outside the translated fragment, z3 missing or raising, or a model the exact
re-check does not confirm -> INCONCLUSIVE for z3, never a pass.  :func:`merge` joins
sympy's and z3's answers on one step: both prove it -> VERIFIED ("sympy and z3 agree");
one proves what the other refutes -> ERROR (code ``provers-disagree``); otherwise the
worse of the two, a refutation keeping its exact witness.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

from proofcheck.kernel.verdicts import Verdict, Witness, fmt_value

#: z3's time limit per query (milliseconds); a query that reaches it is unknown
TIMEOUT_MS = 10_000
#: decimal digits of the rational a non-rational (algebraic) model value is pinned to
_PIN_DIGITS = 12
WITNESS_CODE = "smt-counterexample"
DISAGREE_CODE = "provers-disagree"
INSTALL = "pip install z3-solver"


class Unsupported(Exception):
    """An expression or symbol outside what :func:`to_z3` translates (z3: INCONCLUSIVE)."""


@dataclass
class Outcome:
    """z3's answer on one step: ``verdict`` VERIFIED / REFUTED / INCONCLUSIVE,
    ``note`` what z3 did in words, ``model`` the exact counterexample (name ->
    ``Fraction``; REFUTED only), ``witness`` its Witness, ``seconds`` z3's time."""

    verdict: Verdict
    note: str
    model: dict | None = None
    witness: Witness | None = None
    seconds: float = 0.0


@dataclass
class _Env:
    """sympy symbols -> z3 variables (by symbol identity: ``z0`` real and ``z0``
    nonnegative are two variables), unique z3 names, and the denominators met."""

    vars: dict = field(default_factory=dict)
    names: dict = field(default_factory=dict)  # z3 name -> sympy symbol (or None: a token)
    denominators: list = field(default_factory=list)

    def var(self, sym, z3):
        if sym not in self.vars:
            name = str(sym)
            k = 1
            while name in self.names:
                k += 1
                name = f"{sym}#{k}"
            self.names[name] = sym
            self.vars[sym] = _real_var(sym, name, z3)
        return self.vars[sym]

    def fresh(self, name: str, z3):
        """A z3 real not tied to a sympy symbol (a token coordinate)."""
        while name in self.names:
            name += "'"
        self.names[name] = None
        v = z3.Real(name)
        self.vars[name] = v
        return v


def _real_var(sym, name: str, z3):
    if sym.is_real is not True:
        raise Unsupported(f"symbol {sym} is not declared real")
    return z3.ToReal(z3.Int(name)) if sym.is_integer else z3.Real(name)


def _rational(x, z3):
    x = Fraction(x)
    return z3.RealVal(f"{x.numerator}/{x.denominator}")


def to_z3(expr, env: _Env, z3):
    """The z3 term of ``expr`` (an int, a ``Fraction`` or a sympy expression built from
    symbols and rationals with +, *, integer powers).  Division by a term records the
    term in ``env.denominators`` (the step is then claimed where it is defined).
    Raises :class:`Unsupported` for anything else (functions, floats, complex symbols)."""
    if isinstance(expr, bool):
        raise Unsupported(f"boolean {expr!r} where a number is expected")
    if isinstance(expr, (int, Fraction)):
        return _rational(expr, z3)
    if not hasattr(expr, "free_symbols"):
        raise Unsupported(f"{type(expr).__name__} {expr!r}"[:200])
    if expr.is_Symbol:
        return env.var(expr, z3)
    if expr.is_Rational:
        return _rational(Fraction(int(expr.p), int(expr.q)), z3)
    if expr.is_Add:
        return z3.Sum([to_z3(a, env, z3) for a in expr.args])
    if expr.is_Mul:
        return z3.Product([to_z3(a, env, z3) for a in expr.args])
    if expr.is_Pow and expr.exp.is_Integer:
        base, n = to_z3(expr.base, env, z3), int(expr.exp)
        if n == 0:
            return _rational(1, z3)
        power = z3.Product([base] * abs(n)) if abs(n) > 1 else base
        if n > 0:
            return power
        env.denominators.append(power)
        return 1 / power
    raise Unsupported(f"{type(expr).__name__}: {expr}"[:200])


def hypotheses(env: _Env, z3) -> list:
    """The sympy assumptions of every symbol met, as z3 constraints (positive, negative,
    nonnegative, nonpositive, nonzero), and every denominator met non-zero."""
    out = []
    for sym, v in env.vars.items():
        if isinstance(sym, str):
            continue
        for holds, c in ((sym.is_positive, v > 0), (sym.is_negative, v < 0),
                         (sym.is_nonnegative, v >= 0), (sym.is_nonpositive, v <= 0),
                         (sym.is_nonzero, v != 0)):
            if holds:
                out.append(c)
    return out + [den != 0 for den in env.denominators]


def _z3():
    """The z3 module, or ``None`` when z3-solver is not installed."""
    try:
        import z3
    except ImportError:
        return None
    return z3


class Z3Prover:
    """z3 as the second prover of a sympy proof (passed as ``second=`` to
    ``proofcheck.constructions.provers.symbolic.prove_profile`` and ``proofcheck.constructions.provers.sa_proofs.Proof``).
    ``timeout_ms``: z3's limit per query."""

    name = "z3"

    def __init__(self, timeout_ms: int = TIMEOUT_MS):
        self.timeout_ms = timeout_ms

    # ------------------------------------------------------------- the steps
    def zero(self, exprs) -> Outcome:
        """``expr == 0`` for every admissible value of its symbols, for each of
        ``exprs`` (one expression or a list)."""
        exprs = list(exprs) if isinstance(exprs, (list, tuple)) else [exprs]
        return self._all(exprs, "== 0", lambda e, z3: e != 0)

    def sign(self, expr, positive: bool) -> Outcome:
        """``expr > 0`` (``positive``) or ``expr < 0`` for every admissible value."""
        want = "> 0" if positive else "< 0"
        return self._all([expr], want, (lambda e, z3: e <= 0) if positive else
                         (lambda e, z3: e >= 0))

    def profile_claim(self, ff, w, lo, hi, target) -> Outcome:
        """``FF(x) = x + target(<w,x>)`` for every token x with ``lo <= <w,x> <= hi``
        (``None``: unbounded) and every admissible parameter value; ``ff`` the returned
        layer (sympy or rational entries), ``w`` the direction ``(d,)``, ``target``
        maps t to a ``(d,)`` list.  See :func:`_profile_negation`."""
        return self._run(lambda z3: _profile_claim(self, z3, ff, w, lo, hi, target))

    @staticmethod
    def merge(sympy_verdict: Verdict, sympy_witness, outcome: Outcome, text: str,
              step: str | None = None):
        """:func:`merge` (the rule joining sympy's and z3's answers on one step)."""
        return merge(sympy_verdict, sympy_witness, outcome, text, step)

    # ------------------------------------------------------------- machinery
    def _all(self, exprs, want: str, negate) -> Outcome:
        def go(z3):
            total = 0.0
            for e in exprs:
                out = _expression_step(self, z3, e, want, negate)
                total += out.seconds
                if out.verdict is not Verdict.VERIFIED:
                    out.seconds = total
                    return out
            return Outcome(Verdict.VERIFIED, f"z3: proved ({total:.2f} s)", seconds=total)
        return self._run(go)

    def _run(self, fn) -> Outcome:
        z3 = _z3()
        if z3 is None:
            return Outcome(Verdict.INCONCLUSIVE, f"z3: not run (z3-solver is not installed: "
                                                 f"{INSTALL})")
        try:
            return fn(z3)
        except Unsupported as exc:
            return Outcome(Verdict.INCONCLUSIVE, f"z3: not run (outside the translated "
                                                 f"fragment: {exc})")
        except z3.Z3Exception as exc:
            return Outcome(Verdict.INCONCLUSIVE, f"z3: failed ({exc})"[:300])
        except Exception as exc:  # noqa: BLE001  (the prover failed, not the construction)
            return Outcome(Verdict.INCONCLUSIVE,
                           f"z3: the prover raised {type(exc).__name__}: {exc}"[:300])

    def solve(self, z3, constraints, names: dict):
        """``(status, model, seconds)``: status ``"unsat"``, ``"sat"`` (``model``:
        z3 name -> ``Fraction`` for every variable of ``names``) or a reason z3 gave
        no usable answer (``"unknown: timeout"``, ``"unknown: irrational model"``)."""
        s = z3.Solver()
        s.set("timeout", int(self.timeout_ms))
        s.add(*constraints)
        t0 = time.perf_counter()
        r = s.check()
        if r == z3.sat:
            model = _rational_model(s, z3, names)
            status = "sat" if model is not None else "unknown: irrational model"
        else:
            model, status = None, ("unsat" if r == z3.unsat else f"unknown: {s.reason_unknown()}")
        return status, model, time.perf_counter() - t0


def _rational_model(s, z3, names: dict):
    """The model of the satisfied solver ``s`` as exact rationals (name -> Fraction).  A
    non-rational (algebraic) value is pinned to a rational near it and z3 asked again;
    if that is unsatisfiable, that value is excluded instead.  ``None`` if no rational
    model is found within a few rounds."""
    for _ in range(2 * len(names) + 2):
        m = s.model()
        vals = {n: m.eval(v, model_completion=True) for n, v in names.items()}
        bad = [n for n, x in vals.items() if not z3.is_rational_value(x)]
        if not bad:
            return {n: Fraction(x.numerator_as_long(), x.denominator_as_long())
                    for n, x in vals.items()}
        n = bad[0]
        if not z3.is_algebraic_value(vals[n]):
            return None
        s.push()
        s.add(names[n] == vals[n].approx(_PIN_DIGITS))
        if s.check() == z3.sat:
            continue
        s.pop()
        s.add(names[n] != vals[n])
        if s.check() != z3.sat:
            return None
    return None


def _expression_step(prover: Z3Prover, z3, expr, want: str, negate) -> Outcome:
    """One expression: ``negate`` its claim and ask z3; a model is confirmed by
    evaluating the expression in exact rationals (sympy substitution)."""
    import sympy as sp
    env = _Env()
    e = to_z3(sp.sympify(expr), env, z3)
    names = {n: env.vars[s] for n, s in env.names.items()}
    status, model, sec = prover.solve(z3, hypotheses(env, z3) + [negate(e, z3)], names)
    if status == "unsat":
        return Outcome(Verdict.VERIFIED, f"z3: proved ({sec:.2f} s)", seconds=sec)
    if status != "sat":
        return _unknown(status, prover, sec)
    point = {s: sp.Rational(model[n].numerator, model[n].denominator)
             for n, s in env.names.items()}
    val = sp.sympify(expr).subs(point)
    holds = {"== 0": lambda: val == 0, "> 0": lambda: val > 0, "< 0": lambda: val < 0}[want]
    if not val.is_Rational or holds():
        return Outcome(Verdict.INCONCLUSIVE, f"z3: model not confirmed by the exact "
                                             f"re-check (value {val})", seconds=sec)
    at = _assignment(model)
    w = Witness(f"z3 counterexample: the step's expression is not {want} at {at}",
                expected=want, got=Fraction(int(val.p), int(val.q)), code=WITNESS_CODE)
    return Outcome(Verdict.REFUTED, f"z3: counterexample at {at} ({sec:.2f} s)", model,
                   w, sec)


def _unknown(status: str, prover: Z3Prover, sec: float) -> Outcome:
    why = status.removeprefix("unknown: ")
    if why in ("timeout", "canceled"):
        why = f"timeout {prover.timeout_ms / 1000:g} s"
    return Outcome(Verdict.INCONCLUSIVE, f"z3: unknown ({why})", seconds=sec)


def _assignment(model: dict) -> str:
    return ", ".join(f"{k} = {fmt_value(v)}" for k, v in model.items())


# ----------------------------------------------------------------- FF claims
def _token_form(row, w, x, t, env, z3):
    """``<row, x>``: the variable ``t`` (standing for ``<w,x>``) when the row is the
    direction entry for entry (equal sympy objects), else the explicit sum."""
    if len(row) == len(w) and all(_same(a, b) for a, b in zip(row, w)):
        return t
    return z3.Sum([to_z3(a, env, z3) * xi for a, xi in zip(row, x)])


def _same(a, b) -> bool:
    import sympy as sp
    return sp.sympify(a) == sp.sympify(b)


def _profile_negation(ff, w, lo, hi, target, env: _Env, z3, linked: bool):
    """``(constraints, x, t, L, ts)``: the negation of the claim over a free token x
    (z3 reals ``x[0..d-1]``) and ``t`` (``"<w,x>"``); ``L`` the target's sympy entries
    in the dummy ``ts``.  ``linked``: ``t == <w,x>`` is asserted (the negation of the
    claim itself); otherwise t is free (the negation of a stronger statement, in which
    every row of U equal to w reads t: unsat proves the claim, a model must be
    realised, :func:`_realise`)."""
    import sympy as sp
    d = len(w)
    x = [env.fresh(f"x[{c}]", z3) for c in range(d)]
    t = z3.Real("<w,x>")
    ts = sp.Dummy("t", real=True)
    env.vars[ts] = t  # target(t) is translated with t for its argument
    L = [sp.sympify(v) for v in target(ts)]
    cons = []
    if linked:
        cons.append(t == z3.Sum([to_z3(a, env, z3) * xi for a, xi in zip(w, x)]))
    if lo is not None:
        cons.append(t >= to_z3(sp.sympify(lo), env, z3))
    if hi is not None:
        cons.append(t <= to_z3(sp.sympify(hi), env, z3))
    eta = to_z3(ff.eta, env, z3)
    args = [_token_form(u, w, x, t, env, z3) + to_z3(b, env, z3) for u, b in zip(ff.U, ff.b)]
    relu = [z3.If(a >= 0, a, 0) for a in args]
    diff = []
    for c in range(d):
        out = eta * x[c] + z3.Sum([to_z3(col[c], env, z3) * r for col, r in zip(ff.W, relu)]
                                  + [_rational(0, z3)])
        diff.append(out != x[c] + to_z3(L[c], env, z3))
    del env.vars[ts]
    return cons + [z3.Or(diff)], x, t, L, ts


def _profile_claim(prover: Z3Prover, z3, ff, w, lo, hi, target) -> Outcome:
    """The claim with t free first (fast: the token enters through t and x only
    linearly), then, if that has a model that does not realise, with ``t == <w,x>``."""
    total = 0.0
    for linked in (False, True):
        env = _Env()
        cons, x, t, L, ts = _profile_negation(ff, w, lo, hi, target, env, z3, linked)
        names = {n: env.vars[n if s is None else s] for n, s in env.names.items()}
        names["<w,x>"] = t
        status, model, sec = prover.solve(z3, hypotheses(env, z3) + cons, names)
        total += sec
        if status == "unsat":
            return Outcome(Verdict.VERIFIED, f"z3: proved ({total:.2f} s)", seconds=total)
        if status != "sat":
            return _unknown(status, prover, total)
        found = _realise(ff, w, lo, hi, L, ts, env, model)
        if found is not None:
            model, wit = found
            return Outcome(Verdict.REFUTED, f"z3: counterexample ({total:.2f} s)", model, wit,
                           total)
    return Outcome(Verdict.INCONCLUSIVE, "z3: model not confirmed by the exact re-check",
                   seconds=total)


def _realise(ff, w, lo, hi, L, ts, env: _Env, model: dict):
    """``(model, witness)``: the z3 model as a counterexample the kernel confirms, or
    ``None``.  Parameters from the model; the token ``x`` from it, moved along w until
    ``<w,x>`` is the model's t (w != 0); the layer instantiated at the parameters and
    evaluated exactly by the plain evaluator
    (``proofcheck.kernel.layercheck.evaluate_layer``)."""
    import sympy as sp

    from proofcheck.kernel.layercheck import evaluate_layer
    from proofcheck.kernel.model import FF
    params = {s: sp.Rational(model[n].numerator, model[n].denominator)
              for n, s in env.names.items() if s is not None}
    q = lambda e: _exact(e, params)  # noqa: E731
    try:
        wq = [q(a) for a in w]
        x = [model[f"x[{c}]"] for c in range(len(w))]
        t = model["<w,x>"]
        wx = sum((a * b for a, b in zip(wq, x)), Fraction(0))
        ww = sum((a * a for a in wq), Fraction(0))
        if wx != t and ww != 0:
            x = [a + (t - wx) / ww * b for a, b in zip(x, wq)]
        t = sum((a * b for a, b in zip(wq, x)), Fraction(0))
        if (lo is not None and t < q(lo)) or (hi is not None and t > q(hi)):
            return None
        layer = FF(q(ff.eta), tuple(tuple(q(a) for a in u) for u in ff.U),
                   tuple(q(b) for b in ff.b), tuple(tuple(q(a) for a in col) for col in ff.W))
        got = evaluate_layer(layer, [[tuple(x)]])[0][0]
        exp = [a + _exact(e, {**params, ts: sp.Rational(t.numerator, t.denominator)})
               for a, e in zip(x, L)]
    except (ValueError, TypeError, ZeroDivisionError):
        return None
    c = next((i for i, (g, e) in enumerate(zip(got, exp)) if g != e), None)
    if c is None:
        return None
    shown = {n: v for n, v in model.items() if not n.startswith("x[") and n != "<w,x>"}
    wit = Witness(f"z3 counterexample: FF(x) != x + L(<w,x>) at the token x = {fmt_value(x)} "
                  f"with <w,x> = {fmt_value(t)}, parameters {_assignment(shown) or 'none'}",
                  coordinate=c, expected=exp[c], got=got[c], code=WITNESS_CODE)
    return {**shown, **{f"x[{i}]": v for i, v in enumerate(x)}}, wit


def _exact(e, values) -> Fraction:
    """``e`` (int, Fraction or sympy) at ``values`` as a Fraction; raises ValueError if
    it is not a rational number there (a division by zero, a free symbol left)."""
    if isinstance(e, (int, Fraction)) and not isinstance(e, bool):
        return Fraction(e)
    v = e.subs(values)
    if not v.is_Rational:
        raise ValueError(f"{e} is not rational at the model: {v}")
    return Fraction(int(v.p), int(v.q))


# ----------------------------------------------------------------- joining the two
_PROVED = {Verdict.VERIFIED: "proved", Verdict.REFUTED: "refuted",
           Verdict.INCONCLUSIVE: "not decided"}


def merge(sympy_verdict: Verdict, sympy_witness, outcome: Outcome, text: str,
          step: str | None = None):
    """``(verdict, line, witness)`` of one step decided by sympy (``sympy_verdict``,
    ``sympy_witness``) and z3 (``outcome``): VERIFIED only when both proved it; ERROR
    (code ``provers-disagree``) when one proved what the other refuted; else the worse
    of the two (a refutation keeps its exact witness: z3's confirmed model when z3
    refuted, its reason naming ``step`` (default ``text``), else sympy's).  ``text``:
    the step as sympy's line gives it."""
    s, z = sympy_verdict, outcome.verdict
    said = f"sympy: {_PROVED.get(s, s.value)}; {outcome.note}"
    if {s, z} == {Verdict.VERIFIED, Verdict.REFUTED}:
        w = Witness(f"sympy and z3 disagree on: {step or text} ({said})", code=DISAGREE_CODE)
        return Verdict.ERROR, f"PROVERS DISAGREE: {text}  [{said}]", w
    if s is Verdict.VERIFIED and z is Verdict.VERIFIED:
        return Verdict.VERIFIED, f"proved (sympy and z3): {text}", None
    if Verdict.REFUTED in (s, z):
        w = sympy_witness
        if outcome.witness is not None:
            w = replace(outcome.witness, reason=f"{step or text}: {outcome.witness.reason}")
        return Verdict.REFUTED, f"DISPROVED: {text}  [{said}]", w
    return Verdict.INCONCLUSIVE, f"NOT decided: {text}  [{said}]", None
