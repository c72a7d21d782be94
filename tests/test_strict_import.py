"""The number, type and NUL rules of docs/strict-json.md on the import path: the CLI's JSONL
import (and a chat-message log) names the line of each refused record and stores none of them."""

from __future__ import annotations

import json

from click.testing import CliRunner

from graphmem.cli import main

LINES = [
    '{"id": "ok", "content": "The nightly backup of the staging database runs at 02:00"}',
    '{"content": "overflow", "metadata": {"x": 1e400}}',
    '{"content": "not a number", "metadata": {"x": NaN}}',
    '{"content": "minus infinity", "metadata": {"a": [1, -Infinity]}}',
    '{"content": "too big an integer", "metadata": {"n": 9007199254740992}}',
    '{"content": "a NUL \\u0000 inside"}',
    '{"content": "a NUL tag", "tags": ["a\\u0000b"]}',
    '{"content": "a position as text", "thread": "t", "seq": "5"}',
    '{"content": "a NUL in a name", "id": "a\\u0000b"}',
    '{"content": "an integer of 5000 digits", "metadata": {"n": ' + "9" * 5000 + '}}',
    '{"content": "nested past what a parser reads", "metadata": ' + "[" * 100_000 + "]" * 100_000 + '}',
    '{"content": "an exponent that underflows is zero, and fine", "metadata": {"x": 1e-400}}',
]
EXPECTED = {2: "metadata.x", 3: "metadata.x", 4: "metadata.a[1]", 5: "metadata.n", 6: "content", 7: "tags[0]",
            8: "seq", 9: "id"}
UNREADABLE = {10: "a number too long to read", 11: "nested too deeply"}


def test_jsonl_import_refuses_each_case_by_line_and_stores_none(tmp_path, embedder):
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(LINES) + "\n")
    runner = CliRunner()
    data = str(tmp_path / "data")
    out = runner.invoke(main, ["--data-dir", data, "import", str(source)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    for line, field in EXPECTED.items():
        assert f"line {line}: validation_error: {field}:" in text, (line, field, text)
    for line, message in UNREADABLE.items():
        assert f"line {line}: malformed_json: invalid JSON: {message}" in text, (line, text)
    stats = runner.invoke(main, ["--data-dir", str(tmp_path / "data"), "stats", "--json"], catch_exceptions=False)
    assert json.loads(stats.stdout)["memories"] == 2, "only the good lines were written"


def test_a_chat_export_with_an_unreadable_number_is_refused_whole(tmp_path, embedder):
    source = tmp_path / "conversations.json"
    source.write_text('[{"title": "t", "mapping": {}, "n": ' + "1" * 5000 + "}]")
    runner = CliRunner()
    out = runner.invoke(main, ["--data-dir", str(tmp_path / "data"), "import", str(source), "--format", "chatgpt"])
    assert out.exit_code != 0 and "a number too long to read" in " ".join(out.output.split()), out.output
    assert "Traceback" not in out.output


def test_chat_messages_with_nul_are_refused(tmp_path, embedder):
    source = tmp_path / "chat.jsonl"
    source.write_text('{"thread": "c1", "role": "user", "content": "hello \\u0000 there"}\n')
    runner = CliRunner()
    data = str(tmp_path / "data")
    out = runner.invoke(main, ["--data-dir", data, "import", str(source), "--format", "messages"])
    text = " ".join(out.output.split())
    assert "U+0000" in text, text
    stats = runner.invoke(main, ["--data-dir", str(tmp_path / "data"), "stats", "--json"], catch_exceptions=False)
    assert json.loads(stats.stdout)["memories"] == 0
