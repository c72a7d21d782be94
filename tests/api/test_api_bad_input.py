"""A bad-input corpus: every case answers 4xx with the JSON error shape, nothing is
stored, and nothing is half-written. Also the regressions schemathesis once found."""

from __future__ import annotations

import json

import pytest

DEEP = "[" * 10_000 + "]" * 10_000
GOOD = {"content": "The staging cluster deploys nightly from main", "tags": ["deploy"], "category": "infra"}


def raw(body: dict) -> str:
    return json.dumps(body)


CASES = [  # (method, path, body text or None, content type, status, field)
    # lone surrogates and invalid UTF-8
    ("post", "/v1/search", '{"query": "backup \\ud800"}', "application/json", 422, "query"),
    ("post", "/v1/memories", '{"content": "a \\udfff note"}', "application/json", 422, "content"),
    ("post", "/v1/memories", '{"content": "a note", "tags": ["x\\ud800"]}', "application/json", 422, "tags[0]"),
    # threads: a name like a tag's, a position that is a non-negative integer below 2**53; fixed at creation
    ("post", "/v1/memories", '{"content": "a turn", "thread": "  "}', "application/json", 422, "thread"),
    ("post", "/v1/memories", '{"content": "a turn", "thread": "a\\u0000b"}', "application/json", 422, "thread"),
    ("post", "/v1/memories", '{"content": "a turn", "thread": "\\ud800"}', "application/json", 422, "thread"),
    ("post", "/v1/memories", '{"content": "a turn", "thread": "s", "seq": -1}', "application/json", 422, "seq"),
    ("post", "/v1/memories", '{"content": "a turn", "thread": "s", "seq": "5"}', "application/json", 422, "seq"),
    ("post", "/v1/memories", '{"content": "a turn", "thread": "s", "seq": 1.5}', "application/json", 422, "seq"),
    ("post", "/v1/memories", '{"content": "a turn", "thread": "s", "seq": 1e400}', "application/json", 422, "seq"),
    ("post", "/v1/memories", '{"content": "a turn", "seq": 9007199254740993}', "application/json", 422, "seq"),
    ("post", "/v1/memories", '{"content": "a note", "metadata": {"k": "\\ud800"}}', "application/json", 422,
     "metadata"),
    ("post", "/v1/memories", b'{"content": "caf\xe9 \xff"}', "application/json", 400, None),
    # nesting
    ("post", "/v1/memories", '{"content": "deep", "metadata": {"a": ' + DEEP + "}}", "application/json", 422,
     None),
    ("post", "/v1/search", DEEP, "application/json", 422, None),
    ("post", "/v1/memories", raw({"content": "deep", "metadata": {"a": json.loads("[" * 70 + "]" * 70)}}),
     "application/json", 422, None),     # 70 levels: over limits.max_json_depth (64)
    # timestamps at the edges of the range
    ("post", "/v1/memories", raw({**GOOD, "valid_until": "9999-12-31T23:59:59-14:00"}), "application/json", 422,
     "valid_until"),
    ("post", "/v1/memories", raw({**GOOD, "created_at": "0001-01-01T00:00:00+14:00"}), "application/json", 422,
     "created_at"),
    ("post", "/v1/search", raw({"query": "x", "filters": {"created_after": "9999-12-31T23:59:59-14:00"}}),
     "application/json", 422, "filters.created_after"),
    ("get", "/v1/memories?created_before=0001-01-01T00:00:00%2B14:00", None, None, 422, "created_before"),
    # ids that would not round-trip in a URL
    ("post", "/v1/memories", raw({**GOOD, "id": "a/../b"}), "application/json", 422, "id"),
    ("post", "/v1/memories", raw({**GOOD, "id": "x/neighbors"}), "application/json", 422, "id"),
    ("post", "/v1/memories", raw({**GOOD, "id": "a//b"}), "application/json", 422, "id"),
    ("post", "/v1/memories", raw({**GOOD, "id": "a/"}), "application/json", 422, "id"),
    # control characters where they make no sense
    ("post", "/v1/memories", raw({**GOOD, "category": "in\x00fra"}), "application/json", 422, "category"),
    ("post", "/v1/memories", raw({**GOOD, "tags": ["de\x07ploy"]}), "application/json", 422, "tags[0]"),
    ("post", "/v1/memories", raw({**GOOD, "source": "\x1b[31m"}), "application/json", 422, "source"),
    # content types and limits
    ("post", "/v1/memories", raw(GOOD), "text/plain", 415, "Content-Type"),
    ("post", "/v1/memories", raw(GOOD), None, 415, "Content-Type"),
    ("post", "/v1/memories", raw({**GOOD, "category": "c" * 500}), "application/json", 422, "category"),
    ("post", "/v1/memories", '{"content": NaN}', "application/json", 400, None),
    ("post", "/v1/memories:batch", raw({"memories": [GOOD, {**GOOD, "tags": ["ok", ""]}]}), "application/json",
     422, "memories[1].tags[1]"),
    # cost ceilings
    ("post", "/v1/search", raw({"query": "x", "params": {"recall_candidates": 1000}}), "application/json", 422,
     "params.recall_candidates"),
    ("post", "/v1/search", raw({"query": "x", "params": {"lexical_max_postings": 10_000_000}}),
     "application/json", 422, "params.lexical_max_postings"),
    ("post", "/v1/search", raw({"query": "x", "params": {"expansion_max_added": 1000}}), "application/json", 422,
     "params.expansion_max_added"),
    ("get", "/v1/graph?hops=3&ids=a", None, None, 422, "hops"),
    ("get", "/v1/graph?ids=" + ",".join(f"m{i}" for i in range(21)), None, None, 422, "ids"),
    # what schemathesis once found
    ("get", "/v1/memories?namespace=", None, None, 422, "namespace"),
    ("get", "/v1/stats?namespace=", None, None, 422, "namespace"),
    ("get", "/v1/memories?include_expired=junk", None, None, 422, "include_expired"),
    ("get", "/v1/graph?ids=a&hops=1&hops=2", None, None, 422, "hops"),
    ("post", "/v1/search", raw({"query": "x", "recipe": ""}), "application/json", 422, "recipe"),
    ("post", "/v1/search", raw({"query": "x", "k": "5"}), "application/json", 422, "k"),
    ("post", "/v1/relations", raw({"from_id": "a", "to_id": "b", "evidence": {"source_text": "a", "quote": "a"},
                                   "label": "x" * 65}), "application/json", 422, "label"),
    # numbers JSON cannot carry (RFC 8259): overflow to infinity, integers past 2**53-1, anywhere
    ("post", "/v1/memories", '{"content": "a note", "metadata": {"x": 1e400}}', "application/json", 422,
     "metadata.x"),
    ("post", "/v1/memories", '{"content": "a note", "metadata": {"a": {"b": [1, -1e400]}}}', "application/json",
     422, "metadata.a.b[1]"),
    ("post", "/v1/memories", '{"content": "a note", "metadata": {"n": 9007199254740992}}', "application/json",
     422, "metadata.n"),
    ("post", "/v1/memories", '{"content": "a note", "metadata": {"n": -9007199254740992}}', "application/json",
     422, "metadata.n"),
    ("post", "/v1/memories", '{"content": "a note", "metadata": {"x": Infinity}}', "application/json", 400, None),
    ("post", "/v1/memories", '{"content": "a note", "metadata": {"x": NaN}}', "application/json", 400, None),
    ("post", "/v1/memories:batch", '{"memories": [{"content": "ok"}, {"content": "b", "metadata": {"x": 1e999}}]}',
     "application/json", 422, "memories[1].metadata.x"),
    ("patch", "/v1/memories/any", '{"metadata": {"x": 1e400}}', "application/json", 422, "metadata.x"),
    ("post", "/v1/search", '{"query": "x", "params": {"vector_weight": 1e400}}', "application/json", 422,
     "params.vector_weight"),
    ("post", "/v1/search", '{"query": "x", "k": 1e400}', "application/json", 422, "k"),
    ("post", "/v1/search", '{"query": "x", "filters": {"min_health": -1e400}}', "application/json", 422,
     "filters.min_health"),
    # a cursor must name a real instant
    ("get", "/v1/memories?cursor=2026-13-01T00:00:00.000000Z~a", None, None, 422, "cursor"),
    ("get", "/v1/memories?cursor=2026-02-30T00:00:00.000000Z~a", None, None, 422, "cursor"),
    ("get", "/v1/memories?cursor=2026-01-01T25:00:00.000000Z~a", None, None, 422, "cursor"),
    ("get", "/v1/memories?cursor=0000-00-00T00:00:00.000000Z~0", None, None, 422, "cursor"),
    ("get", "/v1/memories?cursor=2100-02-29T00:00:00.000000Z~a", None, None, 422, "cursor"),
    # NUL: refused in every text field and name (docs/strict-json.md)
    ("post", "/v1/memories", raw({**GOOD, "content": "a\x00b"}), "application/json", 422, "content"),
    ("post", "/v1/memories", raw({**GOOD, "tags": ["a\x00"]}), "application/json", 422, "tags[0]"),
    ("post", "/v1/memories", raw({**GOOD, "source": "s\x00"}), "application/json", 422, "source"),
    ("post", "/v1/memories", raw({**GOOD, "id": "a\x00b"}), "application/json", 422, "id"),
    ("post", "/v1/memories", raw({**GOOD, "namespace": "a\x00"}), "application/json", 422, "namespace"),
    ("post", "/v1/memories", raw({**GOOD, "reason": "r\x00"}), "application/json", 422, "reason"),
    ("post", "/v1/search", raw({"query": "backup\x00s"}), "application/json", 422, "query"),
    ("post", "/v1/search", raw({"query": "x", "recipe": "default\x00"}), "application/json", 422, "recipe"),
    ("post", "/v1/search", raw({"query": "x", "filters": {"tags": ["a\x00"]}}), "application/json", 422,
     "filters.tags[0]"),
    ("get", "/v1/memories?tags=a%00b", None, None, 422, "tags"),
    ("get", "/v1/graph?query=a%00b", None, None, 422, "query"),
]


