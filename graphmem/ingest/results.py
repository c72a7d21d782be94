"""What the write path hands back: one item's outcome, and a batch validated and embedded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.contract.requests import DEFAULT_SOURCE, MemoryInput
from graphmem.errors import GraphmemError
from graphmem.model import Memory

# What a duplicate's answer says when it carried fields the stored memory does not have.
NOT_STORED_NOTE = ("the memory is stored already (an add never changes it): the fields in not_stored were not "
                   "stored; to change them, update it: PATCH /v1/memories/{id} (CLI: graphmem update; "
                   "MCP: update_memory)")


@dataclass
class IngestResult:
    status: str                    # created | duplicate | rejected
    memory: Memory | None = None
    duplicate_of: str | None = None
    error: GraphmemError | None = None
    index: int = 0
    not_stored: dict[str, Any] | None = None      # a duplicate's fields that differ from the stored memory

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "status": self.status}
        if self.memory is not None:
            out["id"] = self.memory.id
            out["memory"] = self.memory.to_dict()
        if self.duplicate_of:
            out["duplicate_of"] = self.duplicate_of
        if self.not_stored:
            out["not_stored"] = self.not_stored
            out["note"] = NOT_STORED_NOTE.format(id=self.duplicate_of)
        if self.error is not None:
            out["error"] = self.error.to_dict()
        return out


def not_stored(inp: MemoryInput, stored: Memory) -> dict[str, Any]:
    """What a duplicate add sent that the stored memory does not hold: tags it lacks, and a category,
    source, reason or metadata given with another value. An add is idempotent (it never changes a
    stored memory), so these are named in its answer instead of being dropped silently."""
    out: dict[str, Any] = {}
    new_tags = [t for t in inp.tags or [] if t not in stored.tags]
    if new_tags:
        out["tags"] = new_tags
    if inp.category is not None and inp.category != stored.category:
        out["category"] = inp.category
    if inp.source not in (None, DEFAULT_SOURCE) and inp.source != stored.source:
        out["source"] = inp.source
    if inp.reason is not None and inp.reason != stored.reason:
        out["reason"] = inp.reason
    if inp.metadata and inp.metadata != stored.metadata:
        out["metadata"] = inp.metadata
    return out


def duplicate_result(inp: MemoryInput, stored: Memory) -> IngestResult:
    return IngestResult("duplicate", stored, duplicate_of=stored.id, not_stored=not_stored(inp, stored) or None)


@dataclass
class PreparedBatch:
    """A validated, embedded batch not yet written: rejections by position, and each namespace's
    (position, input, embedding) in input order."""
    results: list[IngestResult | None]
    groups: dict[str, list[tuple[int, MemoryInput, np.ndarray]]]
