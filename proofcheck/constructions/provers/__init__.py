"""The provers beside the constructions (untrusted; a prover's failure is
INCONCLUSIVE): sympy proofs of the layer lemmas (:mod:`.symbolic`, :mod:`.sa_proofs`), z3
as a second prover (:mod:`.smt`), Coq Interval for the stated exp bounds of softmax
certificates (:mod:`.exp_bounds`), and the mpmath simulation, an audit that never decides
(:mod:`.simulate`)."""
