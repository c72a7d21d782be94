"""`graphmem mcp` over stdio, driven by the SDK's stdio client: one real server process for the module.

Also the cross-interface check: the same searches through MCP, the HTTP API and the library
give identical rankings (one engine path, no second scoring).
"""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from mcp_helpers import BILLING_QUERY, FIXTURE, ROOT, stdio_client

from graphmem.api import create_app
from graphmem.auth import Keyring
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.ingest.bulk import import_jsonl
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump

TOOLS = {"search_memories", "add_memory", "get_memory", "update_memory", "delete_memory", "memory_neighbors",
         "relate_memories", "memory_history", "supersede_candidates", "memory_stats", "memory_context"}
MAX_RESULT_CHARS = 8000       # three full search results with their entities and why fit; fifty do not
RANK_NS = "rank"
RANK_QUERIES = ["How do I ship a new release of the billing service?", "search config",
                "what does the user prefer", "secrets in chat", "CI machines", "who am I"]


def open_engine(data_dir, embedder) -> Graphmem:
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    return Graphmem(settings, SQLiteStore(data_dir, settings.store), embedder)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, embedder):
    path = tmp_path_factory.mktemp("mcp-stdio")
    eng = open_engine(path, embedder)
    assert import_jsonl(eng, FIXTURE)["rejected"] == 0
    agent_memory = ROOT / "tests/fixtures/agent_memory/memories.jsonl"
    assert import_jsonl(eng, agent_memory, namespace=RANK_NS)["rejected"] == 0
    eng.close()
    return path


@pytest.fixture(scope="module")
def mcp(data_dir, tmp_path_factory):
    config = tmp_path_factory.mktemp("mcp-config") / "graphmem.toml"
    config.write_text(f"[mcp]\nmax_result_chars = {MAX_RESULT_CHARS}\n\n[edges]\nmax_degree_related = 1\n")
    with stdio_client(data_dir, config) as client:
        yield client


def test_tools_are_listed_with_strict_schemas(mcp):
    tools = {t.name: t for t in mcp.list_tools()}
    assert set(tools) == TOOLS
    limits = load_settings(use_env=False).limits
    for tool in tools.values():
        schema = tool.input_schema
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert "$ref" not in json.dumps(schema), "clients resolve no references: schemas are inlined"
        assert len(tool.description) > 80, f"{tool.name} needs a description a model can act on"
        for name, prop in schema["properties"].items():    # clients convert text by the top-level type
            assert isinstance(prop.get("type"), str) and "anyOf" not in prop, (tool.name, name, prop)
    search = tools["search_memories"].input_schema
    assert search["required"] == ["query"]
    assert {"query", "k", "filters", "stages", "explain", "detail", "namespace"} <= set(search["properties"])
    assert "params" not in search["properties"], "expert tunables are accepted but not advertised"
    assert search["properties"]["k"]["maximum"] == limits.max_k
    assert search["properties"]["query"]["maxLength"] == limits.max_query_chars
    add = tools["add_memory"].input_schema
    assert {"content", "tags", "category", "source", "extracted", "evidence"} <= set(add["properties"])
    assert add["properties"]["evidence"]["required"] == ["source_text", "quote"]
    assert add["properties"]["content"]["maxLength"] == limits.max_content_chars
    assert tools["memory_neighbors"].input_schema["properties"]["limit"]["default"] == 10
    assert set(tools["relate_memories"].input_schema["required"]) == {"from_id", "to_id", "evidence"}
    assert tools["delete_memory"].annotations.destructive_hint is True
    assert tools["search_memories"].annotations.read_only_hint is True


