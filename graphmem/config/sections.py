"""The settings sections other than ``[store]`` and ``[search]``: one frozen dataclass per
``defaults.toml`` table, so every tunable number of ingest and retrieval has one named home and the
ranker holds no literals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.config.base import UNCAPPED


@dataclass(frozen=True)
class Limits:
    max_content_chars: int
    max_tags: int
    max_tag_chars: int
    max_category_chars: int
    max_source_chars: int
    max_reason_chars: int
    max_id_chars: int
    max_metadata_bytes: int
    max_batch: int
    max_k: int
    max_query_chars: int
    max_filter_values: int
    max_body_bytes: int
    max_json_depth: int
    max_list_limit: int
    max_neighbors_limit: int
    max_graph_ids: int
    max_graph_hops: int
    max_graph_nodes: int
    max_graph_hop_neighbors: int
    max_recall_candidates: int
    max_lexical_lookup_terms: int
    max_lexical_postings: int
    max_lexical_overfetch: int
    max_expansion_seeds: int
    max_expansion_per_seed: int
    max_expansion_added: int
    max_relation_label_chars: int
    max_evidence_chars: int
    max_supersedes: int
    max_context_tokens: int


@dataclass(frozen=True)
class HealthRules:
    short_chars: int
    short_penalty: float
    long_chars: int
    long_penalty: float
    transient_penalty: float
    transient_patterns: tuple[str, ...]
    reference_penalty: float
    reference_patterns: tuple[str, ...]
    missing_tags_penalty: float
    missing_category_penalty: float
    superseded_penalty: float


@dataclass(frozen=True)
class SupersedeSettings:
    """Supersession (``ingest/supersede.py``) and its evidence-gated candidates
    (``ingest/supersede_candidates.py``)."""

    edge_weight: float
    max_history: int
    auto: bool
    candidates: bool
    candidate_pool: int
    min_cosine: float                   # in effect: min_cosine_by_model's for the [model], else min_cosine
    min_term_overlap: float
    min_cosine_by_model: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class SourceRanks:
    base: float
    span: float
    max_rank: int
    default_rank: int
    ranks: dict[str, int]


@dataclass(frozen=True)
class IngestSettings:
    near_duplicate_threshold: float
    import_overlap: bool
    import_chunk_size: int


@dataclass(frozen=True)
class EdgeSettings:
    shares_tag_weight: float
    same_category_weight: float
    overlaps_weight: float
    related_weight: float
    max_degree_shares_tag: int
    max_degree_same_category: int
    max_degree_overlaps: int
    max_degree_related: int
    tag_full_strength: float
    min_shared_tag_rarity: float
    min_shared_terms: int
    overlap_full_terms: int
    category_similarity_mix: float
    candidates_per_tag: int
    candidates_per_category: int
    candidates_lexical: int
    lexical_lookup_terms: int
    lexical_max_df_ratio: float
    lexical_max_postings: int
    lexical_holders_per_term: int
    topic_tag_weight: float
    topic_max_df_ratio: float
    follows_weight: float

    def max_degree(self, edge_type: str) -> int:
        return {"SHARES_TAG": self.max_degree_shares_tag,
                "SAME_CATEGORY": self.max_degree_same_category,
                "OVERLAPS": self.max_degree_overlaps,
                "RELATED": self.max_degree_related,
                "FOLLOWS": 2,      # one before, one after (the thread check verifies which)
                # an older memory is superseded by one newer (a second is a 409), but a memory may
                # supersede any number over time: the edge type has no degree cap
                "SUPERSEDES": UNCAPPED}[edge_type]


@dataclass(frozen=True)
class ContextSettings:
    """Context windows of thread members (``ingest/threads.py``): which turns a window spans."""

    enabled: bool
    before: int
    after: int
    separator: str


@dataclass(frozen=True)
class TopicSettings:
    """Topic tags extracted at ingest (``ingest/topics.py``); how they link is in ``[edges]``."""

    enabled: bool
    max_per_memory: int
    min_chars: int
    names: bool
    words: bool
    phrases: bool
    stop_words: tuple[str, ...] = ()     # filler words never taken as a (word or pair) topic


@dataclass(frozen=True)
class EntitySettings:
    """Entity mentions extracted at ingest (``ingest/entities.py``), each a MENTIONS link."""

    enabled: bool
    max_per_memory: int
    max_words: int
    min_chars: int
    names: bool
    phrases: bool
    triggers: tuple[str, ...] = ()      # words a noun phrase follows (determiners, possessives, "of")
    stop_words: tuple[str, ...] = ()    # filler words never part of a noun phrase or a name


@dataclass(frozen=True)
class TimeSettings:
    """Relative time phrases resolved at ingest (``ingest/timeref.py``) and a query's date."""

    enabled: bool
    time_fields: list[str]
    max_per_memory: int
    week_start: int
    seasons: dict[str, list[int]]


@dataclass(frozen=True)
class ContextBlockSettings:
    """The prompt-ready context block (``retrieval/context_block.py``)."""

    k: int
    neighbours_before: int
    neighbours_after: int


@dataclass(frozen=True)
class ApiSettings:
    host: str
    port: int
    threads: int
    keys: list[dict[str, Any]]
    allowed_hosts: list[str]
    request_timeout: float
    channel_timeout: int
    connection_limit: int
    cleanup_interval: int
    backlog: int
    recv_bytes: int
    probe_threads: int


@dataclass(frozen=True)
class McpSettings:
    """The MCP server: its HTTP port and how much one tool result may hold (context windows are small)."""

    port: int
    compact_content_chars: int
    max_result_chars: int
    neighbors_limit: int
    request_timeout: float
    keep_alive_timeout: int
    limit_concurrency: int
    backlog: int


@dataclass(frozen=True)
class ModelSettings:
    name: str
    dir: str
    prepare_on_first_use: bool
    threads: int = 0
    spin_wait: bool = True
