"""Retrieval: router -> hybrid recall -> one-hop expansion -> weighting -> rank.

The scoring rules are pure functions in the stage modules (``router``, ``recall``, ``expansion``,
``weighting``, ``rank``); ``pipeline`` runs them against a store and ``trace`` records per-stage
counts and timings.
"""
