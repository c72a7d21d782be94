"""A plain transcript: one turn per line that starts with ``Speaker: text``.

A speaker is one to four words before a colon that is followed by a space or the line's end
(so ``https://...`` or ``12:30`` never start a turn). Lines without a speaker continue the turn
above (joined by a newline); blank lines are ignored. The thread is ``transcript:<file stem>``
unless one is given; turns are known by their position, so re-importing the file matches.
"""

from __future__ import annotations

import re

from graphmem.ingest.chat.records import ChatExportError, Conversation, Turn, segment

FORMAT = "transcript"
SPEAKER_LINE = re.compile(r"^\s*([A-Za-z0-9][^:\s]*(?: [^:\s]+){0,3})\s*:(?:\s+(.*))?$")


def read(text: str, name: str, thread: str) -> list[Conversation]:
    """The one conversation of a transcript; ``name`` is the id segment (the stem or the given thread).
    A transcript has no structure to be wrong per conversation: its errors refuse the file."""
    turns: list[tuple[int, str, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = SPEAKER_LINE.match(line)
        if match:
            turns.append((number, match.group(1), [match.group(2) or ""]))
        elif not turns:
            raise ChatExportError(f"line {number}: text before any 'Speaker: text' line", field=None)
        else:
            turns[-1][2].append(line.strip())
    if not turns:
        raise ChatExportError("no 'Speaker: text' lines in the transcript", field=None)
    out = []
    for number, speaker, lines in turns:
        body = "\n".join(part for part in (p.strip() for p in lines) if part)
        if body:
            out.append(Turn(id="", speaker=speaker, role=None, text=body, created_at=None,
                            metadata={"line": number}))
    for seq, turn in enumerate(out):
        turn.id = f"{FORMAT}:{segment(name)}/{seq}"
    return [Conversation(1, name, thread, out)]
