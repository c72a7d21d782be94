"""``[store]`` and its two sections, ``[store.sqlite]`` (the embedded store) and ``[store.neo4j]``.

An older release kept these keys flat in ``[store]`` with a ``sqlite_``/``neo4j_`` prefix
(``sqlite_synchronous``, ``neo4j_uri``). Such a key is still read, moved to its section, and named in
one ``ConfigKeyDeprecated`` warning per process; reading a flat attribute (``store.neo4j_uri``) still
works the same way. Both go in a later release.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from graphmem.config.base import APP_NAME, build_typed
from graphmem.errors import ConfigError

SYNCHRONOUS = ("FULL", "NORMAL", "EXTRA")     # [store.sqlite] synchronous
ANN_DTYPES = ("f32", "f16", "i8")             # [store.sqlite] ann_dtype
MATRIX_DTYPES = ("f32", "f16")               # [store.sqlite] ann_matrix_dtype
SECTIONS = ("sqlite", "neo4j")


class ConfigKeyDeprecated(FutureWarning):
    """A settings key or attribute of an older release, still honoured; the message names its successor.
    A ``FutureWarning`` so that users running a command see it (a ``DeprecationWarning`` is hidden)."""


@dataclass(frozen=True)
class SqliteSettings:
    """``[store.sqlite]``: the embedded store (``stores/sqlite``), documented in defaults.toml."""

    synchronous: str
    vector_log_keep: int
    ann_threshold: int
    ann_connectivity: int
    ann_expansion_add: int
    ann_expansion_search: int
    ann_overfetch: int
    ann_exact_subset_max: int
    ann_dtype: str
    ann_matrix_dtype: str
    warm_after: int
    scan_threads: int
    row_cache: int
    lexical_writer_memory: int
    lexical_commit_every: int


@dataclass(frozen=True)
class Neo4jSettings:
    """``[store.neo4j]``: the Neo4j store (``stores/neo4j``), documented in defaults.toml."""

    uri: str
    user: str
    password: str
    database: str
    connection_timeout: float
    acquisition_timeout: float
    max_retry_time: float
    transient_retry_time: float
    breaker_failures: int
    breaker_cooldown: float
    ping_timeout: float
    open_wait: float
    read_timeout: float
    write_timeout: float
    admin_timeout: float
    deadline_grace: float
    call_threads: int
    server_info_ttl: float
    vector_overfetch: int
    vector_min_fetch: int
    as_of_overfetch: int


@dataclass(frozen=True)
class StoreSettings:
    kind: str
    data_dir: str
    write_wait: float
    recall_overlap_workers: int
    recall_overlap_stores: list[str]
    check_recall_depth: int
    sqlite: SqliteSettings
    neo4j: Neo4jSettings

    def __getattr__(self, name: str) -> Any:
        """A flat attribute of an older release (``sqlite_row_cache``): its section's value, with a warning."""
        section, _, key = name.partition("_")
        if section in SECTIONS and key:
            target = self.__dict__.get(section)
            if target is not None and hasattr(target, key):
                _warn_once(f"attribute StoreSettings.{name}", f"StoreSettings.{section}.{key}")
                return getattr(target, key)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def with_keys(self, **keys: Any) -> StoreSettings:
        """A copy with keys replaced; a section's key is named ``<section>_<key>`` (``sqlite_row_cache=0``,
        ``neo4j_uri=...``), the others by their name (``write_wait=1.0``). For tests and benches."""
        top: dict[str, Any] = {}
        nested: dict[str, dict[str, Any]] = {s: {} for s in SECTIONS}
        for name, value in keys.items():
            section, _, key = name.partition("_")
            if section in SECTIONS and key:
                nested[section][key] = value
            else:
                top[name] = value
        return replace(self, **top, **{s: replace(getattr(self, s), **nested[s]) for s in SECTIONS if nested[s]})


_warned: set[str] = set()


def _warn_once(old: str, new: str) -> None:
    if old in _warned:
        return
    _warned.add(old)
    warnings.warn(f"{old} is deprecated: use {new}", ConfigKeyDeprecated, stacklevel=3)