def test_search_explains_every_result(mcp):
    out = mcp.ok("search_memories", {"query": BILLING_QUERY, "k": 5})
    results = out["results"]
    assert results[0]["id"] == "skill-deploy-billing"
    assert all(isinstance(r["why"], str) and r["why"] for r in results)
    assert results[0]["why"].startswith("direct")
    assert any("via " in r["why"] for r in results), "graph expansion shows up in the one-line why"
    assert set(results[0]) >= {"id", "score", "kind", "content", "why"}

    full = mcp.ok("search_memories", {"query": BILLING_QUERY, "k": 3, "detail": "full"})
    assert [r["id"] for r in full["results"]] == [r["id"] for r in results[:3]]
    assert {"kind", "health", "source"} <= set(full["results"][0]["why"])
    assert "health_reasons" in full["results"][0]["memory"]

    bare = mcp.ok("search_memories", {"query": BILLING_QUERY, "k": 5, "explain": False})
    assert all("why" not in r for r in bare["results"])
    tagged = mcp.ok("search_memories", {"query": "deploy", "filters": {"tags": ["billing"]}})
    assert tagged["results"] and all("billing" in r["tags"] for r in tagged["results"])
    lexical = mcp.ok("search_memories", {"query": BILLING_QUERY, "stages": {"vector": False, "expansion": False}})
    assert all(r["kind"] == "direct" for r in lexical["results"])


def test_results_are_bounded(mcp):
    full = mcp.call("search_memories", {"query": "anything about our setup", "namespace": RANK_NS, "k": 50,
                                        "detail": "full"})
    assert len(full.content[0].text) <= MAX_RESULT_CHARS
    assert full.structured_content["truncated"]["dropped"] > 0
    compact = mcp.ok("search_memories", {"query": "anything about our setup", "namespace": RANK_NS, "k": 5})
    assert "truncated" not in compact and len(compact["results"]) == 5

    big = {"content": "The long runbook for the archive service: " + "step and check. " * 450,
           "metadata": {"notes": ["kept verbatim from the wiki page " * 4] * 40}, "tags": ["archive"],
           "namespace": "big", "id": "runbook-archive"}
    mcp.ok("add_memory", big)
    for tool, args in (("get_memory", {"memory_id": "runbook-archive"}),
                       ("search_memories", {"query": "archive service runbook"}),
                       ("memory_neighbors", {"memory_id": "runbook-archive"})):
        result = mcp.call(tool, {**args, "namespace": "big", "detail": "full"})
        assert not result.is_error and len(result.content[0].text) <= MAX_RESULT_CHARS, tool
    got = mcp.ok("get_memory", {"memory_id": "runbook-archive", "namespace": "big", "detail": "full"})
    assert got["truncated"] == {"metadata_chars": len(json.dumps(big["metadata"])),
                                "content_chars": len(big["content"].strip())}
    assert big["content"].startswith(got["content"][:-1]) and got["content"].endswith("…")


def test_add_get_update_neighbours_delete(mcp):
    added = mcp.ok("add_memory", {"content": "The staging cluster for billing is called blue-falcon and "
                                             "runs in eu-west-1.", "tags": ["billing", "staging"],
                                  "category": "configuration", "source": "memory_tool", "id": "mcp-staging"})
    assert added["status"] == "created" and added["id"] == "mcp-staging"
    assert set(added["memory"]) >= {"id", "content", "tags", "category", "health"}
    assert mcp.ok("add_memory", {"content": added["memory"]["content"]})["status"] == "duplicate"

    found = mcp.ok("search_memories", {"query": "what is the billing staging cluster called?", "k": 3})
    assert found["results"][0]["id"] == "mcp-staging"
    got = mcp.ok("get_memory", {"memory_id": "mcp-staging", "detail": "full"})
    assert got["source"] == "memory_tool" and got["namespace"] == "default"

    near = mcp.ok("memory_neighbors", {"memory_id": "mcp-staging"})
    assert near["memory"]["id"] == "mcp-staging"
    by_id = {n["id"]: n for n in near["neighbors"]}
    assert "config-billing-env" in by_id, "shares the billing tag and the category"
    assert {n["type"] for n in near["neighbors"]} <= {"SHARES_TAG", "SAME_CATEGORY", "OVERLAPS"}
    assert len(mcp.ok("memory_neighbors", {"memory_id": "mcp-staging", "limit": 1})["neighbors"]) == 1

    updated = mcp.ok("update_memory", {"memory_id": "mcp-staging", "tags": ["billing", "staging", "cluster"]})
    assert updated["tags"] == ["billing", "staging", "cluster"]
    deleted = mcp.ok("delete_memory", {"memory_id": "mcp-staging"})
    assert deleted == {"deleted": "mcp-staging", "namespace": "default"}
    assert mcp.error("get_memory", {"memory_id": "mcp-staging"})["code"] == "not_found"


