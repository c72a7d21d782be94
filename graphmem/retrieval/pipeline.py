"""The staged search pipeline: composes the stages (``stage.py``), times and counts them.

router -> recall (memory key, window key; router boost, recency) -> expansion (one hop)
-> weighting (health, source, time) -> rank.

Every rule lives in its stage's module; this module only orders the stages into trace rows,
asks each whether this request runs it, and keeps the trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.config import EntitySettings, SearchConfig, SupersedeSettings, TimeSettings
from graphmem.model import MemoryFilter, utcnow_iso
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.expansion import ExpansionStage
from graphmem.retrieval.multihop import MultiHopStage
from graphmem.retrieval.overlap import Overlap
from graphmem.retrieval.rank import RankStage
from graphmem.retrieval.recall_stage import RecallStage, query_vector
from graphmem.retrieval.recency import RecencyStage
from graphmem.retrieval.router import RouterBoostStage, RouterStage
from graphmem.retrieval.stage import Query, Search, Stage
from graphmem.retrieval.time_boost import TimeStage
from graphmem.retrieval.trace import Trace
from graphmem.retrieval.weighting import HealthStage, SourceStage
from graphmem.stores.base import MemoryStore

# The plan: each trace row and the stages that report on it, in order.
Plan = Sequence[tuple[str, Sequence[Stage]]]


@dataclass
class SearchRequest:
    query: str
    namespace: str = "default"
    config: SearchConfig | None = None
    k: int | None = None
    filters: MemoryFilter = field(default_factory=MemoryFilter)


@dataclass
class SearchOutcome:
    candidates: list[Candidate]
    trace: dict[str, Any]
    # every neighbour expansion added (before the cut to k), with the paths that brought it:
    # the eval harness measures edge precision on these, whether or not they reached the top k
    expansion_added: list[Candidate] = field(default_factory=list)


def default_plan(supersede: SupersedeSettings | None, time: TimeSettings | None,
                 entities: EntitySettings | None = None) -> list[tuple[str, list[Stage]]]:
    """graphmem's stages in their rows: what the router names boosts the recalled candidates,
    expansion and multi-hop seed from their boosted scores before health, source and the query's
    date weigh them."""
    return [("router", [RouterStage()]),
            ("recall", [RecallStage(), RouterBoostStage(), RecencyStage()]),
            ("expansion", [ExpansionStage()]),
            ("multihop", [MultiHopStage(entities)]),
            ("weighting", [HealthStage(), SourceStage(), TimeStage(time)]),
            ("rank", [RankStage(supersede)])]


class SearchPipeline:
    def __init__(self, store: MemoryStore, embedder, clock=utcnow_iso, overlap_workers: int = 0,
                 supersede: SupersedeSettings | None = None, time: TimeSettings | None = None,
                 entities: EntitySettings | None = None, plan: Plan | None = None):
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.overlap = Overlap(overlap_workers)
        self.plan: Plan = plan if plan is not None else default_plan(supersede, time, entities)

    def close(self) -> None:
        self.overlap.close()

    def run(self, req: SearchRequest) -> SearchOutcome:
        cfg = req.config
        assert cfg is not None
        q = Query(req.query, cfg, req.k or cfg.k, req.namespace, req.filters, self.clock())
        trace = Trace()
        # the query is embedded beside the router's and the context check's store round trips
        # (ONNX Runtime releases the GIL); in turn when the pipeline has no overlap workers
        overlap = self.overlap
        embed = (overlap.start(lambda: query_vector(self.embedder, q)) if overlap.workers
                 else lambda: query_vector(self.embedder, q))
        search = Search(q, self.store, overlap, embed)
        for row_name, stages in self.plan:
            with trace.stage(row_name, False) as row:
                for stage in stages:
                    if stage.enabled(search):
                        row.enabled = True
                        stage.run(search, row)
                    else:
                        stage.skip(search, row)
        kinds = {"direct": 0, "related": 0, "direct+related": 0}
        for c in search.results:
            kinds[c.kind] += 1
        return SearchOutcome(search.results, {"recipe": cfg.name, "k": q.k, "stages": trace.rows,
                                              "results_by_kind": kinds, "total_ms": trace.total_ms()},
                             search.added)
