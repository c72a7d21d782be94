"""Property: whatever a chat export holds, the import either refuses it cleanly (``bad_export``,
nothing stored) or stores exactly what it read; it never hangs and never raises anything else.

The exports are generated near the documented shape (node ids from a small set, so parents,
children and ``current_node`` often form cycles, self-loops and dangling links) with any JSON value
(lists, objects, integers past 2**53, NaN, infinities) in place of any field. Each import runs under
an alarm (``no_hang``), so a hang fails the example rather than blocking the run."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.ingest.chat import ChatExportError, import_chat, read_export
from graphmem.views import dump
from tests.helpers.engines import engine_at
from tests.helpers.hang import no_hang

EXAMPLES = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalar = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**64), max_value=2**64),
                   st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6))
anything = st.recursive(scalar, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=4)
words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=30)
node_ids = st.sampled_from(["n0", "n1", "n2", "n3"])
# What a mutation puts in place of a value: any JSON value, or a node id (a cycle, a self-loop...).
replacement = st.one_of(anything, node_ids, st.sampled_from([[], {}, None, "", ["n1"], 2**63]))


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


def _replace(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(value[path[0]], path[1:], new)
    return copy


def mutated(base: st.SearchStrategy[Any], most: int = 2) -> st.SearchStrategy[Any]:
    """A well-formed value with up to ``most`` of its values (at any depth) replaced."""
    @st.composite
    def build(draw: Any) -> Any:
        value = draw(base)
        for _ in range(draw(st.integers(0, most))):
            value = _replace(value, draw(st.sampled_from(_paths(value))), draw(replacement))
        return value
    return build()


@st.composite
def gpt_conversation(draw: Any) -> dict[str, Any]:
    """A chain of nodes from a null-message root, as ChatGPT writes it; ``current_node`` or not."""
    cid = draw(st.sampled_from(["c1", "c2", "c/3", "c4", "c5", "c6", "c7"]))
    count = draw(st.integers(1, 4))
    mapping: dict[str, Any] = {}
    for k in range(count):
        node: dict[str, Any] = {"id": f"n{k}", "parent": f"n{k - 1}" if k else None,
                                "children": [f"n{k + 1}"] if k + 1 < count else []}
        node["message"] = None if k == 0 else {
            "id": f"{cid}-{k}", "create_time": draw(st.floats(min_value=0, max_value=2e9)),
            "author": {"role": draw(st.sampled_from(["user", "assistant", "system", "tool"])),
                       "name": draw(st.sampled_from([None, "python"]))},
            "content": {"content_type": draw(st.sampled_from(["text", "code", "thoughts"])),
                        "parts": [draw(words)]},
            "metadata": {"is_visually_hidden_from_conversation": draw(st.booleans())}}
        mapping[f"n{k}"] = node
    conv = {"id": cid, "title": draw(words), "mapping": mapping}
    if draw(st.booleans()):
        conv["current_node"] = f"n{count - 1}"
    return conv


claude_message = st.fixed_dictionaries(
    {"uuid": st.sampled_from(["m1", "m2", "m3"]), "sender": st.sampled_from(["human", "assistant"]),
     "created_at": st.sampled_from(["2024-11-04T09:12:03.6Z", "2024-11-05T10:00:00Z"])},
    optional={"text": words, "content": st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": words}),
                                                 max_size=2)})
claude_conversation = st.fixed_dictionaries(
    {"uuid": st.sampled_from(["c1", "c2", "c3", "c4", "c5", "c6"]), "name": words,
     "created_at": st.just("2024-11-04T09:12:03Z"),
     "chat_messages": st.lists(claude_message, max_size=3, unique_by=lambda m: m["uuid"])})
message_line = st.fixed_dictionaries(
    {"thread": st.sampled_from(["t1", "t/2"]), "role": st.sampled_from(["user", "assistant"]), "content": words},
    optional={"speaker": st.just("Ana"), "created_at": st.just("2024-11-05T10:00Z")})


def json_export(conversations: st.SearchStrategy[Any]) -> st.SearchStrategy[str]:
    return mutated(st.lists(mutated(conversations), max_size=3), most=1).map(json.dumps)


EXPORTS = {
    "chatgpt": json_export(gpt_conversation()),
    "claude": json_export(claude_conversation),
    "messages": st.lists(st.one_of(*[mutated(message_line, most=1).map(json.dumps)] * 6, st.text(max_size=8)),
                         min_size=1, max_size=5).map(lambda lines: "\n".join(lines) + "\n"),
    "transcript": st.lists(st.one_of(st.sampled_from(["Ana: hello", "Bo:", "https://x.y/z", "12:30 later", ""]),
                                     words), min_size=1, max_size=5).map("\n".join),
}


def refused_or_exact(fmt: str, text: str, skip_invalid: bool, embedder) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"export.{fmt}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        with engine_at(Path(tmp) / "store", embedder) as engine, no_hang():
            try:
                expected = read_export(path, fmt, limits=engine.settings.limits)
            except ChatExportError:
                expected = None
            try:
                summary = import_chat(engine, path, fmt, skip_invalid=skip_invalid)
            except ChatExportError as refused:
                assert refused.code == "bad_export" and refused.message
                assert expected is None or (expected.bad and not skip_invalid)
                assert dump(engine.stats())["memories"] == 0
                return
            assert expected is not None and (skip_invalid or not expected.bad)
            assert (summary["created"], summary["rejected"]) == (len(expected.records), 0), summary
            assert [s["conversation"] for s in summary["skipped"]] == [c.index for c in expected.bad]
            assert dump(engine.stats())["memories"] == len(expected.records)
            for record in expected.records:
                stored = engine.get("default", record["id"])
                assert (stored.content, stored.thread, stored.seq) == (record["content"], record["thread"],
                                                                      record["seq"])
                assert sorted(stored.tags) == sorted(t.lower() for t in record["tags"])     # kept lower-case


@EXAMPLES
@given(text=EXPORTS["chatgpt"], skip_invalid=st.booleans())
def test_chatgpt_exports_are_refused_cleanly_or_imported_exactly(embedder, text, skip_invalid):
    refused_or_exact("chatgpt", text, skip_invalid, embedder)


@EXAMPLES
@given(text=EXPORTS["claude"], skip_invalid=st.booleans())
def test_claude_exports_are_refused_cleanly_or_imported_exactly(embedder, text, skip_invalid):
    refused_or_exact("claude", text, skip_invalid, embedder)


@EXAMPLES
@given(text=EXPORTS["messages"], skip_invalid=st.booleans())
def test_message_logs_are_refused_cleanly_or_imported_exactly(embedder, text, skip_invalid):
    refused_or_exact("messages", text, skip_invalid, embedder)


@EXAMPLES
@given(text=EXPORTS["transcript"], skip_invalid=st.booleans())
def test_transcripts_are_refused_cleanly_or_imported_exactly(embedder, text, skip_invalid):
    refused_or_exact("transcript", text, skip_invalid, embedder)