@pytest.mark.parametrize("method, path, body, content_type, status, field", CASES)
def test_bad_input_is_a_4xx_with_a_json_error_and_stores_nothing(client, method, path, body, content_type,
                                                                 status, field):
    kwargs = {} if body is None else {"data": body.encode() if isinstance(body, str) else body}
    if content_type:
        kwargs["content_type"] = content_type
    resp = getattr(client, method)(path, **kwargs)
    assert resp.status_code == status, (path, resp.get_json())
    error = resp.get_json()["error"]
    assert set(error) == {"code", "message", "field"} and error["message"]
    if field is not None:
        assert error["field"] == field, error
    stats = client.get("/v1/stats").get_json()
    assert stats["memories"] == 0 and sum(stats["edges"].values()) == 0


def test_schema_valid_requests_the_server_used_to_refuse(seeded):
    """/v1/graph with neither ids nor query, and a relation to a missing memory (404). A relation of
    a memory to itself is the request model's rule (422, naming to_id)."""
    assert seeded.get("/v1/graph").status_code == 200
    resp = seeded.post("/v1/relations", json={"from_id": "ghost", "to_id": "ghost-2",
                                              "evidence": {"source_text": "a b", "quote": "a"}})
    assert resp.status_code == 404
    itself = seeded.post("/v1/relations", json={"from_id": "ghost", "to_id": "ghost",
                                                "evidence": {"source_text": "a b", "quote": "a"}})
    assert itself.status_code == 422 and itself.get_json()["error"]["field"] == "to_id"
    assert seeded.get("/v1/graph?k=10.0&hops=1.0&ids=db-1").status_code == 200    # JSON Schema integers


