"""proofcheck: an exact-arithmetic proof checker for constructive theorems about
transformers (see SPEC.md of the project and README.md)."""

__version__ = "0.1.0"

import sys as _sys

# Exact rationals routinely exceed Python's default 4300-digit limit on int <-> str
# conversion (a DoS guard for untrusted text); our parser bounds input strings
# itself (proofcheck.numbers), so printing and reports may use any size.
if hasattr(_sys, "set_int_max_str_digits"):
    _sys.set_int_max_str_digits(0)
