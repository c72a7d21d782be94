"""Stage ``multihop``: bounded spreading activation over the memory-entity graph.

Why: a multi-hop question's evidence sits in turns of several sessions that name the same people
and things ("Audrey", "her dogs", "agility class") and share little else with the query; recall
finds one or two of them. From the entities the query names and those of the first round's top
results (the seeds), activation spreads one step over MENTIONS to the other memories that name
them, and the best of those join the candidates.

    activation(entity) = rarity(entity) x (query_weight if the query names it
                                          + sum over seeds naming it of seed score / top score)
    rarity(entity)     = 1 - log(df) / log(n)            (df: memories mentioning it, n: the namespace)
    activation(memory) = sum over the entities it names of their activation (its own seed share left out)
    score(memory)      = weight x cut x activation / best activation x ((1 - mix) + mix x cos+)
    cut                = the score of the k-th candidate before the stage (weight 1: the best
                         reached memory ties the last place of today's top k)

With ``multihop_anchor``, when the query names entities the namespace knows (however common, the
speaker say), a reached memory counts only if it mentions one of them too: the common entity filters
the walk instead of spreading it ("What activities does Melanie ..." reaches Melanie's turns).

Entities named by more than ``multihop_max_df_ratio`` of the namespace (the speakers of a chat,
say) do not spread, and every entity reads only its newest ``multihop_per_entity`` members: the
walk is bounded whatever the data. Pure scoring: the store calls are in ``MultiHop.run``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from graphmem.config import EntitySettings, SearchConfig
from graphmem.contract.responses import MultiHopWhy
from graphmem.ingest.entities import entity_keys
from graphmem.model import Memory, MemoryFilter
from graphmem.retrieval import rank
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.stage import Search, Stage
from graphmem.retrieval.trace import StageRow

# A question asking for several things ("what kind of", "which", "what activities", "list"):
# its answer spans threads, so the top k should too.
_LIST_QUERY = re.compile(
    r"\b(?:what\s+(?:kinds?|sorts?|types?)\s+of|which|what\s+\w+\s+(?:activities|things|events|hobbies|places|"
    r"books|games|sports|pets|items)|list|name\s+(?:some|all|the)|how\s+many)\b", re.IGNORECASE)
QUERY = "query"


def is_list_query(text: str) -> bool:
    return bool(_LIST_QUERY.search(text))


def rarity(df: int, n_docs: int) -> float:
    """1 for an entity one memory names, falling towards 0 as it grows as common as the namespace."""
    if df <= 1 or n_docs <= 1:
        return 1.0
    return max(0.0, 1.0 - math.log(df) / math.log(max(n_docs, 2)))


def spreadable(df: int, n_docs: int, max_df_ratio: float) -> bool:
    """Whether an entity spreads: someone mentions it, and at most ``max_df_ratio`` of the namespace
    (never fewer than 2 memories, so a small namespace still links pairs)."""
    return 0 < df <= max(2.0, max_df_ratio * n_docs)


@dataclass
class Reached:
    """A memory the spread reached: its activation and, per entity, who lit it (seeds or the query)."""
    activation: float = 0.0
    via: dict[str, list[str]] = field(default_factory=dict)


def spread(seeds: Mapping[str, tuple[float, list[str]]], query_entities: list[str],
           members: Mapping[str, list[str]], weights: Mapping[str, float], query_weight: float
           ) -> dict[str, Reached]:
    """Memory id -> what reached it. ``seeds``: id -> (score share of the top, its entity keys);
    ``members``: entity -> the ids mentioning it; ``weights``: entity -> rarity (only those spreading)."""
    lit: dict[str, dict[str, float]] = {}            # entity -> source (seed id or QUERY) -> share
    for entity in query_entities:
        if entity in weights and query_weight > 0:
            lit.setdefault(entity, {})[QUERY] = query_weight
    for seed, (share, entities) in seeds.items():
        for entity in entities:
            if entity in weights:
                lit.setdefault(entity, {})[seed] = share
    out: dict[str, Reached] = {}
    for entity, sources in lit.items():
        for memory_id in members.get(entity, ()):
            others = {s: v for s, v in sources.items() if s != memory_id}
            if not others:
                continue
            hit = out.setdefault(memory_id, Reached())
            hit.activation += weights[entity] * sum(others.values())
            hit.via[entity] = sorted(others, key=lambda s: (-others[s], s))
    return out


def why_text(entity: str, sources: list[str]) -> str:
    source = sources[0]
    return f"shares entity '{entity}' with the query" if source == QUERY else \
        f"shares entity '{entity}' with seed {source}"


def explain(hit: Reached, weights: Mapping[str, float], score: float) -> MultiHopWhy:
    """The candidate's ``why.multihop``: its score and each shared entity, strongest first."""
    shared = sorted(hit.via, key=lambda e: (-weights[e], e))
    return MultiHopWhy.model_validate({"score": round(score, 6), "activation": round(hit.activation, 6),
            "entities": [{"entity": e, "weight": round(weights[e], 4), "via": hit.via[e][:3],
                          "reason": why_text(e, hit.via[e])} for e in shared[:5]]})


