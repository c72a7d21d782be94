"""Per-stage timing and counts for a search's ``trace``.

``with trace.stage("recall", enabled) as row: ... row.counts(n_in, n_out, vector=...)``
times the block and appends one row: stage, enabled, in, out, ms, then the stage's extras.
Several stages may report on one row; ``row.enabled`` is whether any of them ran.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StageRow:
    """What a stage reports about itself: candidates in and out plus stage-specific facts."""
    n_in: int = 0
    n_out: int = 0
    enabled: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def counts(self, n_in: int, n_out: int, **extra: Any) -> None:
        self.n_in, self.n_out = n_in, n_out
        self.extra.update(extra)


class Trace:
    """The rows of one search, in stage order, and its total time."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.started = time.perf_counter()

    @contextmanager
    def stage(self, name: str, enabled: bool) -> Iterator[StageRow]:
        row = StageRow(enabled=enabled)
        t0 = time.perf_counter()
        yield row
        self.rows.append({"stage": name, "enabled": row.enabled, "in": row.n_in, "out": row.n_out,
                          "ms": round((time.perf_counter() - t0) * 1000, 3), **row.extra})

    def total_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 3)