def test_relate_is_evidence_gated(mcp):
    text = "Deploying billing needs the vault secrets first: the release reads BILLING_DB_URL at start."
    bad = mcp.error("relate_memories", {"from_id": "skill-deploy-billing", "to_id": "config-billing-env",
                                        "evidence": {"source_text": text, "quote": "billing has no secrets"}})
    assert bad == {"code": "evidence_rejected", "field": "evidence.quote", "message": bad["message"]}
    missing = mcp.error("relate_memories", {"from_id": "skill-deploy-billing", "to_id": "config-billing-env"})
    assert (missing["code"], missing["field"]) == ("validation_error", "evidence")
    before = mcp.ok("memory_neighbors", {"memory_id": "skill-deploy-billing", "types": ["RELATED"]})
    assert before["neighbors"] == []

    edge = mcp.ok("relate_memories", {"from_id": "skill-deploy-billing", "to_id": "config-billing-env",
                                      "label": "depends_on", "evidence": {"source_text": text,
                                                                          "quote": "needs the VAULT secrets"}})
    assert edge["type"] == "RELATED" and edge["reason"]["label"] == "depends_on"
    related = mcp.ok("memory_neighbors", {"memory_id": "skill-deploy-billing", "types": ["RELATED"]})["neighbors"]
    assert [(n["id"], n["because"]) for n in related] == [("config-billing-env", "depends_on")]
    full = mcp.error("relate_memories", {"from_id": "skill-deploy-billing", "to_id": "rule-friday",
                                         "evidence": {"source_text": text, "quote": "deploying billing"}})
    assert (full["code"], full["field"]) == ("conflict", "from_id"), "edges.max_degree_related = 1 here"


def test_supersedes_and_history(mcp):
    mcp.ok("add_memory", {"id": "mcp-pg-15", "content": "The ledger database runs PostgreSQL 15 on db-2.",
                          "tags": ["postgres"], "category": "config", "created_at": "2025-01-01T00:00:00Z"})
    mcp.ok("add_memory", {"id": "mcp-pg-16", "content": "The ledger database runs PostgreSQL 16 on db-2.",
                          "tags": ["postgres"], "category": "config", "supersedes": ["mcp-pg-15"],
                          "reason": "major upgrade"})
    history = mcp.ok("memory_history", {"memory_id": "mcp-pg-15"})
    assert [e["memory"]["id"] for e in history["chain"]] == ["mcp-pg-15", "mcp-pg-16"]
    assert history["current"] == ["mcp-pg-16"] and history["links"][0]["reason"] == "major upgrade"
    cycle = mcp.error("add_memory", {"id": "mcp-pg-17", "content": "Ledger runs PostgreSQL 17 on db-2.",
                                     "supersedes": ["mcp-pg-15"]})
    assert (cycle["code"], cycle["field"]) == ("conflict", "supersedes")
    mcp.ok("add_memory", {"id": "mcp-pg-17", "content": "The ledger database runs PostgreSQL 17 on db-2.",
                          "tags": ["postgres"], "category": "config"})
    proposed = mcp.ok("supersede_candidates", {"memory_id": "mcp-pg-17"})["candidates"]
    assert [(c["newer"], c["older"], c["newer_spans"][0]["text"]) for c in proposed] == [
        ("mcp-pg-17", "mcp-pg-16", "17")]
    assert mcp.ok("memory_history", {"memory_id": "mcp-pg-16"})["current"] == ["mcp-pg-16"]   # not applied
    missing = mcp.error("supersede_candidates", {"memory_id": "nope"})
    assert missing["code"] == "not_found"


