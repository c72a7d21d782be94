"""File modes of a fresh embedded store, its WAL, a backup and the embedding cache under a loose
umask (022 by default): every file should be 0600 and the data dir 0700."""

from __future__ import annotations

import argparse
import os
import stat
import tempfile
from pathlib import Path

from bench.meta import write_result
from graphmem.config import load_settings
from graphmem.embedding.cache import EmbeddingCache
from graphmem.stores.sqlite.store import SQLiteStore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--umask", default="022")
    ap.add_argument("--out", default="bench/results/file_modes.json")
    args = ap.parse_args()
    os.umask(int(args.umask, 8))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = SQLiteStore(root / "data", load_settings(use_env=False).store)
        store.ensure_schema("bench-model", 4)
        backup = store.backup_file(root / "backups" / "copy.sqlite")
        cache = EmbeddingCache(root / "cache" / "embeddings.sqlite")
        paths = {"data_dir": store.path.parent, "database": store.path, "wal": Path(f"{store.path}-wal"),
                 "backup": backup, "embedding_cache": cache.path}
        modes = {k: oct(stat.S_IMODE(os.stat(p).st_mode)) for k, p in paths.items() if p.exists()}
    write_result(args.out, {"umask": args.umask, "modes": modes})
    print(modes)


if __name__ == "__main__":
    main()
