"""Benchmark harness for proofcheck (issue: exact verification at full-dataset scale)."""
