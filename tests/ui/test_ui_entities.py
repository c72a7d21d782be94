"""/ui shows a memory's entities (each key with the span it comes from) in the memory view, and a
result reached by stage multihop says which entity it shares with which seed."""

from __future__ import annotations

from conftest import open_page
from playwright.sync_api import expect
from ui_seed import KEY

from graphmem.client import GraphmemClient


def test_memory_view_shows_entities(browser, live):
    srv, _ns = live
    api = GraphmemClient(srv.url, api_key=KEY)
    api.add("Audrey: I took my dogs to the agility class at Pawsome Park.", id="ent-1")
    page = open_page(browser, srv, 1400, "#/memory/ent-1")
    try:
        expect(page.locator("#mem-detail h2")).to_have_text("ent-1")
        expect(page.locator("#mem-detail tr[data-field=entities] td")).to_have_text(
            'audrey; pawsome park; dog ("dogs"); agility class; class')
        page.watch.clean()
    finally:
        page.context.close()
        api.delete("ent-1")
