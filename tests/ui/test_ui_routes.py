"""The inspector's URLs in a real browser, on each store, on a desktop (1,400 px) and a phone (390 px):
the landing list with a filter and paging, deep links to a memory and a search (opened directly, then
the back button), the thread view's order, the `/` redirect and the folded `why`. Expected values come
from the API. ``GRAPHMEM_UI_SCREENSHOTS=1`` also saves docs/ui-list.png and docs/ui-thread.png."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from conftest import open_page
from playwright.sync_api import Page, expect

from graphmem.client import GraphmemClient
from tests.ui.ui_seed import KEY

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first

DOCS = Path(__file__).resolve().parents[2] / "docs"
SHOTS = os.environ.get("GRAPHMEM_UI_SCREENSHOTS") == "1"


@pytest.fixture(params=[1400, 390], ids=["desktop", "phone"])
def tab(request, browser, live):
    """A signed-in tab at each width, opened by the test itself (at the URL it means to test)."""
    opened: list[Page] = []

    def at(hash_: str = "") -> Page:
        p = open_page(browser, live[0], request.param, hash_)
        opened.append(p)
        p.wait_for_selector("body[data-routed]")
        return p
    at.width = request.param           # type: ignore[attr-defined]
    yield at
    for p in opened:
        p.context.close()


def api(live) -> GraphmemClient:
    return GraphmemClient(live[0].url, api_key=KEY)


def ids(page: Page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "items => items.map(i => i.dataset.id)")


def fits(page: Page) -> None:
    """Nothing is wider than the window (no sideways scrolling on a phone)."""
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, (width, inner)


def shot(page: Page, name: str, width: int, store: str) -> None:
    if SHOTS and width == 1400 and store == "sqlite":
        page.screenshot(path=str(DOCS / name), full_page=True)


def listed(live, **query) -> list[str]:
    params = "&".join(f"{k}={quote(str(v))}" for k, v in query.items())
    resp = requests.get(f"{live[0].url}/v1/memories?{params}", headers={"Authorization": f"Bearer {KEY}"},
                        timeout=30)
    assert resp.status_code == 200, resp.text
    return [m["id"] for m in resp.json()["memories"]]


def test_root_redirects_to_the_inspector(tab, live):
    resp = requests.get(f"{live[0].url}/", allow_redirects=False, timeout=10)
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/ui")
    page = tab()
    page.goto(live[0].url + "/")
    page.wait_for_selector("body[data-routed]")
    assert page.url.split("#")[0] == f"{live[0].url}/ui"
    expect(page.locator("#view-list")).to_be_visible()
    page.watch.clean()


def test_landing_lists_recent_memories_with_a_filter_and_pages(tab, live, request):
    page = tab()
    newest = listed(live, sort="-created", limit=20)
    expect(page.locator("#list li.row")).to_have_count(len(newest))
    assert ids(page, "#list li.row") == newest
    shot(page, "ui-list.png", tab.width, request.node.callspec.params["live"])
    fits(page)
    page.fill("#l-category", "infra")
    page.fill("#l-limit", "2")
    page.click("#list-form button[type=submit]")
    first = listed(live, category="infra", sort="-created", limit=2)
    rest = listed(live, category="infra", sort="-created", limit=20)[2:]
    assert len(first) == 2 and len(rest) == 1
    expect(page.locator("#list li.row")).to_have_count(2)
    assert ids(page, "#list li.row") == first
    assert "category=infra" in page.url and "limit=2" in page.url
    page.click("#list-pager a.next")
    expect(page.locator("#list-pager .page-no")).to_have_text(" page 2 ")
    assert ids(page, "#list li.row") == rest
    assert page.locator("#list-pager a.next").count() == 0
    page.go_back()                                     # the first page again, filter kept
    expect(page.locator("#list-pager .page-no")).to_have_text(" page 1 ")
    assert ids(page, "#list li.row") == first and page.input_value("#l-category") == "infra"
    page.select_option("#l-state", "current")          # the other filters reach the API as well
    page.fill("#l-category", "")
    page.fill("#l-thread", "standup")
    page.select_option("#l-sort", "thread")
    page.click("#list-form button[type=submit]")
    expect(page.locator("#list li.row").first).to_have_attribute("data-id", "chat-0")
    expect(page.locator("#list li.row")).to_have_count(2)
    assert ids(page, "#list li.row") == listed(live, thread="standup", sort="thread", current_only="true",
                                               limit=2) == ["chat-0", "chat-1"]
    fits(page)
    page.watch.clean()


def test_a_deep_link_opens_a_memory_and_back_returns_to_it(tab, live):
    page = tab("#/memory/deploy-1")
    expect(page.locator("#mem-detail h2")).to_have_text("deploy-1")
    expect(page.locator("[data-view=memory]")).to_have_class("tab active")
    fits(page)
    page.evaluate("() => { window.graphmemCy.$id('deploy-2').emit('tap'); }")
    expect(page.locator("#mem-detail h2")).to_have_text("deploy-2")
    assert page.url.endswith("#/memory/deploy-2")
    page.go_back()
    expect(page.locator("#mem-detail h2")).to_have_text("deploy-1")
    assert page.url.endswith("#/memory/deploy-1") and page.input_value("#mem-id") == "deploy-1"
    page.watch.clean()


def test_a_deep_link_runs_a_search_with_its_parameters_and_back_returns_to_it(tab, live):
    query = "how often are database backups taken"
    page = tab(f"#/search?q={quote(query)}&k=5&recipe=hybrid&source=memory_tool&off=lexical&on=feedback")
    want = api(live).search(query, k=5, recipe="hybrid", filters={"sources": ["memory_tool"]},
                            stages={"lexical": False, "feedback": True})["results"]
    expect(page.locator("#results li.result")).to_have_count(len(want))
    assert ids(page, "#results li.result") == [r["id"] for r in want] and want
    assert page.input_value("#q") == query and page.input_value("#recipe") == "hybrid"
    assert page.input_value("#f-source") == "memory_tool" and page.input_value("#k") == "5"
    assert page.input_value("select.stage[name=lexical]") == "off"
    assert page.input_value("select.stage[name=feedback]") == "on"
    assert page.input_value("select.stage[name=vector]") == ""          # left to the recipe
    fits(page)
    page.click(f"#results li.result[data-id='{want[0]['id']}'] a.mem")
    expect(page.locator("#mem-detail h2")).to_have_text(want[0]["id"])
    page.evaluate("() => { document.getElementById('results').replaceChildren(); "        # back must redo both
                  "document.getElementById('q').value = ''; }")
    page.go_back()
    expect(page.locator("#view-search")).to_be_visible()
    expect(page.locator("#results li.result")).to_have_count(len(want))
    assert page.input_value("#q") == query and ids(page, "#results li.result") == [r["id"] for r in want]
    page.watch.clean()


def test_the_why_is_folded_until_opened(tab, live):
    page = tab("#/search?q=" + quote("database backups"))
    first = page.locator("#results li.result").first
    expect(first).to_be_visible()
    why = first.locator("details.why")
    assert why.get_attribute("open") is None and not first.locator(".why-words").is_visible()
    assert not first.locator("table.why-parts").is_visible()
    why.locator("summary").click()
    expect(first.locator(".why-words")).to_be_visible()
    assert "vector rank" in first.locator(".why-words").inner_text()
    expect(first.locator("table.why-parts")).to_be_visible()
    assert page.locator("#results details.why[open]").count() == 1      # the others stay folded
    fits(page)
    page.watch.clean()


def test_the_thread_view_shows_turns_in_order_with_follows_and_windows(tab, live, request):
    page = tab("#/memory/chat-1")
    expect(page.locator("#mem-detail h2")).to_have_text("chat-1")
    page.click("#threads a.thread-link")
    expect(page.locator("#thread-title")).to_have_text("Thread standup")
    body = requests.get(f"{live[0].url}/v1/memories?thread=standup&sort=thread",
                        headers={"Authorization": f"Bearer {KEY}"}, timeout=30).json()
    order = [m["id"] for m in body["memories"]]
    assert order == ["chat-0", "chat-1", "chat-2"]                     # seq order, not the order written
    expect(page.locator("#turns li.turn")).to_have_count(3)
    assert ids(page, "#turns li.turn") == order
    follows = page.eval_on_selector_all("#turns li.turn", """items => items.map(i => {
        const f = i.querySelector('.follows'); return f ? f.dataset.to : null; })""")
    assert follows == ["chat-1", "chat-2", None]
    edges = {(f["from"], f["to"]) for f in body["thread"]["follows"]}
    assert edges == {("chat-0", "chat-1"), ("chat-1", "chat-2")}
    window = page.locator("#turns li.turn[data-id='chat-1'] details.window")
    window.locator("summary").click()
    assert window.locator("a.mem").all_inner_texts() == body["thread"]["windows"]["chat-1"] == order
    shot(page, "ui-thread.png", tab.width, request.node.callspec.params["live"])
    fits(page)
    page.go_back()
    expect(page.locator("#mem-detail h2")).to_have_text("chat-1")
    page.watch.clean()


def test_health_has_a_url_of_its_own(tab, live):
    page = tab("#/health")
    expect(page.locator("#health-body .histogram")).to_be_visible()
    weakest = listed(live, sort="health", limit=10)
    shown = page.eval_on_selector_all(".lowest > ol > li > a.mem", "links => links.map(a => a.textContent)")
    assert shown == weakest
    fits(page)
    page.watch.clean()
