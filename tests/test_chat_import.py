"""Chat import end to end: each export format parses into thread/seq memory records, the CLI
imports each into a real embedded store (FOLLOWS edges along the thread), a re-import answers
duplicates only, and a bad or partial file fails naming its line or message with nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.ingest.chat import ChatExportError, import_chat, read_chat
from graphmem.ingest.chat.records import segment
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump

ROOT = Path(__file__).resolve().parents[1]
CHAT = Path(__file__).parent / "fixtures" / "chat"
GPT = "chatgpt:6760a1b2-9c4e-8000-a1f3-2b7d5e9c0a11"
FIXTURES = {"chatgpt": "chatgpt_conversations.json", "claude": "claude_conversations.json",
            "messages": "messages.jsonl", "transcript": "transcript.txt"}


def by_id(records):
    return {r["id"]: r for r in records}


def test_chatgpt_reads_the_current_branch_and_skips_hidden_empty_and_image_parts():
    records = read_chat(CHAT / FIXTURES["chatgpt"], "chatgpt")
    first = [r for r in records if r["thread"] == GPT]
    assert [r["seq"] for r in first] == list(range(6))
    assert [r["content"].split(":")[0] for r in first] == ["user", "assistant", "user", "assistant", "python",
                                                           "assistant"]
    text = " ".join(r["content"] for r in first)
    assert "About two hours" not in text and "are you sure" not in text      # the regenerated branch
    assert "bakery" not in text and "file-service" not in text               # hidden context, image pointer
    assert first[1]["content"].startswith("assistant: In a kitchen around 18 °C")
    assert first[2]["content"] == "user: Here is my dough after five hours. Is it ready to shape?"
    tool = first[4]
    assert tool["content"] == "python: 4.2" and tool["tags"] == ["role:tool", "speaker:python"]
    assert tool["id"] == f"{GPT}/0a6e5b3d-6c7f-4b8a-8d3e-2f1a0b9c8da7"
    assert first[0]["created_at"] == "2024-12-03T04:26:41.000000Z" and first[0]["source"] == "chatgpt"
    assert first[0]["metadata"] == {"conversation_title": "Sourdough proofing time", "format": "chatgpt",
                                    "conversation_id": GPT.split(":", 1)[1], "role": "user",
                                    "message_id": "aaa2e5f1-5b8c-4a7d-9e6f-1c2d3e4f5a63"}
    assert len(records) == 8 and len({r["thread"] for r in records}) == 2


def test_claude_prefers_text_blocks_and_falls_back_to_text():
    records = read_chat(CHAT / FIXTURES["claude"], "claude")
    assert [(r["seq"], r["content"].split(":")[0]) for r in records] == [(0, "human"), (1, "assistant"),
                                                                         (2, "human")]
    assert records[1]["content"] == ("assistant: With 750 EUR per person for two days, Sintra or Cascais fit "
                                     "well: both are 40 minutes from Lisbon by train.\n\nA venue with its own "
                                     "meeting room in Sintra would leave about 300 EUR each for food and travel.")
    assert records[2]["content"] == "human: Let's go with Sintra. Two people are vegetarian."
    assert records[0]["thread"] == "claude:f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b"
    assert records[0]["created_at"] == "2024-11-04T09:12:03.600000Z"
    assert records[0]["tags"] == ["role:human", "speaker:human"]
    assert records[0]["metadata"]["conversation_title"] == "Planning a team offsite"


def test_messages_order_by_seq_or_file_and_keep_the_thread():
    records = read_chat(CHAT / FIXTURES["messages"], "messages")
    support = [r for r in records if r["thread"] == "support-4812"]
    standup = [r for r in records if r["thread"] == "standup/2024-11-05"]
    assert [r["id"] for r in support] == ["messages:support-4812/m1", "messages:support-4812/m2",
                                          "messages:support-4812/m3"]
    assert [r["content"].split(":")[0] for r in standup] == ["Lena", "Priya", "Marco"]
    assert [r["seq"] for r in standup] == [0, 1, 2] and standup[0]["tags"] == ["speaker:Lena"]
    assert standup[0]["created_at"] == "2024-11-05T09:59:00.000000Z" and "created_at" not in support[2]
    assert standup[0]["id"].startswith("messages:standup-2024-11-05-")     # '/' made safe, deterministically


def test_transcript_joins_continuation_lines_and_ignores_urls(tmp_path):
    records = read_chat(CHAT / FIXTURES["transcript"], "transcript")
    assert [r["content"].split(":")[0] for r in records] == ["Interviewer", "Dana Reyes"] * 3
    assert records[1]["content"] == ("Dana Reyes: Mostly well. We moved 40,000 accounts over one weekend\n"
                                     "and only 12 needed manual fixes afterwards.")
    assert records[3]["content"].endswith("See https://example.com/billing-notes for the write-up.")
    assert {r["thread"] for r in records} == {"transcript:transcript"}
    assert records[5]["id"] == "transcript:transcript/5"
    named = read_chat(CHAT / FIXTURES["transcript"], "transcript", thread="interview 7")
    assert {r["thread"] for r in named} == {"interview 7"}
    assert named[0]["id"] == f"transcript:{segment('interview 7')}/0"


def test_long_turns_become_consecutive_parts(tmp_path):
    limits = load_settings(overrides={"limits": {"max_content_chars": 120}}, use_env=False).limits
    long = " ".join(f"Sentence {i} explains one more step of the plan." for i in range(12))
    path = tmp_path / "long.txt"
    path.write_text(f"Ana: {long}\nBo: Thanks.\n")
    records = read_chat(path, "transcript", limits=limits)
    parts = [r for r in records if r["content"].startswith("Ana: ")]
    assert len(parts) > 2 and all(len(r["content"]) <= 120 for r in records)
    assert [r["seq"] for r in records] == list(range(len(records)))
    assert parts[0]["id"] == "transcript:long/0" and parts[1]["id"] == "transcript:long/0.part2"
    assert " ".join(r["content"].removeprefix("Ana: ") for r in parts) == long
    assert records[-1]["content"] == "Bo: Thanks." and parts[0]["metadata"]["parts"] == len(parts)


def test_segment_is_safe_deterministic_and_keeps_different_ids_apart():
    assert segment("aaa2e5f1-5b8c") == "aaa2e5f1-5b8c"
    assert segment("a/b") == segment("a/b") != segment("a b")
    assert segment("a/b").startswith("a-b-") and segment("neighbors") != "neighbors"
    assert segment("_x")[0].isalnum() and len(segment("x" * 500)) <= 80


def run(runner, data_dir, *args):
    result = runner.invoke(main, ["--data-dir", str(data_dir), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def open_engine(data_dir, embedder):
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    return Graphmem(settings, SQLiteStore(data_dir, settings.store), embedder)


@pytest.mark.parametrize("fmt", list(FIXTURES))
def test_cli_imports_each_format_as_threads_and_reimport_is_idempotent(tmp_path, embedder, fmt):
    runner = CliRunner()
    expected = read_chat(CHAT / FIXTURES[fmt], fmt)
    out = run(runner, tmp_path, "import", "--format", fmt, str(CHAT / FIXTURES[fmt]))
    assert f"│ {len(expected):>7} │         0 │        0 │" in out
    again = run(runner, tmp_path, "import", "--format", fmt, str(CHAT / FIXTURES[fmt]))
    assert f"│       0 │ {len(expected):>9} │        0 │" in again
    engine = open_engine(tmp_path, embedder)
    try:
        assert dump(engine.stats())["memories"] == len(expected)
        for record in expected:
            stored = engine.get("default", record["id"])
            assert (stored.thread, stored.seq, stored.content) == (record["thread"], record["seq"],
                                                                  record["content"])
        later = expected[1]
        follows = dump(engine.neighbors("default", later["id"], types=["FOLLOWS"]))["neighbors"]
        assert expected[0]["id"] in {n["memory"]["id"] for n in follows}
    finally:
        engine.close()


def test_chatgpt_import_as_a_real_process_with_a_progress_bar(tmp_path, embedder):
    cmd = [sys.executable, "-m", "graphmem", "--data-dir", str(tmp_path), "import", "--format", "chatgpt",
           str(CHAT / FIXTURES["chatgpt"])]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "import: 100%" in done.stderr and "8/8" in done.stderr
    assert "│       8 │         0 │        0 │" in done.stdout


def bad_chatgpt(tmp_path):
    data = json.loads((CHAT / FIXTURES["chatgpt"]).read_text())
    node = data[0]["mapping"]["1b7f6c4e-7d8a-4c9b-9e4f-3a2b1c0d9eb8"]
    node["parent"] = "0000dead-beef"
    path = tmp_path / "dangling.json"
    path.write_text(json.dumps(data))
    return path


BAD = {
    "malformed json": ("chatgpt", lambda tmp: _write(tmp, "broken.json", '[{"id": "c1", "mapping": {'),
                       "invalid JSON at line 1"),
    "dangling parent": ("chatgpt", bad_chatgpt,
                        f'conversation 1 ("Sourdough proofing time", id {GPT.split(":", 1)[1]}), '
                        "node 1b7f6c4e-7d8a-4c9b-9e4f-3a2b1c0d9eb8: parent '0000dead-beef' is not in the mapping"),
    "no speaker lines": ("transcript", lambda tmp: _write(tmp, "notes.txt", "just some notes\nwithout speakers\n"),
                         "line 1: text before any 'Speaker: text' line"),
    "line without thread": ("messages", lambda tmp: _write(
        tmp, "m.jsonl", (CHAT / FIXTURES["messages"]).read_text() + '{"role": "user", "content": "orphan"}\n'),
        "line 7: needs 'thread'"),
    "record the contract refuses": ("messages", lambda tmp: _write(
        tmp, "long-thread.jsonl", (CHAT / FIXTURES["messages"]).read_text()
        + json.dumps({"thread": "t" * 300, "id": "x", "role": "user", "content": "hi"}) + "\n"),
        "message messages:"),
    "claude message without sender": ("claude", lambda tmp: _write(
        tmp, "c.json", json.dumps([{"uuid": "c1", "chat_messages": [{"uuid": "m1", "text": "hi"}]}])),
        "conversation 1 (untitled, id c1), message m1: no 'sender'"),
}


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_file_names_the_place_and_writes_nothing(tmp_path, embedder, case):
    fmt, make, expected = BAD[case]
    path = make(tmp_path)
    engine = open_engine(tmp_path / "engine", embedder)
    try:
        with pytest.raises(ChatExportError) as caught:
            import_chat(engine, path, fmt)
        assert expected in caught.value.message and dump(engine.stats())["memories"] == 0
    finally:
        engine.close()
    store = tmp_path / "store"
    result = CliRunner().invoke(main, ["--data-dir", str(store), "import", "--format", fmt, str(path)])
    assert result.exit_code == 1 and "bad_export" in result.output and expected in result.output
    assert json.loads(run(CliRunner(), store, "stats", "--json"))["memories"] == 0


def test_the_same_words_in_two_threads_are_two_turns(tmp_path, embedder):
    """Content dedup would answer the second "user: Thanks!" as a duplicate and leave a hole in its
    thread: a thread turn with an id is known by its id, so both are kept (and a re-import matches)."""
    path = _write(tmp_path, "two.jsonl", "".join(json.dumps(m) + "\n" for m in [
        {"thread": "a", "id": "1", "role": "user", "content": "Is the backup job nightly?"},
        {"thread": "a", "id": "2", "role": "user", "content": "Thanks!"},
        {"thread": "b", "id": "1", "role": "user", "content": "Who owns the email worker?"},
        {"thread": "b", "id": "2", "role": "user", "content": "Thanks!"}]))
    engine = open_engine(tmp_path / "store", embedder)
    try:
        first = import_chat(engine, path, "messages")
        assert (first["created"], first["duplicate"]) == (4, 0)
        assert engine.get("default", "messages:b/2").thread == "b"
        again = import_chat(engine, path, "messages")
        assert (again["created"], again["duplicate"]) == (0, 4)
        plain = engine.add({"content": "user: Thanks!"})                  # no thread: content dedup as before
        assert plain.status == "duplicate"
    finally:
        engine.close()
