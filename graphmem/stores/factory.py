"""Open the configured store (embedded SQLite by default, Neo4j when configured)."""

from __future__ import annotations

from graphmem.config import StoreSettings
from graphmem.errors import ConfigError
from graphmem.stores.base import MemoryStore


def open_store(cfg: StoreSettings) -> MemoryStore:
    if cfg.kind == "sqlite":
        from graphmem.stores.sqlite import SQLiteStore

        return SQLiteStore(cfg.data_dir, cfg)
    if cfg.kind == "neo4j":
        from graphmem.stores.neo4j import Neo4jStore

        return Neo4jStore(cfg)
    raise ConfigError(f"store kind must be 'sqlite' or 'neo4j', not {cfg.kind!r}", field="store.kind")
