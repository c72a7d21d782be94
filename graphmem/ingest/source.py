"""Provenance weight: a modest multiplier that breaks close ties, never overturns relevance."""

from __future__ import annotations

from graphmem.config import SourceRanks


def source_rank(source: str, ranks: SourceRanks) -> int:
    return ranks.ranks.get(source, ranks.default_rank)


def source_weight(source: str, ranks: SourceRanks) -> float:
    """weight = base + span * rank / max_rank (defaults: 0.9 + 0.1 * rank / 9)."""
    rank = min(max(source_rank(source, ranks), 0), ranks.max_rank)
    return round(ranks.base + ranks.span * rank / ranks.max_rank, 6)
