"""Bulk JSONL import through the normal ingest path: batched, idempotent, summarised."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

from graphmem import fastjson
from graphmem.errors import ValidationError
from graphmem.ingest.service import IngestResult

K = TypeVar("K")


def read_jsonl(path: str | Path) -> list[tuple[int, Any]]:
    """(line number, parsed object or the JSON error) for each non-empty line."""
    rows: list[tuple[int, Any]] = []
    with (contextlib.nullcontext(sys.stdin) if str(path) == "-" else open(path, encoding="utf-8")) as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rows.append((number, fastjson.parse(line)))
            except ValueError as exc:
                rows.append((number, ValidationError(str(exc), field=None, code="malformed_json")))
    return rows


def add_in_chunks(engine, groups: dict[str, list[tuple[K, Any]]], batch_size: int, bar: tqdm,
                  overlap: bool | None = None) -> Iterator[tuple[str, K, Any, IngestResult]]:
    """Every item through the normal ingest path (``Graphmem.prepare_batch`` then ``add_prepared``,
    which is ``add_batch``), namespace by namespace in order, at most ``batch_size`` per call:
    (namespace, the caller's key, item, result) each. ``bar`` advances once per item (the write
    counts the items it saves, a rejection here). With ``overlap`` (default ``ingest.import_overlap``)
    the next chunk is embedded in a background thread while this one is linked and written; the
    writes, their order and every result are those of one step after another."""
    chunks = [(ns, items[start:start + batch_size]) for ns, items in groups.items()
              for start in range(0, len(items), batch_size)]
    if overlap is None:
        overlap = engine.settings.ingest.import_overlap

    def prepare(k: int):
        ns, chunk = chunks[k]
        return engine.prepare_batch([item for _, item in chunk], ns)

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-embed") if overlap else None
    try:
        ahead: Future | None = pool.submit(prepare, 0) if pool and chunks else None
        for k, (ns, chunk) in enumerate(chunks):
            prepared = ahead.result() if ahead is not None else prepare(k)
            ahead = pool.submit(prepare, k + 1) if pool and k + 1 < len(chunks) else None
            results = engine.add_prepared(prepared, progress=bar.update)
            for (key, item), result in zip(chunk, results, strict=True):
                if result.status == "rejected":
                    bar.update(1)
                yield ns, key, item, result
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def import_jsonl(engine, path: str | Path, namespace: str = "default", namespace_field: str | None = None,
                 batch_size: int | None = None, progress: bool = False) -> dict[str, Any]:
    """Import every line; a memory's namespace is its own ``namespace``, else
    ``metadata[namespace_field]``, else ``namespace``. ``batch_size``: memories per chunk
    (None: ingest.import_chunk_size), capped by limits.max_batch."""
    return import_records(engine, read_jsonl(path), namespace, namespace_field, batch_size, progress)


def import_records(engine, rows: list[tuple[Any, Any]], namespace: str = "default",
                   namespace_field: str | None = None, batch_size: int | None = None,
                   progress: bool = False, place: str = "line") -> dict[str, Any]:
    """Import (place, item) rows, an item being a memory dict or the ValidationError of a line
    that did not parse; rejections name their ``place`` (a line number, a message id)."""
    batch_size = engine.settings.ingest.import_chunk_size if batch_size is None else batch_size
    batch_size = max(1, min(batch_size, engine.settings.limits.max_batch))
    summary: dict[str, Any] = {"created": 0, "duplicate": 0, "rejected": 0, "rejections": [], "ids": {}}
    bar = tqdm(total=len(rows), unit="mem", disable=not progress, desc="import")
    groups: dict[str, list[tuple[Any, Any]]] = {}
    for number, item in rows:
        if isinstance(item, ValidationError):
            summary["rejected"] += 1
            summary["rejections"].append({place: number, **item.to_dict()})
            bar.update(1)
            continue
        ns = namespace
        if isinstance(item, dict):
            metadata = item.get("metadata")
            from_metadata = (metadata.get(namespace_field)
                             if namespace_field and isinstance(metadata, dict) else None)
            ns = item.get("namespace") or from_metadata or namespace
            item = {**item, "namespace": ns}
        groups.setdefault(str(ns), []).append((number, item))
    for _ns, number, item, result in add_in_chunks(engine, groups, batch_size, bar):
        summary[result.status] += 1
        if result.error is not None:
            summary["rejections"].append({place: number, **result.error.to_dict()})
        elif result.memory is not None and isinstance(item, dict) and item.get("id"):
            summary["ids"][item["id"]] = result.memory.id
    bar.close()
    if place == "line":
        summary["rejections"].sort(key=lambda r: r["line"])
    return summary
