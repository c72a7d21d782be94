"""Memories are private data: the data dir is 0700 and every database file 0600 whatever the
umask. SQLite gives its -wal and -shm files the database file's mode, so creating the database
file first is enough."""

from __future__ import annotations

import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: str | Path) -> Path:
    """Create ``path`` (and parents) and make the directory itself owner-only."""
    p = Path(path)
    p.mkdir(parents=True, exist_ok=True)
    os.chmod(p, DIR_MODE)
    return p


def private_file(path: str | Path) -> Path:
    """Create ``path`` if missing and make it (and an existing -wal/-shm) owner-only."""
    p = Path(path)
    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, FILE_MODE))
    for candidate in (p, Path(f"{p}-wal"), Path(f"{p}-shm")):
        if candidate.exists():
            os.chmod(candidate, FILE_MODE)
    return p


def loose_modes(data_dir: str | Path, names: tuple[str, ...]) -> list[str]:
    """Paths under ``data_dir`` (the dir itself and ``names`` with their -wal/-shm) that others can read."""
    root = Path(data_dir)
    paths = [root] + [root / f"{n}{s}" for n in names for s in ("", "-wal", "-shm")]
    return [str(p) for p in paths if p.exists() and os.stat(p).st_mode & 0o077]
