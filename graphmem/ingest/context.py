"""What the batch writer and the re-scorer need of the ingest service, as a protocol: they take
this context, not the ``Ingestor``, so the service imports them and nothing imports it back."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol

import numpy as np

from graphmem.config import Settings
from graphmem.contract.requests import MemoryInput
from graphmem.ingest.results import IngestResult
from graphmem.ingest.supersede import Superseder
from graphmem.ingest.threads import ThreadKeeper
from graphmem.model import Memory
from graphmem.stores.base import MemoryStore


class IngestContext(Protocol):
    settings: Settings
    store: MemoryStore
    threads: ThreadKeeper
    superseder: Superseder

    def serial(self) -> AbstractContextManager[None]:
        """The write path's critical section (this process's lock, then the store's write session)."""

    def build(self, namespace: str, inp: MemoryInput, embedding: np.ndarray | None, created_at: str | None = None,
              current: Memory | None = None) -> Memory:
        """A memory with health, source weight and terms computed, not yet linked or saved."""

    def existing(self, namespace: str, inp: MemoryInput, by_id: Callable[[str], Memory | None] | None = None,
                 by_hash: Callable[[str], Memory | None] | None = None) -> IngestResult | None:
        """The stored memory ``inp`` duplicates, or None."""

    def relink(self, current: Memory, mem: Memory) -> Memory:
        """Save ``mem`` over ``current`` with its automatic edges planned anew."""
