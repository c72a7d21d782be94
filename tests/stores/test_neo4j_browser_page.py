"""Neo4j Browser (org.neo4j.client:neo4j-browser from Maven Central, served by the launcher's
companion docker/neo4j-local/browser.py) in a real headless Chromium against the real server:
the URL the launcher prints connects over Bolt/WebSocket with "No authentication" preselected
and nothing typed, plays graphmem's guide, runs the saved neighbourhood
query on a small fixture graph, and the graph view shows the memory, its neighbours and its tags.
A screenshot is saved (GRAPHMEM_SCREENSHOT_DIR, else the test's tmp dir)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from graphmem.stores.neo4j import queries as Q
from tests.neo4j_server import REQUIRE_ENV

pytestmark = pytest.mark.neo4j
LAUNCHER_DIR = Path(__file__).resolve().parents[2] / "docker" / "neo4j-local"


def _module(name: str):
    sys.path.insert(0, str(LAUNCHER_DIR))
    try:
        spec = importlib.util.spec_from_file_location(name, LAUNCHER_DIR / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(LAUNCHER_DIR))


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        message = "no chromium on PATH (make test installs Debian's chromium: make chromium)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def served():
    """The Browser's files and graphmem's guide over HTTP on a free port."""
    launcher, browser = _module("neo4j_local"), _module("browser")
    paths = launcher.Paths()
    server = browser.serve(browser.fetch(paths.m2, paths.cache))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield browser, server.server_address[1]
    server.shutdown()
    server.server_close()


def test_browser_connects_and_shows_a_memory_neighbourhood(graph, served, chromium, neo4j_uri, tmp_path):
    from playwright.sync_api import sync_playwright

    browser_module, port = served
    bolt = urlparse(neo4j_uri)
    query = " ".join(line for line in Q.load("browser/memory_neighbourhood").splitlines()
                     if not line.startswith("//"))
    shots = Path(os.environ.get("GRAPHMEM_SCREENSHOT_DIR") or tmp_path)
    with sync_playwright() as pw:
        app = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = app.new_page(viewport={"width": 1400, "height": 900})
            # the URL `make browser` prints: the form opens on "No authentication" and connects by itself
            # (no field filled, nothing clicked; "Username / Password" would wait for a password)
            printed = browser_module.instructions(port, f"bolt://127.0.0.1:{bolt.port}").splitlines()[0]
            page.goto(printed.removeprefix("Neo4j Browser: "), timeout=120_000)
            page.get_by_text("Connected to Neo4j").wait_for(timeout=120_000)
            # its connect frame says one of two things, depending on which of its own checks answers first;
            # the query below proves the database: it must show this test's own memories
            connected = page.get_by_text(f"You are connected to bolt://localhost:{bolt.port}")
            connected.or_(page.get_by_text("You have a working connection and server auth is disabled")).wait_for(
                timeout=60_000)

            def run(command: str) -> None:
                page.click('[data-testid="activeEditor"]')
                page.keyboard.type(command)
                page.keyboard.press("Enter")

            run(f":play http://localhost:{port}/{browser_module.GUIDE}")
            page.get_by_text("graphmem: saved queries").wait_for(timeout=60_000)
            for command in (f":param namespace => '{graph.ns}'", ":param id => 'a'", ":param min_weight => 0.0",
                            ":param limit => 25", browser_module.CAPTIONS, query):
                run(command)
                page.wait_for_timeout(500)
            page.wait_for_function("document.querySelectorAll('svg g.node').length >= 5", timeout=60_000)
            page.wait_for_timeout(1500)      # let the layout settle for the screenshot
            texts = page.eval_on_selector_all("svg g.node text", "nodes => nodes.map(n => n.textContent)")
            captions = {text.strip() for text in texts}
        finally:
            page.screenshot(path=str(shots / "neo4j-browser.png"))   # on failure too: what the page showed
            app.close()
    # the memory, its neighbours by SHARES_TAG / SAME_CATEGORY / OVERLAPS, and its tags; not "d"/"e"
    assert {"a", "b", "c", "deploy", "prod"} <= captions, captions
    assert not {"d", "e", "misc"} & captions, captions
