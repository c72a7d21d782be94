"""Claude's data export, ``conversations.json`` (Settings > Privacy > Export data).

Shape: a JSON array of conversations ``{uuid, name, created_at, updated_at, chat_messages}``;
each message is ``{uuid, text, sender: "human" | "assistant", created_at, content, attachments,
files}`` with ``content`` a list of blocks (``{"type": "text", "text": ...}``, ``tool_use``,
``tool_result``...). The text blocks are the message as shown; ``text`` is the fallback for
exports without ``content``. Messages come in conversation order; empty ones are skipped.
"""

from __future__ import annotations

from typing import Any

from graphmem.ingest.chat.records import (
    ChatExportError,
    Conversation,
    Turn,
    iso,
    kind,
    label,
    numbers,
    read_each,
    segment,
    text_or_none,
)

FORMAT = "claude"


def _text(message: dict[str, Any], where: str) -> str:
    blocks = message.get("content")
    if blocks is not None and not isinstance(blocks, list):
        raise ChatExportError(f"{where}: 'content' must be a list of blocks, not {kind(blocks)}", field="content")
    texts = []
    for block in blocks or []:
        if not isinstance(block, dict):
            raise ChatExportError(f"{where}: a content block must be an object, not {kind(block)}",
                                  field="content")
        if block.get("type") == "text":
            texts.append((text_or_none(block, "text", where) or "").strip())
    joined = "\n\n".join(t for t in texts if t)
    return joined or (text_or_none(message, "text", where) or "").strip()


def _uuid(obj: dict[str, Any], where: str) -> str:
    value = obj.get("uuid")
    if not isinstance(value, str) or not value.strip():
        raise ChatExportError(f"{where}: needs a 'uuid' string", field="uuid")
    return value


def _conversation(index: int, conv: Any) -> tuple[str, list[Turn]]:
    if not isinstance(conv, dict):
        raise ChatExportError(f"{label(index, None)}: not an object with a 'uuid'", field="uuid")
    title = conv.get("name") if isinstance(conv.get("name"), str) else None
    where = label(index, title, conv.get("uuid"))
    conv_id = _uuid(conv, where)
    text_or_none(conv, "name", where)
    numbers(conv, where)
    messages = conv.get("chat_messages")
    if not isinstance(messages, list):
        raise ChatExportError(f"{where}: no 'chat_messages' list", field="chat_messages")
    conv_seg, turns = segment(conv_id), []
    conv_time = iso(conv.get("created_at"), where)
    for k, message in enumerate(messages, start=1):
        if not isinstance(message, dict):
            raise ChatExportError(f"{where}, message #{k}: not an object with a 'uuid'", field="uuid")
        msg_id = _uuid(message, f"{where}, message #{k}")
        msg_where = f"{where}, message {msg_id}"
        sender = message.get("sender")
        if not isinstance(sender, str) or not sender.strip():
            raise ChatExportError(f"{msg_where}: no 'sender'", field="sender")
        text = _text(message, msg_where)
        if not text:
            continue
        turns.append(Turn(
            id=f"{FORMAT}:{conv_seg}/{segment(msg_id)}", speaker=sender.strip(), role=sender.strip(), text=text,
            created_at=iso(message.get("created_at"), msg_where) or conv_time,
            metadata={"conversation_title": title, "conversation_id": conv_id, "message_id": msg_id}))
    return f"{FORMAT}:{conv_seg}", turns


def read(data: Any) -> list[Conversation]:
    """Each conversation of a parsed Claude ``conversations.json``: its thread and turns, or its error."""
    if not isinstance(data, list):
        raise ChatExportError("a Claude export is a JSON array of conversations", field=None)
    return read_each(data, _conversation,
                     lambda conv: conv.get("name") if isinstance(conv, dict) and isinstance(
                         conv.get("name"), str) else None)
