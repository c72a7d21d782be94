"""/docs in a real browser: Debian's headless chromium, driven by Playwright (no browser download).

The page must load offline (every request goes to the server itself), list every operation of
/openapi.json, and run one "Try it out" search against the live server."""

from __future__ import annotations

import json
import shutil
from urllib.parse import urlparse

import pytest
from playwright.sync_api import sync_playwright

from graphmem.client import GraphmemClient
from tests.helpers.server import Server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def live(tmp_path):
    srv = Server(tmp_path / "data", tmp_path / "server.log")
    GraphmemClient(srv.url).add("The primary Postgres database is backed up every six hours to object storage",
                                id="db-1", tags=["database", "backup"], category="infra")
    yield srv
    srv.stop()


def test_docs_page_lists_every_operation_and_tries_a_search(live):
    spec = GraphmemClient(live.url).openapi()
    op_ids = {op["operationId"] for item in spec["paths"].values() for op in item.values()}
    foreign: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("request", lambda req: foreign.append(req.url)
                if urlparse(req.url).netloc != urlparse(live.url).netloc else None)
        page.goto(f"{live.url}/docs")
        page.wait_for_selector(".opblock", timeout=30_000)
        shown = page.eval_on_selector_all(".opblock", "els => els.map(e => e.id)")
        assert len(shown) == len(op_ids), shown
        for op_id in op_ids:
            assert any(op_id in element_id for element_id in shown), op_id

        search = page.locator(".opblock-post", has=page.locator("[data-path='/v1/search']"))
        search.locator(".opblock-summary").click()
        search.locator("button.try-out__btn").click()
        body = search.locator("textarea.body-param__text")
        body.fill(json.dumps({"query": "how often are database backups taken", "k": 3}))
        search.locator("button.execute").click()
        page.wait_for_selector(".live-responses-table .response-col_status", timeout=30_000)
        status = search.locator(".live-responses-table .response .response-col_status").first.inner_text()
        answer = search.locator(".live-responses-table .highlight-code code").first.inner_text()
        browser.close()
    assert status.strip() == "200"
    assert json.loads(answer)["results"][0]["id"] == "db-1"
    assert not foreign, f"the page reached outside the server: {foreign[:5]}"
