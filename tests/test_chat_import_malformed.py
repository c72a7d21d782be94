"""Malformed chat exports are refused cleanly: ``bad_export`` naming the conversation (from 1, by
title) and the node, nothing stored; never a hang, a traceback or a value stored as the wrong type.
``--skip-invalid`` imports the good conversations and lists the bad ones.

Each import runs under a wall-clock alarm: a walk that loops forever fails the test instead of
blocking it (the alarm interrupts pure-Python loops in the main thread)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.ingest.chat import ChatExportError, import_chat
from graphmem.views import dump
from tests.helpers.engines import engine_at
from tests.helpers.hang import no_hang


def message(mid: str, role: Any, text: str) -> dict[str, Any]:
    return {"id": mid, "author": {"role": role, "name": None}, "create_time": 1733200000.0,
            "content": {"content_type": "text", "parts": [text]}, "metadata": {}}


def chatgpt_conversation(title: str, cid: str, **overrides: Any) -> dict[str, Any]:
    """A well-formed two-turn conversation; ``overrides`` replace its mapping's nodes or fields."""
    mapping: dict[str, Any] = {
        "root": {"id": "root", "message": None, "parent": None, "children": ["m1"]},
        "m1": {"id": "m1", "message": message(f"{cid}-m1", "user", f"{title}: how long to proof?"),
               "parent": "root", "children": ["m2"]},
        "m2": {"id": "m2", "message": message(f"{cid}-m2", "assistant", "About four hours."), "parent": "m1",
               "children": []},
    }
    conv: dict[str, Any] = {"id": cid, "title": title, "create_time": 1733200000.0, "current_node": "m2",
                            "mapping": mapping}
    for key, value in overrides.items():
        if key in mapping:
            mapping[key] = value
        else:
            conv[key] = value
    return conv


def refuse(tmp_path: Path, embedder, fmt: str, text: str, expected: list[str]) -> str:
    """Import ``text`` (as the library and as the CLI): a bad_export naming ``expected``, nothing stored."""
    path = tmp_path / f"export.{fmt}"
    path.write_text(text)
    with engine_at(tmp_path / "lib", embedder) as engine, no_hang():
        with pytest.raises(ChatExportError) as caught:
            import_chat(engine, path, fmt)
        assert dump(engine.stats())["memories"] == 0
    for part in expected:
        assert part in caught.value.message, (part, caught.value.message)
    with no_hang():
        result = CliRunner().invoke(main, ["--data-dir", str(tmp_path / "cli"), "import", "--format", fmt,
                                           str(path)])
    assert result.exit_code == 1 and "bad_export" in result.output, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return caught.value.message


WHERE = ['conversation 2 ("Bread", id c2)']


def export(*bad: dict[str, Any]) -> str:
    return json.dumps([chatgpt_conversation("Soup", "c1"), *bad])


def test_a_cycle_in_children_without_current_node_is_refused(tmp_path, embedder):
    looped = chatgpt_conversation("Bread", "c2", current_node=None)
    looped["mapping"]["m2"]["children"] = ["m1"]
    refuse(tmp_path, embedder, "chatgpt", export(looped), [*WHERE, "node m2", "'m1'"])


def test_a_node_that_is_its_own_child_is_refused(tmp_path, embedder):
    selfish = chatgpt_conversation("Bread", "c2", current_node=None)
    selfish["mapping"]["m2"]["children"] = ["m2"]
    refuse(tmp_path, embedder, "chatgpt", export(selfish), [*WHERE, "node m2", "its own child"])


def test_a_cycle_of_parents_with_no_root_is_refused(tmp_path, embedder):
    rootless = chatgpt_conversation("Bread", "c2", current_node=None)
    rootless["mapping"]["root"]["parent"] = "m2"
    rootless["mapping"]["m2"]["children"] = ["root"]
    refuse(tmp_path, embedder, "chatgpt", export(rootless), [*WHERE, "cycle"])


def test_parent_given_as_a_list_is_refused(tmp_path, embedder):
    bad = chatgpt_conversation("Bread", "c2")
    bad["mapping"]["m1"]["parent"] = ["root"]
    refuse(tmp_path, embedder, "chatgpt", export(bad), [*WHERE, "node m1", "'parent' must be a node id"])


def test_current_node_given_as_a_list_is_refused(tmp_path, embedder):
    refuse(tmp_path, embedder, "chatgpt", export(chatgpt_conversation("Bread", "c2", current_node=["m2"])),
           [*WHERE, "'current_node' must be a node id or null, not a list"])


@pytest.mark.parametrize("current", ["m2", None])
def test_children_holding_integers_are_refused(tmp_path, embedder, current):
    bad = chatgpt_conversation("Bread", "c2", current_node=current)
    bad["mapping"]["m1"]["children"] = [2]
    refuse(tmp_path, embedder, "chatgpt", export(bad), [*WHERE, "node m1", "not an integer"])


