"""/ui shows a memory's resolved time phrases (its `times`) in the memory view, on each store."""

from __future__ import annotations

from conftest import open_page
from playwright.sync_api import expect

from graphmem.client import GraphmemClient
from tests.ui.ui_seed import KEY


def test_memory_view_shows_resolved_times(browser, live):
    srv, _ns = live
    api = GraphmemClient(srv.url, api_key=KEY)
    api.add("We moved the weekly sync to Thursdays last week.", id="time-1", created_at="2023-06-09T10:00:00Z")
    page = open_page(browser, srv, 1400, "#/memory/time-1")
    try:
        expect(page.locator("#mem-detail h2")).to_have_text("time-1")
        expect(page.locator("#mem-detail tr[data-field=times] td")).to_have_text(
            '"last week" = the week before 9 June 2023 (2023-05-29/2023-06-04)')
        page.watch.clean()
    finally:
        page.context.close()
        api.delete("time-1")
