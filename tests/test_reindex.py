"""Changing the model of an existing store: a clear refusal, then `graphmem reindex`
(batches, progress, resumable after an interruption), with the real models on real stores."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from graphmem.config import load_settings
from graphmem.embedding.embedder import load_embedder
from graphmem.embedding.models import BGE_SMALL
from graphmem.embedding.prepare import ensure_model
from graphmem.engine import Graphmem
from graphmem.errors import StoreConfigError
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump

TEXTS = ["Deploy the billing service with make release.", "The user prefers uv over pip.",
         "Redis runs version 7 on the cache box.", "Alice owns the payments runbook.",
         "Backups run nightly at 02:00 UTC."]


class Interrupt(Exception):
    pass


@pytest.fixture(scope="module")
def bge():
    ensure_model(model=BGE_SMALL.name)
    return load_embedder(BGE_SMALL.name)


def _settings(tmp_path):
    return load_settings(overrides={"store": {"data_dir": str(tmp_path)}}, use_env=False)


def test_other_model_is_refused_then_reindex_resumes_and_finishes(tmp_path, embedder, bge) -> None:
    settings = _settings(tmp_path)
    first = Graphmem(settings, SQLiteStore(tmp_path, settings.store), embedder)
    ids = [first.add({"content": t, "tags": ["t"]}, "ns").memory.id for t in TEXTS]
    first.add({"content": "Another namespace entirely."}, "other")
    first.close()

    with pytest.raises(StoreConfigError) as err:
        Graphmem(settings, SQLiteStore(tmp_path, settings.store), bge)
    assert "graphmem reindex" in err.value.message and embedder.model_id in err.value.message

    # interrupted after the first batch of 2
    engine = Graphmem(settings, SQLiteStore(tmp_path, settings.store), bge, reindexing=True)
    seen: list[int] = []

    def stop_after_first(n: int) -> None:
        seen.append(n)
        raise Interrupt

    with pytest.raises(Interrupt):
        engine.reindex(batch_size=2, progress=stop_after_first)
    engine.close()
    with pytest.raises(StoreConfigError, match="half re-embedded"):      # neither model may use it now
        Graphmem(settings, SQLiteStore(tmp_path, settings.store), embedder)

    engine = Graphmem(settings, SQLiteStore(tmp_path, settings.store), bge, reindexing=True)
    result = engine.reindex(batch_size=2, progress=seen.append)
    engine.close()
    assert result["resumed"] and result["reindexed"] == 4 and sum(seen) == 6    # 2 before + 4 after

    done = Graphmem(settings, SQLiteStore(tmp_path, settings.store), bge)
    stored = done.store.get_memories("ns", ids)
    want = bge.embed_documents(TEXTS)
    for i, memory_id in enumerate(ids):
        np.testing.assert_allclose(stored[memory_id].embedding, want[i], atol=1e-6)
    assert dump(done.search("which package manager does the user like", "ns"))["results"][0]["id"] == ids[1]
    assert done.store.model_record() == {"model_id": BGE_SMALL.name, "dimension": 384, "reindex": None}
    assert done.reindex()["up_to_date"] is True
    done.close()


def test_reindex_cli_with_progress(tmp_path, embedder, monkeypatch) -> None:
    from graphmem.cli import main

    monkeypatch.delenv("GRAPHMEM_MODEL")      # the config file names the model (env would win over it)

    engine = Graphmem(settings := _settings(tmp_path), SQLiteStore(tmp_path, settings.store), embedder)
    engine.add({"content": TEXTS[0]}, "ns")
    engine.close()
    config = tmp_path / "bge.toml"
    config.write_text(f'[model]\nname = "{BGE_SMALL.name}"\n')
    runner = CliRunner()
    refused = runner.invoke(main, ["--data-dir", str(tmp_path), "--config", str(config), "get", "x", "-n", "ns"])
    assert refused.exit_code != 0 and "graphmem reindex" in refused.output
    base = ["--data-dir", str(tmp_path), "--config", str(config)]
    result = runner.invoke(main, [*base, "reindex", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.strip().splitlines()[-1])["reindexed"] == 1
