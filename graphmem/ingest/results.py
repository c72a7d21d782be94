"""What the write path hands back: one item's outcome, and a batch validated and embedded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.errors import GraphmemError
from graphmem.ingest.validate import MemoryInput
from graphmem.model import Memory


@dataclass
class IngestResult:
    status: str                    # created | duplicate | rejected
    memory: Memory | None = None
    duplicate_of: str | None = None
    error: GraphmemError | None = None
    index: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "status": self.status}
        if self.memory is not None:
            out["id"] = self.memory.id
            out["memory"] = self.memory.to_dict()
        if self.duplicate_of:
            out["duplicate_of"] = self.duplicate_of
        if self.error is not None:
            out["error"] = self.error.to_dict()
        return out


@dataclass
class PreparedBatch:
    """A validated, embedded batch not yet written: rejections by position, and each namespace's
    (position, input, embedding) in input order."""
    results: list[IngestResult | None]
    groups: dict[str, list[tuple[int, MemoryInput, np.ndarray]]]
