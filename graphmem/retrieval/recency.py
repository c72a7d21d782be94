"""Recency (in the recall row): a direct hit's score times ``1 + recency_weight * 0.5 ** (age /
recency_half_life_days)``, age in days at the request's clock; off at ``recency_weight`` 0."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from graphmem.config import SearchConfig
from graphmem.model import normalize_timestamp
from graphmem.retrieval.stage import Search, Stage
from graphmem.retrieval.trace import StageRow


def recency_multiplier(created_at: str, now_iso: str, cfg: SearchConfig) -> float:
    """1 + recency_weight * 0.5 ** (age / half-life); 1.0 when recency is off."""
    if cfg.recency_weight <= 0:
        return 1.0

    def parse(ts: str) -> datetime:
        return datetime.fromisoformat(normalize_timestamp(ts).replace("Z", "+00:00"))

    age_days = max(0.0, (parse(now_iso) - parse(created_at)).total_seconds() / 86400)
    return 1.0 + cfg.recency_weight * 0.5 ** (age_days / cfg.recency_half_life_days)


class RecencyStage(Stage):
    """Multiplies each recalled candidate's score by its recency multiplier."""

    name: ClassVar[str] = "recency"

    def enabled(self, search: Search) -> bool:
        return search.cfg.recency_weight > 0 and bool(search.cands)

    def run(self, search: Search, row: StageRow) -> None:
        for cand in search.cands.values():
            cand.score *= recency_multiplier(cand.memory.created_at, search.query.now, search.cfg)
