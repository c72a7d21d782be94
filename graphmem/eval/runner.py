"""Build a fresh store from an eval dataset, run every configuration, collect the numbers.

Why this shape: all configurations (the ablation ladder lexical -> vector -> hybrid ->
+expansion -> +health/source, plus any from a config file) are answered by the *same*
store through the public facade (``Graphmem.search_outcome``), so differences come from the
recipe alone. Each query is run once per configuration at ``depth`` (>= k, 20 for the
recall@k curve); since every stage before the final cut is independent of k, the top k of
that list is exactly what a k-result search returns, so neighbours compete for the same k
slots as direct hits.

Determinism: a ticking clock replaces wall time for created_at (linking candidate order
depends on it), missing ids are derived from line numbers, and every tie in the pipeline
breaks on ids. Only the latency figures vary between runs.
"""

from __future__ import annotations

import copy
import shutil
import tempfile
import time
import tomllib
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from tqdm import tqdm

from graphmem.config import SearchConfig, Settings, StoreSettings, load_settings, settings_from_dict
from graphmem.errors import ConfigError
from graphmem.eval.dataset import EvalDataset, EvalQuery, load_dataset
from graphmem.eval.metrics import edge_key
from graphmem.ingest.bulk import add_in_chunks

BUILTIN_RECIPES = ("lexical", "vector", "hybrid", "hybrid_context", "hybrid_expansion", "default")
STAGE_NAMES = ("router", "recall", "expansion", "multihop", "weighting", "rank")
LOW_HEALTH = 0.5


class TickClock:
    """Deterministic stand-in for ``utcnow_iso``: each call is 1 ms after the previous one."""

    def __init__(self, start: datetime = datetime(2024, 1, 1, tzinfo=timezone.utc)) -> None:
        self.now = start

    def __call__(self) -> str:
        self.now += timedelta(milliseconds=1)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class EvalOptions:
    memories: Path
    queries: Path
    scope: str | None = None
    config: Path | None = None
    recipes: list[str] = field(default_factory=list)     # empty: all known configurations
    k: int = 10
    depth: int = 20                                       # list length for the recall@k curve
    store: str = "sqlite"
    data_dir: Path | None = None                          # None: a temp dir, removed afterwards
    embedding_cache: Path | None = None
    limit_queries: int | None = None
    only_namespaces: list[str] | None = None
    by: list[str] = field(default_factory=list)
    progress: bool = True
    store_settings: StoreSettings | None = None           # connection details for --store neo4j
    ingest_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)   # e.g. {"edges": {...}}
    cache_queries: bool = False       # True (tuning): queries from the cache too; latency then omits the model
    model_override: dict[str, str] = field(default_factory=dict)   # [model] keys, e.g. {"name": ...}
    thread_by: str | None = None      # field giving each memory its thread (LoCoMo: category = session)
    seq_by: str | None = None         # field giving its position there (LoCoMo: turn_index)


@dataclass
class QueryRun:
    """One query under one configuration: the ranked results (to ``depth``) and its trace."""

    query_id: str
    results: list[dict[str, Any]]          # id, merged, health, chars, kind, edge (best path's key)
    stage_ms: dict[str, float]
    total_ms: float
    wall_ms: float
    counts: dict[str, float]
    added: list[tuple[str, str]] = field(default_factory=list)   # expansion additions: (id, edge key)


@dataclass
class IngestSummary:
    created: int
    duplicate: int
    rejected: int
    seconds: float
    rejections: list[dict[str, Any]]
    stored: dict[str, str]                 # dataset id -> id of the stored memory (after dedupe)
    created_ids: list[tuple[str, str]] = field(default_factory=list)   # (namespace, id), for cleanup


def load_configurations(config_path: Path | None) -> tuple[Settings, dict[str, SearchConfig]]:
    """Built-in ablation recipes from the shipped defaults, plus the file's configurations:
    its ``[search]`` override becomes a configuration named after the file, each
    ``[recipes.X]`` one named X (``file:X`` when X shadows a built-in). The file's non-search
    sections (edges, health, sources, ingest) shape the store every configuration runs on."""
    base = load_settings(None, use_env=False)
    configs = {name: base.recipe(name) for name in BUILTIN_RECIPES}
    if config_path is None:
        return base, configs
    with open(config_path, "rb") as fh:
        raw = tomllib.load(fh)
    file_settings = load_settings(config_path, use_env=False)
    stem = Path(config_path).stem
    if "search" in raw:
        configs[stem] = replace(file_settings.recipe("default"), name=stem)
    for name in raw.get("recipes", {}):
        key = f"{stem}:{name}" if name in BUILTIN_RECIPES else name
        configs[key] = replace(file_settings.recipe(name), name=key)
    return file_settings, configs


