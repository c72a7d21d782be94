"""A JSONL of chat messages, one object a line, for logs that are neither export above:
``{"thread": ..., "id"?: ..., "role" | "speaker": ..., "content" | "text": ..., "created_at" |
"timestamp"?: ..., "seq"?: ...}``.

``thread`` is kept as given (it names the conversation). Within a thread, messages go in ``seq``
order when every line gives one, else in file order; the stored ``seq`` is the 0-based position.
Without an ``id``, a message is known by its position, so re-importing the same file still matches.
"""

from __future__ import annotations

from typing import Any

from graphmem import fastjson
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
)

FORMAT = "messages"


def _field(obj: dict[str, Any], names: tuple[str, ...], where: str, required: bool = True) -> Any:
    for name in names:
        if obj.get(name) is not None and not isinstance(obj[name], str):
            raise ChatExportError(f"{where}: {name!r} must be a string, not {kind(obj[name])}", field=name)
    value = next((obj[n] for n in names if obj.get(n) is not None), None)
    if required and (not isinstance(value, str) or not value.strip()):
        raise ChatExportError(f"{where}: needs {' or '.join(repr(n) for n in names)} as a non-empty string",
                              field=names[0])
    return value


def read(text: str) -> list[Conversation]:
    """Each thread of the file, in order of first appearance: its turns, or its error. A line
    that names no thread cannot be given to one, so it refuses the whole file."""
    rows: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            obj = fastjson.parse(line)
        except ValueError as exc:
            raise ChatExportError(f"{where}: {exc}", field=None) from None
        if not isinstance(obj, dict):
            raise ChatExportError(f"{where}: not a JSON object", field=None)
        thread = _field(obj, ("thread",), where).strip()
        rows.setdefault(thread, []).append((number, obj))
    if not rows:
        raise ChatExportError("no messages: the file holds no JSON lines", field=None)
    return read_each(list(rows.items()), lambda index, item: (item[0], _turns(index, *item)), lambda item: item[0])


def _turns(index: int, thread: str, lines: list[tuple[int, dict[str, Any]]]) -> list[Turn]:
    conv = label(index, thread)
    for number, obj in lines:
        numbers(obj, f"{conv}, line {number}")
        seq = obj.get("seq")
        if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int) or seq < 0):
            raise ChatExportError(f"{conv}, line {number}: seq must be an integer >= 0", field="seq")
    with_seq = [n for n, obj in lines if obj.get("seq") is not None]
    if with_seq and len(with_seq) < len(lines):
        missing = next(n for n, obj in lines if obj.get("seq") is None)
        raise ChatExportError(f"{conv}, line {missing}: thread {thread!r} gives seq on some lines but not "
                              "this one", field="seq")
    if with_seq:
        lines = sorted(lines, key=lambda row: row[1]["seq"])
    turns: list[Turn] = []
    ids: dict[str, int] = {}
    for position, (number, obj) in enumerate(lines):
        where = f"{conv}, line {number}"
        speaker = _field(obj, ("speaker", "role"), where).strip()
        text = _field(obj, ("content", "text"), where).strip()
        given = obj.get("id")
        if given is not None and (isinstance(given, bool) or not isinstance(given, str | int)
                                  or (isinstance(given, str) and not given.strip())):
            raise ChatExportError(f"{where}: 'id' must be a non-empty string or an integer, not {kind(given)}",
                                  field="id")
        key = given if given is not None else obj.get("seq", position)
        memory_id = f"{FORMAT}:{segment(thread)}/{segment(key)}"
        if memory_id in ids:
            raise ChatExportError(f"{where}: thread {thread!r} already has message {key!r} "
                                  f"(line {ids[memory_id]})", field="id")
        ids[memory_id] = number
        role = obj.get("role") if isinstance(obj.get("role"), str) and obj["role"].strip() else None
        turns.append(Turn(id=memory_id, speaker=speaker, role=role.strip() if role else None, text=text,
                          created_at=iso(obj.get("created_at", obj.get("timestamp")), where),
                          metadata={"message_id": given, "line": number}))
    return turns
