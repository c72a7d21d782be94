"""``[store.sqlite]`` and ``[store.neo4j]``: read, checked once at load, and the flat ``sqlite_*`` /
``neo4j_*`` keys of an older release still honoured with one warning per key and process."""

from __future__ import annotations

import warnings

import pytest

from graphmem.config import ConfigKeyDeprecated, load_settings, store
from graphmem.errors import ConfigError


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test starts as a new process would: no key warned about yet."""
    monkeypatch.setattr(store, "_warned", set())
    for var in ("GRAPHMEM_CONFIG", "GRAPHMEM_NEO4J_URI", "GRAPHMEM_NEO4J_DATABASE", "GRAPHMEM_STORE"):
        monkeypatch.delenv(var, raising=False)


def _write(tmp_path, text: str):
    path = tmp_path / "graphmem.toml"
    path.write_text(text)
    return path


def test_sections_read_from_a_file_without_warning(tmp_path):
    path = _write(tmp_path, '[store.sqlite]\nsynchronous = "normal"\nrow_cache = 7\n'
                            '[store.neo4j]\nuri = "bolt://db:7687"\nread_timeout = 3\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cfg = load_settings(path, use_env=False).store
    assert (cfg.sqlite.synchronous, cfg.sqlite.row_cache) == ("NORMAL", 7)
    assert (cfg.neo4j.uri, cfg.neo4j.read_timeout) == ("bolt://db:7687", 3)
    assert cfg.sqlite.ann_dtype == "f16" and cfg.neo4j.database == "neo4j"     # the rest stays default


def test_flat_keys_in_a_file_still_work_and_warn_once(tmp_path):
    path = _write(tmp_path, '[store]\nsqlite_row_cache = 11\nneo4j_uri = "bolt://old:7687"\n')
    with pytest.warns(ConfigKeyDeprecated) as first:
        cfg = load_settings(path, use_env=False).store
    assert (cfg.sqlite.row_cache, cfg.neo4j.uri) == (11, "bolt://old:7687")
    assert len(first) == 1
    message = str(first[0].message)
    assert "sqlite_row_cache -> [store.sqlite] row_cache" in message
    assert "neo4j_uri -> [store.neo4j] uri" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # the second load of the same keys is silent
        again = load_settings(path, use_env=False).store
    assert again == cfg


def test_env_vars_fill_the_neo4j_section_over_a_flat_file_key(tmp_path, monkeypatch):
    path = _write(tmp_path, '[store]\nneo4j_uri = "bolt://file:7687"\nneo4j_database = "filedb"\n')
    monkeypatch.setenv("GRAPHMEM_CONFIG", str(path))
    monkeypatch.setenv("GRAPHMEM_NEO4J_URI", "bolt://env:7687")
    with pytest.warns(ConfigKeyDeprecated) as seen:
        settings = load_settings()
    assert len(seen) == 1
    assert (settings.store.neo4j.uri, settings.store.neo4j.database) == ("bolt://env:7687", "filedb")
    assert "GRAPHMEM_NEO4J_URI" in settings.env_vars


def test_flat_override_keys_and_attributes_still_work():
    with pytest.warns(ConfigKeyDeprecated):
        cfg = load_settings(overrides={"store": {"sqlite_synchronous": "EXTRA"}}, use_env=False).store
    assert cfg.sqlite.synchronous == "EXTRA"
    with pytest.warns(ConfigKeyDeprecated, match="StoreSettings.neo4j.breaker_cooldown"):
        assert cfg.neo4j_breaker_cooldown == cfg.neo4j.breaker_cooldown
    with pytest.raises(AttributeError):
        _ = cfg.sqlite_no_such_key


def test_a_key_given_both_ways_is_refused(tmp_path):
    path = _write(tmp_path, '[store]\nsqlite_row_cache = 1\n[store.sqlite]\nrow_cache = 2\n')
    with pytest.raises(ConfigError) as err:
        load_settings(path, use_env=False)
    assert err.value.field == "store.sqlite.row_cache"


@pytest.mark.parametrize(("toml", "field"), [
    ('[store.sqlite]\nrow_cache = "many"\n', "store.sqlite.row_cache"),
    ('[store.sqlite]\nsynchronous = "OFF"\n', "store.sqlite.synchronous"),
    ('[store.sqlite]\nann_dtype = "f64"\n', "store.sqlite.ann_dtype"),
    ('[store.sqlite]\nann_matrix_dtype = "i8"\n', "store.sqlite.ann_matrix_dtype"),
    ('[store.sqlite]\nann_overfetch = 0\n', "store.sqlite.ann_overfetch"),
    ('[store.neo4j]\nread_timeout = true\n', "store.neo4j.read_timeout"),
    ('[store.neo4j]\nno_such_key = 1\n', "store.neo4j.no_such_key"),
    ('[store]\nwrite_wait = 0\n', "store.write_wait"),
])
def test_a_bad_value_is_refused_at_load_naming_its_key(tmp_path, toml, field):
    with pytest.raises(ConfigError) as err:
        load_settings(_write(tmp_path, toml), use_env=False)
    assert err.value.field == field


def test_with_keys_replaces_section_and_top_level_keys():
    base = load_settings(use_env=False).store
    cfg = base.with_keys(sqlite_row_cache=0, neo4j_uri="bolt://x:1", write_wait=1.5)
    assert (cfg.sqlite.row_cache, cfg.neo4j.uri, cfg.write_wait) == (0, "bolt://x:1", 1.5)
    assert cfg.sqlite.ann_threshold == base.sqlite.ann_threshold
