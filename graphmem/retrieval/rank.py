"""Final stage: merge near-duplicates, order deterministically, cut to k."""

from __future__ import annotations

from graphmem.retrieval.candidate import Candidate


def order(candidates: list[Candidate]) -> list[Candidate]:
    """Descending score; ties broken by id so every store returns the same order."""
    return sorted(candidates, key=lambda c: (-c.score, c.memory.id))


def dedupe_near_duplicates(ordered: list[Candidate]) -> tuple[list[Candidate], int]:
    """Keep the better-scored member of each near-duplicate pair (health and source already
    applied, so the better-sourced copy wins a close call); the kept one lists the other."""
    kept: list[Candidate] = []
    by_id: dict[str, Candidate] = {}
    dropped = 0
    for cand in ordered:
        mem = cand.memory
        twin = by_id.get(mem.near_duplicate_of or "") or next(
            (k for k in kept if k.memory.near_duplicate_of == mem.id), None)
        if twin is not None:
            twin.merged_duplicates.append(mem.id)
            dropped += 1
            continue
        kept.append(cand)
        by_id[mem.id] = cand
    return kept, dropped


def top_k(candidates: list[Candidate], k: int, dedupe: bool) -> tuple[list[Candidate], int]:
    ordered = order(candidates)
    dropped = 0
    if dedupe:
        ordered, dropped = dedupe_near_duplicates(ordered)
    return ordered[:k], dropped
