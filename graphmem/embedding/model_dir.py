"""The prepared model folder, whatever built it: its manifest and file names, checksums, the
build lock and the atomic swap that keeps a half-built folder from ever looking prepared.
Shared by the PyPI build (``prepare``) and the Maven Central one (``maven_prepare``)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

MANIFEST_NAME = "graphmem-manifest.json"
MODEL_FILE = "model.onnx"


class PrepareError(RuntimeError):
    """The model directory could not be prepared."""


class ChecksumMismatchError(PrepareError):
    """A source file or the built model does not match its pinned sha256."""


@dataclass(frozen=True)
class PrepareResult:
    """Outcome of ``prepare_model``: ``built`` is False when a verified dir was reused."""

    path: Path
    built: bool
    seconds: float
    sha256: str


def default_cache_root() -> Path:
    """GRAPHMEM_CACHE_DIR, else $XDG_CACHE_HOME/graphmem, else ~/.cache/graphmem."""
    env = os.environ.get("GRAPHMEM_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg).expanduser() / "graphmem"
    return Path.home() / ".cache" / "graphmem"


def sha256_file(path: Path) -> str:
    """Streaming sha256 (the weights are ~90 MB)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def is_prepared(model_dir: str | Path) -> bool:
    """Cheap check (no hashing): the manifest and every file fastembed needs exist."""
    d = Path(model_dir)
    names = (MANIFEST_NAME, MODEL_FILE, "tokenizer.json", "tokenizer_config.json")
    return all((d / n).is_file() for n in names)


@contextlib.contextmanager
def build_lock(target: Path) -> Iterator[None]:
    """Serialise concurrent prepares of one dir (e.g. pytest-xdist workers)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX: best effort, the rename is atomic
        yield
        return
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build_and_swap(target: Path, build: Callable[[Path], str]) -> str:
    """Run ``build`` into a fresh temp dir beside ``target``, then put it in ``target``'s place, so a
    reader never sees a half-built model dir; returns what ``build`` returns (model.onnx's sha256).
    Call it under ``build_lock``: temp dirs left by a killed build are removed first."""
    for stale in target.parent.glob(f".{target.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    tmp = target.parent / f".{target.name}.tmp-{os.getpid()}"
    tmp.mkdir(parents=True)
    try:
        sha = build(tmp)
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return sha
