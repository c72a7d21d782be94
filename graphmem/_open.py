"""``graphmem.open``: the library's front door, one call from arguments to a ready engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from graphmem.config import Settings, load_settings
from graphmem.engine import Graphmem


def open(data_dir: str | Path | None = None, *, store: Literal["sqlite", "neo4j"] | None = None,
         config: str | Path | None = None, settings: Settings | None = None,
         overrides: dict[str, dict[str, Any]] | None = None, use_env: bool = True) -> Graphmem:
    """Open a memory store and its embedder, ready to add and search.

    ``data_dir`` is the embedded store's directory (default: ``GRAPHMEM_DATA_DIR``, else ``[store]
    data_dir``, else the per-user data dir the CLI and the server share); ``store`` picks ``sqlite`` (default) or
    ``neo4j`` (connection from ``GRAPHMEM_NEO4J_*`` or ``[store]``); ``config`` is a TOML file
    like ``graphmem/defaults.toml``; ``overrides`` sets keys by section, e.g.
    ``{"search": {"vector_weight": 0.6}}``. Environment variables apply unless ``use_env`` is
    false. Pass ``settings`` instead to use a ready :class:`Settings`. Close the engine (or use it
    as a context manager) to release the store.
    """
    if settings is not None and (config is not None or overrides or data_dir is not None or store is not None):
        raise TypeError("pass either settings or data_dir/store/config/overrides, not both")
    if settings is None:
        merged: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (overrides or {}).items()}
        store_keys = merged.setdefault("store", {})
        if data_dir is not None:
            store_keys["data_dir"] = str(data_dir)
        if store is not None:
            store_keys["kind"] = store
        settings = load_settings(config, overrides=merged, use_env=use_env)
    return Graphmem.open(settings)

