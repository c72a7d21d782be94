from graphmem.stores.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
