"""A duplicate add (same id and content, or same content) never changes the stored memory: its
answer names what it carried that was not stored (new tags, another category, source, reason or
metadata), over the library, a batch and HTTP, on both stores (docs/guides/http-api.md)."""

from __future__ import annotations

import uuid

import pytest

from graphmem.api import create_app
from graphmem.config import load_settings
from graphmem.contract.responses import BatchItemResult, CreateResult
from graphmem.engine import Graphmem
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from tests.neo4j_server import open_store, store_settings

RUNBOOK = {"id": "deploy-billing", "content": "To ship billing, run the release workflow from main.",
           "tags": ["billing"], "category": "runbook", "source": "memory_tool"}
SIDE = {"id": "billing-secrets", "content": "Billing reads STRIPE_KEY from the vault.", "tags": ["billing"]}


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engine(request, tmp_path, embedder):
    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path)}}, use_env=False)
    store = SQLiteStore(tmp_path, store_settings()) if request.param == "sqlite" else open_store()
    eng = Graphmem(settings, store, embedder)
    eng.test_namespace = f"dup-{uuid.uuid4().hex[:10]}"   # type: ignore[attr-defined]
    yield eng
    if request.param == "neo4j":
        store.drop_namespace(eng.test_namespace)   # type: ignore[attr-defined]
    eng.close()


def snapshot(eng: Graphmem, ns: str) -> tuple[dict, list]:
    mems = eng.store.get_memories(ns, [RUNBOOK["id"], SIDE["id"]])
    edges = sorted((e.a, e.b, e.type, e.weight) for e in eng.store.edges_of(ns, list(mems)))
    return {k: m.to_dict() for k, m in mems.items()}, edges


def test_a_duplicate_names_what_it_did_not_store(engine):
    ns = engine.test_namespace
    assert engine.add(RUNBOOK, ns).status == "created" and engine.add(SIDE, ns).status == "created"
    before = snapshot(engine, ns)
    again = engine.add({**RUNBOOK, "tags": ["billing", "deploy"], "category": "howto", "reason": "asked twice"},
                       ns)
    assert again.status == "duplicate" and again.duplicate_of == "deploy-billing"
    assert again.not_stored == {"tags": ["deploy"], "category": "howto", "reason": "asked twice"}
    assert again.note is not None and "PATCH /v1/memories/deploy-billing" in again.note
    assert snapshot(engine, ns) == before, "an add never changes a stored memory"
    same = dump(engine.add(RUNBOOK, ns))
    assert same["status"] == "duplicate" and "not_stored" not in same and "note" not in same, "a plain retry"
    by_content = engine.add({"content": SIDE["content"], "tags": ["vault"]}, ns)
    assert (by_content.duplicate_of, by_content.not_stored) == ("billing-secrets", {"tags": ["vault"]})
    batch = engine.add_batch([{**SIDE, "tags": ["billing", "secrets"]}, RUNBOOK], ns).results
    assert [r.not_stored for r in batch] == [{"tags": ["secrets"]}, None]
    assert snapshot(engine, ns) == before


def test_http_answers_200_with_not_stored(engine):
    ns = engine.test_namespace
    client = create_app(engine).test_client()
    assert client.post("/v1/memories", json={**RUNBOOK, "namespace": ns}).status_code == 201
    again = client.post("/v1/memories", json={**RUNBOOK, "namespace": ns, "tags": ["billing", "deploy"]})
    assert again.status_code == 200
    body = CreateResult.model_validate(again.get_json())
    assert body.status == "duplicate" and body.not_stored == {"tags": ["deploy"]} and body.note
    batch = client.post("/v1/memories:batch", json={"namespace": ns, "memories": [{**RUNBOOK, "source": "cron"}]})
    item = BatchItemResult.model_validate(batch.get_json()["results"][0])
    assert item.status == "duplicate" and item.not_stored == {"source": "cron"}
    stored = client.get(f"/v1/memories/deploy-billing?namespace={ns}").get_json()
    assert (stored["tags"], stored["source"]) == (["billing"], "memory_tool")
