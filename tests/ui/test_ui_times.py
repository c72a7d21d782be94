"""/ui shows a memory's resolved time phrases (its `times`) in the memory view, on each store."""

from __future__ import annotations

from test_ui_browser import browser, page, sign_in  # noqa: F401  (fixtures)
from ui_seed import KEY

from graphmem.client import GraphmemClient


def test_memory_view_shows_resolved_times(page, live):  # noqa: F811
    srv, _ns = live
    api = GraphmemClient(srv.url, api_key=KEY)
    api.add("We moved the weekly sync to Thursdays last week.", id="time-1", created_at="2023-06-09T10:00:00Z")
    sign_in(page)
    page.click("[data-view=memory]")
    page.fill("#mem-id", "time-1")
    page.click("#open-form button")
    page.wait_for_selector("#mem-detail tr[data-field=times]")
    assert page.inner_text("#mem-detail tr[data-field=times] td") == \
        '"last week" = the week before 9 June 2023 (2023-05-29/2023-06-04)'
    page.watch.clean()
