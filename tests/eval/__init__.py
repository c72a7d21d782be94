"""Eval-harness tests (a package so test_metrics.py does not clash with tests/analysis/)."""
