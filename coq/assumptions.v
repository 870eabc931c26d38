(* `make -C coq assumptions`: both soundness theorems use no axiom. *)
From Proofcheck Require Import Semantics Checker Soundness.
Print Assumptions chunk_sound.
Print Assumptions check_theorem_sound.
Print Assumptions check_instance_sound.
