"""The /ui page tests: one live server per store for the whole directory (keyed, one namespace), seeded
through the API once; one headless chromium; pages signed in as a tab that typed its key once."""

from __future__ import annotations

import shutil
import uuid
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, sync_playwright

from graphmem.client import GraphmemClient, GraphmemClientError
from tests.helpers.server import Server
from tests.neo4j_server import server_env
from tests.ui.ui_seed import KEY, SEED


def seed(client: GraphmemClient, attempts: int = 3) -> None:
    """One batch (each Neo4j write costs seconds on a busy box). A cold Neo4j can pass its transaction
    timeout on the first batch: that answers 503 and writes nothing, so the batch is sent again."""
    for attempt in range(attempts):
        try:
            client.add_batch(SEED)
            break
        except GraphmemClientError as exc:
            if exc.status != 503 or attempt == attempts - 1:
                raise
    stored = {m["id"] for m in client.list_memories(limit=500)["memories"]}
    assert stored == {item["id"] for item in SEED}, stored


@pytest.fixture(scope="session", params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def live(request, tmp_path_factory):
    """(server, namespace): the seeded memories in a namespace of their own (Neo4j's database is shared)."""
    tmp = tmp_path_factory.mktemp(f"ui-{request.param}")
    ns = f"ui-{uuid.uuid4().hex[:8]}"
    env = None
    if request.param == "neo4j":
        request.getfixturevalue("neo4j_uri")
        env = server_env(tmp)
    srv = Server(tmp / "data", tmp / "server.log", env_keys=f"ui:{KEY}:{ns}", store=request.param, env=env)
    client = GraphmemClient(srv.url, api_key=KEY)
    seed(client)
    yield srv, ns
    try:
        for memory_id in [m["id"] for m in client.list_memories(limit=500)["memories"]]:
            client.delete(memory_id)
    finally:
        srv.stop()


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


class Watch:
    """Console errors, uncaught exceptions and requests that leave the server, for one page."""

    def __init__(self, page: Page, base: str):
        self.errors: list[str] = []
        self.foreign: list[str] = []
        host = urlparse(base).netloc
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.foreign.append(r.url)
                if urlparse(r.url).scheme != "data" and urlparse(r.url).netloc != host else None)

    def clean(self) -> None:
        assert not self.errors, self.errors
        assert not self.foreign, self.foreign


@pytest.fixture(scope="module")    # a running Playwright holds the loop: gone before the next file
def browser():
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def open_page(browser, srv, width: int, hash_: str = "", signed_in: bool = True):
    """A new tab at ``/ui<hash_>``, ``width`` px wide; ``signed_in``: the tab already holds the key in
    sessionStorage, as after typing it once (the page itself keeps it there)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    if signed_in:
        context.add_init_script(f"sessionStorage.setItem('graphmem.key', '{KEY}')")
    p = context.new_page()
    p.watch = Watch(p, srv.url)           # type: ignore[attr-defined]
    p.goto(f"{srv.url}/ui{hash_}")
    p.wait_for_selector("body[data-ready='1']")
    return p


@pytest.fixture
def page(browser, live):
    """The inspector at 1,400 px, signed in, on its landing list."""
    p = open_page(browser, live[0], 1400)
    p.wait_for_selector("body[data-routed]")
    yield p
    p.context.close()
