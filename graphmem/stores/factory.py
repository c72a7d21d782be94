"""Open the configured store (embedded SQLite by default, Neo4j when configured)."""

from __future__ import annotations

from graphmem.config import StoreSettings
from graphmem.errors import ConfigError
from graphmem.stores.base import MemoryStore


def open_store(cfg: StoreSettings) -> MemoryStore:
    if cfg.kind == "sqlite":
        from graphmem.stores.sqlite import SQLiteStore
        from graphmem.stores.sqlite.ann import AnnSettings

        return SQLiteStore(cfg.data_dir, cfg.sqlite_synchronous, cfg.sqlite_vector_log_keep,
                           AnnSettings.from_store(cfg), cfg.sqlite_scan_threads)
    if cfg.kind == "neo4j":
        from graphmem.stores.neo4j import Neo4jStore

        return Neo4jStore(cfg.neo4j_uri, cfg.neo4j_user, cfg.neo4j_password, cfg.neo4j_database,
                          connection_timeout=cfg.neo4j_connection_timeout,
                          acquisition_timeout=cfg.neo4j_acquisition_timeout,
                          max_retry_time=cfg.neo4j_max_retry_time,
                          transient_retry_time=cfg.neo4j_transient_retry_time,
                          breaker_failures=cfg.neo4j_breaker_failures,
                          breaker_cooldown=cfg.neo4j_breaker_cooldown, ping_timeout=cfg.neo4j_ping_timeout)
    raise ConfigError(f"store kind must be 'sqlite' or 'neo4j', not {cfg.kind!r}", field="store.kind")
