"""The ``||theta*||^2`` display of a run (docs/spec.md §2, statement tikhonov): the line printed
next to P, and its JSON and Markdown forms in the run report, all from the network that
was checked and in the kernel's one display form of a number
(:func:`proofcheck.kernel.numbers.fmt_num`; the exact value goes into the JSON)."""
from __future__ import annotations

from proofcheck.kernel.numbers import approx, fmt_num, format_q

THETA_CONVENTION = ("sum of squares of every stored scalar (the P counted ones: eta and rho "
                    "of every layer, U, b, W, and A, V as their factored entries lam, left, "
                    "right)")


def theta_line(net) -> str:
    """The ``||theta*||^2`` line printed next to P by ``theorem 1.6`` / ``1.8``:
    ``net.sq_norm()`` of the network that was checked."""
    return (f"||theta*||^2 = {fmt_num(net.sq_norm())}  [sum of squares of the P stored "
            "scalars; with J(theta*) = 0: min J + eps ||theta||^2 <= eps ||theta*||^2]")


def theta_json(net) -> dict:
    """``||theta*||^2`` of ``net`` for a JSON report: the exact ``"p/q"`` string, a
    6-digit approximation, the bit sizes and the convention."""
    q = net.sq_norm()
    return {"exact": format_q(q), "approx": approx(q), "numerator_bits":
            q.numerator.bit_length(), "denominator_bits": q.denominator.bit_length(),
            "convention": THETA_CONVENTION}


def theta_markdown(t: dict) -> str:
    """One Markdown phrase for the ``theta_sq_norm`` entry of a JSON report."""
    return (f"||θ*||² ≈ {t['approx']} (exact rational in the JSON report: "
            f"{t['numerator_bits']}-bit numerator / {t['denominator_bits']}-bit denominator; "
            f"{t['convention']})")
