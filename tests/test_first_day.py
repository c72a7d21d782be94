"""A newcomer's first day: one per-user store that every command names, `graphmem info`, errors that
name the next step (a taken port, no Neo4j, a 409), the explain text of penalties, tables that never
cut an id, and the README's MCP tool list against the server's."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphmem.api import create_app
from graphmem.cli import main
from graphmem.cli.memory_cmds import clip
from graphmem.config import default_data_dir, load_settings
from graphmem.mcp.server import GraphmemMcp

ROOT = Path(__file__).resolve().parents[1]
RUNBOOK = "To ship billing, run the release workflow from main, then watch the canary for ten minutes."


def invoke(*args: str, env: dict[str, str] | None = None, code: int = 0):
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def test_the_default_store_is_the_per_user_data_dir_and_the_overrides_win(tmp_path, monkeypatch):
    xdg = Path(__import__("os").environ["XDG_DATA_HOME"])
    assert default_data_dir() == xdg / "graphmem", "the tests' per-user dir is a temporary one (conftest)"
    assert load_settings(use_env=False).store.data_dir == str(xdg / "graphmem")
    monkeypatch.setenv("GRAPHMEM_DATA_DIR", str(tmp_path / "env"))
    assert load_settings().store.data_dir == str(tmp_path / "env")
    config = tmp_path / "gm.toml"
    config.write_text('[store]\ndata_dir = "~/somewhere"\n')
    settings = load_settings(config, use_env=False)
    assert settings.store.data_dir == str(Path.home() / "somewhere"), "~ is expanded"
    assert settings.config_files[-1] == str(config.resolve())


def test_every_command_names_its_store_and_info_explains_it(tmp_path, embedder):
    data = tmp_path / "flag"
    added = invoke("--data-dir", str(data), "add", RUNBOOK, "--id", "deploy-billing", "--tags", "billing",
                   "--category", "runbook", "--source", "memory_tool")
    assert f"graphmem: store sqlite {data} (--data-dir)" in added.stderr
    assert json.loads(added.stdout)["status"] == "created"
    report = json.loads(invoke("info", "--json", env={"GRAPHMEM_DATA_DIR": str(data)}).stdout)
    assert (report["data_dir"], report["data_dir_from"], report["memories"]) == (str(data), "GRAPHMEM_DATA_DIR", 1)
    assert report["store"]["kind"] == "sqlite" and report["model"]["dimension"] == 384
    assert report["version"] == __import__("graphmem").__version__ and report["edges"] == 0
    assert report["config_files"][0].endswith("graphmem/defaults.toml")
    assert "GRAPHMEM_DATA_DIR" in report["env_vars"]
    default = invoke("info", env={"COLUMNS": "250"})
    assert "(per-user default)" in default.stdout and str(default_data_dir()) in default.stdout.replace("\n", "")
    assert "│ memories" in default.stdout and "│ config files" in default.stdout


def test_a_taken_port_names_the_port_option_and_make_serve_takes_one(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "graphmem", "--data-dir", str(tmp_path), "serve", "--port",
                               str(port)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "the port is in use" in done.stderr and f"--port {port + 1}" in done.stderr, done.stderr
    assert f"make serve PORT={port + 1}" in done.stderr
    dry = subprocess.run(["make", "-n", "serve", "PORT=8090"], cwd=ROOT, capture_output=True, text=True)
    assert "-m graphmem serve --port 8090" in dry.stdout, dry.stdout + dry.stderr


def test_no_neo4j_names_how_to_start_one(tmp_path):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    result = invoke("--data-dir", str(tmp_path), "--store", "neo4j", "stats", code=1,
                    env={"GRAPHMEM_NEO4J_URI": f"bolt://127.0.0.1:{port}"})
    assert "store_unavailable" in result.output and "make neo4j-start" in result.output, result.output
    assert "docker/neo4j-local/neo4j-local start" in result.output and "Traceback" not in result.output


def test_a_409_names_patch_over_http_and_update_in_the_cli(engine, tmp_path):
    client = create_app(engine).test_client()
    assert client.post("/v1/memories", json={"id": "deploy-billing", "content": RUNBOOK}).status_code == 201
    conflict = client.post("/v1/memories", json={"id": "deploy-billing", "content": "Something else."})
    assert conflict.status_code == 409
    error = conflict.get_json()["error"]
    assert error["field"] == "id" and "PATCH /v1/memories/deploy-billing" in error["message"]
    data = str(engine.settings.store.data_dir)
    engine.close()
    cli = invoke("--data-dir", data, "add", "Something else.", "--id", "deploy-billing", code=1)
    assert "graphmem update deploy-billing" in cli.output
    updated = json.loads(invoke("--data-dir", data, "update", "deploy-billing", "--content", "Something else.",
                                "--tags", "billing").stdout)
    assert (updated["content"], updated["tags"]) == ("Something else.", ["billing"])


def test_explain_says_why_a_result_is_penalised(tmp_path, embedder):
    data = str(tmp_path)
    invoke("--data-dir", data, "add", RUNBOOK, "--id", "bare")     # no tags, category or source
    out = invoke("--data-dir", data, "search", "how do I ship billing?", "--explain",
                 env={"COLUMNS": "240"}).stdout
    why = "".join(_last_column(out).split())          # the why column, however the table folds it
    for penalty in ("penalised x0.88: health 0.75, no tags (-0.15); no category (-0.1)",
                    "penalised x0.90: no source given ('unknown')"):
        assert "".join(penalty.split()) in why, out


def _last_column(table: str) -> str:
    """The text of a rich table's last column, its folded lines joined."""
    cells = [line.split("│")[-2].strip() for line in table.splitlines() if line.count("│") >= 3]
    return "".join(cells)