def select(configs: dict[str, SearchConfig], names: list[str]) -> dict[str, SearchConfig]:
    if not names:
        return configs
    unknown = [n for n in names if n not in configs]
    if unknown:
        raise ConfigError(f"unknown configuration {unknown[0]!r}; known: {', '.join(configs)}", field="recipe")
    return {n: configs[n] for n in names}


def ingest(engine, dataset: EvalDataset, progress: bool = False) -> IngestSummary:
    """Add every memory through ``Graphmem.add_batch`` (validation, dedupe, health, linking),
    namespace by namespace in file order, and record where each dataset id ended up."""
    t0 = time.perf_counter()
    summary = IngestSummary(0, 0, 0, 0.0, [], {})
    by_ns: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    requested = {v: k for k, v in dataset.stored_id.items()}
    for item in dataset.memories:
        by_ns.setdefault(item["namespace"], []).append((requested[item["id"]], item))
    size = engine.settings.limits.max_batch
    bar = tqdm(total=len(dataset.memories), unit="mem", desc="ingest", disable=not progress, leave=False)
    for ns, dataset_id, _item, result in add_in_chunks(engine, by_ns, size, bar):
        if result.error is not None or result.memory is None:
            summary.rejected += 1
            summary.rejections.append({"id": dataset_id, **(result.error.to_dict() if result.error else {})})
            continue
        summary.created += result.status == "created"
        if result.status == "created":
            summary.created_ids.append((ns, result.memory.id))
        summary.duplicate += result.status == "duplicate"
        summary.stored[dataset_id] = result.memory.id
    bar.close()
    summary.seconds = time.perf_counter() - t0
    return summary


def run_query(engine, query: EvalQuery, recipe: str, depth: int,
              params: dict[str, Any] | None = None) -> QueryRun:
    """One search through the facade; ``params`` are per-request overrides (as the API takes), its
    ``stages`` entry the per-request stage switches."""
    rest = dict(params or {})
    stages = rest.pop("stages", None)
    t0 = time.perf_counter()
    outcome = engine.search_outcome(query.text, query.namespace, k=depth, recipe=recipe, stages=stages,
                                    params=rest or None)
    wall = (time.perf_counter() - t0) * 1000
    rows = {row["stage"]: row for row in outcome.trace["stages"]}
    results = [{"id": c.memory.id, "merged": list(c.merged_duplicates), "health": c.memory.health,
                "chars": len(c.memory.content), "kind": c.kind,
                "edge": edge_key(c.related[0].model_dump()) if c.related else None} for c in outcome.candidates]
    counts = {
        "vector": rows["recall"].get("vector", 0), "lexical": rows["recall"].get("lexical", 0),
        "fused": rows["recall"]["out"], "expansion_added": rows["expansion"].get("added", 0),
        "expansion_merged": rows["expansion"].get("merged", 0), "ranked": rows["rank"]["in"],
        "near_duplicates_dropped": rows["rank"].get("near_duplicates_dropped", 0),
    }
    added = [(c.memory.id, edge_key(c.related[0].model_dump()) if c.related else "?")
             for c in outcome.expansion_added]
    return QueryRun(query.id, results, {s: rows[s]["ms"] for s in STAGE_NAMES if s in rows},
                    outcome.trace["total_ms"], wall, counts, added)


def run_config(engine, dataset: EvalDataset, recipe: str, depth: int, params: dict[str, Any] | None = None,
               bar: tqdm | None = None) -> list[QueryRun]:
    """Every query of the dataset under one configuration, in file order."""
    runs = []
    for query in dataset.queries:
        runs.append(run_query(engine, query, recipe, depth, params))
        if bar is not None:
            bar.update(1)
    return runs


def stored_relevance(query: EvalQuery, stored: dict[str, str]) -> dict[str, float]:
    """Relevance keyed by stored id. Two dataset ids kept as one memory (exact duplicates)
    collapse to it with the better grade; a relevant id that was never stored stays in the
    denominator under a key no result can carry, so recall is not flattered."""
    out: dict[str, float] = {}
    for dataset_id, grade in query.relevance.items():
        key = stored.get(dataset_id, f"<missing>{dataset_id}")
        out[key] = max(out.get(key, 0.0), grade)
    return out


@dataclass
class EvalRun:
    options: EvalOptions
    dataset: EvalDataset
    ingest: IngestSummary
    configs: dict[str, SearchConfig]
    runs: dict[str, list[QueryRun]]
    relevance: dict[str, dict[str, float]]   # query id -> stored-id relevance
    store_stats: dict[str, Any]
    effective_settings: dict[str, Any] = field(default_factory=dict)   # the store's settings (provenance)


