"""proofcheck: an exact-arithmetic proof checker for constructive theorems about
transformers (see SPEC.md of the project and README.md)."""

__version__ = "0.1.0"
