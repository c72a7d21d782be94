"""Errors that carry a machine-readable code and the offending field.

The HTTP layer maps each class to a status code; the CLI prints them. Nothing in
the engine raises bare ``ValueError`` for user input.
"""

from __future__ import annotations


class GraphmemError(Exception):
    """Base error: ``code`` is stable, ``field`` names the offending input (or None)."""

    code = "error"
    status = 500

    def __init__(self, message: str, field: str | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        if code:
            self.code = code

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "field": self.field}


class ValidationError(GraphmemError):
    code = "validation_error"
    status = 422


class NotFoundError(GraphmemError):
    code = "not_found"
    status = 404


class ConflictError(GraphmemError):
    code = "conflict"
    status = 409


class AuthError(GraphmemError):
    """No key, or a key the keyring does not hold (HTTP 401; ``headers`` carries WWW-Authenticate)."""

    code = "unauthorized"
    status = 401

    def __init__(self, message: str, field: str | None = None, code: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message, field=field, code=code)
        self.headers = headers or {}


class ForbiddenError(GraphmemError):
    """A valid key asked for something it may not use, e.g. another namespace (HTTP 403)."""

    code = "forbidden"
    status = 403


class EvidenceRejected(ValidationError):
    """The evidence gate refused an extracted memory or relation."""

    code = "evidence_rejected"


class StoreUnavailable(GraphmemError):
    """The store cannot be reached; callers may retry later (``retry_after`` seconds, when known)."""

    code = "store_unavailable"
    status = 503

    def __init__(self, message: str, field: str | None = None, code: str | None = None,
                 retry_after: int | None = None):
        super().__init__(message, field=field, code=code)
        self.retry_after = retry_after


class StoreConfigError(GraphmemError):
    """The store was opened with settings that contradict what it holds (e.g. model dimension)."""

    code = "store_config_error"
    status = 500


class ConfigError(GraphmemError):
    code = "config_error"
    status = 500
