"""``[search]`` and the named recipes: ``SearchConfig`` objects are the retrieval recipes that the API,
the CLI and the eval harness share. Fields made with ``tunable`` are a request's overrides."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from graphmem.config.base import build, deep_merge

STAGES = ("router", "lexical", "vector", "context", "feedback", "expansion", "multihop", "health", "source",
          "time")
FUSIONS = ("rrf", "weighted")       # how recall fuses its channels (retrieval/recall.py fuse)
# how expansion treats a seed its context window scored (retrieval/expansion.py)
THREADED_EXPANSION = ("all", "outside_window", "off")


def tunable(low: float | None = None, high: float | None = None, *, ceiling: str | None = None,
            choices: tuple[str, ...] = (), description: str = "") -> Any:
    """A search parameter a request may override, with its bounds. A cost lever names its
    ``ceiling``, a ``[limits]`` key, instead of a fixed ``high``: the server caps the work."""
    return field(metadata={"tunable": True, "low": low, "high": high, "ceiling": ceiling, "choices": choices,
                           "description": description})


@dataclass(frozen=True)
class SearchConfig:
    """One retrieval recipe: which stages run and with which parameters.

    Fields made with ``tunable`` are the per-request overrides (``params``); their metadata is
    the one statement of their bounds, from which the API's request model is derived."""

    k: int
    stages: dict[str, bool]
    bm25_k1: float = field(metadata={"description": "BM25 term-frequency saturation (lexical recall)."})
    bm25_b: float = field(metadata={"description": "BM25 document-length normalisation, 0-1 (lexical recall)."})
    recall_candidates: int = tunable(1, ceiling="max_recall_candidates",
                                     description="Over-fetch per recall channel.")
    lexical_lookup_terms: int = tunable(1, ceiling="max_lexical_lookup_terms",
                                        description="Rarest query terms used to look up full-text candidates.")
    lexical_max_df_ratio: float = tunable(0.0, 1.0, description="Skip lookup terms in more than this share.")
    lexical_max_postings: int = tunable(1, ceiling="max_lexical_postings",
                                        description="Summed document-frequency budget of the lookup terms.")
    lexical_overfetch: int = tunable(1, ceiling="max_lexical_overfetch",
                                     description="Full-text pool = recall_candidates * this.")
    fusion: str = tunable(choices=FUSIONS, description="How the recall channels are fused.")
    context_fusion: str = tunable(choices=FUSIONS, description=(
        "How the context-window key's channels are fused (the memory key's: fusion)."))
    threaded_fusion: str = tunable(choices=FUSIONS, description=(
        "How the memory key's channels are fused in a search that also recalls context windows."))
    rrf_k: int = tunable(0, 10000)
    vector_weight: float = tunable(0.0, 10.0)
    lexical_weight: float = tunable(0.0, 10.0)
    context_weight: float = tunable(0.0, 1.0, description=(
        "Share of a thread member's context-window score in its recall score (the rest is its own text's)."))
    context_vector_weight: float = tunable(0.0, 10.0, description="Vector weight within the window key.")
    context_lexical_weight: float = tunable(0.0, 10.0, description="Full-text weight within the window key.")
    feedback_seeds: int = tunable(0, 50, description="Stage feedback: first-round top hits seeding the second.")
    feedback_vector_weight: float = tunable(0.0, 10.0, description=(
        "Stage feedback: weight of the seeds' mean embedding added to the query vector."))
    feedback_terms: int = tunable(0, 20, description="Stage feedback: seed terms added to the full-text query.")
    feedback_weight: float = tunable(0.0, 1.0, description="Stage feedback: the second round's share.")
    router_boost: float = tunable(0.0, 10.0)
    router_topic_boost: float = tunable(0.0, 10.0, description="Bonus per extracted topic the query names.")
    recency_weight: float = tunable(0.0, 10.0)
    recency_half_life_days: float = tunable(0.001, 36500.0)
    expansion_seeds: int = tunable(0, ceiling="max_expansion_seeds",
                                   description="Top direct results that may pull neighbours.")
    expansion_per_seed: int = tunable(0, ceiling="max_expansion_per_seed")
    expansion_max_added: int = tunable(0, ceiling="max_expansion_added")
    expansion_min_edge_weight: float = tunable(0.0, 1.0)
    expansion_decay: float = tunable(0.0, 1.0)
    expansion_similarity_mix: float = tunable(0.0, 1.0)
    expansion_merge_bonus: float = tunable(0.0, 10.0)
    expansion_threaded: str = tunable(choices=THREADED_EXPANSION, description=(
        "A seed its context window scored: expands (all), not into its window's turns, or not at all (off)."))
    edge_type_weights: dict[str, float] = tunable(0.0, 10.0, description="Per edge type, 0-10.")
    health_floor: float = tunable(0.0, 1.0)
    dedupe_near_duplicates: bool = tunable()
    group_copies: bool = tunable()
    group_cosine: float = tunable(0.0, 1.0)
    group_term_overlap: float = tunable(0.0, 1.0)
    successors_first: bool = tunable(description=(
        "A superseded result never ranks above its successor (missing successors are brought in)."))
    thread_decay: float = tunable(0.0, 1.0, description=(
        "Each result's score times this per result of its thread already placed above it (1: off)."))
    time_boost: float = tunable(0.0, 10.0, description=(
        "Stage time: a result whose time or resolved phrase falls in the query's date gains this share."))
    multihop_seeds: int = tunable(0, 50, description="Stage multihop: top results whose entities spread.")
    multihop_per_entity: int = tunable(1, 500, description=(
        "Stage multihop: newest memories read per entity (bounds the walk)."))
    multihop_max_df_ratio: float = tunable(0.0, 1.0, description=(
        "Stage multihop: entities mentioned by more than this share of the namespace do not spread."))
    multihop_query_weight: float = tunable(0.0, 10.0, description=(
        "Stage multihop: activation of an entity the query names (a seed's: its score's share of the top)."))
    multihop_weight: float = tunable(0.0, 10.0, description=(
        "Stage multihop: a reached memory's score = this x the top score x its share of the best activation."))
    multihop_similarity_mix: float = tunable(0.0, 1.0, description=(
        "Stage multihop: share of the reached memory's own query similarity in its score."))
    multihop_merge_bonus: float = tunable(0.0, 10.0, description=(
        "Stage multihop: a candidate also reached gains this share of its multi-hop score."))
    multihop_max_added: int = tunable(0, 100, description="Stage multihop: at most this many new candidates.")
    multihop_anchor: bool = tunable(description=(
        "Stage multihop: when the query names known entities, a reached memory must mention one of them."))
    multihop_list_thread_decay: float = tunable(0.0, 1.0, description=(
        "Stage multihop: thread_decay for a query asking for a list (\"which\", \"what kind of\"); 1: off."))
    name: str = "custom"

    def stage(self, name: str) -> bool:
        return bool(self.stages.get(name, True))

    def with_overrides(self, overrides: dict[str, Any] | None, name: str | None = None) -> SearchConfig:
        """A copy with some keys replaced; ``stages`` and ``edge_type_weights`` merge key by key."""
        if not overrides:
            return self if name is None else replace(self, name=name)
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        merged = deep_merge(data, overrides)
        if name is not None:
            merged["name"] = name
        return build(SearchConfig, merged, "search")

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