def reached_score(hit: Reached, best: float, cut: float, cosine: float, cfg: SearchConfig) -> float:
    relevance = (1.0 - cfg.multihop_similarity_mix) + cfg.multihop_similarity_mix * max(0.0, cosine)
    return cfg.multihop_weight * cut * (hit.activation / best) * relevance


@dataclass
class MultiHopResult:
    added: list[Candidate]
    counts: dict[str, Any]


class MultiHop:
    """The stage over a store: ``entity_counts``, ``entity_members`` and ``get_memories`` reads."""

    def __init__(self, store, rules: EntitySettings):
        self.store = store
        self.rules = rules

    def run(self, query: str, cands: dict[str, Candidate], cfg: SearchConfig, ns: str, flt: MemoryFilter,
            now: str, qvec: np.ndarray | None, n_docs: Callable[[], int], k: int) -> MultiHopResult:
        ordered = rank.order(list(cands.values()))
        seeds = ordered[: cfg.multihop_seeds]
        top = seeds[0].score if seeds and seeds[0].score > 0 else 0.0
        if top <= 0:
            return MultiHopResult([], {"seeds": 0})
        cut = ordered[min(k, len(ordered)) - 1].score
        seed_entities = {c.memory.id: (c.score / top, self._entities(c.memory)) for c in seeds}
        query_entities = entity_keys(query, self.rules)
        wanted = list(dict.fromkeys([*query_entities, *(e for _, es in seed_entities.values() for e in es)]))
        df = self.store.entity_counts(ns, wanted) if wanted else {}
        n = n_docs()
        weights = {e: rarity(d, n) for e, d in df.items() if spreadable(d, n, cfg.multihop_max_df_ratio)}
        weights = {e: w for e, w in weights.items() if w > 0}
        members = self.store.entity_members(ns, list(weights), cfg.multihop_per_entity) if weights else {}
        reached = spread(seed_entities, query_entities, members, weights, cfg.multihop_query_weight)
        anchors = {e for e in query_entities if df.get(e, 0) > 0} if cfg.multihop_anchor else set()
        counts: dict[str, Any] = {"seeds": len(seeds), "query_entities": query_entities,
                                  "entities": len(weights), "skipped_common": len(df) - len(weights),
                                  "reached": len(reached)}
        if anchors:
            counts["anchors"] = sorted(anchors)
        if not reached:
            return MultiHopResult([], {**counts, "added": 0, "merged": 0})
        best = max(h.activation for h in reached.values())
        # the strongest few new memories are read (bounded), the rest never leave the index
        fresh_ids = sorted((i for i in reached if i not in cands), key=lambda i: (-reached[i].activation, i))
        fresh_ids = fresh_ids[: cfg.multihop_max_added * (6 if anchors else 3)]
        read = self.store.get_memories(ns, fresh_ids) if fresh_ids and cfg.multihop_max_added > 0 else {}
        fresh: list[Candidate] = []
        merged = 0
        for memory_id, hit in reached.items():
            mem = cands[memory_id].memory if memory_id in cands else read.get(memory_id)
            if mem is None or (memory_id not in cands and not flt.matches(mem, now)):
                continue
            if anchors and not anchors.intersection(self._entities(mem)):
                continue
            cosine = float(np.dot(qvec, mem.embedding)) if qvec is not None and mem.embedding is not None else 0.0
            score = reached_score(hit, best, cut, cosine, cfg)
            why = explain(hit, weights, score)
            if memory_id in cands:
                cand = cands[memory_id]
                cand.score += cfg.multihop_merge_bonus * score
                cand.multihop = why
                merged += 1
            else:
                fresh.append(Candidate(mem, score=score, multihop=why))
        fresh = rank.order(fresh)[: cfg.multihop_max_added]
        for cand in fresh:
            cands[cand.memory.id] = cand
        return MultiHopResult(fresh, {**counts, "added": len(fresh), "merged": merged})

    def _entities(self, mem: Memory) -> list[str]:
        """A seed's entity keys: stored with it, else (a memory written before entities) its content's."""
        return [e["entity"] for e in mem.entities] if mem.entities else entity_keys(mem.content, self.rules)


class MultiHopStage(Stage):
    """Stage ``multihop``: spreads from the seeds and the query's entities after expansion. It keeps
    nothing per request: a list question's thread spread goes on ``search.query``'s recipe."""

    name: ClassVar[str] = "multihop"

    def __init__(self, rules: EntitySettings | None):
        self.rules = rules

    def enabled(self, search: Search) -> bool:
        cfg = search.query.cfg
        return self.rules is not None and cfg.stage("multihop") and cfg.multihop_seeds > 0

    def run(self, search: Search, row: StageRow) -> None:
        assert self.rules is not None
        q, store = search.query, search.store
        n_in = len(search.cands)
        result = MultiHop(store, self.rules).run(q.text, search.cands, q.cfg, q.ns, q.flt, q.now, search.qvec,
                                                 lambda: store.term_stats(q.ns, []).n_docs, q.k)
        listing = is_list_query(q.text)
        row.counts(n_in, len(search.cands), list_query=listing, **result.counts)
        if listing and q.cfg.multihop_list_thread_decay < 1.0:
            search.query = replace(q, cfg=q.cfg.with_overrides({"thread_decay": q.cfg.multihop_list_thread_decay}))

    def skip(self, search: Search, row: StageRow) -> None:
        row.counts(len(search.cands), len(search.cands))
