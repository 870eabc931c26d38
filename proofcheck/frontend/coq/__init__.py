"""A second checker outside Python: a certificate's dataset and network written as Coq terms
(:mod:`.numerals`, :mod:`.translate`) and re-checked by the Coq kernel against the semantics
of docs/spec.md §1 in ``coq/theories`` (:mod:`.library`, :mod:`.run`).  Reads certificates with the
kernel's reader only; computes nothing about them (docs/architecture/coq.md: the trust model)."""
