"""/ui as files: served from the package with its CSP and no key, only the listed files, the vendored
library the one the npm lock pins (SHA256SUMS), and every file covered by the wheel's package data."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

from api_helpers import KEY_A

from graphmem.api import ui_routes
from tools import ui_vendor

ROOT = Path(__file__).resolve().parents[2]


def test_page_and_assets_are_served_without_a_key_and_only_from_this_server(keyed):
    page = keyed.get("/ui")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'; script-src 'self';")
    html = page.get_data(as_text=True)
    assert not re.search(r'(src|href)="(https?:)?//', html), "no external resources (offline)"
    for name in sorted(ui_routes.FILES - {"index.html"}):
        got = keyed.get(f"/ui/{name}")
        assert got.status_code == 200 and len(got.get_data()) > 100, name
        if name.endswith((".js", ".mjs")):
            assert got.mimetype == "text/javascript", name
            assert not re.search(r'from\s+"(https?:)?//', got.get_data(as_text=True)), name
    slash = keyed.get("/ui/")
    assert slash.status_code == 308 and slash.headers["Location"].endswith("/ui")
    assert keyed.get("/v1/stats").status_code == 401                  # the page's data still needs a key
    assert keyed.get("/v1/stats", headers={"Authorization": f"Bearer {KEY_A}"}).status_code == 200


def test_only_the_listed_files_are_served(client):
    for path in ("/ui/../api/ui_routes.py", "/ui/vendor/SHA256SUMS", "/ui/vendor/LICENSE.cytoscape",
                 "/ui/nope.js", "/ui/%2e%2e/__init__.py"):
        assert client.get(path).status_code == 404, path


def test_vendored_library_matches_the_lock_and_its_sums():
    assert ui_vendor.check() == 0
    version, _integrity = ui_vendor.locked("cytoscape")
    text = (ui_vendor.VENDOR / "cytoscape.esm.min.mjs").read_text()
    assert f'"{version}"' in text
    assert "MIT" in ui_vendor.locked_licence("cytoscape") and (ui_vendor.VENDOR / "LICENSE.cytoscape").is_file()


def test_wheel_package_data_covers_every_served_file():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["graphmem"]
    for name in ui_routes.FILES:
        rel = f"api/ui/{name}"
        assert (ui_routes.UI_DIR / name).is_file(), name
        assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel
