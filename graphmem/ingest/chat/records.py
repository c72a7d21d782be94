"""What every chat reader shares: the error it raises, id segments that pass the id rule,
timestamps, and the step from a thread's turns to memory records.

Why one place: each format only says where a turn's speaker, text, time and id sit; the record
shape (content ``"<speaker>: <text>"``, ``thread``, 0-based ``seq``, role/speaker tags, metadata,
ids derived from the export's own ids so a re-import is answered as duplicates) is the same for all.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from graphmem.config import Limits
from graphmem.contract.numbers import check_numbers
from graphmem.errors import ValidationError
from graphmem.model import normalize_timestamp

_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@\-]")
_SEGMENT_CHARS = 80


class ChatExportError(ValidationError):
    """A chat export that cannot be read whole; the message names the line or message."""

    code = "bad_export"


@dataclass
class Conversation:
    """One conversation of an export as read: its turns, or why it cannot be imported.

    ``index`` counts from 1 in file order and ``title`` is the export's own (a JSONL's thread name),
    so a person finds the conversation an error names."""

    index: int
    title: str | None
    thread: str | None
    turns: list[Turn] = field(default_factory=list)
    error: ChatExportError | None = None


def label(index: int, title: Any, ident: Any = None) -> str:
    """``conversation 3 ("Trip plans", id c1)``: how an error names a conversation."""
    named = [json_text(title) if isinstance(title, str) and title else "untitled"]
    if isinstance(ident, str) and ident:
        named.append(f"id {ident}")
    return f"conversation {index} ({', '.join(named)})"


def json_text(value: str, room: int = 80) -> str:
    """A title quoted for an error message, cut to ``room`` characters."""
    return '"' + (value if len(value) <= room else value[:room - 3] + "...") + '"'


def read_each(items: list[Any], read_one: Any, title_of: Any) -> list[Conversation]:
    """``read_one(index, item)`` for every conversation, keeping a bad one's error rather than
    stopping: the caller refuses the file on the first, or skips them (``--skip-invalid``)."""
    out = []
    for index, item in enumerate(items, start=1):
        title = title_of(item)
        try:
            thread, turns = read_one(index, item)
        except ChatExportError as exc:
            out.append(Conversation(index, title, None, error=exc))
            continue
        out.append(Conversation(index, title, thread, turns))
    return out


def numbers(value: Any, where: str) -> None:
    """The number rule of docs/strict-json.md (finite; integers within +-(2**53-1)) over a
    conversation or line, so an export carries nothing the API would refuse."""
    try:
        check_numbers(value)
    except ValidationError as exc:
        raise ChatExportError(f"{where}: {exc.message}", field=exc.field) from None


def text_or_none(obj: dict[str, Any], key: str, where: str) -> str | None:
    """``obj[key]`` when it is a string, None when absent or null; any other type is a bad export."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise ChatExportError(f"{where}: {key!r} must be a string or null, not {kind(value)}", field=key)


def kind(value: Any) -> str:
    """A JSON value's type as a person names it, for error messages."""
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "a list", str: "a string", int: "an integer",
            float: "a number"}.get(type(value), type(value).__name__)


@dataclass
class Turn:
    """One message of a thread, before it becomes a memory record."""

    id: str                      # the memory id (already safe), e.g. "chatgpt:<conv>/<msg>"
    speaker: str                 # written before the text: "<speaker>: <text>"
    role: str | None
    text: str
    created_at: str | None
    metadata: dict[str, Any] = field(default_factory=dict)


def segment(raw: Any) -> str:
    """``raw`` as one id segment: letters, digits and ``_ . : @ -``, starting with a letter or
    digit. Ids that already pass stay as they are; any other is made safe and suffixed with 8 hex
    of its sha1, so two different raw ids never share a segment and the result is deterministic."""
    text = str(raw)
    safe = _UNSAFE.sub("-", text).lstrip("_.:@-")[:_SEGMENT_CHARS]
    if safe == text and safe and safe != "neighbors":
        return safe
    digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe[:_SEGMENT_CHARS - 9]}-{digest}" if safe else digest


def epoch_iso(value: Any) -> str | None:
    """Seconds since the epoch (ChatGPT's ``create_time``) as ISO-8601 UTC; None when absent."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return normalize_timestamp(datetime.fromtimestamp(float(value), tz=timezone.utc).isoformat())
    except (ValueError, OverflowError, OSError):
        return None


def iso(value: Any, where: str) -> str | None:
    """An ISO-8601 string (Claude's ``created_at``), or epoch seconds, normalised; None when absent."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return epoch_iso(value)
    try:
        return normalize_timestamp(str(value))
    except (ValueError, OverflowError):
        raise ChatExportError(f"{where}: timestamp {value!r} is not ISO-8601 or epoch seconds",
                              field="created_at") from None


def split_text(text: str, room: int) -> list[str]:
    """``text`` in pieces of at most ``room`` characters, cut at a paragraph, line or sentence
    end when one lies in the second half of the piece (else at a space, else anywhere)."""
    pieces, rest = [], text
    while len(rest) > room:
        window = rest[:room]
        cut = max((window.rfind(sep) + len(sep) for sep in ("\n\n", "\n", ". ", " ")
                   if window.rfind(sep) >= room // 2), default=room)
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    return [p for p in (*pieces, rest) if p]


def to_records(thread: str, turns: list[Turn], fmt: str, limits: Limits) -> list[dict[str, Any]]:
    """One thread's turns, in order, as memory records with ``seq`` 0, 1, 2, ... A turn longer
    than ``limits.max_content_chars`` becomes consecutive parts: the first keeps the turn's id,
    the others add ``.part2``, ``.part3``... (metadata ``part``/``parts``)."""
    out: list[dict[str, Any]] = []
    for turn in turns:
        prefix = f"{turn.speaker}: "
        pieces = split_text(turn.text, max(1, limits.max_content_chars - len(prefix)))
        tags = [f"role:{turn.role}"[:limits.max_tag_chars]] if turn.role else []
        tags.append(f"speaker:{turn.speaker}"[:limits.max_tag_chars])
        for k, piece in enumerate(pieces, start=1):
            metadata = {k: v for k, v in {**turn.metadata, "format": fmt, "role": turn.role}.items()
                        if v is not None}
            if len(pieces) > 1:
                metadata |= {"part": k, "parts": len(pieces)}
            record = {"id": turn.id if k == 1 else f"{turn.id}.part{k}", "content": prefix + piece,
                      "thread": thread, "seq": len(out), "source": fmt, "tags": list(dict.fromkeys(tags)),
                      "metadata": metadata}
            if turn.created_at:
                record["created_at"] = turn.created_at
            out.append(record)
    return out