def test_errors_are_tool_errors_with_api_codes(mcp):
    unknown = mcp.error("search_memories", {"query": "x", "bogus": 1})
    assert (unknown["code"], unknown["field"]) == ("validation_error", "bogus")
    assert mcp.error("search_memories", {"query": "x", "k": 0})["field"] == "k"
    assert mcp.error("search_memories", {"query": "  "})["field"] == "query"
    assert mcp.error("search_memories", {"query": "x", "stages": {"warp": True}})["field"] == "stages.warp"
    assert mcp.error("search_memories", {"query": "x", "detail": "everything"})["field"] == "detail"
    assert mcp.error("search_memories", {"query": "x", "namespace": "no spaces"})["field"] == "namespace"
    assert mcp.error("add_memory", {"content": "x" * 9000})["field"] == "content"
    assert mcp.error("add_memory", {"content": "A fact pulled from a chat log by a model.",
                                    "extracted": True})["message"].startswith("extracted memories need evidence")
    assert mcp.error("update_memory", {"memory_id": "skill-deploy-billing"})["code"] == "validation_error"
    assert mcp.error("update_memory", {"memory_id": "ghost", "content": "new text"})["code"] == "not_found"
    assert mcp.error("delete_memory", {"memory_id": "ghost"})["code"] == "not_found"
    assert mcp.error("memory_neighbors", {"memory_id": "skill-deploy-billing", "limit": 0})["field"] == "limit"
    assert mcp.error("memory_neighbors", {"memory_id": "skill-deploy-billing",
                                          "types": ["FRIENDS"]})["field"].startswith("types")
    assert mcp.error("relate_memories", {"from_id": "skill-deploy-billing", "to_id": "skill-deploy-billing",
                                         "evidence": {"source_text": "a b", "quote": "a"}})["field"] == "to_id"
    assert mcp.error("get_memory", {})["field"] == "memory_id"
    assert mcp.error("no_such_tool", {})["code"] == "validation_error"
    assert mcp.ok("memory_stats", {})["memories"] >= 15, "the server is still up after every error"


def test_arguments_keep_their_json_types_as_over_http(mcp):
    """Tool arguments are validated exactly as sent, like an HTTP body: text for an integer,
    boolean, array or object is refused with the API's error (no "5" -> 5 coercion)."""
    by_json = mcp.ok("search_memories", {"query": BILLING_QUERY, "k": 2, "explain": False,
                                         "filters": {"tags": ["billing"]}})
    assert len(by_json["results"]) == 2
    for k in ("2", "5.5", "1e1", "NaN", "Infinity", "true", "three"):
        err = mcp.error("search_memories", {"query": "x", "k": k})
        assert (err["code"], err["field"]) == ("validation_error", "k"), k
        assert err["message"] == "k: Input should be a valid integer", (k, err)
    assert mcp.error("memory_neighbors", {"memory_id": "text-args", "limit": "5"})["field"] == "limit"
    assert mcp.error("search_memories", {"query": "x", "explain": "false"})["field"] == "explain"
    assert mcp.error("add_memory", {"content": "text tags are not a list", "tags": '["a"]'})["field"] == "tags"
    assert mcp.error("search_memories", {"query": "x", "filters": '{"tags": ["db"]}'})["field"] == "filters"
    assert mcp.ok("search_memories", {"query": "3", "k": 1})["results"] is not None, "string fields stay text"


