"""Chat exports as memory records: ChatGPT, Claude, a JSONL of messages, a plain transcript.

``read_chat`` parses a whole file before anything is written: a bad or partial file raises
``ChatExportError`` naming the line (JSONL, transcript) or the conversation and message (JSON).
``import_chat`` then validates every record and only then imports them all through the bulk
import path, so a file is either read whole or not written at all.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphmem.config import Limits, load_settings
from graphmem.errors import ValidationError
from graphmem.ingest.chat import chatgpt, claude, messages, transcript
from graphmem.ingest.chat.records import ChatExportError, Turn, to_records

__all__ = ["FORMATS", "ChatExportError", "import_chat", "read_chat"]


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ChatExportError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
                              field=None) from None
    except RecursionError:
        raise ChatExportError("invalid JSON: nested too deeply to read", field=None) from None
    except ValueError:      # json's bare ValueError: an integer past 4300 digits
        raise ChatExportError("invalid JSON: a number too long to read (over 4300 digits)", field=None) from None


def _transcript(text: str, path: str, thread: str | None) -> list[tuple[str, list[Turn]]]:
    if thread is None and path == "-":
        raise ChatExportError("a transcript read from stdin needs --thread", field="thread")
    name = thread or Path(path).stem
    return transcript.read(text, name, thread or f"{transcript.FORMAT}:{name}")


READERS: dict[str, Callable[[str, str, str | None], list[tuple[str, list[Turn]]]]] = {
    chatgpt.FORMAT: lambda text, _path, _thread: chatgpt.read(_json(text)),
    claude.FORMAT: lambda text, _path, _thread: claude.read(_json(text)),
    messages.FORMAT: lambda text, _path, _thread: messages.read(text),
    transcript.FORMAT: _transcript,
}
FORMATS = tuple(READERS)


def read_chat(path: str | Path, fmt: str, thread: str | None = None,
              limits: Limits | None = None) -> list[dict[str, Any]]:
    """Every message of the export at ``path`` (``-``: stdin) as a memory record, thread by
    thread in order. ``thread`` names a transcript's thread (its file stem otherwise)."""
    if fmt not in READERS:
        raise ValidationError(f"unknown chat format {fmt!r}; one of {', '.join(FORMATS)}", field="format")
    if thread is not None and fmt != transcript.FORMAT:
        raise ValidationError("--thread applies to transcripts only (the other formats name their threads)",
                              field="thread")
    limits = limits or load_settings(use_env=False).limits
    try:
        text = sys.stdin.read() if str(path) == "-" else Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ChatExportError(f"{path}: not UTF-8 text (byte {exc.start})", field=None) from None
    records: list[dict[str, Any]] = []
    for name, turns in READERS[fmt](text, str(path), thread):
        records.extend(to_records(name, turns, fmt, limits))
    return records


def import_chat(engine, path: str | Path, fmt: str, namespace: str = "default", thread: str | None = None,
                batch_size: int | None = None, progress: bool = False) -> dict[str, Any]:
    """Read, validate every record (the first bad one raises, naming its message), then import
    them all (``bulk.import_records``): the summary of ``import_jsonl``, rejections by message id."""
    from graphmem.ingest.bulk import import_records
    from graphmem.ingest.validate import validate_memory

    limits = engine.settings.limits
    records = read_chat(path, fmt, thread, limits)
    for record in records:
        try:
            validate_memory({**record, "namespace": namespace}, limits)
        except ValidationError as exc:
            raise ChatExportError(f"message {record['id']}: {exc.message}", field=exc.field) from None
    return import_records(engine, [(r["id"], r) for r in records], namespace, batch_size=batch_size,
                          progress=progress, place="message")
