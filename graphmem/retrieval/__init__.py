"""Retrieval: router -> hybrid recall -> one-hop expansion -> weighting -> rank.

The scoring rules are pure functions (``scoring``); ``pipeline`` runs them against a store
and records per-stage counts and timings.
"""
