"""The OpenAPI document: valid 3.1, in step with the routes, and enforced on responses."""

from __future__ import annotations

import re

import pytest
from api_helpers import openapi_path
from openapi_spec_validator import validate

from graphmem.api import create_app


def test_document_is_valid_openapi_31(client):
    spec = client.get("/openapi.json").get_json()
    validate(spec)
    assert spec["openapi"] == "3.1.0"
    for name in ("Memory", "Edge", "SearchRequest", "SearchResponse", "Error", "BatchResponse", "Stats", "Why"):
        assert name in spec["components"]["schemas"]


def test_document_reflects_configured_limits(make_engine):
    engine = make_engine({"limits": {"max_batch": 7, "max_k": 12, "max_recall_candidates": 77,
                                     "max_graph_hops": 1}})
    spec = create_app(engine, environ={}).extensions["graphmem"].spec
    schemas = spec["components"]["schemas"]
    assert schemas["BatchRequest"]["properties"]["memories"]["maxItems"] == 7
    assert schemas["SearchRequest"]["properties"]["k"]["anyOf"][0]["maximum"] == 12
    assert schemas["SearchParams"]["properties"]["recall_candidates"]["anyOf"][0]["maximum"] == 77
    hops = next(p for p in spec["paths"]["/v1/graph"]["get"]["parameters"] if p["name"] == "hops")
    assert hops["schema"]["maximum"] == 1


def test_every_route_is_documented_and_every_operation_routed(app):
    routed = set()
    for rule in app.url_map.iter_rules():
        undocumented = ("static", "ops.docs_assets", "ui.asset", "ui.page_slash", "ui.root")  # files, redirects
        if rule.endpoint in undocumented:
            continue
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routed.add((openapi_path(rule.rule), method.lower()))
    spec = app.extensions["graphmem"].spec
    documented = {(path, method) for path, item in spec["paths"].items() for method in item}
    assert routed == documented


def test_path_parameters_are_declared(app):
    spec = app.extensions["graphmem"].spec
    for path, item in spec["paths"].items():
        for op in item.values():
            declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert set(re.findall(r"{(\w+)}", path)) == declared, path


def test_the_response_checker_rejects_what_the_document_does_not_allow(app, monkeypatch):
    client = app.test_client()
    checker = app.extensions["spec_checker"]
    monkeypatch.setattr("graphmem.api.routes_ops.jsonify", lambda data: app.json.response({"status": "sleepy"}))
    with pytest.raises(AssertionError, match="status"):
        client.get("/healthz")
    monkeypatch.undo()
    assert checker.response_spec("GET", "/healthz", 200)
    with pytest.raises(AssertionError, match="not documented"):
        checker.response_spec("GET", "/healthz", 418)


def test_docs_page_is_swagger_ui_served_offline(client):
    resp = client.get("/docs")
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    html = resp.get_data(as_text=True)
    assert not re.search(r'(src|href)="(https?:)?//', html), "no external resources (offline)"
    assets = re.findall(r'(?:src|href)="(/docs/assets/[^"]+)"', html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    for asset in assets:
        got = client.get(asset)
        assert got.status_code == 200 and len(got.get_data()) > 1000, asset
    assert client.get("/docs/assets/../../etc/passwd").status_code == 404
    assert client.get("/docs/assets/index.html").status_code == 404
