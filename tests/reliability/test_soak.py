"""Bounded concurrency soak: writers, readers and deleters over HTTP on loopback
against a real ``graphmem serve`` process for ``GRAPHMEM_SOAK_SECONDS`` (default 25): no 5xx, no
transport error, no acknowledged write lost, no acknowledged delete undone, a clean shutdown,
and ``graphmem check`` clean afterwards. Scenario: ``bench/bench_soak.py``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from graphmem.cli import main
from harness.faults.soak import run_soak
from tests.helpers.server import Server


def check_data_dir(data_dir: Path) -> dict:
    result = CliRunner().invoke(main, ["--data-dir", str(data_dir), "check"], catch_exceptions=False)
    return {"exit_code": result.exit_code, **json.loads(result.stdout)}


def test_soak_no_5xx_no_lost_writes_check_clean(tmp_path, embedder):
    server = Server(tmp_path / "data", tmp_path / "server.log")
    try:
        report = run_soak(server.url, float(os.environ.get("GRAPHMEM_SOAK_SECONDS", "25")))
    finally:
        code = server.stop()
    assert report["server_errors"] == 0, report["failures"]
    assert report["acknowledged_writes"] > 20 and report["acknowledged_deletes"] > 5, report["responses"]
    assert report["lost_acknowledged"] == [] and report["resurrected_deletes"] == []
    assert code == 0
    checked = check_data_dir(tmp_path / "data")
    assert checked["exit_code"] == 0 and checked["ok"], checked["problems"]