@pytest.mark.parametrize("current", ["m2", None])
def test_children_given_as_an_object_are_refused(tmp_path, embedder, current):
    bad = chatgpt_conversation("Bread", "c2", current_node=current)
    bad["mapping"]["m1"]["children"] = {"m2": True}
    refuse(tmp_path, embedder, "chatgpt", export(bad), [*WHERE, "node m1", "'children' must be a list"])


def test_an_author_role_given_as_an_object_is_refused_not_stored_as_a_speaker(tmp_path, embedder):
    bad = chatgpt_conversation("Bread", "c2")
    bad["mapping"]["m2"]["message"]["author"]["role"] = {"x": "y"}
    refuse(tmp_path, embedder, "chatgpt", export(bad), [*WHERE, "node m2", "'role' must be a string"])


@pytest.mark.parametrize("seq", [2**63, 2**53, -(2**53)])
def test_a_messages_seq_past_the_json_integer_range_is_refused(tmp_path, embedder, seq):
    lines = [{"thread": "tq", "seq": 0, "role": "user", "content": "first"},
             {"thread": "tq", "seq": seq, "role": "assistant", "content": "second"}]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    refuse(tmp_path, embedder, "messages", text, ['conversation 1 ("tq")', "line 2", "seq", "9007199254740991"])


@pytest.mark.parametrize("fmt, text", [
    ("chatgpt", export(chatgpt_conversation("Bread", "c2", create_time=float("inf")))),
    ("chatgpt", export(chatgpt_conversation("Bread", "c2", extra={"n": 2**60}))),
    ("claude", json.dumps([{"uuid": "c1", "name": "Soup", "chat_messages": []},
                           {"uuid": "c2", "name": "Bread", "chat_messages": [
                               {"uuid": "m1", "sender": "human", "text": "hi", "n": float("nan")}]}])),
    ("messages", '{"thread": "a", "role": "user", "content": "x"}\n'
                 '{"thread": "b", "role": "user", "content": "y", "meta": {"n": 1e400}}\n'),
])
def test_numbers_follow_strict_json_in_every_format(tmp_path, embedder, fmt, text):
    message_text = refuse(tmp_path, embedder, fmt, text, ["conversation 2"])
    assert "finite" in message_text or "9007199254740991" in message_text


def test_two_conversations_with_one_id_are_refused(tmp_path, embedder):
    refuse(tmp_path, embedder, "chatgpt", json.dumps([chatgpt_conversation("Soup", "c1"),
                                                      chatgpt_conversation("Bread", "c1")]),
           ['conversation 2 ("Bread")', "conversation 1's too"])


def test_skip_invalid_imports_the_good_conversations_and_names_the_bad(tmp_path, embedder):
    bad = chatgpt_conversation("Bread", "c2", current_node=["m2"])
    worse = chatgpt_conversation("Cake", "c4")
    worse["mapping"]["m1"]["children"] = {"m2": True}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([chatgpt_conversation("Soup", "c1"), bad, chatgpt_conversation("Tea", "c3"),
                                worse]))
    with engine_at(tmp_path / "whole", embedder) as engine, no_hang():
        with pytest.raises(ChatExportError) as caught:
            import_chat(engine, path, "chatgpt")
        assert dump(engine.stats())["memories"] == 0
    assert "1 more of the file's 4 conversations are bad" in caught.value.message
    assert "--skip-invalid" in caught.value.message
    with engine_at(tmp_path / "lib", embedder) as engine, no_hang():
        summary = import_chat(engine, path, "chatgpt", skip_invalid=True)
        assert (summary["created"], summary["rejected"]) == (4, 0)
        assert [(s["conversation"], s["title"], s["code"]) for s in summary["skipped"]] == [
            (2, "Bread", "bad_export"), (4, "Cake", "bad_export")]
        assert {m.thread for batch in engine.store.iter_memories("default") for m in batch} == {
            "chatgpt:c1", "chatgpt:c3"}
    with no_hang():
        result = CliRunner().invoke(main, ["--data-dir", str(tmp_path / "cli"), "import", "--format", "chatgpt",
                                           "--skip-invalid", str(path)], catch_exceptions=False)
    out = " ".join(result.output.split())
    assert result.exit_code == 0, result.output
    assert "skipped 2 bad conversations" in out
    assert 'bad_export: conversation 2 ("Bread", id c2): \'current_node\'' in out
    assert 'bad_export: conversation 4 ("Cake", id c4), node m1' in out


def test_skip_invalid_applies_to_chat_formats_only(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"content": "x"}\n')
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path / "cli"), "import", "--skip-invalid", str(path)])
    assert result.exit_code == 2 and "--skip-invalid applies to chat formats" in result.output