def test_same_errors_as_the_http_api(mcp, data_dir, embedder):
    """Same input, same error body (code, message, field) over MCP and over the HTTP API: both
    validate with the contract's models and call the same engine."""
    evidence = {"source_text": "a b", "quote": "a"}
    cases = [  # (tool, args, method, path, body)
        ("get_memory", {"memory_id": "ghost"}, "get", "/v1/memories/ghost", None),
        ("get_memory", {"memory_id": "bad id"}, "get", "/v1/memories/bad%20id", None),
        ("delete_memory", {"memory_id": "ghost"}, "delete", "/v1/memories/ghost", None),
        ("search_memories", {"query": "x", "k": 1000}, "post", "/v1/search", {"query": "x", "k": 1000}),
        ("search_memories", {"query": " "}, "post", "/v1/search", {"query": " "}),
        ("search_memories", {"query": "x", "filters": {"colour": ["red"]}}, "post", "/v1/search",
         {"query": "x", "filters": {"colour": ["red"]}}),
        ("search_memories", {"query": "x", "recipe": "fastest"}, "post", "/v1/search",
         {"query": "x", "recipe": "fastest"}),
        ("search_memories", {"query": "x", "unknown": 1}, "post", "/v1/search", {"query": "x", "unknown": 1}),
        ("search_memories", {"query": "x", "namespace": "no spaces"}, "post", "/v1/search",
         {"query": "x", "namespace": "no spaces"}),
        ("add_memory", {"content": ""}, "post", "/v1/memories", {"content": ""}),
        ("add_memory", {"content": "A fact a model pulled from a chat log.", "extracted": True}, "post",
         "/v1/memories", {"content": "A fact a model pulled from a chat log.", "extracted": True}),
        ("update_memory", {"memory_id": "skill-deploy-billing"}, "patch", "/v1/memories/skill-deploy-billing", {}),
        ("relate_memories", {"from_id": "skill-deploy-billing", "to_id": "ghost", "evidence": evidence},
         "post", "/v1/relations", {"from_id": "skill-deploy-billing", "to_id": "ghost", "evidence": evidence}),
        ("relate_memories", {"from_id": "skill-deploy-billing", "to_id": "skill-deploy-billing",
                             "evidence": evidence}, "post", "/v1/relations",
         {"from_id": "skill-deploy-billing", "to_id": "skill-deploy-billing", "evidence": evidence}),
        ("relate_memories", {"from_id": "skill-deploy-billing", "to_id": "rule-friday",
                             "evidence": {"source_text": "a b", "quote": "c"}}, "post", "/v1/relations",
         {"from_id": "skill-deploy-billing", "to_id": "rule-friday", "evidence": {"source_text": "a b",
                                                                                  "quote": "c"}}),
    ]
    eng = open_engine(data_dir, embedder)
    try:
        http = create_app(eng, keyring=Keyring([])).test_client()
        for tool, args, method, path, body in cases:
            resp = getattr(http, method)(path, json=body) if body is not None else getattr(http, method)(path)
            assert resp.status_code >= 400, (tool, args)
            assert mcp.error(tool, args) == resp.get_json()["error"], (tool, args)
    finally:
        eng.close()


def test_same_ranking_through_mcp_http_and_library(mcp, data_dir, embedder):
    eng = open_engine(data_dir, embedder)
    try:
        http = create_app(eng, keyring=Keyring([])).test_client()
        for query in RANK_QUERIES:
            lib = [(r["id"], r["score"]) for r in dump(eng.search(query, RANK_NS, 10))["results"]]
            resp = http.post("/v1/search", json={"query": query, "namespace": RANK_NS, "k": 10})
            api = [(r["id"], r["score"]) for r in resp.get_json()["results"]]
            tool = [(r["id"], r["score"]) for r in
                    mcp.ok("search_memories", {"query": query, "namespace": RANK_NS, "k": 10})["results"]]
            assert len(lib) == 10
            assert [i for i, _ in tool] == [i for i, _ in api] == [i for i, _ in lib], query
            for (_, a), (_, b), (_, c) in zip(tool, api, lib, strict=True):
                assert a == pytest.approx(b, abs=1e-4) and b == pytest.approx(c, abs=1e-4)
    finally:
        eng.close()
