"""Cross-cutting error paths, checked on every operation: 401 without a key, 400 malformed
JSON, 413 oversized bodies, 422 malformed namespaces, 503 when the store is down."""

from __future__ import annotations

import pytest
from api_helpers import KEY_A, auth, make_app

from graphmem.errors import StoreUnavailable

EVIDENCE = {"source_text": "deploys need a backup first", "quote": "backup first"}
# (method, path, JSON body or None) for every operation that needs a key
AUTHED = [
    ("post", "/v1/memories", {"content": "a memory about deploys"}),
    ("get", "/v1/memories", None),
    ("post", "/v1/memories:batch", {"memories": [{"content": "a memory about deploys"}]}),
    ("get", "/v1/memories/m1", None),
    ("patch", "/v1/memories/m1", {"tags": ["x"]}),
    ("delete", "/v1/memories/m1", None),
    ("get", "/v1/memories/m1/neighbors", None),
    ("post", "/v1/search", {"query": "deploys"}),
    ("get", "/v1/graph?ids=m1", None),
    ("post", "/v1/relations", {"from_id": "m1", "to_id": "m2", "evidence": EVIDENCE}),
    ("get", "/v1/stats", None),
]
WITH_BODY = [op for op in AUTHED if op[2] is not None]
IDS = [f"{m.upper()} {p}" for m, p, _ in AUTHED]


def call(client, method, path, body, **kwargs):
    if body is not None:
        kwargs.setdefault("json", body)
    return getattr(client, method)(path, **kwargs)


class DownStore:
    """Every store call fails the way an unreachable store should."""

    kind = "down"

    def __getattr__(self, name):
        def fail(*_args, **_kwargs):
            raise StoreUnavailable(f"store unreachable ({name})")
        return fail


@pytest.mark.parametrize("method, path, body", AUTHED, ids=IDS)
def test_every_operation_needs_a_key(keyed, method, path, body):
    resp = call(keyed, method, path, body)
    assert resp.status_code == 401 and resp.get_json()["error"]["code"] == "unauthorized"
    assert call(keyed, method, path, body, headers={"X-API-Key": "nope"}).status_code == 401


@pytest.mark.parametrize("method, path, body", AUTHED, ids=IDS)
def test_store_down_is_503_everywhere(client, engine, monkeypatch, method, path, body):
    down = DownStore()
    for owner in (engine, engine.ingestor, engine.pipeline):
        monkeypatch.setattr(owner, "store", down)
    resp = call(client, method, path, body)
    assert resp.status_code == 503, resp.get_json()
    assert resp.get_json()["error"]["code"] == "store_unavailable" and resp.headers["Retry-After"]


@pytest.mark.parametrize("method, path, body", WITH_BODY, ids=[f"{m.upper()} {p}" for m, p, _ in WITH_BODY])
def test_malformed_json_is_400_everywhere(keyed, method, path, body):
    resp = getattr(keyed, method)(path, data='{"oops": ', content_type="application/json", headers=auth(KEY_A))
    assert resp.status_code == 400 and resp.get_json()["error"]["code"] == "malformed_json"


@pytest.mark.parametrize("method, path, body", WITH_BODY, ids=[f"{m.upper()} {p}" for m, p, _ in WITH_BODY])
def test_oversized_body_is_413_everywhere(make_engine, method, path, body):
    client = make_app(make_engine({"limits": {"max_body_bytes": 512}})).test_client()
    padded = {**body, "namespace": "default", "padding": "z" * 600}
    resp = call(client, method, path, padded)
    assert resp.status_code == 413 and resp.get_json()["error"]["code"] == "too_large"


@pytest.mark.parametrize("method, path, body", AUTHED, ids=IDS)
def test_malformed_namespace_is_422_everywhere(client, method, path, body):
    sep = "&" if "?" in path else "?"
    resp = call(client, method, f"{path}{sep}namespace=no%20spaces", body)
    assert resp.status_code == 422, resp.get_json()
    assert resp.get_json()["error"]["field"] == "namespace"
