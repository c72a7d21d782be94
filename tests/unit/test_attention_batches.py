"""Embedding batches are bounded by their attention size: long passages go a few at a time
(64 at the 512-token cap peaked at 2.1 GB RSS), short ones still 64 a batch, order kept."""

from __future__ import annotations

from graphmem.embedding.embedder import ATTENTION_BUDGET, CHARS_PER_TOKEN, MAX_TOKENS, attention_batches


def widest(batch: list[str]) -> int:
    return max(min(MAX_TOKENS, len(t) // CHARS_PER_TOKEN + 2) for t in batch)


def test_long_passages_go_a_few_at_a_time_and_short_ones_a_full_batch():
    long = [f"{i} " + "word " * 2000 for i in range(64)]
    short = [f"note {i}" for i in range(200)]
    batches = list(attention_batches(long + short + long[:3], 64))
    assert [t for b in batches for t in b] == long + short + long[:3]
    assert all(len(b) * widest(b) ** 2 <= ATTENTION_BUDGET or len(b) == 1 for b in batches)
    assert max(len(b) for b in batches if b[0] in long) == ATTENTION_BUDGET // MAX_TOKENS**2
    assert [len(b) for b in batches if set(b) <= set(short)] == [64, 64, 64, 8]
    assert all(len(b) <= 64 for b in batches)


def test_a_passage_wider_than_the_budget_still_goes_alone():
    assert list(attention_batches(["x" * 100_000], 64)) == [["x" * 100_000]]
