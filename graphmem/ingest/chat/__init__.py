"""Chat exports as memory records: ChatGPT, Claude, a JSONL of messages, a plain transcript.

``read_chat`` parses a whole file before anything is written: a bad or partial file raises
``ChatExportError`` naming the line (JSONL, transcript) or the conversation and message (JSON).
Every record is validated before anything is written, so a file is either imported whole or not
written at all; with ``skip_invalid`` the good conversations are imported and the bad ones reported
(by their index from 1 and their title).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.config import Limits, load_settings
from graphmem.errors import ValidationError
from graphmem.ingest.chat import chatgpt, claude, messages, transcript
from graphmem.ingest.chat.records import ChatExportError, Conversation, label, to_records

__all__ = ["FORMATS", "ChatExportError", "ChatRead", "import_chat", "read_chat", "read_export"]


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


def _transcript(text: str, path: str, thread: str | None) -> list[Conversation]:
    if thread is None and path == "-":
        raise ChatExportError("a transcript read from stdin needs --thread", field="thread")
    name = thread or Path(path).stem
    return transcript.read(text, name, thread or f"{transcript.FORMAT}:{name}")


READERS: dict[str, Callable[[str, str, str | None], list[Conversation]]] = {
    chatgpt.FORMAT: lambda text, _path, _thread: chatgpt.read(_json(text)),
    claude.FORMAT: lambda text, _path, _thread: claude.read(_json(text)),
    messages.FORMAT: lambda text, _path, _thread: messages.read(text),
    transcript.FORMAT: _transcript,
}
FORMATS = tuple(READERS)


@dataclass
class ChatRead:
    """An export as read: the records of its good conversations, in order, and its bad ones."""

    records: list[dict[str, Any]] = field(default_factory=list)
    bad: list[Conversation] = field(default_factory=list)
    conversations: int = 0

    def refusal(self) -> ChatExportError:
        """The error that refuses the whole file: the first bad conversation's, with a count of the rest."""
        first = self.bad[0].error
        assert first is not None
        if self.conversations < 2:
            return first
        more = (f"; {len(self.bad) - 1} more of the file's {self.conversations} conversations are bad"
                if len(self.bad) > 1 else "")
        return ChatExportError(f"{first.message}{more} (--skip-invalid imports the good ones and lists the bad)",
                               field=first.field)

    def skipped(self) -> list[dict[str, Any]]:
        return [{"conversation": c.index, "title": c.title, "code": ChatExportError.code,
                 "message": c.error.message if c.error else "", "field": c.error.field if c.error else None}
                for c in self.bad]


def _records(conv: Conversation, fmt: str, limits: Limits, namespace: str,
             owners: dict[str, int], threads: dict[str, int]) -> list[dict[str, Any]]:
    """A good conversation's records, each validated as the API would; an id or thread that an
    earlier conversation already holds would merge two conversations, so it is a bad export."""
    from graphmem.ingest.validate import validate_memory

    where = label(conv.index, conv.title)
    assert conv.thread is not None
    if conv.thread in threads:
        raise ChatExportError(f"{where}: its thread {conv.thread!r} is conversation {threads[conv.thread]}'s too "
                              "(a conversation given twice?)", field="id")
    records = to_records(conv.thread, conv.turns, fmt, limits)
    for record in records:
        if record["id"] in owners:
            raise ChatExportError(f"{where}: message id {record['id']} repeats one of conversation "
                                  f"{owners[record['id']]}", field="id")
        try:
            validate_memory({**record, "namespace": namespace}, limits)
        except ValidationError as exc:
            raise ChatExportError(f"{where}, message {record['id']}: {exc.message}", field=exc.field) from None
    return records


def read_export(path: str | Path, fmt: str, thread: str | None = None, limits: Limits | None = None,
                namespace: str = "default") -> ChatRead:
    """Every conversation of the export at ``path`` (``-``: stdin), each validated record by record.
    A file that cannot be read at all (not JSON, not UTF-8, a line without a thread) raises."""
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
    conversations = READERS[fmt](text, str(path), thread)
    out = ChatRead(conversations=len(conversations))
    owners: dict[str, int] = {}
    threads: dict[str, int] = {}
    for conv in conversations:
        if conv.error is None:
            try:
                records = _records(conv, fmt, limits, namespace, owners, threads)
            except ChatExportError as exc:
                conv.error = exc
        if conv.error is not None:
            out.bad.append(conv)
            continue
        threads[conv.thread or ""] = conv.index
        owners |= {r["id"]: conv.index for r in records}
        out.records.extend(records)
    return out


def read_chat(path: str | Path, fmt: str, thread: str | None = None,
              limits: Limits | None = None) -> list[dict[str, Any]]:
    """Every message of the export at ``path`` (``-``: stdin) as a memory record, thread by
    thread in order; the first bad conversation raises. ``thread`` names a transcript's thread."""
    read = read_export(path, fmt, thread, limits)
    if read.bad:
        raise read.refusal()
    return read.records


def import_chat(engine, path: str | Path, fmt: str, namespace: str = "default", thread: str | None = None,
                batch_size: int | None = None, progress: bool = False,
                skip_invalid: bool = False) -> dict[str, Any]:
    """Read and validate the whole export, then import it (``bulk.import_records``): the summary of
    ``import_jsonl`` (rejections by message id) plus ``skipped``, the bad conversations. Without
    ``skip_invalid`` a bad conversation refuses the file and nothing is written."""
    from graphmem.ingest.bulk import import_records

    read = read_export(path, fmt, thread, engine.settings.limits, namespace)
    if read.bad and not skip_invalid:
        raise read.refusal()
    summary = import_records(engine, [(r["id"], r) for r in read.records], namespace, batch_size=batch_size,
                             progress=progress, place="message")
    return {**summary, "skipped": read.skipped()}
