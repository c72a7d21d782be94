"""Fixtures for the embedding tests: the real model, prepared once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.embedding.embedder import Embedder, load_embedder
from graphmem.embedding.prepare import ensure_model, prepare_model


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The default embedder; builds the model dir on first use (~2 s), else a no-op."""
    ensure_model()
    return load_embedder()


@pytest.fixture(scope="session")
def built_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two independent builds into fresh temp dirs (for determinism and CLI tests)."""
    first = prepare_model(tmp_path_factory.mktemp("build_a") / "model")
    second = prepare_model(tmp_path_factory.mktemp("build_b") / "model")
    assert first.built and second.built
    return first.path, second.path
