"""GET /v1/memories sorts, the thread and superseded filters, and their cursors (what the inspector's
landing list and thread view page with). Responses are checked against the OpenAPI document."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from api_helpers import MEMORIES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TURNS = [{"id": f"turn-{i}", "content": f"Turn {i} of the planning chat about the launch date and budget {i}",
          "thread": "plan", "seq": i} for i in (3, 1, 2)]        # written out of order


def all_pages(client, query: str) -> list[list[str]]:
    pages, cursor = [], None
    while True:
        url = f"/v1/memories?{query}" + (f"&cursor={quote(cursor)}" if cursor else "")
        resp = client.get(url)
        assert resp.status_code == 200, resp.get_json()
        body = resp.get_json()
        pages.append([m["id"] for m in body["memories"]])
        cursor = body["next_cursor"]
        if not cursor:
            return pages


@pytest.fixture
def listed(client):
    resp = client.post("/v1/memories:batch", json={"memories": MEMORIES + TURNS})
    assert resp.status_code == 200 and resp.get_json()["summary"]["created"] == len(MEMORIES) + len(TURNS)
    return client


def test_each_sort_pages_every_memory_once_in_its_order(listed):
    everything = listed.get("/v1/memories?limit=500").get_json()["memories"]
    by_created = sorted(everything, key=lambda m: (m["created_at"], m["id"]))
    by_health = sorted(everything, key=lambda m: (m["health"], m["id"]))
    want = {"created": [m["id"] for m in by_created], "-created": [m["id"] for m in reversed(by_created)],
            "health": [m["id"] for m in by_health], "-health": [m["id"] for m in reversed(by_health)],
            "thread": ["turn-1", "turn-2", "turn-3"]}
    for sort, order in want.items():
        pages = all_pages(listed, f"limit=2&sort={sort}")
        assert [i for p in pages for i in p] == order, sort
        assert all(len(p) == 2 for p in pages[:-1])


def test_thread_lists_turns_in_order_with_follows_and_windows(listed):
    body = listed.get("/v1/memories?thread=plan&sort=thread").get_json()
    assert [m["id"] for m in body["memories"]] == ["turn-1", "turn-2", "turn-3"]
    thread = body["thread"]
    assert thread["id"] == "plan"
    assert sorted((f["from"], f["to"]) for f in thread["follows"]) == [("turn-1", "turn-2"), ("turn-2", "turn-3")]
    assert thread["windows"]["turn-2"] == ["turn-1", "turn-2", "turn-3"]     # [context] before 2, after 2
    assert "thread" not in listed.get("/v1/memories").get_json()
    first = listed.get("/v1/memories?thread=plan&sort=thread&limit=1").get_json()
    second = listed.get(f"/v1/memories?thread=plan&sort=thread&limit=1&cursor={quote(first['next_cursor'])}")
    assert [m["id"] for m in second.get_json()["memories"]] == ["turn-2"]
    assert sorted(f["to"] for f in second.get_json()["thread"]["follows"]) == ["turn-2", "turn-3"]


def test_filters_combine_with_sorts(listed):
    infra = all_pages(listed, "category=infra&sort=-created&limit=1")
    assert sorted(i for p in infra for i in p) == ["db-1", "deploy-1", "deploy-2"]
    assert all_pages(listed, "tags=deploy&source=memory_tool&sort=health") == [["deploy-2"]]
    assert all_pages(listed, "thread=nothing-here") == [[]]
    assert all_pages(listed, "superseded_only=true") == [[]]
    made = listed.post("/v1/supersessions", json={"newer": "deploy-2", "older": ["deploy-1"]})
    assert made.status_code == 200, made.get_json()
    assert all_pages(listed, "superseded_only=true&sort=-created") == [["deploy-1"]]
    current = [i for p in all_pages(listed, "current_only=true&sort=-health") for i in p]
    assert "deploy-1" not in current and "deploy-2" in current
    assert all_pages(listed, "superseded_only=true&current_only=true") == [[]]


@pytest.mark.parametrize("query,field", [
    ("limit=-1", "limit"), ("limit=0", "limit"), ("limit=100000000000000000000", "limit"),
    ("sort=newest", "sort"), ("sort=", "sort"), ("sort=created;drop", "sort"),
    ("cursor=nonsense", "cursor"), ("cursor=hx~a", "cursor"),
    ("sort=health&cursor=2026-01-01T00:00:00.000000Z~a", "cursor"),        # another sort's cursor
    ("sort=-created&cursor=h0.5~a", "cursor"),
    ("sort=thread&cursor=h0.5~a", "cursor"),
    ("cursor=t0000000000000001|2026-01-01T00:00:00.000000Z~a", "cursor"),
    ("thread=", "thread"), ("superseded_only=maybe", "superseded_only"),
])
def test_bad_list_input_is_422_with_the_field(listed, query, field):
    resp = listed.get(f"/v1/memories?{query}")
    assert resp.status_code == 422, resp.get_json()
    assert resp.get_json()["error"]["field"] == field and resp.get_json()["error"]["code"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cursor=st.text(max_size=60), sort=st.sampled_from(["created", "-created", "health", "-health", "thread"]))
def test_any_cursor_is_a_page_or_a_422(client, cursor, sort):
    resp = client.get(f"/v1/memories?sort={sort}&cursor={quote(cursor)}")
    assert resp.status_code in (200, 422), (cursor, resp.get_json())
    if resp.status_code == 422:
        assert resp.get_json()["error"]["field"] in ("cursor", None)


def test_tags_repeat_as_the_inspector_sends_them(listed):
    both = all_pages(listed, "tags=deploy&tags=ci&sort=-created")
    assert both == [["deploy-1"]]
    assert all_pages(listed, "tags=deploy&sort=created") == [["deploy-1", "deploy-2"]]
