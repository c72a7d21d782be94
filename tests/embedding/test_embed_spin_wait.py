"""``[model] spin_wait = false``: ONNX Runtime's idle workers sleep instead of spinning; the
vectors are the same bit for bit, and the setting is validated like every other key."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.config import load_settings
from graphmem.embedding.embedder import Embedder, FastEmbedder, load_embedder
from graphmem.errors import ConfigError


def test_a_sleeping_session_embeds_the_same_vectors(embedder: Embedder) -> None:
    quiet = load_embedder(spin_wait=False, threads=1)
    assert isinstance(quiet, FastEmbedder)
    options = quiet._model.model.model.get_session_options()  # type: ignore[attr-defined]
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.intra_op_num_threads == 1
    texts = ["the billing service deploys nightly", "who owns the search API?"]
    assert np.array_equal(quiet.embed_documents(texts), embedder.embed_documents(texts))
    assert np.array_equal(quiet.embed_query(texts[1]), embedder.embed_query(texts[1]))


def test_spin_wait_defaults_on_and_must_be_a_boolean() -> None:
    assert load_settings(use_env=False).model.spin_wait is True
    assert load_settings(overrides={"model": {"spin_wait": False}}, use_env=False).model.spin_wait is False
    with pytest.raises(ConfigError, match="spin_wait"):
        load_settings(overrides={"model": {"spin_wait": "no"}}, use_env=False)
