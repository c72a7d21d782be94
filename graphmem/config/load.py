"""Loading: ``defaults.toml`` merged with a user file (``--config`` / ``GRAPHMEM_CONFIG``), the
``GRAPHMEM_*`` environment and a caller's overrides, then built and checked once into ``Settings``."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphmem.config import sections as S
from graphmem.config.base import DEFAULTS_PATH, build, deep_merge
from graphmem.config.search import FUSIONS, STAGES, THREADED_EXPANSION, SearchConfig
from graphmem.config.store import StoreSettings, migrate_flat_keys, store_from_dict
from graphmem.errors import ConfigError


@dataclass(frozen=True)
class Settings:
    limits: S.Limits
    health: S.HealthRules
    sources: S.SourceRanks
    ingest: S.IngestSettings
    edges: S.EdgeSettings
    store: StoreSettings
    model: S.ModelSettings
    api: S.ApiSettings
    mcp: S.McpSettings
    topics: S.TopicSettings
    entities: S.EntitySettings
    context: S.ContextSettings
    supersede: S.SupersedeSettings
    search: SearchConfig
    time: S.TimeSettings
    context_block: S.ContextBlockSettings
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
    "GRAPHMEM_NEO4J_URI": ("store.neo4j", "uri"),
    "GRAPHMEM_NEO4J_USER": ("store.neo4j", "user"),
    "GRAPHMEM_NEO4J_PASSWORD": ("store.neo4j", "password"),
    "GRAPHMEM_NEO4J_DATABASE": ("store.neo4j", "database"),
    "GRAPHMEM_MODEL": ("model", "name"),
    "GRAPHMEM_MODEL_DIR": ("model", "dir"),
    "GRAPHMEM_MODEL_SPIN_WAIT": ("model", "spin_wait"),
    "GRAPHMEM_HOST": ("api", "host"),
    "GRAPHMEM_PORT": ("api", "port"),
    "GRAPHMEM_ALLOWED_HOSTS": ("api", "allowed_hosts"),
}
_ENV_LISTS = {"allowed_hosts"}          # comma-separated in the environment
_ENV_BOOLS = {"true": True, "1": True, "false": False, "0": False}


def _env_value(var: str, key: str, value: str) -> object:
    if key == "port":
        return int(value)
    if key in _ENV_LISTS:
        return [v.strip() for v in value.split(",") if v.strip()]
    if key == "spin_wait":
        if value.strip().lower() not in _ENV_BOOLS:
            raise ConfigError(f"{var} must be true or false, not {value!r}", field=var)
        return _ENV_BOOLS[value.strip().lower()]
    return value


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
                user = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config file {path}: {exc}", field="config") from exc
        data = deep_merge(data, migrate_flat_keys(user, f"config file {path}"))
        files.append(str(Path(path).resolve()))
    applied = []
    if use_env:
        for var, (section, key) in _ENV.items():
            if os.environ.get(var):
                value = os.environ[var]
                table = data
                for part in section.split("."):
                    table = table[part]
                table[key] = _env_value(var, key, value)
                applied.append(var)
    if overrides:
        data = deep_merge(data, migrate_flat_keys(overrides, "the overrides"))
    return replace(settings_from_dict(data), config_files=tuple(files), env_vars=tuple(applied))


def _supersede(data: dict, model_name: str) -> S.SupersedeSettings:
    """``min_cosine`` is the floor for the configured model: its own when listed in
    ``min_cosine_by_model`` (cosines run on another scale per model), else the general one."""
    cfg = build(S.SupersedeSettings, data, "supersede")
    return replace(cfg, min_cosine=float(cfg.min_cosine_by_model.get(model_name, cfg.min_cosine)))


def _entities(data: dict) -> S.EntitySettings:
    return build(S.EntitySettings, {**data, "triggers": tuple(data.get("triggers", ())),
                                    "stop_words": tuple(data.get("stop_words", ()))}, "entities")


def _time(data: dict) -> S.TimeSettings:
    cfg = build(S.TimeSettings, data, "time")
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
    base_search = build(SearchConfig, {**data["search"], "name": "default"}, "search")
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
        for key, high in (("bm25_k1", 100.0), ("bm25_b", 1.0)):
            value = getattr(recipe, key)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= high:
                raise ConfigError(f"{key} must be a number in [0, {high:g}], not {value!r}", field=key)
    model = build(S.ModelSettings, data["model"], "model")
    if not isinstance(model.threads, int) or model.threads < 0:
        raise ConfigError(f"[model] threads must be an integer >= 0 (0: one per core), not {model.threads!r}",
                          field="model.threads")
    if not isinstance(model.spin_wait, bool):
        raise ConfigError(f"[model] spin_wait must be true or false, not {model.spin_wait!r}",
                          field="model.spin_wait")
    api = build(S.ApiSettings, data["api"], "api")
    if not isinstance(api.allowed_hosts, list) or not all(isinstance(h, str) for h in api.allowed_hosts):
        raise ConfigError(f"[api] allowed_hosts must be a list of host names, not {api.allowed_hosts!r}",
                          field="api.allowed_hosts")
    return Settings(
        limits=build(S.Limits, data["limits"], "limits"),
        health=build(S.HealthRules, health, "health"),
        sources=build(S.SourceRanks, data["sources"], "sources"),
        ingest=build(S.IngestSettings, data["ingest"], "ingest"),
        edges=build(S.EdgeSettings, data["edges"], "edges"),
        store=store_from_dict(data["store"]),
        model=model,
        api=api,
        mcp=build(S.McpSettings, data["mcp"], "mcp"),
        topics=build(S.TopicSettings,
                     {**data["topics"], "stop_words": tuple(data["topics"].get("stop_words", ()))}, "topics"),
        entities=_entities(data["entities"]),
        context=build(S.ContextSettings, data["context"], "context"),
        supersede=_supersede(data["supersede"], model.name),
        search=base_search,
        time=_time(data["time"]),
        context_block=build(S.ContextBlockSettings, data["context_block"], "context_block"),
        recipes=recipes,
        raw=data,
    )
