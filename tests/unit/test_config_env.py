"""``GRAPHMEM_*`` variables that are not strings: parsed once at load, a bad value refused naming it."""

from __future__ import annotations

import pytest

from graphmem.config import load_settings
from graphmem.errors import ConfigError


@pytest.mark.parametrize(("value", "expected"), [("false", False), ("0", False), ("TRUE", True), ("1", True)])
def test_spin_wait_from_the_environment(monkeypatch, value, expected):
    monkeypatch.delenv("GRAPHMEM_CONFIG", raising=False)
    monkeypatch.setenv("GRAPHMEM_MODEL_SPIN_WAIT", value)
    settings = load_settings()
    assert settings.model.spin_wait is expected
    assert "GRAPHMEM_MODEL_SPIN_WAIT" in settings.env_vars


@pytest.mark.parametrize("value", ["yes please", "2", "off"])
def test_a_spin_wait_that_is_not_a_boolean_is_refused_by_name(monkeypatch, value):
    monkeypatch.setenv("GRAPHMEM_MODEL_SPIN_WAIT", value)
    with pytest.raises(ConfigError, match="GRAPHMEM_MODEL_SPIN_WAIT must be true or false") as raised:
        load_settings()
    assert raised.value.field == "GRAPHMEM_MODEL_SPIN_WAIT"