def test_ids_round_trip_in_urls(client):
    for memory_id in ("notes/2024/deploy", "a:b@c.d-e_f", "neighbors", "x/neighbors-old"):
        assert client.post("/v1/memories", json={**GOOD, "id": memory_id,
                                                  "content": f"note {memory_id}"}).status_code == 201
        assert client.get(f"/v1/memories/{memory_id}").get_json()["id"] == memory_id
    assert client.patch("/v1/memories/notes/neighbors", json={"tags": ["x"]}).status_code == 405


def _strict_loads(text: str) -> object:
    def refuse(name: str) -> object:
        raise AssertionError(f"{name} in a response")
    return json.loads(text, parse_constant=refuse)


def test_responses_never_carry_non_finite_numbers(app):
    """A value stored before the number rule (or by hand) still leaves as RFC 8259 JSON."""
    from graphmem.mcp.server import _result

    held = {"metadata": {"x": float("inf"), "y": [float("nan"), -float("inf"), 1.5]}}
    with app.test_request_context():
        text = app.json.response(held).get_data(as_text=True)
    assert _strict_loads(text) == {"metadata": {"x": None, "y": [None, None, 1.5]}}
    result = _result(held)
    assert _strict_loads(result.content[0].text) == result.structured_content == _strict_loads(text)


def test_a_finite_metadata_round_trips(client):
    meta = {"big": 9007199254740991, "small": -9007199254740991, "tiny": 5e-324, "max": 1.7976931348623157e308,
            "nul": "a\x00b"}
    resp = client.post("/v1/memories", json={"content": "numbers at the edge of JSON", "metadata": meta})
    assert resp.status_code == 201, resp.get_json()
    stored = client.get(f"/v1/memories/{resp.get_json()['memory']['id']}")
    assert _strict_loads(stored.get_data(as_text=True))["metadata"] == meta


def test_a_tag_normalised_longer_than_the_limit_is_created(client):
    """The route validates the body and the engine validates it again: normalisation (NFKC turns
    one ligature into 18 letters) must not be checked against the limit the second time."""
    tag = "\ufdfa" * 64
    resp = client.post("/v1/memories", json={**GOOD, "tags": [tag]})
    assert resp.status_code == 201, resp.get_json()
    assert len(resp.get_json()["memory"]["tags"][0]) > 64
