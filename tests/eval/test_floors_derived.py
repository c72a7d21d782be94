"""CI floors come from saved reports by a script, and a missing dataset fails under CI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.derive_floors import derive  # noqa: E402

from .conftest import FLOORS_PATH  # noqa: E402


def test_floors_file_is_what_the_script_derives_from_the_reports() -> None:
    assert json.loads(FLOORS_PATH.read_text()) == derive(), "re-run: python -m bench.derive_floors"


@pytest.mark.parametrize(("ci", "outcome"), [("1", "error"), ("", "skipped")])
def test_missing_locomo_fails_under_ci_and_skips_otherwise(tmp_path: Path, ci: str, outcome: str) -> None:
    env = {**os.environ, "GRAPHMEM_LOCOMO_DIR": str(tmp_path), "CI": ci, "GRAPHMEM_REQUIRE_NEO4J": ""}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k",
                           "test_subset_is_one_scoped_conversation", "tests/eval/test_eval_locomo_subset.py"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert f"1 {outcome}" in done.stdout, done.stdout[-2000:]