def migrate_flat_keys(data: dict, origin: str) -> dict:
    """``data`` (a whole settings table, as read from ``origin``) with ``[store]``'s flat ``sqlite_*`` and
    ``neo4j_*`` keys moved into ``[store.sqlite]`` / ``[store.neo4j]``; each one warns once per process.
    A key given both ways in one table is refused: which one was meant is unknown."""
    store = data.get("store")
    if not isinstance(store, dict):
        return data
    moved = {key: key.partition("_") for key in store
             if key.partition("_")[0] in SECTIONS and key.partition("_")[2] and not isinstance(store[key], dict)}
    if not moved:
        return data
    store = dict(store)
    renamed = []
    for old, (section, _, key) in moved.items():
        target = dict(store.get(section) or {})
        if key in target:
            raise ConfigError(f"[store] {old} and [store.{section}] {key} both set in {origin}: "
                              f"keep [store.{section}]",
                              field=f"store.{section}.{key}")
        target[key] = store.pop(old)
        store[section] = target
        if f"[store] {old}" not in _warned:
            _warned.add(f"[store] {old}")
            renamed.append(f"{old} -> [store.{section}] {key}")
    if renamed:
        warnings.warn(f"deprecated flat [store] key(s) in {origin}: {'; '.join(renamed)}",
                      ConfigKeyDeprecated, stacklevel=4)
    return {**data, "store": store}


def default_data_dir() -> Path:
    """The embedded store's directory when none is configured: the platform's per-user data dir
    (``$XDG_DATA_HOME/graphmem`` or ``~/.local/share/graphmem`` on Linux), so every command, the
    server and the library open the same store wherever they run."""
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def resolve_data_dir(configured: str) -> str:
    """``[store] data_dir`` as a path: empty means ``default_data_dir()``; ``~`` is expanded."""
    return str(Path(configured).expanduser()) if configured else str(default_data_dir())


def _sqlite(data: dict) -> SqliteSettings:
    cfg = build_typed(SqliteSettings, data, "store.sqlite")
    if cfg.synchronous.upper() not in SYNCHRONOUS:
        raise ConfigError(f"[store.sqlite] synchronous must be one of {', '.join(SYNCHRONOUS)}, "
                          f"not {cfg.synchronous!r}", field="store.sqlite.synchronous")
    if cfg.ann_dtype not in ANN_DTYPES:
        raise ConfigError(f"[store.sqlite] ann_dtype must be one of {', '.join(ANN_DTYPES)}, "
                          f"not {cfg.ann_dtype!r}",
                          field="store.sqlite.ann_dtype")
    if cfg.ann_matrix_dtype not in MATRIX_DTYPES:
        raise ConfigError(f"[store.sqlite] ann_matrix_dtype must be one of {', '.join(MATRIX_DTYPES)}, "
                          f"not {cfg.ann_matrix_dtype!r}", field="store.sqlite.ann_matrix_dtype")
    for key in ("ann_threshold", "ann_connectivity", "ann_expansion_add", "ann_expansion_search", "ann_overfetch"):
        if getattr(cfg, key) < 1:
            raise ConfigError(f"[store.sqlite] {key} must be at least 1", field=f"store.sqlite.{key}")
    if cfg.warm_after < 0:
        raise ConfigError("[store.sqlite] warm_after must be 0 (never) or more", field="store.sqlite.warm_after")
    return replace(cfg, synchronous=cfg.synchronous.upper())


def store_from_dict(data: dict) -> StoreSettings:
    """``[store]`` with its sections, checked once here (types, choices, bounds)."""
    data = migrate_flat_keys({"store": data}, "the settings")["store"]
    missing = [s for s in SECTIONS if not isinstance(data.get(s), dict)]
    if missing:
        raise ConfigError(f"[store.{missing[0]}] is missing", field=f"store.{missing[0]}")
    top = {k: v for k, v in data.items() if k not in SECTIONS}
    cfg = build_typed(StoreSettings, {**top, "sqlite": _sqlite(data["sqlite"]),
                                      "neo4j": build_typed(Neo4jSettings, data["neo4j"], "store.neo4j")}, "store")
    if not cfg.write_wait > 0:
        raise ConfigError("[store] write_wait must be a positive number of seconds", field="store.write_wait")
    return replace(cfg, data_dir=resolve_data_dir(cfg.data_dir))
