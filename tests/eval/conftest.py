"""Shared pieces for the eval-harness tests: floors, fixture paths, the locomo-dev location."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
FIXTURE = HERE.parent / "fixtures" / "agent_memory"
FLOORS_PATH = HERE / "floors.json"


@pytest.fixture(scope="session")
def floors() -> dict[str, Any]:
    """Recorded quality floors (a regression guard; see floors.json's note)."""
    return json.loads(FLOORS_PATH.read_text())


@pytest.fixture(scope="session", autouse=True)
def _model_ready() -> None:
    """The eval runs the real embedder; build its directory once (a no-op when present)."""
    from graphmem.embedding.prepare import ensure_model

    ensure_model()
