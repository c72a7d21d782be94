"""ChatGPT's data export, ``conversations.json`` (Settings > Data controls > Export data).

Shape (as published in the export and its community documentation): a JSON array of
conversations ``{id | conversation_id, title, create_time, update_time, current_node, mapping}``.
``mapping`` is a tree of nodes ``{id, parent, children, message}``; a message is
``{id, author: {role, name}, create_time, content: {content_type, parts | text}, metadata, recipient}``.
Regenerated answers and edited prompts are sibling branches: the conversation shows the branch that
ends at ``current_node``, so that branch is read, from the root down, by following ``parent`` links
up from ``current_node``. System messages, hidden ones (``metadata.is_visually_hidden_from_conversation``),
null or empty messages and non-text content (``user_editable_context``, browsing displays...) are
skipped; in ``multimodal_text`` the string parts are kept and image asset pointers dropped.
"""

from __future__ import annotations

from typing import Any

from graphmem.ingest.chat.records import ChatExportError, Turn, epoch_iso, segment

FORMAT = "chatgpt"
# Content types whose text a reader sees in the conversation: in ``parts`` or in ``text``.
TEXT_CONTENT = ("text", "multimodal_text", "code", "execution_output")


def _branch(conv: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The nodes from the root to ``current_node`` (or, without one, along the last child)."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise ChatExportError(f"{where}: no 'mapping' object of message nodes", field="mapping")
    for key, node in mapping.items():
        if not isinstance(node, dict):
            raise ChatExportError(f"{where}, node {key}: not an object", field="mapping")
        parent = node.get("parent")
        if parent is not None and parent not in mapping:
            raise ChatExportError(f"{where}, node {key}: parent {parent!r} is not in the mapping "
                                  "(a partial export?)", field="mapping")
    leaf = conv.get("current_node")
    if leaf is None:
        roots = [k for k, n in mapping.items() if n.get("parent") is None]
        leaf = roots[0] if roots else None
        while leaf is not None and mapping[leaf].get("children"):
            leaf = mapping[leaf]["children"][-1]
            if leaf not in mapping:
                raise ChatExportError(f"{where}: child {leaf!r} is not in the mapping", field="mapping")
    elif leaf not in mapping:
        raise ChatExportError(f"{where}: current_node {leaf!r} is not in the mapping", field="current_node")
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while leaf is not None:
        if leaf in seen:
            raise ChatExportError(f"{where}, node {leaf}: parent links form a cycle", field="mapping")
        seen.add(leaf)
        path.append(mapping[leaf])
        leaf = mapping[leaf].get("parent")
    return path[::-1]


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in TEXT_CONTENT:
        return ""
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n".join(p for p in parts if isinstance(p, str) and p.strip()).strip()
    return content["text"].strip() if isinstance(content.get("text"), str) else ""


def _visible(message: dict[str, Any]) -> bool:
    author = message["author"] if isinstance(message.get("author"), dict) else {}
    metadata = message["metadata"] if isinstance(message.get("metadata"), dict) else {}
    return author.get("role") not in (None, "system") and not metadata.get("is_visually_hidden_from_conversation")


def read(data: Any) -> list[tuple[str, list[Turn]]]:
    """(thread, turns) for each conversation of a parsed ``conversations.json``."""
    if not isinstance(data, list):
        raise ChatExportError("a ChatGPT export is a JSON array of conversations", field=None)
    threads = []
    for n, conv in enumerate(data):
        if not isinstance(conv, dict):
            raise ChatExportError(f"conversation #{n}: not an object", field=None)
        conv_id = conv.get("conversation_id") or conv.get("id")
        if not conv_id:
            raise ChatExportError(f"conversation #{n}: no 'id' or 'conversation_id'", field="id")
        where = f"conversation {conv_id}"
        conv_seg, title = segment(conv_id), conv.get("title")
        turns = []
        for node in _branch(conv, where):
            message = node.get("message")
            if not isinstance(message, dict) or not _visible(message):
                continue
            text = _text(message)
            if not text:
                continue
            author = message["author"]
            role = str(author["role"])
            speaker = str(author.get("name") or role) if role == "tool" else role
            msg_id = message.get("id") or node.get("id")
            turns.append(Turn(
                id=f"{FORMAT}:{conv_seg}/{segment(msg_id)}", speaker=speaker, role=role, text=text,
                created_at=epoch_iso(message.get("create_time")) or epoch_iso(conv.get("create_time")),
                metadata={"conversation_title": title, "conversation_id": conv_id, "message_id": msg_id}))
        threads.append((f"{FORMAT}:{conv_seg}", turns))
    return threads
