"""Bulk JSONL import through the normal ingest path: batched, idempotent, summarised."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

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
                rows.append((number, json.loads(line)))
            except json.JSONDecodeError as exc:
                rows.append((number, ValidationError(f"invalid JSON: {exc.msg}", field=None,
                                                     code="malformed_json")))
    return rows


def add_in_chunks(engine, groups: dict[str, list[tuple[K, Any]]], batch_size: int,
                  bar: tqdm) -> Iterator[tuple[str, K, Any, IngestResult]]:
    """Every item through ``Graphmem.add_batch`` (the normal ingest path), namespace by namespace
    in order, at most ``batch_size`` per call: (namespace, the caller's key, item, result) each.
    ``bar`` advances once per item (add_batch counts the items it saves, a rejection here)."""
    for ns, items in groups.items():
        for start in range(0, len(items), batch_size):
            chunk = items[start:start + batch_size]
            results = engine.add_batch([item for _, item in chunk], ns, progress=bar.update)
            for (key, item), result in zip(chunk, results, strict=True):
                if result.status == "rejected":
                    bar.update(1)
                yield ns, key, item, result


def import_jsonl(engine, path: str | Path, namespace: str = "default", namespace_field: str | None = None,
                 batch_size: int = 200, progress: bool = False) -> dict[str, Any]:
    """Import every line; a memory's namespace is its own ``namespace``, else
    ``metadata[namespace_field]``, else ``namespace``."""
    rows = read_jsonl(path)
    batch_size = max(1, min(batch_size, engine.settings.limits.max_batch))
    summary: dict[str, Any] = {"created": 0, "duplicate": 0, "rejected": 0, "rejections": [], "ids": {}}
    bar = tqdm(total=len(rows), unit="mem", disable=not progress, desc="import")
    groups: dict[str, list[tuple[int, Any]]] = {}
    for number, item in rows:
        if isinstance(item, ValidationError):
            summary["rejected"] += 1
            summary["rejections"].append({"line": number, **item.to_dict()})
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
            summary["rejections"].append({"line": number, **result.error.to_dict()})
        elif result.memory is not None and isinstance(item, dict) and item.get("id"):
            summary["ids"][item["id"]] = result.memory.id
    bar.close()
    summary["rejections"].sort(key=lambda r: r["line"])
    return summary
