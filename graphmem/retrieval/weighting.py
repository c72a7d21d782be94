"""Health and source weighting: bounded multipliers, never filters (the weighting row).

health multiplier = floor + (1 - floor) * health  (in [floor, 1])
source multiplier = source weight                 (0.9 .. 1.0 by default)

Each is a stage; the trace says whether it reordered the top (health: the top 5, source: the top k).
"""

from __future__ import annotations

from typing import ClassVar

from graphmem.contract.responses import HealthPenalty, HealthWhy, SourceWhy
from graphmem.model import Memory
from graphmem.retrieval.rank import order
from graphmem.retrieval.stage import Search, Stage
from graphmem.retrieval.trace import StageRow


def health_multiplier(mem: Memory, floor: float) -> float:
    return floor + (1.0 - floor) * max(0.0, min(1.0, mem.health))


def health_why(mem: Memory, floor: float) -> HealthWhy:
    return HealthWhy(score=round(mem.health, 4), multiplier=round(health_multiplier(mem, floor), 4),
                     penalties=[HealthPenalty(rule=p.rule, penalty=p.penalty, detail=p.detail)
                                for p in mem.health_reasons], applied=True)


def source_multiplier(mem: Memory) -> float:
    return mem.source_weight


def source_why(mem: Memory) -> SourceWhy:
    return SourceWhy(source=mem.source, weight=round(mem.source_weight, 4), applied=True)


def _top(search: Search, n: int) -> list[str]:
    return [c.memory.id for c in order(list(search.cands.values()))[:n]]


class HealthStage(Stage):
    """Each candidate's score times its health multiplier (``health_floor``)."""

    name: ClassVar[str] = "health"

    def enabled(self, search: Search) -> bool:
        return search.cfg.stage("health")

    def run(self, search: Search, row: StageRow) -> None:
        floor = search.cfg.health_floor
        before = _top(search, 5)
        for c in search.cands.values():
            c.score *= health_multiplier(c.memory, floor)
            c.health = health_why(c.memory, floor)
        n = len(search.cands)
        row.counts(n, n, health_changed_top5=before != _top(search, search.query.k)[:5])

    def skip(self, search: Search, row: StageRow) -> None:
        # compared as when it runs: the top 5 against the top k's first 5 (which differ when k < 5)
        n = len(search.cands)
        row.counts(n, n, health_changed_top5=_top(search, 5) != _top(search, search.query.k)[:5])


class SourceStage(Stage):
    """Each candidate's score times its source's weight (``[sources.ranks]``)."""

    name: ClassVar[str] = "source"

    def enabled(self, search: Search) -> bool:
        return search.cfg.stage("source")

    def run(self, search: Search, row: StageRow) -> None:
        k = search.query.k
        before = _top(search, k)
        for c in search.cands.values():
            c.score *= source_multiplier(c.memory)
            c.source = source_why(c.memory)
        n = len(search.cands)
        row.counts(n, n, source_reordered=before != _top(search, k))

    def skip(self, search: Search, row: StageRow) -> None:
        row.counts(len(search.cands), len(search.cands), source_reordered=False)
