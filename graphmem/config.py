"""Settings as data: ``defaults.toml`` merged with a user file and environment.

Every tunable number of ingest and retrieval lives here, so the ranker holds no
literals. ``SearchConfig`` objects are named recipes that the API, the CLI and the
eval harness share.
"""

from __future__ import annotations

import copy
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from graphmem.errors import ConfigError

APP_NAME = "graphmem"
DEFAULTS_PATH = Path(__file__).with_name("defaults.toml")
STAGES = ("router", "lexical", "vector", "context", "feedback", "expansion", "multihop", "health", "source",
          "time")
FUSIONS = ("rrf", "weighted")       # how recall fuses its channels (retrieval/recall.py fuse)
# how expansion treats a seed its context window scored (retrieval/expansion.py)
THREADED_EXPANSION = ("all", "outside_window", "off")


def deep_merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


# Keys a user file may still carry from an older release: named in the error with their successor.
_RENAMED = {
    "edges.lexical_query_terms": "edges.lexical_lookup_terms",
    "edges.lexical_term_max_df": "edges.lexical_max_df_ratio and edges.lexical_max_postings",
}


def _build(cls, data: dict, section: str):
    known = {f.name for f in fields(cls)}
    unknown = set(data) - known
    for key in sorted(unknown):
        if f"{section}.{key}" in _RENAMED:
            raise ConfigError(f"[{section}] {key} was replaced by {_RENAMED[f'{section}.{key}']}",
                              field=f"{section}.{key}")
    if unknown:
        raise ConfigError(f"unknown key(s) in [{section}]: {', '.join(sorted(unknown))}",
                          field=f"{section}.{sorted(unknown)[0]}")
    return cls(**data)


UNCAPPED = 2**31 - 1     # the degree "cap" of an edge type that has none


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
class StoreSettings:
    kind: str
    data_dir: str
    sqlite_synchronous: str
    sqlite_vector_log_keep: int
    sqlite_ann_threshold: int
    sqlite_ann_connectivity: int
    sqlite_ann_expansion_add: int
    sqlite_ann_expansion_search: int
    sqlite_ann_overfetch: int
    sqlite_ann_exact_subset_max: int
    sqlite_ann_dtype: str
    sqlite_scan_threads: int
    sqlite_row_cache: int
    sqlite_lexical_writer_memory: int
    sqlite_lexical_commit_every: int
    write_wait: float
    neo4j_uri: str
    neo4j_user: str
    neo4j_password: str
    neo4j_database: str
    neo4j_connection_timeout: float
    neo4j_acquisition_timeout: float
    neo4j_max_retry_time: float
    neo4j_transient_retry_time: float
    neo4j_breaker_failures: int
    neo4j_breaker_cooldown: float
    neo4j_ping_timeout: float
    neo4j_read_timeout: float
    neo4j_write_timeout: float
    neo4j_admin_timeout: float
    neo4j_deadline_grace: float
    neo4j_call_threads: int
    neo4j_server_info_ttl: float
    neo4j_vector_overfetch: int
    neo4j_vector_min_fetch: int
    neo4j_as_of_overfetch: int
    recall_overlap_workers: int
    recall_overlap_stores: list[str]
    check_recall_depth: int


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
        return _build(SearchConfig, merged, "search")

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Settings:
    limits: Limits
    health: HealthRules
    sources: SourceRanks
    ingest: IngestSettings
    edges: EdgeSettings
    store: StoreSettings
    model: ModelSettings
    api: ApiSettings
    mcp: McpSettings
    topics: TopicSettings
    entities: EntitySettings
    context: ContextSettings
    supersede: SupersedeSettings
    search: SearchConfig
    time: TimeSettings
    context_block: ContextBlockSettings
    recipes: dict[str, SearchConfig] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # Where the values came from: the TOML files read (defaults first) and the GRAPHMEM_* variables applied.
    config_files: tuple[str, ...] = field(default=(), compare=False)
    env_vars: tuple[str, ...] = field(default=(), compare=False)

    def recipe(self, name: str | None) -> SearchConfig:
        if not name:
            return self.recipes["default"]
        if name not in self.recipes:
            raise ConfigError(f"unknown search recipe {name!r}; known: {', '.join(sorted(self.recipes))}",
                              field="recipe")
        return self.recipes[name]


_ENV = {
    "GRAPHMEM_STORE": ("store", "kind"),
    "GRAPHMEM_DATA_DIR": ("store", "data_dir"),
    "GRAPHMEM_NEO4J_URI": ("store", "neo4j_uri"),
    "GRAPHMEM_NEO4J_USER": ("store", "neo4j_user"),
    "GRAPHMEM_NEO4J_PASSWORD": ("store", "neo4j_password"),
    "GRAPHMEM_NEO4J_DATABASE": ("store", "neo4j_database"),
    "GRAPHMEM_MODEL": ("model", "name"),
    "GRAPHMEM_MODEL_DIR": ("model", "dir"),
    "GRAPHMEM_HOST": ("api", "host"),
    "GRAPHMEM_PORT": ("api", "port"),
    "GRAPHMEM_ALLOWED_HOSTS": ("api", "allowed_hosts"),
}
_ENV_LISTS = {"allowed_hosts"}          # comma-separated in the environment


def default_data_dir() -> Path:
    """The embedded store's directory when none is configured: the platform's per-user data dir
    (``$XDG_DATA_HOME/graphmem`` or ``~/.local/share/graphmem`` on Linux), so every command, the
    server and the library open the same store wherever they run."""
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def resolve_data_dir(configured: str) -> str:
    """``[store] data_dir`` as a path: empty means ``default_data_dir()``; ``~`` is expanded."""
    return str(Path(configured).expanduser()) if configured else str(default_data_dir())