class QueryThroughModel:
    """Documents through the embedding cache (a repeat run does not re-embed the corpus), queries
    through the model itself, so search latency includes query embedding as it does in service.
    The cache returns the model's vectors bit for bit, so the numbers do not depend on this."""

    def __init__(self, cached) -> None:
        self.cached = cached
        self.model_id = cached.model_id
        self.dim = cached.dim

    def embed_documents(self, texts):
        return self.cached.embed_documents(texts)

    def embed_query(self, text: str):
        return self.cached.inner.embed_query(text)


def open_engine(settings: Settings, options: EvalOptions, data_dir: Path, configs: dict[str, SearchConfig]):
    """The facade over a store at ``data_dir`` whose recipe table is exactly ``configs``, with
    a persistent embedding cache (repeat runs skip the model) and the ticking clock."""
    from graphmem.embedding.embedder import load_embedder
    from graphmem.embedding.models import model_spec
    from graphmem.embedding.prepare import default_cache_root, ensure_model
    from graphmem.engine import Graphmem
    from graphmem.stores.factory import open_store

    store = replace(options.store_settings or settings.store, kind=options.store, data_dir=str(data_dir))
    run_settings = replace(settings, store=store, recipes=dict(configs))
    cache = options.embedding_cache or default_cache_root() / "eval-embedding-cache.sqlite"
    cache.parent.mkdir(parents=True, exist_ok=True)
    if not run_settings.model.dir and model_spec(run_settings.model.name) is not None:
        ensure_model(model=run_settings.model.name)       # a known model is prepared as on first use
    embedder = load_embedder(run_settings.model.name, run_settings.model.dir or None, cache_path=cache)
    if not options.cache_queries:
        embedder = QueryThroughModel(embedder)
    return Graphmem(run_settings, open_store(run_settings.store), embedder, clock=TickClock())


def apply_ingest_overrides(settings: Settings, overrides: dict[str, dict[str, Any]]) -> Settings:
    """Settings with ingest-time sections (edges, health, sources, ingest, topics, context) changed key by
    key; these shape the store, so changing them means a fresh ingest."""
    allowed = {"edges", "health", "sources", "ingest", "topics", "context"}
    bad = set(overrides) - allowed
    if bad:
        raise ConfigError(f"ingest overrides may touch {sorted(allowed)} only, not {sorted(bad)}",
                          field="ingest")
    if not overrides:
        return settings
    data = copy.deepcopy(settings.raw)
    for section, values in overrides.items():
        data[section].update(values)
    return replace(settings_from_dict(data), recipes=settings.recipes)


def evaluate(options: EvalOptions,
             on_engine: Callable[[Any, EvalDataset, dict[str, dict[str, float]]], None] | None = None) -> EvalRun:
    """Ingest into a fresh store, run each configuration over every query, return raw runs.

    ``on_engine(engine, dataset, relevance)`` (used by ``bench/tune_eval.py``) is called with
    the live engine after the runs, so more configurations can be tried on the same store
    before it is closed."""
    settings, known = load_configurations(options.config)
    settings = apply_ingest_overrides(settings, options.ingest_overrides)
    if options.model_override:
        data = copy.deepcopy(settings.raw)
        data["model"].update(options.model_override)
        settings = replace(settings_from_dict(data), recipes=settings.recipes)
    configs = select(known, options.recipes)
    temp = options.data_dir is None
    data_dir = Path(options.data_dir or tempfile.mkdtemp(prefix="graphmem-eval-"))
    # A shared server store gets run-unique namespaces so a run never sees another's data.
    prefix = f"ev{uuid.uuid4().hex[:8]}-" if options.store != "sqlite" else ""
    dataset = load_dataset(options.memories, options.queries, settings.limits, options.scope,
                           prefix=prefix, limit_queries=options.limit_queries,
                           only_namespaces=options.only_namespaces, thread_by=options.thread_by,
                           seq_by=options.seq_by)
    engine = open_engine(settings, options, data_dir, known)
    try:
        summary = ingest(engine, dataset, options.progress)
        relevance = {q.id: stored_relevance(q, summary.stored) for q in dataset.queries}
        depth = max(options.k, options.depth)
        total = len(configs) * len(dataset.queries)
        bar = tqdm(total=total, unit="q", desc="search", disable=not options.progress, leave=False)
        runs = {name: run_config(engine, dataset, name, depth, bar=bar) for name in configs}
        bar.close()
        stats = {ns: engine.stats(ns).model_dump(mode="json", exclude={"server"}) for ns in dataset.namespaces()}
        if on_engine is not None:
            on_engine(engine, dataset, relevance)
        if prefix:
            for ns, memory_id in summary.created_ids:
                engine.delete(ns, memory_id)
    finally:
        engine.close()
        if temp:
            shutil.rmtree(data_dir, ignore_errors=True)
    return EvalRun(options, dataset, summary, configs, runs, relevance, stats, settings.raw)
