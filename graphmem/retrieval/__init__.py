"""Retrieval: router -> hybrid recall (memory and window keys) -> one-hop expansion -> weighting -> rank.

Every step is a stage (``stage.Stage``: ``enabled``, ``run`` and ``skip`` on one ``stage.Search``);
the scoring rules are pure functions beside their stage (``router``, ``recall``, ``keys``,
``recency``, ``expansion``, ``weighting``, ``time_boost``, ``rank``); ``pipeline`` composes the
stages into the trace's rows and ``trace`` records per-row counts and timings.
"""
