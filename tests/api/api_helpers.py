"""Data and helpers shared by the API tests (a module, so test files can import it)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from werkzeug.exceptions import MethodNotAllowed, NotFound

from graphmem.api import create_app

SEEN: set[tuple[str, str, str]] = set()   # (method, path, status) the tests exercised
KEY_A, KEY_B, KEY_AB = "secret-a-123", "secret-b-456", "secret-ab-789"


def sha(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


MEMORIES = [
    {"id": "deploy-1", "content": "The deploy pipeline runs on GitHub Actions and pushes images to the registry",
     "tags": ["deploy", "ci"], "category": "infra", "source": "MEMORY.md"},
    {"id": "deploy-2", "content": "Staging deploys run nightly from the main branch through GitHub Actions",
     "tags": ["deploy"], "category": "infra", "source": "memory_tool"},
    {"id": "prefs-1", "content": "The user prefers dark mode in every editor and terminal",
     "tags": ["preferences"], "category": "user", "source": "USER.md"},
    {"id": "db-1", "content": "The primary Postgres database is backed up every six hours to object storage",
     "tags": ["database", "backup"], "category": "infra", "source": "memory_tool"},
]


def openapi_path(rule: str) -> str:
    return re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule)


class SpecChecker:
    """Finds the documented response for (method, path, status) and validates the body."""

    def __init__(self, app):
        self.app = app
        self.spec = app.extensions["graphmem"].spec
        self._validators: dict[str, Draft202012Validator] = {}
        self.seen: set[tuple[str, str, str]] = set()

    def validator(self, schema: dict[str, Any]) -> Draft202012Validator:
        key = repr(schema)
        if key not in self._validators:
            root = {**schema, "components": self.spec["components"]}
            Draft202012Validator.check_schema(root)
            self._validators[key] = Draft202012Validator(root)
        return self._validators[key]

    def response_spec(self, method: str, path: str, status: int) -> dict[str, Any]:
        adapter = self.app.url_map.bind("localhost")
        try:
            rule, _ = adapter.match(path, method=method, return_rule=True)
        except NotFound:
            assert status == 404, f"{method} {path}: unmatched route answered {status}"
            return {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        except MethodNotAllowed:
            assert status == 405, f"{method} {path}: wrong method answered {status}"
            return {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        template = openapi_path(rule.rule)
        operation = self.spec["paths"][template][method.lower()]
        responses = operation["responses"]
        key = "default" if status == 500 else str(status)
        assert key in responses, f"{method} {template}: status {status} is not documented"
        self.seen.add((method, template, key))
        SEEN.add((method, template, key))
        return responses[key]

    def check(self, response) -> None:
        req = response.request
        if req.method in ("HEAD", "OPTIONS") or req.path.startswith(("/docs/assets/", "/ui/")):   # static files
            return
        assert response.headers.get("X-Request-ID"), "every response carries X-Request-ID"
        documented = self.response_spec(req.method, req.path, response.status_code)
        content = documented.get("content")
        if not content:
            assert response.get_data() == b"", f"{req.path}: undocumented body"
            return
        media, entry = next(iter(content.items()))
        assert response.mimetype == media, f"{req.path}: {response.mimetype} is not {media}"
        if media == "application/json":
            errors = sorted(self.validator(entry["schema"]).iter_errors(response.get_json()), key=str)
            assert not errors, f"{req.method} {req.path} {response.status_code}: " + "; ".join(
                f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


class ValidatingClient(FlaskClient):
    """A test client whose every response is checked against the OpenAPI document."""

    def open(self, *args: Any, **kwargs: Any):
        response = super().open(*args, **kwargs)
        self.application.extensions["spec_checker"].check(response)
        return response


def make_app(engine, environ: dict[str, str] | None = None):
    app = create_app(engine, environ=environ or {})
    app.testing = True
    app.test_client_class = ValidatingClient
    app.extensions["spec_checker"] = SpecChecker(app)
    return app
