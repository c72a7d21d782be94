"""`graphmem context QUERY --max-tokens N` on a real embedded store: the dated, grouped text (or the
whole response with --json); a bad budget is a CLI error naming the field, with nothing written."""

import json

from click.testing import CliRunner

from graphmem.cli import main

TURN = {"id": "t0", "content": "Caroline: I went to the LGBTQ support group yesterday.", "thread": "s1", "seq": 0,
        "metadata": {"speaker": "Caroline", "timestamp": "2023-05-08T13:56:00"}}


def test_context_command(tmp_path, embedder):
    runner = CliRunner()
    base = ["--data-dir", str(tmp_path)]
    done = runner.invoke(main, [*base, "import", "-"], input=json.dumps(TURN) + "\n", catch_exceptions=False)
    assert done.exit_code == 0, done.output
    out = runner.invoke(main, [*base, "context", "support group", "--max-tokens", "60"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert out.stdout == ("## s1 (8 May 2023)\n"
                          "[yesterday = 7 May 2023] Caroline: I went to the LGBTQ support group yesterday.\n")
    full = runner.invoke(main, [*base, "context", "support group", "--max-tokens", "60", "--with", "time",
                                "--json"], catch_exceptions=False)
    data = json.loads(full.stdout)
    assert data["memories"] == ["t0"] and data["tokens"] <= 60 and data["trace"]["block"]["results_used"] == 1
    for bad in ("0", "-1", "100000"):
        refused = runner.invoke(main, [*base, "context", "x", "--max-tokens", bad])
        assert refused.exit_code != 0 and "max_tokens" in refused.output, refused.output
    refused = runner.invoke(main, [*base, "context", "x", "--max-tokens", "many"])
    assert refused.exit_code == 2 and "--max-tokens" in refused.output
    stats = json.loads(runner.invoke(main, [*base, "stats", "--json"], catch_exceptions=False).stdout)
    assert stats["memories"] == 1
