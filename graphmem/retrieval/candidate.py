"""The per-candidate record that flows through the stages and becomes a result.

Each stage explains what it did to a candidate in the contract's typed ``why`` parts
(``contract/responses.py``): recall its ``DirectWhy``, expansion its ``RelatedPath``s, the router
its ``RouterWhy``, weighting its ``HealthWhy`` and ``SourceWhy``, rank its ``SupersessionWhy``,
stage time its ``TimeBoost``, stage multihop its ``MultiHopWhy``. ``explain`` assembles them
into the result's ``Why``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.contract.responses import (
    DirectWhy,
    HealthPenalty,
    HealthWhy,
    MultiHopWhy,
    RelatedPath,
    ResolvedTime,
    RouterWhy,
    SourceWhy,
    SupersessionWhy,
    TimeBoost,
    TimeWhy,
    Why,
)
from graphmem.model import Memory


@dataclass
class Candidate:
    memory: Memory
    score: float = 0.0
    recall: dict[str, Any] | None = None        # recall's ranks and scores (``recall.fuse``): read as ``direct``
    related: list[RelatedPath] = field(default_factory=list)   # seeds and edges that brought it
    router: RouterWhy | None = None
    health: HealthWhy | None = None
    source: SourceWhy | None = None
    merged_duplicates: list[str] = field(default_factory=list)
    supersession: SupersessionWhy | None = None  # moved below its successor, pulled in for, candidates
    time: TimeBoost | None = None               # how the query's date boosted it (stage time)
    multihop: MultiHopWhy | None = None         # the entities it shares with the seeds or the query

    @property
    def direct(self) -> DirectWhy | None:
        """Recall's part, made when first read: a search explains ten results, not the few
        hundred candidates recall scored (validating each one's part cost more than scoring it)."""
        if self.recall is None:
            return None
        made: DirectWhy | None = self.__dict__.get("_direct")
        if made is None:
            made = self.__dict__["_direct"] = DirectWhy.model_validate(
                {**self.recall, "fused": round(self.recall["fused"], 6)})
        return made

    @property
    def kind(self) -> str:
        if self.recall is not None and self.related:
            return "direct+related"
        return "direct" if self.recall is not None else "related"

    def explain(self) -> Why:
        """The result's ``why``: each stage's part, and the memory's own health, source,
        successor and resolved times where no stage applied them."""
        mem = self.memory
        parts: dict[str, Any] = {"kind": self.kind}
        if self.direct:
            parts["direct"] = self.direct
        if self.related:
            parts["related"] = self.related
        if self.multihop:
            parts["multihop"] = self.multihop
        if self.router:
            parts["router"] = self.router
        parts["health"] = self.health or HealthWhy(
            score=mem.health, multiplier=1.0, applied=False,
            penalties=[HealthPenalty(rule=p.rule, penalty=p.penalty, detail=p.detail) for p in mem.health_reasons])
        parts["source"] = self.source or SourceWhy(source=mem.source, weight=mem.source_weight, applied=False)
        if self.merged_duplicates:
            parts["near_duplicates_merged"] = self.merged_duplicates
        if mem.superseded_by is not None:
            parts["supersession"] = (self.supersession or SupersessionWhy.model_validate({})).model_copy(
                update={"superseded_by": mem.superseded_by})
        elif self.supersession is not None:
            parts["supersession"] = self.supersession
        if mem.times or self.time:
            resolved = [ResolvedTime.model_validate({"phrase": t.get("phrase"), "value": t.get("value"),
                                                     "text": t.get("text")}) for t in mem.times]
            boost = {"boost": self.time} if self.time else {}
            parts["time"] = TimeWhy.model_validate({"resolved": resolved, **boost})
        return Why(**parts)

    def why(self) -> dict[str, Any]:
        """``explain`` as the plain document the views and the API send (unset parts left out)."""
        return self.explain().model_dump(exclude_unset=True)
