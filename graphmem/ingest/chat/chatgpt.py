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

from graphmem.ingest.chat.records import (
    ChatExportError,
    Conversation,
    Turn,
    epoch_iso,
    kind,
    label,
    numbers,
    read_each,
    segment,
    text_or_none,
)

FORMAT = "chatgpt"
# Content types whose text a reader sees in the conversation: in ``parts`` or in ``text``.
TEXT_CONTENT = ("text", "multimodal_text", "code", "execution_output")


def _check_parent(mapping: dict[str, Any], key: str, where: str) -> None:
    """A node is an object whose ``parent`` is a key of the mapping or null."""
    node = mapping[key]
    here = f"{where}, node {key}"
    if not isinstance(node, dict):
        raise ChatExportError(f"{here}: not an object", field="mapping")
    parent = node.get("parent")
    if parent is not None and not isinstance(parent, str):
        raise ChatExportError(f"{here}: 'parent' must be a node id or null, not {kind(parent)}", field="parent")
    if parent is not None and parent not in mapping:
        raise ChatExportError(f"{here}: parent {parent!r} is not in the mapping (a partial export?)",
                              field="mapping")


def _check_children(mapping: dict[str, Any], key: str, where: str) -> None:
    """``children``, when given, is a list of keys of nodes whose ``parent`` is this one."""
    here = f"{where}, node {key}"
    children = mapping[key].get("children")
    if children is None:
        return
    if not isinstance(children, list):
        raise ChatExportError(f"{here}: 'children' must be a list of node ids, not {kind(children)}",
                              field="children")
    for child in children:
        if not isinstance(child, str):
            raise ChatExportError(f"{here}: 'children' must hold node ids, not {kind(child)}", field="children")
        if child not in mapping:
            raise ChatExportError(f"{here}: child {child!r} is not in the mapping", field="mapping")
        if child == key:
            raise ChatExportError(f"{here}: the node is its own child (a cycle)", field="children")
        if mapping[child].get("parent") != key:
            raise ChatExportError(f"{here}: child {child!r} names {mapping[child].get('parent')!r} as its parent",
                                  field="children")


def _branch(conv: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The nodes from the root to ``current_node`` (or, without one, along the last child).
    Both walks keep the nodes they have seen, so a cycle is an error rather than a hang."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise ChatExportError(f"{where}: no 'mapping' object of message nodes", field="mapping")
    for key in mapping:
        _check_parent(mapping, key, where)
    for key in mapping:
        _check_children(mapping, key, where)
    leaf = conv.get("current_node")
    if leaf is not None and not isinstance(leaf, str):
        raise ChatExportError(f"{where}: 'current_node' must be a node id or null, not {kind(leaf)}",
                              field="current_node")
    if leaf is None and mapping:
        roots = [k for k, n in mapping.items() if n.get("parent") is None]
        if not roots:
            raise ChatExportError(f"{where}: no root node (the parent links form a cycle)", field="mapping")
        leaf, down = roots[0], {roots[0]}
        while mapping[leaf].get("children"):
            leaf = mapping[leaf]["children"][-1]
            if leaf in down:
                raise ChatExportError(f"{where}, node {leaf}: the children links form a cycle", field="children")
            down.add(leaf)
    elif leaf is not None and leaf not in mapping:
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


def _text(message: dict[str, Any], where: str) -> str:
    content = message.get("content")
    if content is None:
        return ""
    if not isinstance(content, dict):
        raise ChatExportError(f"{where}: 'content' must be an object, not {kind(content)}", field="content")
    if text_or_none(content, "content_type", where) not in TEXT_CONTENT:
        return ""
    parts = content.get("parts")
    if parts is not None and not isinstance(parts, list):
        raise ChatExportError(f"{where}: 'content.parts' must be a list, not {kind(parts)}", field="parts")
    if parts is not None:
        return "\n".join(p for p in parts if isinstance(p, str) and p.strip()).strip()
    return (text_or_none(content, "text", where) or "").strip()


def _author(message: dict[str, Any], where: str) -> tuple[str | None, str | None]:
    """(role, name) of a message; a role that is not text is a bad export, not a speaker."""
    author = message.get("author")
    if author is None:
        return None, None
    if not isinstance(author, dict):
        raise ChatExportError(f"{where}: 'author' must be an object, not {kind(author)}", field="author")
    role, name = text_or_none(author, "role", where), text_or_none(author, "name", where)
    return (role.strip() or None) if role else None, (name.strip() or None) if name else None


def _hidden(message: dict[str, Any], where: str) -> bool:
    metadata = message.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise ChatExportError(f"{where}: 'metadata' must be an object, not {kind(metadata)}", field="metadata")
    return bool(metadata and metadata.get("is_visually_hidden_from_conversation"))


def _time(value: Any, where: str) -> str | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ChatExportError(f"{where}: 'create_time' must be epoch seconds or null, not {kind(value)}",
                              field="create_time")
    return epoch_iso(value)


def _conversation(index: int, conv: Any) -> tuple[str, list[Turn]]:
    if not isinstance(conv, dict):
        raise ChatExportError(f"{label(index, None)}: not an object", field=None)
    conv_id = conv.get("conversation_id") or conv.get("id")
    title = conv.get("title") if isinstance(conv.get("title"), str) else None
    where = label(index, title, conv_id)
    if not isinstance(conv_id, str) or not conv_id.strip():
        raise ChatExportError(f"{where}: no 'id' or 'conversation_id' string", field="id")
    text_or_none(conv, "title", where)
    numbers(conv, where)
    conv_seg, turns = segment(conv_id), []
    conv_time = _time(conv.get("create_time"), where)
    for node in _branch(conv, where):
        node_where = f"{where}, node {node.get('id') if isinstance(node.get('id'), str) else '?'}"
        message = node.get("message")
        if message is None:
            continue
        if not isinstance(message, dict):
            raise ChatExportError(f"{node_where}: 'message' must be an object or null, not {kind(message)}",
                                  field="message")
        role, name = _author(message, node_where)
        if role in (None, "system") or _hidden(message, node_where):
            continue
        text = _text(message, node_where)
        if not text:
            continue
        speaker = (name or role) if role == "tool" else role
        msg_id = text_or_none(message, "id", node_where) or text_or_none(node, "id", node_where)
        if not msg_id:
            raise ChatExportError(f"{node_where}: a message with text needs an 'id'", field="id")
        turns.append(Turn(
            id=f"{FORMAT}:{conv_seg}/{segment(msg_id)}", speaker=speaker, role=role, text=text,
            created_at=_time(message.get("create_time"), node_where) or conv_time,
            metadata={"conversation_title": title, "conversation_id": conv_id, "message_id": msg_id}))
    return f"{FORMAT}:{conv_seg}", turns


def read(data: Any) -> list[Conversation]:
    """Each conversation of a parsed ``conversations.json``: its thread and turns, or its error."""
    if not isinstance(data, list):
        raise ChatExportError("a ChatGPT export is a JSON array of conversations", field=None)
    return read_each(data, _conversation,
                     lambda conv: conv.get("title") if isinstance(conv, dict) and isinstance(
                         conv.get("title"), str) else None)
