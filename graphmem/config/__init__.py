"""Settings as data: ``defaults.toml`` merged with a user file and environment.

Every tunable number of ingest and retrieval lives here, so the ranker holds no literals.
``base`` merges and builds sections, ``sections`` holds the plain ones, ``store`` the ``[store]``
table with its ``[store.sqlite]`` and ``[store.neo4j]`` sections, ``search`` the recipes, and
``load`` reads the files and the environment."""

from graphmem.config.base import APP_NAME, DEFAULTS_PATH, UNCAPPED, deep_merge
from graphmem.config.load import Settings, load_settings, settings_from_dict
from graphmem.config.search import FUSIONS, STAGES, THREADED_EXPANSION, SearchConfig, tunable
from graphmem.config.sections import (
    ApiSettings,
    ContextBlockSettings,
    ContextSettings,
    EdgeSettings,
    EntitySettings,
    HealthRules,
    IngestSettings,
    Limits,
    McpSettings,
    ModelSettings,
    SourceRanks,
    SupersedeSettings,
    TimeSettings,
    TopicSettings,
)
from graphmem.config.store import (
    ConfigKeyDeprecated,
    Neo4jSettings,
    SqliteSettings,
    StoreSettings,
    default_data_dir,
    resolve_data_dir,
)

__all__ = [
    "APP_NAME", "DEFAULTS_PATH", "FUSIONS", "STAGES", "THREADED_EXPANSION", "UNCAPPED", "ApiSettings",
    "ConfigKeyDeprecated", "ContextBlockSettings", "ContextSettings", "EdgeSettings", "EntitySettings",
    "HealthRules", "IngestSettings", "Limits", "McpSettings", "ModelSettings", "Neo4jSettings", "SearchConfig",
    "Settings",
    "SourceRanks", "SqliteSettings", "StoreSettings", "SupersedeSettings", "TimeSettings", "TopicSettings",
    "default_data_dir", "deep_merge", "load_settings", "resolve_data_dir", "settings_from_dict", "tunable",
]
