"""The CLI end to end on a real embedded store: import (file and stdin), search with explain,
neighbours, get, stats; content with rich-markup-like brackets prints safely."""

import json
from pathlib import Path

from click.testing import CliRunner

from graphmem.cli import main
from tests.helpers.cli import import_counts

FIXTURE = Path(__file__).parent / "fixtures" / "e2e_agent.jsonl"


def run(runner, data_dir, *args, input=None):
    result = runner.invoke(main, ["--data-dir", str(data_dir), *args], input=input, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"graphmem: store sqlite {data_dir} (--data-dir)" in result.stderr, "every command names its store"
    return result.stdout


def test_cli_tour(tmp_path, embedder):
    runner = CliRunner()
    out = run(runner, tmp_path, "import", str(FIXTURE))
    assert import_counts(out) == {"created": 15, "duplicate": 0, "rejected": 0}, out
    weird = {"id": "weird", "content": "Config lives in [/etc/billing] and [bold]not bold[/bold] stays literal",
             "tags": ["billing"], "category": "configuration"}
    out = run(runner, tmp_path, "import", "-", "--namespace-field", "conversation",
              input=json.dumps(weird) + "\n" + json.dumps({"content": "x", "metadata": [1]}) + "\n")
    assert import_counts(out) == {"created": 1, "duplicate": 0, "rejected": 1}, out
    assert "line 2: " in out, out                          # the rejected line is named
    out = run(runner, tmp_path, "search", "How do I ship a new release of the billing service?",
              "--explain", "--trace", "-k", "5")
    assert "skill-deploy-billing" in out and "recall" in out
    out = run(runner, tmp_path, "search", "where does billing config live", "--json")
    assert "weird" in [r["id"] for r in json.loads(out)["results"]]
    run(runner, tmp_path, "search", "billing config [/etc]", "--explain")
    out = run(runner, tmp_path, "neighbors", "weird")
    assert "SHARES_TAG" in out
    assert json.loads(run(runner, tmp_path, "get", "hash-fix"))["health"] < 0.6
    stats = json.loads(run(runner, tmp_path, "stats", "--json"))
    assert stats["memories"] == 16 and stats["server"]["kind"] == "sqlite"
    assert stats["server"]["topology"] == "embedded"
    table = run(runner, tmp_path, "stats")
    assert "16 memories on sqlite" in table and "│ SHARES_TAG" in table and "memories per namespace" in table
    bad = runner.invoke(main, ["--data-dir", str(tmp_path), "get", "missing"])
    assert bad.exit_code != 0 and "not_found" in bad.output