def load_settings(config_path: str | Path | None = None, overrides: dict | None = None,
                  use_env: bool = True) -> Settings:
    """Defaults, then the config file (arg or ``GRAPHMEM_CONFIG``), then env vars, then overrides."""
    with open(DEFAULTS_PATH, "rb") as fh:
        data = tomllib.load(fh)
    files = [str(DEFAULTS_PATH)]
    path = config_path or (os.environ.get("GRAPHMEM_CONFIG") if use_env else None)
    if path:
        try:
            with open(path, "rb") as fh:
                data = deep_merge(data, tomllib.load(fh))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config file {path}: {exc}", field="config") from exc
        files.append(str(Path(path).resolve()))
    applied = []
    if use_env:
        for var, (section, key) in _ENV.items():
            if os.environ.get(var):
                value = os.environ[var]
                data[section][key] = (int(value) if key == "port" else
                                      [v.strip() for v in value.split(",") if v.strip()] if key in _ENV_LISTS
                                      else value)
                applied.append(var)
    if overrides:
        data = deep_merge(data, overrides)
    return replace(settings_from_dict(data), config_files=tuple(files), env_vars=tuple(applied))


def _supersede(data: dict, model_name: str) -> SupersedeSettings:
    """``min_cosine`` is the floor for the configured model: its own when listed in
    ``min_cosine_by_model`` (cosines run on another scale per model), else the general one."""
    cfg = _build(SupersedeSettings, data, "supersede")
    return replace(cfg, min_cosine=float(cfg.min_cosine_by_model.get(model_name, cfg.min_cosine)))


def _store(data: dict) -> StoreSettings:
    cfg = _build(StoreSettings, data, "store")
    return replace(cfg, data_dir=resolve_data_dir(cfg.data_dir))


def _entities(data: dict) -> EntitySettings:
    return _build(EntitySettings, {**data, "triggers": tuple(data.get("triggers", ())),
                                   "stop_words": tuple(data.get("stop_words", ()))}, "entities")


def _time(data: dict) -> TimeSettings:
    cfg = _build(TimeSettings, data, "time")
    if not isinstance(cfg.week_start, int) or not 0 <= cfg.week_start <= 6:
        raise ConfigError(f"[time] week_start must be 0 (Monday) .. 6 (Sunday), not {cfg.week_start!r}",
                          field="time.week_start")
    for name, months in cfg.seasons.items():
        if (not isinstance(months, list) or len(months) != 2
                or not all(isinstance(m, int) and 1 <= m <= 12 for m in months)):
            raise ConfigError(f"[time] seasons.{name} must be [first month, last month] (1-12), not {months!r}",
                              field=f"time.seasons.{name}")
    return cfg


def settings_from_dict(data: dict) -> Settings:
    health = dict(data["health"])
    health["transient_patterns"] = tuple(health["transient_patterns"])
    health["reference_patterns"] = tuple(health["reference_patterns"])
    base_search = _build(SearchConfig, {**data["search"], "name": "default"}, "search")
    recipes = {name: base_search.with_overrides(over, name=name)
               for name, over in data.get("recipes", {}).items()}
    recipes.setdefault("default", base_search)
    for recipe in recipes.values():
        unknown = set(recipe.stages) - set(STAGES)
        if unknown:
            raise ConfigError(f"unknown stage(s) {sorted(unknown)} in recipe {recipe.name}", field="stages")
        for key in ("fusion", "context_fusion", "threaded_fusion"):
            if getattr(recipe, key) not in FUSIONS:
                raise ConfigError(f"{key} must be one of {', '.join(FUSIONS)}, not {getattr(recipe, key)!r}",
                                  field=key)
        if recipe.expansion_threaded not in THREADED_EXPANSION:
            raise ConfigError(f"expansion_threaded must be one of {', '.join(THREADED_EXPANSION)}, "
                              f"not {recipe.expansion_threaded!r}", field="expansion_threaded")
    model = _build(ModelSettings, data["model"], "model")
    if not isinstance(model.threads, int) or model.threads < 0:
        raise ConfigError(f"[model] threads must be an integer >= 0 (0: one per core), not {model.threads!r}",
                          field="model.threads")
    if not isinstance(model.spin_wait, bool):
        raise ConfigError(f"[model] spin_wait must be true or false, not {model.spin_wait!r}",
                          field="model.spin_wait")
    api = _build(ApiSettings, data["api"], "api")
    if not isinstance(api.allowed_hosts, list) or not all(isinstance(h, str) for h in api.allowed_hosts):
        raise ConfigError(f"[api] allowed_hosts must be a list of host names, not {api.allowed_hosts!r}",
                          field="api.allowed_hosts")
    return Settings(
        limits=_build(Limits, data["limits"], "limits"),
        health=_build(HealthRules, health, "health"),
        sources=_build(SourceRanks, data["sources"], "sources"),
        ingest=_build(IngestSettings, data["ingest"], "ingest"),
        edges=_build(EdgeSettings, data["edges"], "edges"),
        store=_store(data["store"]),
        model=model,
        api=api,
        mcp=_build(McpSettings, data["mcp"], "mcp"),
        topics=_build(TopicSettings, {**data["topics"], "stop_words": tuple(data["topics"].get("stop_words", ()))},
                      "topics"),
        entities=_entities(data["entities"]),
        context=_build(ContextSettings, data["context"], "context"),
        supersede=_supersede(data["supersede"], model.name),
        search=base_search,
        time=_time(data["time"]),
        context_block=_build(ContextBlockSettings, data["context_block"], "context_block"),
        recipes=recipes,
        raw=data,
    )
