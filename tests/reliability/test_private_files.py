"""The data dir is 0700 and the database, its WAL, backups and the embedding cache 0600 under a
permissive umask (memories are private data)."""

import os
import stat

from graphmem.embedding.cache import EmbeddingCache
from graphmem.stores.sqlite.connection import SQLiteBase
from tests.neo4j_server import store_settings


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_files_are_owner_only_under_a_loose_umask(tmp_path):
    old = os.umask(0o002)
    try:
        data = tmp_path / "data"
        base = SQLiteBase(data, store_settings())
        base.db.execute("PRAGMA journal_mode=WAL")
        base.db.execute("CREATE TABLE t (x)")
        base.db.execute("INSERT INTO t VALUES (1)")
        assert _mode(data) == 0o700
        assert _mode(base.path) == 0o600
        assert _mode(f"{base.path}-wal") == 0o600
        from graphmem.stores.sqlite.store import SQLiteStore

        store = SQLiteStore(tmp_path / "store", store_settings())
        store.ensure_schema("test-model", 4)
        backup = store.backup_file(tmp_path / "b" / "copy.sqlite")
        assert _mode(backup) == 0o600
        store.close()
        cache = EmbeddingCache(tmp_path / "c" / "cache.sqlite")
        assert _mode(cache.path) == 0o600
    finally:
        os.umask(old)


def test_check_warns_on_looser_modes(tmp_path):
    from graphmem.stores.sqlite.store import SQLiteStore

    store = SQLiteStore(tmp_path / "data", store_settings())
    store.ensure_schema("test-model", 4)
    assert not [f for f in store.integrity("default") if f[0] == "file_modes"]
    os.chmod(store.path, 0o644)
    found = [f for f in store.integrity("default") if f[0] == "file_modes"]
    assert found and str(store.path) in found[0][2]