def test_tables_never_cut_an_id(tmp_path, embedder):
    data = str(tmp_path)
    long_id = "runbooks/billing/" + "deploy-the-billing-service-with-the-release-workflow-" * 2 + "v2"
    invoke("--data-dir", data, "add", RUNBOOK, "--id", long_id, "--tags", "billing", "--category", "runbook")
    invoke("--data-dir", data, "add", "Billing reads STRIPE_KEY from the vault.", "--id", "secrets",
           "--tags", "billing", "--category", "runbook")
    narrow = {"COLUMNS": "80"}
    found = invoke("--data-dir", data, "search", "ship billing", env=narrow).stdout
    assert long_id in _last_column(found), found
    near = invoke("--data-dir", data, "neighbors", "secrets", env=narrow).stdout
    assert long_id in _last_column(near), near


def test_clip_cuts_at_a_word_with_an_ellipsis():
    assert clip("Deploy billing with the release workflow", 20) == "Deploy billing with…"
    assert clip("short text", 20) == "short text"
    assert clip("Supercalifragilistic", 10) == "Supercali…"
    assert len(clip("word " * 40, 60)) <= 60


def test_the_readme_lists_the_servers_mcp_tools(engine):
    readme = (ROOT / "README.md").read_text()
    sentence = re.search(r"tools are (.*?);", readme, re.S)
    assert sentence, "the README names the MCP tools in one sentence"
    listed = re.findall(r"`([a-z_]+)`", sentence.group(1))
    served = [tool.name for tool in GraphmemMcp(engine).tools]
    assert listed == served, f"README lists {listed}, the server has {served}"


@pytest.mark.parametrize("words", [("every", "watch")])
def test_filler_words_are_no_topics(words, embedder, make_engine):
    eng = make_engine({"topics": {"max_per_memory": 20}})
    mem = eng.add({"content": "Deploy billing every Friday, then watch the canary dashboards."}).memory
    topics = [t.topic for t in mem.topics]
    assert "canary" in topics and not set(words) & set(topics), topics
    kept = make_engine({"topics": {"stop_words": [], "max_per_memory": 20}}, subdir="no-stop-list")
    mem = kept.add({"content": "Deploy billing every Friday, then watch the canary dashboards."}).memory
    assert set(words) <= {t.topic for t in mem.topics}, "the list is configuration"
