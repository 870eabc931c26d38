"""proofcheck: an exact-arithmetic proof checker for constructive theorems about
transformers (docs/spec.md and README.md)."""

__version__ = "0.1.0"
