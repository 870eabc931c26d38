"""The pipeline layer: construct → check → certificate → the kernel's re-check →
report, for the command line, the report site and the bench.

* :mod:`~proofcheck.frontend.runs.instances` — the data of a run: ``--dataset``/``--example``
  under the statement's admissibility, and its default instances;
* :mod:`~proofcheck.frontend.runs.lemma` — ``lemma ID``: every declared check, the lemma
  certificate, the kernel's verdict;
* :mod:`~proofcheck.frontend.runs.theorem` — ``theorem 1.6|1.8``: one path for both theorems;
* :mod:`~proofcheck.frontend.runs.recheck` — ``verify_certificate`` on the run's certificate,
  failing closed.

The construction side (``proofcheck/constructions/``) imports only the kernel and its helpers; every
step that needs I/O, Dask, reports or the registry happens here or above.
"""
