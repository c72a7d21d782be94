"""Claude's data export, ``conversations.json`` (Settings > Privacy > Export data).

Shape: a JSON array of conversations ``{uuid, name, created_at, updated_at, chat_messages}``;
each message is ``{uuid, text, sender: "human" | "assistant", created_at, content, attachments,
files}`` with ``content`` a list of blocks (``{"type": "text", "text": ...}``, ``tool_use``,
``tool_result``...). The text blocks are the message as shown; ``text`` is the fallback for
exports without ``content``. Messages come in conversation order; empty ones are skipped.
"""

from __future__ import annotations

from typing import Any

from graphmem.ingest.chat.records import ChatExportError, Turn, iso, segment

FORMAT = "claude"


def _text(message: dict[str, Any]) -> str:
    blocks = message.get("content")
    if isinstance(blocks, list):
        texts = [b["text"].strip() for b in blocks
                 if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
        joined = "\n\n".join(t for t in texts if t)
        if joined:
            return joined
    return message["text"].strip() if isinstance(message.get("text"), str) else ""


def read(data: Any) -> list[tuple[str, list[Turn]]]:
    """(thread, turns) for each conversation of a parsed Claude ``conversations.json``."""
    if not isinstance(data, list):
        raise ChatExportError("a Claude export is a JSON array of conversations", field=None)
    threads = []
    for n, conv in enumerate(data):
        if not isinstance(conv, dict) or not conv.get("uuid"):
            raise ChatExportError(f"conversation #{n}: not an object with a 'uuid'", field="uuid")
        where = f"conversation {conv['uuid']}"
        messages = conv.get("chat_messages")
        if not isinstance(messages, list):
            raise ChatExportError(f"{where}: no 'chat_messages' list", field="chat_messages")
        conv_seg, turns = segment(conv["uuid"]), []
        for k, message in enumerate(messages):
            if not isinstance(message, dict) or not message.get("uuid"):
                raise ChatExportError(f"{where}, message #{k}: not an object with a 'uuid'", field="uuid")
            sender = message.get("sender")
            if not isinstance(sender, str) or not sender.strip():
                raise ChatExportError(f"{where}, message {message['uuid']}: no 'sender'", field="sender")
            text = _text(message)
            if not text:
                continue
            turns.append(Turn(
                id=f"{FORMAT}:{conv_seg}/{segment(message['uuid'])}", speaker=sender, role=sender, text=text,
                created_at=iso(message.get("created_at"), f"{where}, message {message['uuid']}")
                or iso(conv.get("created_at"), where),
                metadata={"conversation_title": conv.get("name"), "conversation_id": conv["uuid"],
                          "message_id": message["uuid"]}))
        threads.append((f"{FORMAT}:{conv_seg}", turns))
    return threads
