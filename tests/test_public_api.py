"""The public surface: every name in ``graphmem.__all__`` imports, and ``graphmem.open`` gives a
working engine on a real embedded store with the real model."""

from __future__ import annotations

import subprocess
import sys

import pytest

import graphmem


def test_every_public_name_imports():
    missing = [name for name in graphmem.__all__ if getattr(graphmem, name, None) is None]
    assert missing == []
    assert set(graphmem.__all__) <= set(dir(graphmem))
    assert graphmem.contract.SearchRequest.__name__ == "SearchRequest"      # the contract module itself


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        graphmem.nope  # noqa: B018


def test_import_is_cheap():
    """``import graphmem`` loads no engine, store or model code until a name is used."""
    code = ("import sys, graphmem; heavy = [m for m in ('graphmem.engine', 'fastembed', 'numpy') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_open_add_search_close(tmp_path):
    with graphmem.open(data_dir=tmp_path / "gm", use_env=False) as gm:
        assert isinstance(gm, graphmem.Graphmem)
        responses = graphmem.contract.responses
        added = gm.add({"id": "backup-rule", "content": "Backups of the ledger database rotate every night",
                        "tags": ["backups"]})
        assert isinstance(added, responses.CreateResult) and (added.status, added.id) == ("created", "backup-rule")
        batch = gm.add_batch([{"id": "deploy", "content": "Deploy billing with the release workflow",
                               "tags": ["billing"]}, {"content": ""}])
        assert isinstance(batch, responses.BatchResponse)
        assert (batch.summary.created, batch.summary.rejected) == (1, 1)
        assert batch.results[1].error is not None and batch.results[1].error.field == "content"
        got = gm.get("default", "deploy")
        assert isinstance(got, responses.Memory) and got.tags == ["billing"]
        assert gm.update("default", "deploy", {"tags": ["billing", "release"]}).tags == ["billing", "release"]
        edge = gm.relate("default", "deploy", "backup-rule",
                         {"source_text": "Deploys wait for the nightly backups.", "quote": "wait for the nightly"})
        assert isinstance(edge, responses.Edge) and edge.type == "RELATED"
        assert {edge.source, edge.target} == {"deploy", "backup-rule"}
        found = gm.search("when do the ledger backups run?", k=2)
        assert isinstance(found, graphmem.contract.responses.SearchResponse)   # what the HTTP client returns
        assert found.results[0].id == "backup-rule"
        assert found.results[0].why is not None and found.results[0].why.direct is not None
        assert isinstance(gm.stats(), graphmem.contract.responses.Stats) and gm.stats().memories == 2
        with pytest.raises(graphmem.NotFoundError):
            gm.get("default", "missing")
        with pytest.raises(graphmem.ValidationError):
            gm.add({"content": ""})
    assert (tmp_path / "gm" / "graphmem.sqlite").exists()


def test_open_takes_overrides_or_settings_not_both(tmp_path):
    settings = graphmem.load_settings(overrides={"store": {"data_dir": str(tmp_path)}}, use_env=False)
    with pytest.raises(TypeError):
        graphmem.open(tmp_path, settings=settings)
    with graphmem.open(settings=settings) as gm:
        assert gm.settings.store.data_dir == str(tmp_path)
    with graphmem.open(tmp_path / "o", overrides={"search": {"vector_weight": 0.7}}, use_env=False) as gm:
        assert gm.settings.search.vector_weight == 0.7
