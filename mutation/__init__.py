"""Value-mutation measurement of the construction modules (docs/measurements/mutation.md):
does a well-formed but wrong construction get REFUTED with a witness by the
user-facing commands?  Mutants are cosmic-ray work items (:mod:`mutation.operators`
adds the value operators cosmic-ray lacks); :mod:`mutation.run` replays them in
forked children, :mod:`mutation.results` keeps the results file and the README
table."""
