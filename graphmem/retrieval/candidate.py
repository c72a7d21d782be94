"""The per-candidate record that flows through the stages and becomes a result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.model import Memory


@dataclass
class Candidate:
    memory: Memory
    score: float = 0.0
    direct: dict[str, Any] | None = None        # vector/lexical ranks and scores, fused score
    related: list[dict[str, Any]] = field(default_factory=list)   # seeds and edges that brought it
    router: dict[str, Any] | None = None
    health: dict[str, Any] | None = None
    source: dict[str, Any] | None = None
    merged_duplicates: list[str] = field(default_factory=list)
    supersession: dict[str, Any] | None = None  # moved below its successor, pulled in for, candidates
    time: dict[str, Any] | None = None          # how the query's date boosted it (stage time)
    multihop: dict[str, Any] | None = None      # the entities it shares with the seeds or the query

    @property
    def kind(self) -> str:
        if self.direct and self.related:
            return "direct+related"
        return "direct" if self.direct else "related"

    def why(self) -> dict[str, Any]:
        mem = self.memory
        why: dict[str, Any] = {"kind": self.kind}
        if self.direct:
            why["direct"] = self.direct
        if self.related:
            why["related"] = self.related
        if self.multihop:
            why["multihop"] = self.multihop
        if self.router:
            why["router"] = self.router
        why["health"] = self.health or {"score": mem.health, "multiplier": 1.0,
                                        "penalties": [p.to_dict() for p in mem.health_reasons],
                                        "applied": False}
        why["source"] = self.source or {"source": mem.source, "weight": mem.source_weight, "applied": False}
        if self.merged_duplicates:
            why["near_duplicates_merged"] = self.merged_duplicates
        sup = dict(self.supersession or {})
        if mem.superseded_by is not None:
            sup["superseded_by"] = mem.superseded_by
        if sup:
            why["supersession"] = sup
        if mem.times or self.time:
            why["time"] = {"resolved": [{"phrase": t.get("phrase"), "value": t.get("value"), "text": t.get("text")}
                                        for t in mem.times], **({"boost": self.time} if self.time else {})}
        return why
